/* wgmma_fp8_v5_blockscaled - fp8_v2 on block-scaled FP8, as models are trained: one f32 scale per
 * 1 x 128 slice of a row of A and one per 128 x 128 block of B, applied when each k-tile's
 * partial sum is promoted.
 *
 * Rung 5 of chapter 05's FP8 track (e4m3 in, f32 scales, f32 accumulate, f32 or bf16 out). A
 * branch: its parent is fp8_v2_pairs (fp8_v2_pairs.cuh), the 128 x 128 rung, and `diff` against
 * that file is the lesson. What changes:
 *   - the value of A(i, k) is a(i, k) sa(i, k / 128) and of B(k, j) is b(k, j) sb(k / 128,
 *     j / 128): a stored fp8 value times its block's scale. Per-tensor FP8 has one scale for all
 *     of A, set by its largest value, so a block about 2^-15 of that size or smaller falls into
 *     e4m3's subnormals (below 2^-6 of a format whose largest value is 448) and keeps a bit or
 *     two; with a scale per 128 values every block uses the format's whole range;
 *   - one k-tile is 128 values of K, one scale block: fp8_v2 already promotes every k-tile's
 *     partial sum p to the f32 total d, so the scales cost one multiply per promotion:
 *     d = fma(p, sa(row, kt) sb(kt, tile), d). Each thread's accumulators cover two rows of
 *     the tile (16 warp + g and 8 more, g = lane / 4: wgmma's layout) and one 128-wide block of
 *     B: three scales per k-tile;
 *   - the scales are read from global memory (L2) when k-tile kt's wgmma is issued and used
 *     one k-tile later, when its group is complete: the loads wait behind the tensor cores' work
 *     instead of in front of it. They are 1/32 of A's bytes (4-byte floats, one per 128 one-byte
 *     values) and 1/4096 of B's;
 *   - C in f32 or in bf16 (a template parameter: the epilogue rounds the f32 result once);
 *   - K must be a multiple of 128 (one scale per whole k-tile); M and N are any.
 *
 * Problem: C = alpha * (A sa) * (B sb) + beta * C (beta == 0 never reads C). A M x K row-major
 * (lda), B K x N column-major (ldb), C M x N row-major (ldc), OutT = float or __nv_bfloat16 (one
 * rounding of the f32 result, as training code stores activations); T = __nv_fp8_e4m3 or
 * __nv_fp8_e5m2 (only e4m3 has a row in the chapter's table); the scales f32, laid out as PyTorch
 * hands them to cuBLASLt's VEC128_32F and BLK128x128_32F modes: sa(i, kb) = SA[kb * ld_sa + i]
 * (M fastest, ld_sa >= M), sb(kb, nb) = SB[nb * ld_sb + kb] (K blocks fastest, ld_sb >= K / 128).
 * lda, ldb multiples of 16 and 16-byte aligned A and B (the TMA's rules).
 *
 * The plain launcher (no harness types; common/ headers only):
 *   wgmma_fp8_v5_blockscaled_gemm<T, OutT>(M, N, K, A, lda, SA, ld_sa, B, ldb, SB, ld_sb, C,
 *                                          ldc, alpha, beta, stream)
 * or wgmma_fp8_v5_blockscaled_prepare<T>(&plan, ...) once and
 * wgmma_fp8_v5_blockscaled_run<T>(&plan, alpha, beta, stream) per product. Both return
 * cudaSuccess, cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a problem or
 * GPU it cannot take (wgmma_fp8_v5_blockscaled_unsupported says why; nothing is launched), or the
 * failed call's error.
 *
 * Requires sm_90a (built with -gencode=arch=compute_90a,code=sm_90a), CUDA 12.x or 13.x. */
#ifndef WGMMA_FP8_V5_BLOCKSCALED_CUH
#define WGMMA_FP8_V5_BLOCKSCALED_CUH

#include "wgmma_parts.cuh"

