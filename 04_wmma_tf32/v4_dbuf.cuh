/* tf32_v4_dbuf - software pipelining inside the warp: two sets of fragments in registers, a 64x64
 * warp tile in a 128x256 block tile, 3 stages, blocks launched in groups of 8 block-rows.
 *
 * Rung v4 of chapter 04's WMMA TF32 ladder (f32 in memory, multiplied as TF32, f32 accumulate
 * and out), its fastest.
 * Parent: v3_pipeline (v3_pipeline.cuh). What changes, as chapter 03's v5_dbuf: in v3 every
 * k-step loads its fragments and then multiplies them, so the mmas wait for the shared loads at
 * every step, and at every k-tile the warps first meet at the barrier. Here each warp holds two
 * sets of fragments: while the tensor cores multiply set `cur`, the loads for the next k-step
 * fill set `nxt`. The barrier that makes k-tile t+1 visible moves into k-tile t, before its last
 * k-step, so even the first loads of t+1 overlap the last mmas of t. Stage t+1 is rounded to
 * TF32 in the last k-step of t, before that early barrier (on sm_90 ptxas interleaves it with
 * mmas); stage 0 before the loop. The early barrier's place is a speed choice; correctness needs
 * only that a stage is not refilled before every warp has read it (chapter 03's README draws the
 * timeline). Two fragment sets cost registers, so the warp tile must be large enough that its
 * mmas outnumber the loads: 64x64 (4x4 fragments, 16 mma_syncs per 8 fragment loads), in a
 * 128x256 block tile, and blocks are launched in groups of 8 block-rows so that neighbours share
 * tiles in L2 (block_tile_coords, common/gemm_tiles.cuh). Nearly every register a thread may
 * have: one block (8 warps) per SM, to v3's two.
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N row-major (ldb), C M x N row-major (ldc), all f32. Any M, N, K >= 1, any leading
 * dimension and alignment: chunks outside the matrix are zero-filled (cp.async with 0 source
 * bytes), the epilogue stores only elements inside C, and rows that are not 16-byte aligned are
 * copied element by element.
 *
 * Tiles: 128 x 256 per block, k-tiles of 16 (2 k-steps of 8), 8 warps (2 x 4) of 64 x 64 (4 x 4
 * fragments), 3 stages, the fewest its ring indexing accepts (the static_assert in the kernel):
 * 79.5 KiB of dynamic shared memory, within the 99 KiB of sm_86 and sm_89 (a static_assert).
 *
 * The plain launcher (no harness types; this folder's wmma_tf32_tiles.cuh and common/ headers
 * only):
 *   tf32_v4_dbuf_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or tf32_v4_dbuf_prepare(&plan, ...) once (the shared-memory opt-in, the vector paths, the grid)
 * and tf32_v4_dbuf_run(&plan, alpha, beta, stream) per product. Both return cudaSuccess,
 * cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a GPU it cannot run on
 * (tf32_v4_dbuf_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_80 (TF32 WMMA, cp.async), CUDA 12.x or 13.x. */
#ifndef TF32_V4_DBUF_CUH
#define TF32_V4_DBUF_CUH

#include "wmma_tf32_tiles.cuh"

/*      tile_config<BLOCK_M, BLOCK_N, BLOCK_K, WARPS_M, WARPS_N, STAGES, MIN_BLOCKS> */
typedef tile_config<128, 256, 16, 2, 4, 3, 1> tf32_v4_config; /* 79.5 KiB */
static_assert(tf32_v4_config::SMEM_BYTES <= 99 * 1024,
              "the block fits the smallest shared memory of an sm_80+ GPU");
constexpr int TF32_V4_GROUP_M = 8; /* blocks in groups of 8 block-rows */

