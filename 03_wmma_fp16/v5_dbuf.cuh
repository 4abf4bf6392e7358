/* wmma_v5_dbuf - software pipelining inside the warp: two sets of fragments in registers, a
 * 64x64 warp tile in a 128x256 block tile, 5 stages, blocks launched in groups of 8 block-rows.
 *
 * Rung v5 of chapter 03's WMMA ladder (f16 in, f32 accumulate and out), its fastest.
 * Parent: v4_pipeline (v4_pipeline.cuh). What changes: in v4 every k-step loads its fragments and
 * then multiplies them: the mmas wait for the ldmatrix results (~30 cycles) at every step, and at
 * every k-tile the warps first meet at the barrier. Here each warp holds two sets of fragments:
 * while the tensor cores multiply set `cur`, the loads for the next k-step fill set `nxt`. The
 * barrier that makes k-tile t+1 visible moves into k-tile t, before its last k-step, so even the
 * first loads of t+1 overlap the last mmas of t. Two fragment sets cost registers (64 for a 64x64
 * warp tile), so the warp tile must be large enough that its mmas outnumber the loads: 64x64
 * (4x4 fragments, 16 mmas per 8 loads), in a 128x256 block tile (less L2 traffic per flop too),
 * 5 stages, and blocks are launched in groups of 8 block-rows so that neighbours share tiles in
 * L2 (block_tile_coords, common/gemm_tiles.cuh).
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N row-major (ldb), C M x N row-major f32 (ldc), A and B f16. Any M, N, K >= 1, any leading
 * dimension and alignment: chunks outside the matrix are zero-filled (cp.async with 0 source
 * bytes), rows that are not 16-byte aligned are copied element by element.
 *
 * Tiles: 128 x 256 per block, k-tiles of 32, 8 warps (2 x 4) of 64 x 64 (4 x 4 fragments). The
 * ring has 5 stages (132.5 KiB of shared memory per block); a GPU that allows only 99 KiB per
 * block (sm_86, sm_89, sm_120) gets the same kernel with 3 stages (79.5 KiB), the fewest its ring
 * indexing accepts (the static_assert in the kernel; more stages are a speed choice).
 *
 * The plain launcher (no harness types; this folder's wmma_tiles.cuh and common/ headers only):
 *   wmma_v5_dbuf_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or wmma_v5_dbuf_prepare(&plan, ...) once (the ring's depth for this GPU, the shared-memory
 * opt-in, the vector paths, the grid) and wmma_v5_dbuf_run(&plan, alpha, beta, stream) per
 * product; wmma_v5_dbuf_prepare_stages(&plan, 5 or 3, ...) is prepare with the depth given instead
 * of chosen. They return cudaSuccess, cudaErrorInvalidValue for sizes below 1 (or stages other
 * than 5 and 3), cudaErrorNotSupported for a GPU it cannot run on (wmma_v5_dbuf_unsupported says
 * why; nothing is launched; prepare_stages(5) on a GPU with less than 132.5 KiB per block), or
 * the failed call's error.
 *
 * Requires sm_80 (cp.async), CUDA 12.x or 13.x. */
#ifndef WMMA_V5_DBUF_CUH
#define WMMA_V5_DBUF_CUH

#include "wmma_tiles.cuh"

/*      tile_config<BLOCK_M, BLOCK_N, BLOCK_K, WARPS_M, WARPS_N, STAGES> */
typedef tile_config<128, 256, 32, 2, 4, 5> wmma_v5_config;       /* 132.5 KiB */
typedef tile_config<128, 256, 32, 2, 4, 3> wmma_v5_small_config; /* 79.5 KiB: 99 KiB GPUs */
constexpr int WMMA_V5_GROUP_M = 8; /* blocks in groups of 8 block-rows */

