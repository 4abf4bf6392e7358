/* wgmma_v2_tma - v1 with the TMA: one thread copies whole tiles into an mbarrier ring, and one
 * group of wgmma stays in flight while the next k-tile's are issued.
 *
 * Rung v2 of chapter 05's Hopper ladder (f16 and bf16 in, f32 accumulate and out).
 * Parent: v1_wgmma (v1_wgmma.cuh). What changes, and why it is faster:
 *   - thread 0 issues one TMA copy per operand and k-tile; the copy engine computes every
 *     address, zero-fills past the matrix's edge and writes the 128-byte swizzle itself;
 *   - a 4-stage ring with two mbarriers per stage replaces the block-wide barriers: "full"
 *     counts the bytes in (the producer announces them with expect_tx), "empty" counts the
 *     consumer warps done with the stage. No thread computes an address, no barrier for the
 *     whole block;
 *   - wgmma_wait_group<1> instead of <0>: the group of k-tile t-1 completes while k-tile t's is
 *     issued, so the tensor cores always have the next group queued.
 * What limits it: thread 0 is producer and consumer at once. Before it can refill a stage it
 * waits for the slowest warp to release it, and its warpgroup waits with it.
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N column-major (ldb), C M x N row-major f32 (ldc); T = __half or __nv_bfloat16. Any
 * M, N >= 1 (the TMA zero-fills boxes past the edge, stores are guarded); K >= 1 with lda, ldb
 * multiples of 8 and 16-byte aligned A and B (the TMA's 16-byte rules).
 *
 * Tiles: 128 x 128 per block (two warpgroups of 64 x 128), k-tiles of 64 values, 4 stages of
 * 32 KiB; blocks in groups of 8 block-rows for L2 reuse.
 *
 * The plain launcher (no harness types; common/ headers only):
 *   wgmma_v2_tma_gemm<T>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or wgmma_v2_tma_prepare<T>(&plan, ...) once (tensor maps, the shared-memory opt-in, the grid)
 * and wgmma_v2_tma_run<T>(&plan, alpha, beta, stream) per product. Both return cudaSuccess,
 * cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a problem or GPU it cannot
 * take (wgmma_v2_tma_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_90a (built with -gencode=arch=compute_90a,code=sm_90a), CUDA 12.x or 13.x. */
#ifndef WGMMA_V2_TMA_CUH
#define WGMMA_V2_TMA_CUH

#include "wgmma_parts.cuh"

/*                     BN  STAGES CONSUMERS */
typedef wg_config<128, 4, 2> wgmma_v2_config; /* 128 x 128 tiles, 4 stages of 32 KiB */
constexpr int WGMMA_V2_GROUP_M = 8;           /* blocks in groups of 8 block-rows */

template <class T>
__global__ void __launch_bounds__(wgmma_v2_config::CONSUMERS *WG_THREADS, 1)
    wgmma_v2_tma_kernel(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                        const __grid_constant__ CUtensorMap map_b, float *__restrict__ C, long ldc,
                        float alpha, float beta, bool vec2)
{
#if TC_SM90A
    typedef wgmma_v2_config Cfg;
    constexpr int BK = wg_bk<T>();
    extern __shared__ unsigned char smem_raw[];
    const ring<Cfg> r(align_1024(smem_raw));
    if (threadIdx.x == 0) r.init(Cfg::CONSUMERS * 4); /* every consumer warp releases a stage */
    __syncthreads();
    const int wg = threadIdx.x / WG_THREADS;
    int tm, tn;
    block_tile_coords<WGMMA_V2_GROUP_M>((M + Cfg::BM - 1) / Cfg::BM, (N + Cfg::BN - 1) / Cfg::BN,
                                        &tm, &tn);
    const int m0 = tm * Cfg::BM, n0 = tn * Cfg::BN;
    const int k_tiles = (K + BK - 1) / BK;
    /* thread 0 as producer: k-tile kt of A's rows m0.. and B's rows n0.. into stage s */
    const auto issue_k_tile = [&](int s, int kt) {
        mbar_arrive_expect_tx(&r.full[s], Cfg::STAGE_BYTES);
        tma_load_2d(r.a(s), &map_a, &r.full[s], kt * BK, m0);
        tma_load_2d(r.b(s), &map_b, &r.full[s], kt * BK, n0);
    };

    if (threadIdx.x == 0)
        for (int t = 0; t < Cfg::STAGES && t < k_tiles; t++) issue_k_tile(t, t);
    float d[Cfg::ACC];
#pragma unroll
    for (int i = 0; i < Cfg::ACC; i++) d[i] = 0.0f;
    /* do-while, not for: K >= 1, and a loop the compiler knows runs at least once has no path on
     * which the accumulators skip it. With a for loop it joins that path with the loop's exit
     * by moving the accumulators while the last wgmma group is still in flight, and ptxas then
     * serialises every wgmma (warning C7515, "wgmma.mma_async instructions are serialized"). */
    int t = 0;
    do {
        const int s = t % Cfg::STAGES;
        mbar_wait(&r.full[s], (t / Cfg::STAGES) % 2);
        wgmma_k_tile<T, Cfg>(d, smem_u32(r.a(s)) + wg * WG_M * ROW_BYTES, smem_u32(r.b(s)), t == 0);
        wgmma_wait_group<1>(); /* k-tile t-1's wgmma are done: its stage is free */
        if (t > 0) {
            const int p = (t - 1) % Cfg::STAGES;
            release_stage(&r.empty[p]);
            if (threadIdx.x == 0 && t - 1 + Cfg::STAGES < k_tiles) {
                mbar_wait(&r.empty[p], (t - 1) / Cfg::STAGES % 2);
                issue_k_tile(p, t - 1 + Cfg::STAGES);
            }
        }
    } while (++t < k_tiles);
    wgmma_wait_group<0>();
    wgmma_fence_operand(d);
    epilogue_direct<Cfg::ACC>(d, C, ldc, m0 + wg * WG_M, n0, M, N, alpha, beta, vec2);
#endif
}

