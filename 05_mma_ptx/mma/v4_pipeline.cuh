/* mma_v4_pipeline - v3 fed by cp.async through a 4-stage ring of shared-memory k-tiles, with
 * bigger block and warp tiles.
 *
 * Rung v4 of chapter 05's mma.sync ladder (part 1; f16 and bf16 in, f32 accumulate and out).
 * Parent: v3_swizzle (v3_swizzle.cuh). What changes, and why it is faster:
 *   - cp.async copies the tiles global -> shared with no round trip through registers
 *     (copy_tile_async, load_k_tile: common/mma_parts.cuh), into a ring of 4 stages: the copies
 *     of k-tile t+3 are in flight while the tensor cores multiply k-tile t, and one barrier per
 *     k-tile replaces two (the ring is drawn in chapter 03's README);
 *   - the block tile grows to 128 x 256 and the warp tile to 64 x 64 (4 x 8 mma tiles: 32 mmas per
 *     8 ldmatrix.x4, against 16 per 6), which cuts the shared-memory reads per mma by a third and
 *     the L2 traffic per flop by a quarter;
 *   - a 1-D grid, one block per tile of C, row by row (block_tile_origin with MMA_V4_GROUP_M = 1).
 * It changes several things at once, so it does not say what each is worth.
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N column-major (ldb), C M x N row-major f32 (ldc); T = __half or __nv_bfloat16. Any
 * M, N, K >= 1, any leading dimension and alignment: chunks outside the matrix are zero-filled
 * (cp.async with 0 source bytes), stores are guarded; rows that are not 16-byte aligned
 * (pointer, ld and K multiples of 8) are copied value by value (correct, slow). The kernel sees A
 * and B as 16-bit words (common/mma_parts.cuh).
 *
 * Tiles: 128 x 256 per block, k-tiles of BK = 32 (swizzled, 64-byte rows), 4 stages of 24 KiB
 * (96 KiB of dynamic shared memory: one block per SM), 8 warps of 64 x 64. C straight from the
 * accumulators (epilogue_direct, mma_tile.cuh).
 *
 * The plain launcher (no harness types; common/ headers and mma_tile.cuh only):
 *   mma_v4_pipeline_gemm<T>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or mma_v4_pipeline_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc) once (the shared-memory
 * opt-in, the vector paths, the grid) and mma_v4_pipeline_run<T>(&plan, alpha, beta, stream) per
 * product. Both return cudaSuccess, cudaErrorInvalidValue for sizes below 1
 * (mma_v4_pipeline_unsupported says why), cudaErrorNotSupported for a GPU with less shared
 * memory per block than the ring (nothing is launched), or the failed call's error.
 *
 * Requires sm_80 (cp.async, bf16 mma), CUDA 12.x or 13.x. */
#ifndef MMA_V4_PIPELINE_CUH
#define MMA_V4_PIPELINE_CUH

#include "mma_tile.cuh"

/*                      BM   BN  BK  WARPS_M WARPS_N STAGES SWIZZLE */
typedef gemm_config<128, 256, 32, 2, 4, 4, true> mma_v4_config;
constexpr int MMA_V4_GROUP_M = 1; /* blocks row by row */

