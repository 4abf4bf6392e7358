/* tf32_v3_pipeline - v2 fed by cp.async: a 3-stage ring of k-tiles in flight under the math, one
 * barrier per k-tile, a 128x128 block tile of 64x32 warp tiles.
 *
 * Rung v3 of chapter 04's WMMA TF32 ladder (f32 in memory, multiplied as TF32, f32 accumulate
 * and out).
 * Parent: v2_smem (v2_smem.cuh). What changes: cp.async (sm_80) copies global -> shared without
 * registers, and a 3-stage ring keeps k-tiles t+1 and t+2 in flight while the tensor cores work
 * on tile t: one barrier per k-tile instead of two (the barrier that makes k-tile t visible also
 * says that every warp is done with k-tile t-1, whose stage is refilled next), and the loads no
 * longer stall the mmas. The block tile grows to 128x128 and the warp tile to 64x32 (4x2
 * fragments), so a fragment load feeds more mmas; k-tiles are 16 floats deep (64-byte rows,
 * chapter 03's 32 halves). Each thread rounds its own chunks of a stage to TF32 once they have
 * landed (cp_async_wait_group), before the barrier that publishes the stage. The grid is 1-D,
 * one block per tile of C, in row order (block_tile_coords, common/gemm_tiles.cuh). What limits
 * it: every k-step still loads its fragments and then multiplies them (NOTES.md has the
 * measurements and what limits the ladder).
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N row-major (ldb), C M x N row-major (ldc), all f32. Any M, N, K >= 1, any leading
 * dimension and alignment: chunks outside the matrix are zero-filled (cp.async with 0 source
 * bytes), the epilogue stores only elements inside C, and rows that are not 16-byte aligned are
 * copied element by element.
 *
 * Tiles: 128 x 128 per block, k-tiles of 16, 8 warps (2 x 4) of 64 x 32 (4 x 2 fragments), 3
 * stages: 55.5 KiB of dynamic shared memory and at most 128 registers a thread (the launch
 * bound), so two blocks share an SM of sm_80 or sm_90. Within 99 KiB, the most a block may have
 * on sm_86 and sm_89 (a static_assert).
 *
 * The plain launcher (no harness types; this folder's wmma_tf32_tiles.cuh and common/ headers
 * only):
 *   tf32_v3_pipeline_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or tf32_v3_pipeline_prepare(&plan, ...) once (the shared-memory opt-in, the vector paths, the
 * grid) and tf32_v3_pipeline_run(&plan, alpha, beta, stream) per product. Both return
 * cudaSuccess, cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a GPU it cannot
 * run on (tf32_v3_pipeline_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_80 (TF32 WMMA, cp.async), CUDA 12.x or 13.x. */
#ifndef TF32_V3_PIPELINE_CUH
#define TF32_V3_PIPELINE_CUH

#include "wmma_tf32_tiles.cuh"

/*      tile_config<BLOCK_M, BLOCK_N, BLOCK_K, WARPS_M, WARPS_N, STAGES, MIN_BLOCKS> */
typedef tile_config<128, 128, 16, 2, 4, 3, 2> tf32_v3_config; /* 55.5 KiB */
static_assert(tf32_v3_config::SMEM_BYTES <= 99 * 1024,
              "the block fits the smallest shared memory of an sm_80+ GPU");
constexpr int TF32_V3_GROUP_M = 1; /* the tiles of C in row order */