/*                     BN  STAGES CONSUMERS */
typedef wg_config<128, 6, 2> wgmma_fp8_v5_config; /* 128 x 128 tiles, 6 stages of 32 KiB */
constexpr int WGMMA_FP8_V5_CLUSTER = 2;           /* blocks per cluster: a unit is 2 tiles high */
constexpr int WGMMA_FP8_V5_GROUP_M = 8;           /* units in groups of 8 down a column of C */
/* k-tiles in unrolled runs of RUN, each ending with its last group complete; the rest in runs of
 * RUN_REST, then of one */
constexpr int WGMMA_FP8_V5_RUN = 32, WGMMA_FP8_V5_RUN_REST = 8;

/* One k-tile's scales for this thread: its two rows' of A (row g and g + 8 of its warp's 16) and
 * its tile's of B */
struct wgmma_fp8_v5_scales {
    float a_lo, a_hi, b;
};

/* Where this thread's scales are: its two rows of A (clamped to row M - 1: a row past C's last is
 * computed and never stored) in k-tile 0, the distance to the next k-tile's (M fastest: the 8 row
 * groups of a warp read 8 neighbouring floats), and its tile's column of B's blocks */
struct wgmma_fp8_v5_scale_rows {
    const float *a_lo, *a_hi, *b;
    long ld_a;
    __device__ __forceinline__ wgmma_fp8_v5_scales load(int kt) const
    {
        return {
            .a_lo = __ldg(a_lo + kt * ld_a), .a_hi = __ldg(a_hi + kt * ld_a), .b = __ldg(b + kt)};
    }
};

/* Adds the partial sum p of a completed group, times its scales, to the total d: register i
 * holds row 16 warp + g + 8 ((i / 2) % 2) of the warpgroup's 64 (wgmma's layout), so its A scale
 * is a_lo or a_hi. One fma, rounded once (CUDA cores) */
template <int ACC>
static __device__ __forceinline__ void
wgmma_fp8_v5_blockscaled_add(float (&d)[ACC], float (&p)[ACC], wgmma_fp8_v5_scales sc)
{
    const float lo = sc.a_lo * sc.b, hi = sc.a_hi * sc.b; /* powers of two: exact */
    wgmma_fence_operand(p);
#pragma unroll
    for (int i = 0; i < ACC; i++) d[i] = fmaf(p[i], (i / 2) % 2 ? hi : lo, d[i]);
}

/* RUN consecutive k-tiles of one consumer, from ring position it0 and k-tile kt0 of the unit:
 * k-tile j into partial sum (j even ? p0 : p1) and its scales loaded; once it is issued, k-tile
 * j-1's group is waited for, its stage released and its sum added with its scales, so one group
 * runs on the tensor cores while the CUDA cores add. The run is unrolled and waits for its last
 * group before it returns (no group in flight across the caller's loop). */
template <class T, class Cfg, int CLUSTER, int RUN>
static __device__ __forceinline__ void
wgmma_fp8_v5_blockscaled_run_k_tiles(const ring<Cfg> &r, float (&d)[Cfg::ACC],
                                     float (&p0)[Cfg::ACC], float (&p1)[Cfg::ACC], int it0, int kt0,
                                     int cw, const wgmma_fp8_v5_scale_rows &rows)
{
    wgmma_fp8_v5_scales previous = {}; /* k-tile j-1's */
#pragma unroll
    for (int j = 0; j < RUN; j++) {
        const int it = it0 + j, s = it % Cfg::STAGES;
        mbar_wait(&r.full[s], it / Cfg::STAGES % 2);
        const uint32_t a = smem_u32(r.a(s)) + cw * WG_M * ROW_BYTES, b = smem_u32(r.b(s));
        wgmma_k_tile<T, Cfg>(j % 2 == 0 ? p0 : p1, a, b, true);
        const wgmma_fp8_v5_scales current = rows.load(kt0 + j); /* used when j completes */
        if (j > 0) { /* k-tile j-1 is complete (j runs on): free its stage, add its sum */
            wgmma_wait_group<1>();
            release_stage_cluster<CLUSTER>(&r.empty[(it - 1) % Cfg::STAGES]);
            wgmma_fp8_v5_blockscaled_add(d, j % 2 == 0 ? p1 : p0, previous);
        }
        previous = current;
    }
    wgmma_wait_group<0>();
    release_stage_cluster<CLUSTER>(&r.empty[(it0 + RUN - 1) % Cfg::STAGES]);
    wgmma_fp8_v5_blockscaled_add(d, (RUN - 1) % 2 == 0 ? p0 : p1, previous);
}