/* The ring: k-tile t in stage t % STAGES, one barrier per k-tile. K, lda, ldb in 16-bit words. */
template <class T>
__global__ void __launch_bounds__(mma_v4_config::THREADS, 1)
    mma_v4_pipeline_kernel(int M, int N, int K, const uint16_t *__restrict__ A, long lda,
                           const uint16_t *__restrict__ B, long ldb, float *__restrict__ C,
                           long ldc, float alpha, float beta, mma_vec_flags vec)
{
    typedef mma_v4_config Cfg;
    static_assert(Cfg::STAGES >= 2, "a pipeline needs at least two stages");
    extern __shared__ __align__(128) unsigned char smem[];
    const uint32_t smem_base = smem_u32(smem);
    const int warp = threadIdx.x / 32;
    const int warp_m0 = warp / Cfg::WARPS_N * Cfg::WARP_M,
              warp_n0 = warp % Cfg::WARPS_N * Cfg::WARP_N;
    int block_m, block_n;
    block_tile_origin<Cfg, MMA_V4_GROUP_M>(M, N, &block_m, &block_n);
    const tile_copy<Cfg, Cfg::BM> copy_a(A, lda, block_m);
    const tile_copy<Cfg, Cfg::BN> copy_b(B, ldb, block_n);
    const int k_tiles = (K + Cfg::BK - 1) / Cfg::BK;
    uint32_t a_off[Cfg::KSTEPS], b_off[Cfg::KSTEPS];
#pragma unroll
    for (int ks = 0; ks < Cfg::KSTEPS; ks++) {
        a_off[ks] = a_frag_lane_offset<typename Cfg::Tile>(ks);
        b_off[ks] = b_frag_lane_offset<typename Cfg::Tile>(ks);
    }
    float acc[Cfg::MT][Cfg::NT][4] = {};

    /* Prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each (empty groups past the end
     * keep the count that wait_group relies on). */
#pragma unroll
    for (int t = 0; t < Cfg::STAGES - 1; t++) {
        if (t < k_tiles) load_k_tile<Cfg>(smem, copy_a, copy_b, A, lda, B, ldb, M, N, K, vec, t);
        cp_async_commit_group();
    }
    for (int t = 0; t < k_tiles; t++) {
        /* k-tile t has landed once at most STAGES-2 younger groups are pending; the barrier makes
         * every thread's copies visible and says that all warps are done with k-tile t-1, whose
         * stage is refilled next */
        cp_async_wait_group<Cfg::STAGES - 2>();
        __syncthreads();
        if (t + Cfg::STAGES - 1 < k_tiles)
            load_k_tile<Cfg>(smem, copy_a, copy_b, A, lda, B, ldb, M, N, K, vec,
                             t + Cfg::STAGES - 1);
        cp_async_commit_group();
        const uint32_t sA = smem_base + (t % Cfg::STAGES) * Cfg::STAGE_BYTES,
                       sB = sA + Cfg::A_BYTES;
#pragma unroll
        for (int ks = 0; ks < Cfg::KSTEPS; ks++) {
            uint32_t a[Cfg::MT][4], b[Cfg::NT][2];
            load_frags_ldmatrix<Cfg>(a, b, sA, sB, warp_m0, warp_n0, a_off[ks], b_off[ks]);
            mma_step<T, Cfg>(acc, a, b);
        }
    }
    cp_async_wait_group<0>(); /* only empty groups are left; leave none behind */
    epilogue_direct<Cfg>(acc, C, ldc, block_m + warp_m0, block_n + warp_n0, M, N, alpha, beta,
                         vec.c2);
}

/* ---- the host side ---------------------------------------------------------------------------- */
/* What prepare() works out once: the problem in 16-bit words, the vector paths, the grid */
typedef struct {
    int M, N, K; /* K in 16-bit words */
    const uint16_t *A, *B;
    long lda, ldb; /* in 16-bit words */
    float *C;
    long ldc;
    mma_vec_flags vec; /* which operands move as vectors (mma_vector_paths) */
    unsigned grid;     /* one block per tile of C */
} mma_v4_pipeline_plan;

/* NULL when the kernel can take the problem, else why not */
template <class T>
static const char *mma_v4_pipeline_unsupported(int M, int N, int K, const T *A, long lda,
                                               const T *B, long ldb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    return NULL;
}

template <class T>
static cudaError_t mma_v4_pipeline_prepare(mma_v4_pipeline_plan *plan, int M, int N, int K,
                                           const T *A, long lda, const T *B, long ldb, float *C,
                                           long ldc)
{
    typedef mma_v4_config Cfg;
    constexpr int W = words_per_elem<T>(); /* 1: a half is one 16-bit word */
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    const cudaError_t e = smem_optin((const void *)mma_v4_pipeline_kernel<T>, Cfg::SMEM_BYTES);
    if (e != cudaSuccess) return e;
    plan->M = M, plan->N = N, plan->K = W * K;
    plan->A = (const uint16_t *)A, plan->lda = W * lda;
    plan->B = (const uint16_t *)B, plan->ldb = W * ldb;
    plan->C = C, plan->ldc = ldc;
    plan->vec = mma_vector_paths(A, lda, B, ldb, K, sizeof(T), C, ldc);
    plan->grid = tile_count(M, N, Cfg::BM, Cfg::BN);
    return cudaSuccess;
}

template <class T>
static cudaError_t mma_v4_pipeline_run(const mma_v4_pipeline_plan *p, float alpha, float beta,
                                       cudaStream_t stream)
{
    typedef mma_v4_config Cfg;
    mma_v4_pipeline_kernel<T><<<p->grid, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    return cudaGetLastError();
}

template <class T>
static cudaError_t mma_v4_pipeline_gemm(int M, int N, int K, const T *A, long lda, const T *B,
                                        long ldb, float *C, long ldc, float alpha, float beta,
                                        cudaStream_t stream)
{
    mma_v4_pipeline_plan plan;
    const cudaError_t e = mma_v4_pipeline_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? mma_v4_pipeline_run<T>(&plan, alpha, beta, stream) : e;
}

#endif /* MMA_V4_PIPELINE_CUH */