/* ---- the host side ---------------------------------------------------------------------------- */
/* What prepare() works out once. Its CUtensorMap members are 128-byte aligned: allocate it as such
 * (on the stack, or with aligned_alloc(128, ...)). */
typedef struct {
    CUtensorMap map_a, map_b;
    int M, N, K;
    float *C;
    long ldc;
    bool vec2; /* C may be stored as float2 pairs */
    unsigned grid;
} wgmma_v2_tma_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
template <class T>
static const char *wgmma_v2_tma_unsupported(int M, int N, int K, const T *A, long lda, const T *B,
                                            long ldb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    const char *why = wg_tma_unsupported<T>(A, lda, B, ldb);
    if (why) return why;
    return wg_code_unsupported((const void *)wgmma_v2_tma_kernel<T>);
}

template <class T>
static cudaError_t wgmma_v2_tma_prepare(wgmma_v2_tma_plan *plan, int M, int N, int K, const T *A,
                                        long lda, const T *B, long ldb, float *C, long ldc)
{
    typedef wgmma_v2_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (wgmma_v2_tma_unsupported<T>(M, N, K, A, lda, B, ldb)) return cudaErrorNotSupported;
    cudaError_t e = smem_optin((const void *)wgmma_v2_tma_kernel<T>, Cfg::SMEM_BYTES);
    if (e != cudaSuccess) return e;
    plan->M = M, plan->N = N, plan->K = K, plan->C = C, plan->ldc = ldc;
    plan->vec2 = wg_c_vec2(C, ldc);
    plan->grid = tile_count(M, N, Cfg::BM, Cfg::BN);
    e = tma_map_kmajor(&plan->map_a, A, tma_dtype<T>::value, M, K, lda, Cfg::BM);
    if (e == cudaSuccess)
        e = tma_map_kmajor(&plan->map_b, B, tma_dtype<T>::value, N, K, ldb, Cfg::BN);
    return e;
}

template <class T>
static cudaError_t wgmma_v2_tma_run(const wgmma_v2_tma_plan *p, float alpha, float beta,
                                    cudaStream_t stream)
{
    typedef wgmma_v2_config Cfg;
    wgmma_v2_tma_kernel<T><<<p->grid, Cfg::CONSUMERS * WG_THREADS, Cfg::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, p->map_a, p->map_b, p->C, p->ldc, alpha, beta, p->vec2);
    return cudaGetLastError();
}

template <class T>
static cudaError_t wgmma_v2_tma_gemm(int M, int N, int K, const T *A, long lda, const T *B,
                                     long ldb, float *C, long ldc, float alpha, float beta,
                                     cudaStream_t stream)
{
    wgmma_v2_tma_plan plan;
    const cudaError_t e = wgmma_v2_tma_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? wgmma_v2_tma_run<T>(&plan, alpha, beta, stream) : e;
}

#endif /* WGMMA_V2_TMA_CUH */