/* C in bf16, as training code stores activations: the pair (x, y) of C(r, c), C(r, c + 1) as
 * alpha (x, y) + beta C in f32, rounded to bf16 once (to nearest even), guarded at the edges;
 * vec2: the pair is one 4-byte __nv_bfloat162 */
static __device__ __forceinline__ void wgmma_fp8_v5_store_pair(__nv_bfloat16 *__restrict__ C,
                                                               long ldc, int r, int c, int M, int N,
                                                               float x, float y, float alpha,
                                                               float beta, bool vec2)
{
    if (r >= M || c >= N) return;
    __nv_bfloat16 *p = C + (size_t)r * ldc + c;
    x *= alpha, y *= alpha;
    if (beta != 0.0f) {
        x += beta * __bfloat162float(p[0]);
        if (c + 1 < N) y += beta * __bfloat162float(p[1]);
    }
    if (vec2 && c + 1 < N) {
        *(__nv_bfloat162 *)p = __floats2bfloat162_rn(x, y);
    } else {
        p[0] = __float2bfloat16_rn(x);
        if (c + 1 < N) p[1] = __float2bfloat16_rn(y);
    }
}

/* The warpgroup's 64 rows of the tile out: f32 C through the FP8 rungs' epilogue, bf16 C pair by
 * pair (register i is C(row0 + 16 warp + g + 8 ((i/2)%2), col0 + 8 (i/4) + 2 t + i%2)) */
template <int ACC>
static __device__ __forceinline__ void wgmma_fp8_v5_epilogue(float (&d)[ACC], float *C, long ldc,
                                                             int row0, int col0, int M, int N,
                                                             float alpha, float beta, bool vec2)
{
    epilogue_direct<ACC>(d, C, ldc, row0, col0, M, N, alpha, beta, vec2);
}
template <int ACC>
static __device__ __forceinline__ void
wgmma_fp8_v5_epilogue(float (&d)[ACC], __nv_bfloat16 *C, long ldc, int row0, int col0, int M, int N,
                      float alpha, float beta, bool vec2)
{
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < ACC; i += 2)
        wgmma_fp8_v5_store_pair(C, ldc, row0 + 16 * warp + g + 8 * (i / 2 % 2),
                                col0 + 8 * (i / 4) + 2 * t, M, N, d[i], d[i + 1], alpha, beta,
                                vec2);
}