template <class Cfg>
__global__ void __launch_bounds__(Cfg::THREADS)
    wmma_v5_dbuf_kernel(int M, int N, int K, const half *__restrict__ A, long lda,
                        const half *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                        float alpha, float beta, vec_flags vec)
{
    static_assert(Cfg::STAGES >= 3, "loading k-tile t+1 while t is read needs three stages");
    constexpr int KSTEPS = Cfg::BLOCK_K / WMMA_K;
    static_assert(KSTEPS % 2 == 0, "fragment buffers alternate within and across k-tiles");
    extern __shared__ __align__(128) unsigned char smem[];
    half *sA = (half *)smem, *sB = sA + Cfg::STAGES * Cfg::A_STAGE;
    const int warp = threadIdx.x / 32;
    const int warp_m = warp / Cfg::WARPS_N, warp_n = warp % Cfg::WARPS_N;
    int tm, tn;
    block_tile_coords<WMMA_V5_GROUP_M>((M + Cfg::BLOCK_M - 1) / Cfg::BLOCK_M,
                                       (N + Cfg::BLOCK_N - 1) / Cfg::BLOCK_N, &tm, &tn);
    const int block_m = tm * Cfg::BLOCK_M, block_n = tn * Cfg::BLOCK_N;
    const int k_tiles = (K + Cfg::BLOCK_K - 1) / Cfg::BLOCK_K;

    acc_fragment acc[Cfg::FRAG_M][Cfg::FRAG_N];
    zero_accumulators<Cfg>(acc);
    a_fragment a[2][Cfg::FRAG_M]; /* two sets: one being multiplied, one being loaded */
    b_fragment b[2][Cfg::FRAG_N];

    /* Starts the copies of k-tile t of A and B into its stage of the ring: stage s holds k-tile t
     * when t % STAGES == s. */
    auto load_stage = [&](int t) {
        const int s = t % Cfg::STAGES;
        load_tile_async<half, Cfg::BLOCK_M, Cfg::BLOCK_K, Cfg::THREADS, Cfg::A_ROW>(
            sA + s * Cfg::A_STAGE, A, lda, block_m, t * Cfg::BLOCK_K, M, K, vec.a);
        load_tile_async<half, Cfg::BLOCK_K, Cfg::BLOCK_N, Cfg::THREADS, Cfg::B_ROW>(
            sB + s * Cfg::B_STAGE, B, ldb, t * Cfg::BLOCK_K, block_n, K, N, vec.b);
    };
    /* Prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each (empty groups past the
     * end keep the count that wait_group relies on); then the fragments of k-tile 0's first
     * k-step. */
#pragma unroll
    for (int t = 0; t < Cfg::STAGES - 1; t++) {
        if (t < k_tiles) load_stage(t);
        cp_async_commit_group();
    }
    cp_async_wait_group<Cfg::STAGES - 2>();
    __syncthreads();
    load_fragments<Cfg>(a[0], b[0], sA, sB, warp_m, warp_n, 0);

    for (int t = 0; t < k_tiles; t++) {
        const int s = t % Cfg::STAGES;
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ks++) {
            const int cur = ks % 2, nxt = 1 - cur;
            if (ks == KSTEPS - 1) {
                /* groups committed: STAGES-1 + t; k-tile t+1 is group t+1 */
                cp_async_wait_group<Cfg::STAGES - 3>();
                __syncthreads();
                if (t + Cfg::STAGES - 1 < k_tiles) load_stage(t + Cfg::STAGES - 1);
                cp_async_commit_group();
                if (t + 1 < k_tiles) {
                    const int s1 = (t + 1) % Cfg::STAGES;
                    load_fragments<Cfg>(a[nxt], b[nxt], sA + s1 * Cfg::A_STAGE,
                                        sB + s1 * Cfg::B_STAGE, warp_m, warp_n, 0);
                }
            } else {
                load_fragments<Cfg>(a[nxt], b[nxt], sA + s * Cfg::A_STAGE, sB + s * Cfg::B_STAGE,
                                    warp_m, warp_n, (ks + 1) * WMMA_K);
            }
            warp_tile_mma_step<Cfg>(acc, a[cur], b[cur]);
        }
    }
    cp_async_wait_group<0>();
    __syncthreads(); /* the operand buffers become the epilogue's scratch */
    warp_tile_store<Cfg>(acc, smem, C, ldc, block_m + warp_m * Cfg::WARP_M,
                         block_n + warp_n * Cfg::WARP_N, M, N, alpha, beta, vec.c);
}