static __global__ void __launch_bounds__(tf32_v4_config::THREADS, tf32_v4_config::MIN_BLOCKS)
    tf32_v4_dbuf_kernel(int M, int N, int K, const float *__restrict__ A, long lda,
                        const float *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                        float alpha, float beta, vec_flags vec)
{
    typedef tf32_v4_config Cfg;
    static_assert(Cfg::STAGES >= 3, "loading k-tile t+1 while t is read needs three stages");
    static_assert(Cfg::KSTEPS % 2 == 0, "fragment buffers alternate within and across k-tiles");
    extern __shared__ __align__(128) unsigned char smem[];
    float *sA = (float *)smem, *sB = sA + Cfg::STAGES * Cfg::A_STAGE;
    const int warp = threadIdx.x / 32;
    const int warp_m = warp / Cfg::WARPS_N, warp_n = warp % Cfg::WARPS_N;
    int tm, tn;
    block_tile_coords<TF32_V4_GROUP_M>((M + Cfg::BLOCK_M - 1) / Cfg::BLOCK_M,
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
        load_tile_async<float, Cfg::BLOCK_M, Cfg::BLOCK_K, Cfg::THREADS, Cfg::A_ROW>(
            sA + s * Cfg::A_STAGE, A, lda, block_m, t * Cfg::BLOCK_K, M, K, vec.a);
        load_tile_async<float, Cfg::BLOCK_K, Cfg::BLOCK_N, Cfg::THREADS, Cfg::B_ROW>(
            sB + s * Cfg::B_STAGE, B, ldb, t * Cfg::BLOCK_K, block_n, K, N, vec.b);
    };
    /* Prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each (empty groups past the
     * end keep the count that wait_group relies on); then k-tile 0 rounded and published, and
     * the fragments of its first k-step. */
#pragma unroll
    for (int t = 0; t < Cfg::STAGES - 1; t++) {
        if (t < k_tiles) load_stage(t);
        cp_async_commit_group();
    }
    cp_async_wait_group<Cfg::STAGES - 2>();
    round_stage<Cfg>(sA, sB);
    __syncthreads();
    load_fragments<Cfg>(a[0], b[0], sA, sB, warp_m, warp_n, 0);

    for (int t = 0; t < k_tiles; t++) {
        const int s = t % Cfg::STAGES;
#pragma unroll
        for (int ks = 0; ks < Cfg::KSTEPS; ks++) {
            const int cur = ks % 2, nxt = 1 - cur;
            if (ks == Cfg::KSTEPS - 1) {
                /* groups committed: STAGES-1 + t; k-tile t+1 is group t+1 */
                cp_async_wait_group<Cfg::STAGES - 3>();
                const int s1 = (t + 1) % Cfg::STAGES;
                float *sA1 = sA + s1 * Cfg::A_STAGE, *sB1 = sB + s1 * Cfg::B_STAGE;
                if (t + 1 < k_tiles) round_stage<Cfg>(sA1, sB1);
                __syncthreads();
                if (t + Cfg::STAGES - 1 < k_tiles) load_stage(t + Cfg::STAGES - 1);
                cp_async_commit_group();
                if (t + 1 < k_tiles)
                    load_fragments<Cfg>(a[nxt], b[nxt], sA1, sB1, warp_m, warp_n, 0);
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
    const float *A, *B;
    long lda, ldb;
    float *C;
    long ldc;
    vec_flags vec; /* which operands may move in 16-byte vectors */
    unsigned grid; /* one block per tile of C */
} tf32_v4_dbuf_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
static inline const char *tf32_v4_dbuf_unsupported(int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (!smem_fits(tf32_v4_config::SMEM_BYTES))
        return "the block tile needs more shared memory than this GPU has";
    return NULL;
}

static inline cudaError_t tf32_v4_dbuf_prepare(tf32_v4_dbuf_plan *plan, int M, int N, int K,
                                               const float *A, long lda, const float *B, long ldb,
                                               float *C, long ldc)
{
    typedef tf32_v4_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    const cudaError_t e = smem_optin((const void *)tf32_v4_dbuf_kernel, Cfg::SMEM_BYTES);
    if (e != cudaSuccess) return e;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->vec = f32_vec_flags(N, K, A, lda, B, ldb, C, ldc);
    plan->grid = tile_count(M, N, Cfg::BLOCK_M, Cfg::BLOCK_N);
    return cudaSuccess;
}

static inline cudaError_t tf32_v4_dbuf_run(const tf32_v4_dbuf_plan *p, float alpha, float beta,
                                           cudaStream_t stream)
{
    typedef tf32_v4_config Cfg;
    tf32_v4_dbuf_kernel<<<p->grid, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    return cudaGetLastError();
}

static inline cudaError_t tf32_v4_dbuf_gemm(int M, int N, int K, const float *A, long lda,
                                            const float *B, long ldb, float *C, long ldc,
                                            float alpha, float beta, cudaStream_t stream)
{
    tf32_v4_dbuf_plan plan;
    const cudaError_t e = tf32_v4_dbuf_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? tf32_v4_dbuf_run(&plan, alpha, beta, stream) : e;
}

#endif /* TF32_V4_DBUF_CUH */
