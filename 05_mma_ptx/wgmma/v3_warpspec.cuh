/* wgmma_v3_warpspec - warp specialisation: a producer warpgroup that only issues TMA copies and
 * two consumer warpgroups that only issue wgmma, on 128 x 256 tiles.
 *
 * Rung v3 of chapter 05's Hopper ladder (f16 and bf16 in, f32 accumulate and out).
 * Parent: v2_tma (v2_tma.cuh). What changes, and why it is faster:
 *   - warpgroup 0 is the producer: one thread issues the copies and runs ahead by as many stages
 *     as are free; the consumers never wait for a copy they could have issued themselves;
 *   - setmaxnreg moves registers to where they are needed: the producer gives its own back (40
 *     per thread), the consumers take 232, enough for the 128 accumulators of m64n256k16;
 *   - the tile grows to 128 x 256 (each consumer 64 x 256): a 128 x 256 tile reads 3/4 of the
 *     operand bytes per flop of a 128 x 128 one.
 * What limits it: one tile per block. A block ends with its epilogue while its SM's tensor cores
 * idle, and the next block starts with an empty ring; and every block reads its own B tile.
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N column-major (ldb), C M x N row-major f32 (ldc); T = __half or __nv_bfloat16. Any
 * M, N >= 1 (the TMA zero-fills boxes past the edge, stores are guarded); K >= 1 with lda, ldb
 * multiples of 8 and 16-byte aligned A and B (the TMA's 16-byte rules).
 *
 * Tiles: 128 x 256 per block (two consumer warpgroups of 64 x 256, 128 f32 accumulators per
 * thread), k-tiles of 64 values, 4 stages of 48 KiB; blocks in groups of 8 block-rows.
 *
 * The plain launcher (no harness types; common/ headers only):
 *   wgmma_v3_warpspec_gemm<T>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or wgmma_v3_warpspec_prepare<T>(&plan, ...) once (tensor maps, the shared-memory opt-in, the
 * grid) and wgmma_v3_warpspec_run<T>(&plan, alpha, beta, stream) per product. Both return
 * cudaSuccess, cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a problem or
 * GPU it cannot take (wgmma_v3_warpspec_unsupported says why; nothing is launched), or the
 * failed call's error.
 *
 * Requires sm_90a (built with -gencode=arch=compute_90a,code=sm_90a), CUDA 12.x or 13.x. */
#ifndef WGMMA_V3_WARPSPEC_CUH
#define WGMMA_V3_WARPSPEC_CUH

#include "wgmma_parts.cuh"

/*                     BN  STAGES CONSUMERS */
typedef wg_config<256, 4, 2> wgmma_v3_config; /* 128 x 256 tiles, 4 stages of 48 KiB */
constexpr int WGMMA_V3_GROUP_M = 8;           /* blocks in groups of 8 block-rows */