template <class T, class OutT>
__global__ void __launch_bounds__((wgmma_fp8_v5_config::CONSUMERS + 1) * WG_THREADS, 1)
    wgmma_fp8_v5_blockscaled_kernel(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                                    const __grid_constant__ CUtensorMap map_b,
                                    const float *__restrict__ SA, long ld_sa,
                                    const float *__restrict__ SB, long ld_sb, OutT *__restrict__ C,
                                    long ldc, float alpha, float beta, bool vec2)
{
#if TC_SM90A
    typedef wgmma_fp8_v5_config Cfg;
    constexpr int CLUSTER = WGMMA_FP8_V5_CLUSTER, BK = wg_bk<T>();
    constexpr int REGS = wg_consumer_regs(Cfg::CONSUMERS);
    static_assert(Cfg::BN % (8 * CLUSTER) == 0, "B's slices are whole 8-row swizzle atoms");
    static_assert(PRODUCER_REGS * WG_THREADS + REGS * WG_THREADS * Cfg::CONSUMERS <= 65536,
                  "the register file holds the producer's and the consumers' registers");
    static_assert(3 * Cfg::ACC + 16 <= REGS, "the total and two partial sums live in registers");
    static_assert(BK == 128, "one k-tile is one scale block of 128 values of K");
    static_assert(Cfg::BN == 128, "a tile's columns are one 128-wide block of B: one B scale");
    extern __shared__ unsigned char smem_raw[];
    const ring<Cfg> r(align_1024(smem_raw));
    const unsigned rank = cluster_ctarank();
    /* every consumer warp of every block of the cluster releases each stage */
    if (threadIdx.x == 0) r.init(Cfg::CONSUMERS * 4 * CLUSTER);
    cluster_sync(); /* the partner's barriers exist before anything arrives on them */

    const int tiles_m = (M + Cfg::BM - 1) / Cfg::BM, tiles_n = (N + Cfg::BN - 1) / Cfg::BN;
    const int units_m = (tiles_m + CLUSTER - 1) / CLUSTER, units = units_m * tiles_n;
    const int k_tiles = (K + BK - 1) / BK;
    /* this cluster's units: cluster, cluster + clusters, ... */
    const int clusters = (int)gridDim.x / CLUSTER, cluster = blockIdx.x / CLUSTER;
    const int my_units = cluster < units ? (units - 1 - cluster) / clusters + 1 : 0;
    const int wg = threadIdx.x / WG_THREADS;
    /* the origin of this block's tile in unit u: the same for producer and consumers */
    const auto unit_origin = [&](int u, int &m0, int &n0) {
        int um, tn;
        tile_coords<WGMMA_FP8_V5_GROUP_M>(u, units_m, tiles_n, &um, &tn);
        m0 = (um * CLUSTER + (int)rank) * Cfg::BM, n0 = tn * Cfg::BN;
    };

    if (wg == 0) {
        setmaxnreg_dec<PRODUCER_REGS>();
        if (threadIdx.x == 0) {
            int it = 0; /* the ring's position runs on across units */
            for (int i = 0; i < my_units; i++) {
                int m0, n0;
                unit_origin(cluster + i * clusters, m0, n0);
                for (int t = 0; t < k_tiles; t++, it++) {
                    const int s = it % Cfg::STAGES;
                    /* the use-th fill of stage s waits for the consumers' release of fill use-1 */
                    if (it >= Cfg::STAGES) mbar_wait(&r.empty[s], (it / Cfg::STAGES - 1) % 2);
                    /* A, and all of B: this block's slice and the partner's multicast */
                    mbar_arrive_expect_tx(&r.full[s], Cfg::STAGE_BYTES);
                    tma_load_2d(r.a(s), &map_a, &r.full[s], t * BK, m0);
                    constexpr int SLICE = Cfg::BN / CLUSTER;
                    tma_load_2d_multicast(r.b(s) + rank * SLICE * ROW_BYTES, &map_b, &r.full[s],
                                          t * BK, n0 + (int)rank * SLICE,
                                          (uint16_t)((1u << CLUSTER) - 1));
                }
            }
        }
        __syncwarp();
    } else {
        setmaxnreg_inc<REGS>();
        const int cw = wg - 1; /* this consumer's 64 rows of the tile */
        const int row_in_wg = 16 * (threadIdx.x / 32 % 4) + threadIdx.x % 32 / 4; /* and + 8 */
        float d[Cfg::ACC];
#pragma unroll
        for (int i = 0; i < Cfg::ACC; i++) d[i] = 0.0f;
        int it = 0;
        for (int i = 0; i < my_units; i++) {
            int m0, n0;
            unit_origin(cluster + i * clusters, m0, n0);
            const int row = m0 + cw * WG_M + row_in_wg;
            const wgmma_fp8_v5_scale_rows rows = {.a_lo = SA + min(row, M - 1),
                                                  .a_hi = SA + min(row + 8, M - 1),
                                                  .b = SB + (size_t)(n0 / Cfg::BN) * ld_sb,
                                                  .ld_a = ld_sa};
            constexpr int RUN = WGMMA_FP8_V5_RUN, RUN_REST = WGMMA_FP8_V5_RUN_REST;
            float p0[Cfg::ACC], p1[Cfg::ACC];
            int t = 0;
            for (; t + RUN <= k_tiles; t += RUN, it += RUN)
                wgmma_fp8_v5_blockscaled_run_k_tiles<T, Cfg, CLUSTER, RUN>(r, d, p0, p1, it, t, cw,
                                                                           rows);
            for (; t + RUN_REST <= k_tiles; t += RUN_REST, it += RUN_REST)
                wgmma_fp8_v5_blockscaled_run_k_tiles<T, Cfg, CLUSTER, RUN_REST>(r, d, p0, p1, it, t,
                                                                                cw, rows);
            for (; t < k_tiles; t++, it++) /* the last few: runs of one */
                wgmma_fp8_v5_blockscaled_run_k_tiles<T, Cfg, CLUSTER, 1>(r, d, p0, p1, it, t, cw,
                                                                         rows);
            wgmma_fp8_v5_epilogue<Cfg::ACC>(d, C, ldc, m0 + cw * WG_M, n0, M, N, alpha, beta, vec2);
#pragma unroll
            for (int i = 0; i < Cfg::ACC; i++) d[i] = 0.0f; /* the total starts again at 0 */
        }
    }
    /* no block may exit while its partner can still multicast into its shared memory or arrive
     * on its barriers */
    cluster_sync();
#endif
}

