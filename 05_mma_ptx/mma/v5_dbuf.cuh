/* mma_v5_dbuf - v4 with the fragments double-buffered in registers and the blocks walked in bands
 * of 8 block-rows.
 *
 * Rung v5 of chapter 05's mma.sync ladder (part 1; f16 and bf16 in, f32 accumulate and out).
 * Parent: v4_pipeline (v4_pipeline.cuh). What changes, and why it is faster:
 *   - two fragment sets in registers (a[2], b[2]): the ldmatrix of k-step s+1 are issued before
 *     the mmas of step s, so the tensor pipe does not wait for shared-memory latency;
 *   - at the last k-step of k-tile t the next step is k-step 0 of tile t+1, so the wait and the
 *     barrier for tile t+1 move there, one k-step before v4 has them. Stages in use at that
 *     barrier: t (being multiplied), t+1 (being loaded into registers) and the one refilled
 *     (t-1's), hence STAGES >= 3; KSTEPS is even so that set 0 always holds k-step 0;
 *   - the blocks of the 1-D grid are walked in bands of MMA_V5_GROUP_M = 8 block-rows, column by
 *     column (block_tile_origin, common/mma_parts.cuh), so that the blocks running at once cover
 *     a patch of about 8 x 16 tiles of C and share their A and B tiles in L2 (rasterisation).
 * Double buffering and the block order were not measured apart.
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
 *   mma_v5_dbuf_gemm<T>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or mma_v5_dbuf_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc) once (the shared-memory
 * opt-in, the vector paths, the grid) and mma_v5_dbuf_run<T>(&plan, alpha, beta, stream) per
 * product. Both return cudaSuccess, cudaErrorInvalidValue for sizes below 1
 * (mma_v5_dbuf_unsupported says why), cudaErrorNotSupported for a GPU with less shared memory
 * per block than the ring (nothing is launched), or the failed call's error.
 *
 * Requires sm_80 (cp.async, bf16 mma), CUDA 12.x or 13.x. */
#ifndef MMA_V5_DBUF_CUH
#define MMA_V5_DBUF_CUH

#include "mma_tile.cuh"

/*                      BM   BN  BK  WARPS_M WARPS_N STAGES SWIZZLE */
typedef gemm_config<128, 256, 32, 2, 4, 4, true> mma_v5_config;
constexpr int MMA_V5_GROUP_M = 8; /* blocks in bands of 8 block-rows (L2 reuse) */

/* The ring, and two fragment sets: while the mmas of k-step s use set `cur`, the ldmatrix of step
 * s+1 fill set `nxt`. K, lda, ldb in 16-bit words. */
template <class T>
__global__ void __launch_bounds__(mma_v5_config::THREADS, 1)
    mma_v5_dbuf_kernel(int M, int N, int K, const uint16_t *__restrict__ A, long lda,
                       const uint16_t *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                       float alpha, float beta, mma_vec_flags vec)
{
    typedef mma_v5_config Cfg;
    static_assert(Cfg::STAGES >= 3, "loading k-tile t+1 while t is multiplied needs 3 stages");
    static_assert(Cfg::KSTEPS % 2 == 0, "fragment sets alternate within and across k-tiles");
    static_assert(mma_f32<T>::K * sizeof(T) == 2 * KSTEP_WORDS, "one mma per 32-byte k-step");
    extern __shared__ __align__(128) unsigned char smem[];
    const uint32_t smem_base = smem_u32(smem);
    const int warp = threadIdx.x / 32;
    const int warp_m0 = warp / Cfg::WARPS_N * Cfg::WARP_M,
              warp_n0 = warp % Cfg::WARPS_N * Cfg::WARP_N;
    int block_m, block_n;
    block_tile_origin<Cfg, MMA_V5_GROUP_M>(M, N, &block_m, &block_n);
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
    uint32_t a[2][Cfg::MT][4], b[2][Cfg::NT][2];

    /* Prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each (empty groups past the end
     * keep the count that wait_group relies on); then k-tile 0's first fragments into set 0. */
#pragma unroll
    for (int t = 0; t < Cfg::STAGES - 1; t++) {
        if (t < k_tiles) load_k_tile<Cfg>(smem, copy_a, copy_b, A, lda, B, ldb, M, N, K, vec, t);
        cp_async_commit_group();
    }
    cp_async_wait_group<Cfg::STAGES - 2>(); /* k-tile 0 */
    __syncthreads();
    load_frags_ldmatrix<Cfg>(a[0], b[0], smem_base, smem_base + Cfg::A_BYTES, warp_m0, warp_n0,
                             a_off[0], b_off[0]);

    for (int t = 0; t < k_tiles; t++) {
        const uint32_t sA = smem_base + (t % Cfg::STAGES) * Cfg::STAGE_BYTES,
                       sB = sA + Cfg::A_BYTES;
#pragma unroll
        for (int ks = 0; ks < Cfg::KSTEPS; ks++) {
            const int cur = ks % 2, nxt = cur ^ 1;
            if (ks == Cfg::KSTEPS - 1) {
                /* groups committed so far: STAGES-1 + t; k-tile t+1 is group t+1 */
                cp_async_wait_group<Cfg::STAGES - 3>();
                __syncthreads();
                if (t + Cfg::STAGES - 1 < k_tiles)
                    load_k_tile<Cfg>(smem, copy_a, copy_b, A, lda, B, ldb, M, N, K, vec,
                                     t + Cfg::STAGES - 1);
                cp_async_commit_group();
                if (t + 1 < k_tiles) {
                    const uint32_t nA = smem_base + ((t + 1) % Cfg::STAGES) * Cfg::STAGE_BYTES;
                    load_frags_ldmatrix<Cfg>(a[nxt], b[nxt], nA, nA + Cfg::A_BYTES, warp_m0,
                                             warp_n0, a_off[0], b_off[0]);
                }
            } else {
                load_frags_ldmatrix<Cfg>(a[nxt], b[nxt], sA, sB, warp_m0, warp_n0, a_off[ks + 1],
                                         b_off[ks + 1]);
            }
            mma_step<T, Cfg>(acc, a[cur], b[cur]);
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
} mma_v5_dbuf_plan;

/* NULL when the kernel can take the problem, else why not */
template <class T>
static const char *mma_v5_dbuf_unsupported(int M, int N, int K, const T *A, long lda, const T *B,
                                           long ldb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    return NULL;
}

template <class T>
static cudaError_t mma_v5_dbuf_prepare(mma_v5_dbuf_plan *plan, int M, int N, int K, const T *A,
                                       long lda, const T *B, long ldb, float *C, long ldc)
{
    typedef mma_v5_config Cfg;
    constexpr int W = words_per_elem<T>(); /* 1: a half is one 16-bit word */
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    const cudaError_t e = smem_optin((const void *)mma_v5_dbuf_kernel<T>, Cfg::SMEM_BYTES);
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
static cudaError_t mma_v5_dbuf_run(const mma_v5_dbuf_plan *p, float alpha, float beta,
                                   cudaStream_t stream)
{
    typedef mma_v5_config Cfg;
    mma_v5_dbuf_kernel<T><<<p->grid, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    return cudaGetLastError();
}

template <class T>
static cudaError_t mma_v5_dbuf_gemm(int M, int N, int K, const T *A, long lda, const T *B, long ldb,
                                    float *C, long ldc, float alpha, float beta,
                                    cudaStream_t stream)
{
    mma_v5_dbuf_plan plan;
    const cudaError_t e = mma_v5_dbuf_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? mma_v5_dbuf_run<T>(&plan, alpha, beta, stream) : e;
}

#endif /* MMA_V5_DBUF_CUH */