/* ---- the host side --------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
    const half *A, *B;
    long lda, ldb;
    float *C;
    long ldc;
    vec_flags vec; /* which operands may move in 16-byte vectors */
    int stages;    /* the ring's depth: 5 (wmma_v5_config) or 3 (wmma_v5_small_config) */
    unsigned grid; /* one block per tile of C */
} wmma_v5_dbuf_plan;

/* NULL when the kernel can take the problem on this GPU (with 3 stages at least), else why not */
static inline const char *wmma_v5_dbuf_unsupported(int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (!smem_fits(wmma_v5_small_config::SMEM_BYTES))
        return "the block tile needs more shared memory than this GPU has";
    return NULL;
}

/* prepare() with the ring's depth given (5 or 3 stages) instead of chosen */
static inline cudaError_t wmma_v5_dbuf_prepare_stages(wmma_v5_dbuf_plan *plan, int stages, int M,
                                                      int N, int K, const half *A, long lda,
                                                      const half *B, long ldb, float *C, long ldc)
{
    typedef wmma_v5_config Cfg; /* the tile is the same at both depths */
    if (M < 1 || N < 1 || K < 1 || (stages != 5 && stages != 3)) return cudaErrorInvalidValue;
    const cudaError_t e = stages == 5
                              ? smem_optin((const void *)wmma_v5_dbuf_kernel<wmma_v5_config>,
                                           wmma_v5_config::SMEM_BYTES)
                              : smem_optin((const void *)wmma_v5_dbuf_kernel<wmma_v5_small_config>,
                                           wmma_v5_small_config::SMEM_BYTES);
    if (e != cudaSuccess) return e;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->vec = wmma_vec_flags(N, K, A, lda, B, ldb, C, ldc);
    plan->stages = stages;
    plan->grid = tile_count(M, N, Cfg::BLOCK_M, Cfg::BLOCK_N);
    return cudaSuccess;
}

/* 5 stages where the GPU allows a block 132.5 KiB of shared memory, else 3; then prepare_stages */
static inline cudaError_t wmma_v5_dbuf_prepare(wmma_v5_dbuf_plan *plan, int M, int N, int K,
                                               const half *A, long lda, const half *B, long ldb,
                                               float *C, long ldc)
{
    const int stages = smem_fits(wmma_v5_config::SMEM_BYTES) ? 5 : 3;
    return wmma_v5_dbuf_prepare_stages(plan, stages, M, N, K, A, lda, B, ldb, C, ldc);
}

static inline cudaError_t wmma_v5_dbuf_run(const wmma_v5_dbuf_plan *p, float alpha, float beta,
                                           cudaStream_t stream)
{
    if (p->stages == 3) {
        typedef wmma_v5_small_config Cfg;
        wmma_v5_dbuf_kernel<Cfg><<<p->grid, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
            p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    } else {
        typedef wmma_v5_config Cfg;
        wmma_v5_dbuf_kernel<Cfg><<<p->grid, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
            p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    }
    return cudaGetLastError();
}

static inline cudaError_t wmma_v5_dbuf_gemm(int M, int N, int K, const half *A, long lda,
                                            const half *B, long ldb, float *C, long ldc,
                                            float alpha, float beta, cudaStream_t stream)
{
    wmma_v5_dbuf_plan plan;
    const cudaError_t e = wmma_v5_dbuf_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? wmma_v5_dbuf_run(&plan, alpha, beta, stream) : e;
}

#endif /* WMMA_V5_DBUF_CUH */