/* ---- the host side ---------------------------------------------------------------------------- */
/* What prepare() works out once: the tensor maps (they hold A's and B's addresses), C and the
 * grid. Its CUtensorMap members are 128-byte aligned: allocate it as such (on the stack, or with
 * aligned_alloc(128, ...)). */
typedef struct {
    CUtensorMap map_a, map_b;
    int M, N, K;
    const float *SA, *SB; /* the scales */
    long ld_sa, ld_sb;
    void *C; /* float or __nv_bfloat16, as the functions' OutT */
    long ldc;
    bool vec2;     /* C may be stored in pairs (float2, __nv_bfloat162) */
    unsigned grid; /* blocks: CLUSTER x the clusters that fit at once, at most the units */
} wgmma_fp8_v5_blockscaled_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
template <class T, class OutT = float>
static const char *wgmma_fp8_v5_blockscaled_unsupported(int M, int N, int K, const T *A, long lda,
                                                        const float *SA, long ld_sa, const T *B,
                                                        long ldb, const float *SB, long ld_sb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (K % 128) return "block-scaled FP8 needs K a multiple of 128 (one scale per 128 values)";
    if (!SA || !SB || ld_sa < M || ld_sb < K / 128)
        return "the scales need ld_sa >= M (A's: M fastest) and ld_sb >= K / 128 (B's)";
    const char *why = wg_tma_unsupported<T>(A, lda, B, ldb);
    if (why) return why;
    return wg_code_unsupported((const void *)wgmma_fp8_v5_blockscaled_kernel<T, OutT>);
}

/* prepare() with at most max_clusters clusters in the grid (0: as many as fit at once): the
 * persistent grid's size, which the GPU decides otherwise, forced (for tests; any smaller grid is
 * correct too, each cluster walking more units) */