template <class T>
__global__ void __launch_bounds__((wgmma_v3_config::CONSUMERS + 1) * WG_THREADS, 1)
    wgmma_v3_warpspec_kernel(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                             const __grid_constant__ CUtensorMap map_b, float *__restrict__ C,
                             long ldc, float alpha, float beta, bool vec2)
{
#if TC_SM90A
    typedef wgmma_v3_config Cfg;
    constexpr int BK = wg_bk<T>();
    constexpr int REGS = wg_consumer_regs(Cfg::CONSUMERS);
    static_assert(PRODUCER_REGS * WG_THREADS + REGS * WG_THREADS * Cfg::CONSUMERS <= 65536,
                  "the register file holds the producer's and the consumers' registers");
    extern __shared__ unsigned char smem_raw[];
    const ring<Cfg> r(align_1024(smem_raw));
    if (threadIdx.x == 0) r.init(Cfg::CONSUMERS * 4); /* every consumer warp releases a stage */
    __syncthreads();

    int tm, tn;
    block_tile_coords<WGMMA_V3_GROUP_M>((M + Cfg::BM - 1) / Cfg::BM, (N + Cfg::BN - 1) / Cfg::BN,
                                        &tm, &tn);
    const int m0 = tm * Cfg::BM, n0 = tn * Cfg::BN;
    const int k_tiles = (K + BK - 1) / BK;
    const int wg = threadIdx.x / WG_THREADS;

    if (wg == 0) {
        setmaxnreg_dec<PRODUCER_REGS>();
        if (threadIdx.x == 0) {
            for (int t = 0; t < k_tiles; t++) {
                const int s = t % Cfg::STAGES;
                /* the use-th fill of stage s waits for the consumers' release of fill use-1 */
                if (t >= Cfg::STAGES) mbar_wait(&r.empty[s], (t / Cfg::STAGES - 1) % 2);
                mbar_arrive_expect_tx(&r.full[s], Cfg::STAGE_BYTES);
                tma_load_2d(r.a(s), &map_a, &r.full[s], t * BK, m0);
                tma_load_2d(r.b(s), &map_b, &r.full[s], t * BK, n0);
            }
        }
        __syncwarp();
    } else {
        setmaxnreg_inc<REGS>();
        const int cw = wg - 1; /* this consumer's 64 rows of the tile */
        float d[Cfg::ACC];
#pragma unroll
        for (int i = 0; i < Cfg::ACC; i++) d[i] = 0.0f;
        int t = 0; /* do-while, as in v2: K >= 1, and no path skips the loop (C7515) */
        do {
            const int s = t % Cfg::STAGES;
            mbar_wait(&r.full[s], t / Cfg::STAGES % 2);
            const uint32_t a = smem_u32(r.a(s)) + cw * WG_M * ROW_BYTES, b = smem_u32(r.b(s));
            wgmma_k_tile<T, Cfg>(d, a, b, t == 0);
            wgmma_wait_group<1>(); /* the previous k-tile's group is done */
            if (t > 0) release_stage(&r.empty[(t - 1) % Cfg::STAGES]);
        } while (++t < k_tiles);
        wgmma_wait_group<0>();
        wgmma_fence_operand(d);
        release_stage(&r.empty[(k_tiles - 1) % Cfg::STAGES]);
        epilogue_direct<Cfg::ACC>(d, C, ldc, m0 + cw * WG_M, n0, M, N, alpha, beta, vec2);
    }
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
} wgmma_v3_warpspec_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
template <class T>
static const char *wgmma_v3_warpspec_unsupported(int M, int N, int K, const T *A, long lda,
                                                 const T *B, long ldb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    const char *why = wg_tma_unsupported<T>(A, lda, B, ldb);
    if (why) return why;
    return wg_code_unsupported((const void *)wgmma_v3_warpspec_kernel<T>);
}

template <class T>
static cudaError_t wgmma_v3_warpspec_prepare(wgmma_v3_warpspec_plan *plan, int M, int N, int K,
                                             const T *A, long lda, const T *B, long ldb, float *C,
                                             long ldc)
{
    typedef wgmma_v3_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (wgmma_v3_warpspec_unsupported<T>(M, N, K, A, lda, B, ldb)) return cudaErrorNotSupported;
    cudaError_t e = smem_optin((const void *)wgmma_v3_warpspec_kernel<T>, Cfg::SMEM_BYTES);
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
static cudaError_t wgmma_v3_warpspec_run(const wgmma_v3_warpspec_plan *p, float alpha, float beta,
                                         cudaStream_t stream)
{
    typedef wgmma_v3_config Cfg;
    wgmma_v3_warpspec_kernel<T>
        <<<p->grid, (Cfg::CONSUMERS + 1) * WG_THREADS, Cfg::SMEM_BYTES, stream>>>(
            p->M, p->N, p->K, p->map_a, p->map_b, p->C, p->ldc, alpha, beta, p->vec2);
    return cudaGetLastError();
}

template <class T>
static cudaError_t wgmma_v3_warpspec_gemm(int M, int N, int K, const T *A, long lda, const T *B,
                                          long ldb, float *C, long ldc, float alpha, float beta,
                                          cudaStream_t stream)
{
    wgmma_v3_warpspec_plan plan;
    const cudaError_t e = wgmma_v3_warpspec_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? wgmma_v3_warpspec_run<T>(&plan, alpha, beta, stream) : e;
}

#endif /* WGMMA_V3_WARPSPEC_CUH */