static __global__ void __launch_bounds__(tf32_v3_config::THREADS, tf32_v3_config::MIN_BLOCKS)
    tf32_v3_pipeline_kernel(int M, int N, int K, const float *__restrict__ A, long lda,
                            const float *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                            float alpha, float beta, vec_flags vec)
{
    typedef tf32_v3_config Cfg;
    static_assert(Cfg::STAGES >= 2, "a pipeline needs at least two stages");
    extern __shared__ __align__(128) unsigned char smem[];
    float *sA = (float *)smem, *sB = sA + Cfg::STAGES * Cfg::A_STAGE;
    const int warp = threadIdx.x / 32;
    const int warp_m = warp / Cfg::WARPS_N, warp_n = warp % Cfg::WARPS_N;
    int tm, tn;
    block_tile_coords<TF32_V3_GROUP_M>((M + Cfg::BLOCK_M - 1) / Cfg::BLOCK_M,
                                       (N + Cfg::BLOCK_N - 1) / Cfg::BLOCK_N, &tm, &tn);
    const int block_m = tm * Cfg::BLOCK_M, block_n = tn * Cfg::BLOCK_N;
    const int k_tiles = (K + Cfg::BLOCK_K - 1) / Cfg::BLOCK_K;

    acc_fragment acc[Cfg::FRAG_M][Cfg::FRAG_N];
    zero_accumulators<Cfg>(acc);

    /* Starts the copies of k-tile t of A and B into its stage of the ring: stage s holds k-tile t
     * when t % STAGES == s. */
    auto load_stage = [&](int t) {
        const int s = t % Cfg::STAGES;
        load_tile_async<float, Cfg::BLOCK_M, Cfg::BLOCK_K, Cfg::THREADS, Cfg::A_ROW>(
            sA + s * Cfg::A_STAGE, A, lda, block_m, t * Cfg::BLOCK_K, M, K, vec.a);
        load_tile_async<float, Cfg::BLOCK_K, Cfg::BLOCK_N, Cfg::THREADS, Cfg::B_ROW>(
            sB + s * Cfg::B_STAGE, B, ldb, t * Cfg::BLOCK_K, block_n, K, N, vec.b);
    };
    /* Prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each (empty groups past the
     * end keep the count that wait_group relies on). */
#pragma unroll
    for (int t = 0; t < Cfg::STAGES - 1; t++) {
        if (t < k_tiles) load_stage(t);
        cp_async_commit_group();
    }
    for (int t = 0; t < k_tiles; t++) {
        /* k-tile t has landed once at most STAGES-2 younger groups are pending; this thread
         * rounds its own chunks of it, and the barrier makes every thread's rounded chunks
         * visible, and tells everyone that all warps are done with k-tile t-1, whose stage is
         * refilled next. */
        cp_async_wait_group<Cfg::STAGES - 2>();
        round_stage<Cfg>(sA + t % Cfg::STAGES * Cfg::A_STAGE, sB + t % Cfg::STAGES * Cfg::B_STAGE);
        __syncthreads();
        if (t + Cfg::STAGES - 1 < k_tiles) load_stage(t + Cfg::STAGES - 1);
        cp_async_commit_group();
        const int s = t % Cfg::STAGES;
        warp_tile_mma<Cfg>(acc, sA + s * Cfg::A_STAGE, sB + s * Cfg::B_STAGE, warp_m, warp_n);
    }
    cp_async_wait_group<0>();
    __syncthreads(); /* the operand buffers become the epilogue's scratch */
    warp_tile_store<Cfg>(acc, smem, C, ldc, block_m + warp_m * Cfg::WARP_M,
                         block_n + warp_n * Cfg::WARP_N, M, N, alpha, beta, vec.c);
}

/* ---- the host side --------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
    const float *A, *B;
    long lda, ldb;
    float *C;
    long ldc;
    vec_flags vec; /* which operands may move in 16-byte vectors */
    unsigned grid; /* one block per tile of C */
} tf32_v3_pipeline_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
static inline const char *tf32_v3_pipeline_unsupported(int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (!smem_fits(tf32_v3_config::SMEM_BYTES))
        return "the block tile needs more shared memory than this GPU has";
    return NULL;
}

static inline cudaError_t tf32_v3_pipeline_prepare(tf32_v3_pipeline_plan *plan, int M, int N, int K,
                                                   const float *A, long lda, const float *B,
                                                   long ldb, float *C, long ldc)
{
    typedef tf32_v3_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    const cudaError_t e = smem_optin((const void *)tf32_v3_pipeline_kernel, Cfg::SMEM_BYTES);
    if (e != cudaSuccess) return e;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->vec = f32_vec_flags(N, K, A, lda, B, ldb, C, ldc);
    plan->grid = tile_count(M, N, Cfg::BLOCK_M, Cfg::BLOCK_N);
    return cudaSuccess;
}

static inline cudaError_t tf32_v3_pipeline_run(const tf32_v3_pipeline_plan *p, float alpha,
                                               float beta, cudaStream_t stream)
{
    typedef tf32_v3_config Cfg;
    tf32_v3_pipeline_kernel<<<p->grid, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    return cudaGetLastError();
}

static inline cudaError_t tf32_v3_pipeline_gemm(int M, int N, int K, const float *A, long lda,
                                                const float *B, long ldb, float *C, long ldc,
                                                float alpha, float beta, cudaStream_t stream)
{
    tf32_v3_pipeline_plan plan;
    const cudaError_t e = tf32_v3_pipeline_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? tf32_v3_pipeline_run(&plan, alpha, beta, stream) : e;
}

#endif /* TF32_V3_PIPELINE_CUH */