template <class T, class OutT = float>
static cudaError_t
wgmma_fp8_v5_blockscaled_prepare_clusters(wgmma_fp8_v5_blockscaled_plan *plan,
                                          unsigned max_clusters, int M, int N, int K, const T *A,
                                          long lda, const float *SA, long ld_sa, const T *B,
                                          long ldb, const float *SB, long ld_sb, OutT *C, long ldc)
{
    typedef wgmma_fp8_v5_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (wgmma_fp8_v5_blockscaled_unsupported<T, OutT>(M, N, K, A, lda, SA, ld_sa, B, ldb, SB,
                                                      ld_sb))
        return cudaErrorNotSupported;
    const void *kernel = (const void *)wgmma_fp8_v5_blockscaled_kernel<T, OutT>;
    cudaError_t e = smem_optin(kernel, Cfg::SMEM_BYTES);
    unsigned resident = 0;
    if (e == cudaSuccess) e = wg_resident_clusters<Cfg>(kernel, WGMMA_FP8_V5_CLUSTER, &resident);
    if (e != cudaSuccess) return e;
    if (resident == 0) return cudaErrorNotSupported; /* not even one cluster fits */
    if (max_clusters && max_clusters < resident) resident = max_clusters;
    const unsigned tiles_m = (unsigned)((M + Cfg::BM - 1) / Cfg::BM);
    const unsigned units = (tiles_m + WGMMA_FP8_V5_CLUSTER - 1) / WGMMA_FP8_V5_CLUSTER *
                           (unsigned)((N + Cfg::BN - 1) / Cfg::BN);
    plan->grid = WGMMA_FP8_V5_CLUSTER * (units < resident ? units : resident);
    plan->M = M, plan->N = N, plan->K = K, plan->C = C, plan->ldc = ldc;
    plan->SA = SA, plan->SB = SB, plan->ld_sa = ld_sa, plan->ld_sb = ld_sb;
    plan->vec2 = (uintptr_t)C % (2 * sizeof(OutT)) == 0 && ldc % 2 == 0; /* pairs */
    e = tma_map_kmajor(&plan->map_a, A, tma_dtype<T>::value, M, K, lda, Cfg::BM);
    if (e == cudaSuccess)
        e = tma_map_kmajor(&plan->map_b, B, tma_dtype<T>::value, N, K, ldb,
                           Cfg::BN / WGMMA_FP8_V5_CLUSTER);
    return e;
}

template <class T, class OutT = float>
static cudaError_t
wgmma_fp8_v5_blockscaled_prepare(wgmma_fp8_v5_blockscaled_plan *plan, int M, int N, int K,
                                 const T *A, long lda, const float *SA, long ld_sa, const T *B,
                                 long ldb, const float *SB, long ld_sb, OutT *C, long ldc)
{
    return wgmma_fp8_v5_blockscaled_prepare_clusters<T, OutT>(plan, 0, M, N, K, A, lda, SA, ld_sa,
                                                              B, ldb, SB, ld_sb, C, ldc);
}

template <class T, class OutT = float>
static cudaError_t wgmma_fp8_v5_blockscaled_run(const wgmma_fp8_v5_blockscaled_plan *plan,
                                                float alpha, float beta, cudaStream_t stream)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        wg_launch_config<wgmma_fp8_v5_config>(plan->grid, WGMMA_FP8_V5_CLUSTER, &attr, stream);
    return cudaLaunchKernelEx(&cfg, wgmma_fp8_v5_blockscaled_kernel<T, OutT>, plan->M, plan->N,
                              plan->K, plan->map_a, plan->map_b, plan->SA, plan->ld_sa, plan->SB,
                              plan->ld_sb, (OutT *)plan->C, plan->ldc, alpha, beta, plan->vec2);
}

template <class T, class OutT = float>
static cudaError_t wgmma_fp8_v5_blockscaled_gemm(int M, int N, int K, const T *A, long lda,
                                                 const float *SA, long ld_sa, const T *B, long ldb,
                                                 const float *SB, long ld_sb, OutT *C, long ldc,
                                                 float alpha, float beta, cudaStream_t stream)
{
    wgmma_fp8_v5_blockscaled_plan plan;
    const cudaError_t e = wgmma_fp8_v5_blockscaled_prepare<T, OutT>(
        &plan, M, N, K, A, lda, SA, ld_sa, B, ldb, SB, ld_sb, C, ldc);
    return e == cudaSuccess ? wgmma_fp8_v5_blockscaled_run<T, OutT>(&plan, alpha, beta, stream) : e;
}

#endif /* WGMMA_FP8_V5_BLOCKSCALED_CUH */
