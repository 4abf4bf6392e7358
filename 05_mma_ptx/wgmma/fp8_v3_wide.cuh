/* wgmma_fp8_v3_wide - fp8_v2 on 128 x 144 tiles where they fill the persistent grid's last round
 * better, else 128 x 128.
 *
 * Rung 3 of chapter 05's FP8 track (e4m3 or e5m2 in, f32 accumulate and out).
 * Parent: fp8_v2_pairs (fp8_v2_pairs.cuh). What changes, and why it is faster:
 *   - a wider tile reads fewer operand bytes per flop, and 144 is the widest whose three sets of
 *     accumulators (3 x 72 per thread, m64n144k32) fit the 232 registers of a consumer;
 *   - but the tile count changes the last round: a persistent grid of c clusters takes
 *     ceil(units / c) rounds, each as long as a tile is wide. prepare() computes rounds x width
 *     for both widths on this GPU and takes the smaller (ties: 128): at 8192^3 on an H200, 144
 *     wins; at 4096^3, 128 (wgmma_fp8_v3_wide_prepare_width forces one, for tests);
 *   - the kernel is fp8_v2's, its tile a template parameter: two instantiations.
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N column-major (ldb), C M x N row-major f32 (ldc); T = __nv_fp8_e4m3 or __nv_fp8_e5m2.
 * Any M, N >= 1; K >= 1 with lda, ldb multiples of 16 and 16-byte aligned A and B (the TMA's
 * rules: 16-byte rows).
 *
 * The plain launcher (no harness types; common/ headers only):
 *   wgmma_fp8_v3_wide_gemm<T>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or wgmma_fp8_v3_wide_prepare<T>(&plan, ...) once and wgmma_fp8_v3_wide_run<T>(&plan, alpha,
 * beta, stream) per product. Both return cudaSuccess, cudaErrorInvalidValue for sizes below 1,
 * cudaErrorNotSupported for a problem or GPU it cannot take (wgmma_fp8_v3_wide_unsupported says
 * why; nothing is launched), or the failed call's error.
 *
 * Requires sm_90a (built with -gencode=arch=compute_90a,code=sm_90a), CUDA 12.x or 13.x. */
#ifndef WGMMA_FP8_V3_WIDE_CUH
#define WGMMA_FP8_V3_WIDE_CUH

#include "wgmma_parts.cuh"

/*                     BN  STAGES CONSUMERS */
typedef wg_config<128, 6, 2> wgmma_fp8_v3_narrow; /* 64 accumulators per set, 6 stages of 32 KiB */
typedef wg_config<144, 6, 2> wgmma_fp8_v3_wide;   /* 72 accumulators per set, 6 stages of 34 KiB */
constexpr int WGMMA_FP8_V3_CLUSTER = 2;           /* blocks per cluster: a unit is 2 tiles high */
constexpr int WGMMA_FP8_V3_GROUP_M = 8;           /* units in groups of 8 down a column of C */
/* k-tiles in unrolled runs of RUN, each ending with its last group complete; the rest in runs of
 * RUN_REST, then of one */
constexpr int WGMMA_FP8_V3_RUN = 32, WGMMA_FP8_V3_RUN_REST = 8;

/* Adds the partial sum p of a completed group to the total d (round to nearest: CUDA cores) */
template <int ACC>
static __device__ __forceinline__ void wgmma_fp8_v3_wide_add(float (&d)[ACC], float (&p)[ACC])
{
    wgmma_fence_operand(p);
#pragma unroll
    for (int i = 0; i < ACC; i++) d[i] += p[i];
}

/* RUN consecutive k-tiles of one consumer, from ring position it0: k-tile j into partial sum
 * (j even ? p0 : p1); once it is issued, k-tile j-1's group is waited for, its stage released and
 * its sum added, so one group runs on the tensor cores while the CUDA cores add. The run is
 * unrolled and waits for its last group before it returns (no group in flight across the
 * caller's loop). */
template <class T, class Cfg, int CLUSTER, int RUN>
static __device__ __forceinline__ void
wgmma_fp8_v3_wide_run_k_tiles(const ring<Cfg> &r, float (&d)[Cfg::ACC], float (&p0)[Cfg::ACC],
                              float (&p1)[Cfg::ACC], int it0, int cw)
{
#pragma unroll
    for (int j = 0; j < RUN; j++) {
        const int it = it0 + j, s = it % Cfg::STAGES;
        mbar_wait(&r.full[s], it / Cfg::STAGES % 2);
        const uint32_t a = smem_u32(r.a(s)) + cw * WG_M * ROW_BYTES, b = smem_u32(r.b(s));
        wgmma_k_tile<T, Cfg>(j % 2 == 0 ? p0 : p1, a, b, true);
        if (j > 0) { /* k-tile j-1 is complete (j runs on): free its stage, add its sum */
            wgmma_wait_group<1>();
            release_stage_cluster<CLUSTER>(&r.empty[(it - 1) % Cfg::STAGES]);
            wgmma_fp8_v3_wide_add(d, j % 2 == 0 ? p1 : p0);
        }
    }
    wgmma_wait_group<0>();
    release_stage_cluster<CLUSTER>(&r.empty[(it0 + RUN - 1) % Cfg::STAGES]);
    wgmma_fp8_v3_wide_add(d, (RUN - 1) % 2 == 0 ? p0 : p1);
}

template <class T, class Cfg>
__global__ void __launch_bounds__((Cfg::CONSUMERS + 1) * WG_THREADS, 1)
    wgmma_fp8_v3_wide_kernel(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                             const __grid_constant__ CUtensorMap map_b, float *__restrict__ C,
                             long ldc, float alpha, float beta, bool vec2)
{
#if TC_SM90A
    constexpr int CLUSTER = WGMMA_FP8_V3_CLUSTER, BK = wg_bk<T>();
    constexpr int REGS = wg_consumer_regs(Cfg::CONSUMERS);
    static_assert(Cfg::BN % (8 * CLUSTER) == 0, "B's slices are whole 8-row swizzle atoms");
    static_assert(PRODUCER_REGS * WG_THREADS + REGS * WG_THREADS * Cfg::CONSUMERS <= 65536,
                  "the register file holds the producer's and the consumers' registers");
    static_assert(3 * Cfg::ACC + 16 <= REGS, "the total and two partial sums live in registers");
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
        tile_coords<WGMMA_FP8_V3_GROUP_M>(u, units_m, tiles_n, &um, &tn);
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
        float d[Cfg::ACC];
#pragma unroll
        for (int i = 0; i < Cfg::ACC; i++) d[i] = 0.0f;
        int it = 0;
        for (int i = 0; i < my_units; i++) {
            int m0, n0;
            unit_origin(cluster + i * clusters, m0, n0);
            constexpr int RUN = WGMMA_FP8_V3_RUN, RUN_REST = WGMMA_FP8_V3_RUN_REST;
            float p0[Cfg::ACC], p1[Cfg::ACC];
            int t = 0;
            for (; t + RUN <= k_tiles; t += RUN, it += RUN)
                wgmma_fp8_v3_wide_run_k_tiles<T, Cfg, CLUSTER, RUN>(r, d, p0, p1, it, cw);
            for (; t + RUN_REST <= k_tiles; t += RUN_REST, it += RUN_REST)
                wgmma_fp8_v3_wide_run_k_tiles<T, Cfg, CLUSTER, RUN_REST>(r, d, p0, p1, it, cw);
            for (; t < k_tiles; t++, it++) /* the last few: runs of one */
                wgmma_fp8_v3_wide_run_k_tiles<T, Cfg, CLUSTER, 1>(r, d, p0, p1, it, cw);
            epilogue_direct<Cfg::ACC>(d, C, ldc, m0 + cw * WG_M, n0, M, N, alpha, beta, vec2);
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
/* What prepare() works out once: the width, the tensor maps (they hold A's and B's addresses), C
 * and the grid. Its CUtensorMap members are 128-byte aligned: allocate it as such (on the stack, or
 * with aligned_alloc(128, ...)). */
typedef struct {
    CUtensorMap map_a, map_b;
    int M, N, K;
    float *C;
    long ldc;
    bool vec2;     /* C may be stored as float2 pairs */
    bool wide;     /* 128 x 144 tiles (else 128 x 128) */
    unsigned grid; /* blocks: CLUSTER x the clusters that fit at once, at most the units */
} wgmma_fp8_v3_wide_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
template <class T>
static const char *wgmma_fp8_v3_wide_unsupported(int M, int N, int K, const T *A, long lda,
                                                 const T *B, long ldb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    const char *why = wg_tma_unsupported<T>(A, lda, B, ldb);
    if (why) return why;
    return wg_code_unsupported((const void *)wgmma_fp8_v3_wide_kernel<T, wgmma_fp8_v3_narrow>);
}

/* The grid of the kernel with tile Cfg for an M x N C on this GPU (after the shared-memory opt-in),
 * and the cost of its rounds: ceil(units / resident clusters) x the tile's width */
template <class T, class Cfg>
static cudaError_t wgmma_fp8_v3_wide_grid(int M, int N, unsigned max_clusters, unsigned *grid,
                                          unsigned long *cost)
{
    const void *kernel = (const void *)wgmma_fp8_v3_wide_kernel<T, Cfg>;
    cudaError_t e = smem_optin(kernel, Cfg::SMEM_BYTES);
    unsigned resident = 0;
    if (e == cudaSuccess) e = wg_resident_clusters<Cfg>(kernel, WGMMA_FP8_V3_CLUSTER, &resident);
    if (e != cudaSuccess) return e;
    if (resident == 0) return cudaErrorNotSupported; /* not even one cluster fits */
    if (max_clusters && max_clusters < resident) resident = max_clusters;
    const unsigned tiles_m = (unsigned)((M + Cfg::BM - 1) / Cfg::BM);
    const unsigned units = (tiles_m + WGMMA_FP8_V3_CLUSTER - 1) / WGMMA_FP8_V3_CLUSTER *
                           (unsigned)((N + Cfg::BN - 1) / Cfg::BN);
    *grid = WGMMA_FP8_V3_CLUSTER * (units < resident ? units : resident);
    *cost = (unsigned long)((units + resident - 1) / resident) * Cfg::BN;
    return cudaSuccess;
}

/* The width whose rounds cost less on this GPU (ties: 128); a width of which not even one cluster
 * fits costs without end (cudaErrorNotSupported only when neither fits) */
template <class T> static cudaError_t wgmma_fp8_v3_wide_choose_width(int M, int N, int *width)
{
    const unsigned long never = ~0ul;
    unsigned grid = 0;
    unsigned long narrow = never, wide = never;
    cudaError_t e = wgmma_fp8_v3_wide_grid<T, wgmma_fp8_v3_narrow>(M, N, 0, &grid, &narrow);
    if (e == cudaErrorNotSupported) narrow = never, e = cudaSuccess;
    if (e == cudaSuccess) e = wgmma_fp8_v3_wide_grid<T, wgmma_fp8_v3_wide>(M, N, 0, &grid, &wide);
    if (e == cudaErrorNotSupported) wide = never, e = cudaSuccess;
    if (e != cudaSuccess) return e;
    if (narrow == never && wide == never) return cudaErrorNotSupported;
    *width = wide < narrow ? 144 : 128;
    return cudaSuccess;
}

/* prepare() with the tile width (128 or 144; 0: chosen as prepare() does) and at most
 * max_clusters clusters in the grid (0: as many as fit at once) given: both forced, for tests */
template <class T>
static cudaError_t wgmma_fp8_v3_wide_prepare_forced(wgmma_fp8_v3_wide_plan *plan, int width,
                                                    unsigned max_clusters, int M, int N, int K,
                                                    const T *A, long lda, const T *B, long ldb,
                                                    float *C, long ldc)
{
    if (M < 1 || N < 1 || K < 1 || (width != 0 && width != 128 && width != 144))
        return cudaErrorInvalidValue;
    if (wgmma_fp8_v3_wide_unsupported<T>(M, N, K, A, lda, B, ldb)) return cudaErrorNotSupported;
    cudaError_t e = width ? cudaSuccess : wgmma_fp8_v3_wide_choose_width<T>(M, N, &width);
    if (e != cudaSuccess) return e;
    unsigned long cost = 0;
    plan->wide = width == 144;
    e = plan->wide
            ? wgmma_fp8_v3_wide_grid<T, wgmma_fp8_v3_wide>(M, N, max_clusters, &plan->grid, &cost)
            : wgmma_fp8_v3_wide_grid<T, wgmma_fp8_v3_narrow>(M, N, max_clusters, &plan->grid,
                                                             &cost);
    if (e != cudaSuccess) return e;
    plan->M = M, plan->N = N, plan->K = K, plan->C = C, plan->ldc = ldc;
    plan->vec2 = wg_c_vec2(C, ldc);
    e = tma_map_kmajor(&plan->map_a, A, tma_dtype<T>::value, M, K, lda, 128);
    if (e == cudaSuccess) /* B in slices: this block's half of the tile's rows */
        e = tma_map_kmajor(&plan->map_b, B, tma_dtype<T>::value, N, K, ldb,
                           width / WGMMA_FP8_V3_CLUSTER);
    return e;
}

/* prepare() with the tile width given (128 or 144) instead of chosen */
template <class T>
static cudaError_t wgmma_fp8_v3_wide_prepare_width(wgmma_fp8_v3_wide_plan *plan, int width, int M,
                                                   int N, int K, const T *A, long lda, const T *B,
                                                   long ldb, float *C, long ldc)
{
    if (width != 128 && width != 144) return cudaErrorInvalidValue;
    return wgmma_fp8_v3_wide_prepare_forced<T>(plan, width, 0, M, N, K, A, lda, B, ldb, C, ldc);
}

/* The tile width whose rounds cost less on this GPU, as many clusters as fit */
template <class T>
static cudaError_t wgmma_fp8_v3_wide_prepare(wgmma_fp8_v3_wide_plan *plan, int M, int N, int K,
                                             const T *A, long lda, const T *B, long ldb, float *C,
                                             long ldc)
{
    return wgmma_fp8_v3_wide_prepare_forced<T>(plan, 0, 0, M, N, K, A, lda, B, ldb, C, ldc);
}

template <class T>
static cudaError_t wgmma_fp8_v3_wide_run(const wgmma_fp8_v3_wide_plan *plan, float alpha,
                                         float beta, cudaStream_t stream)
{
    cudaLaunchAttribute attr;
    if (plan->wide) {
        const cudaLaunchConfig_t cfg =
            wg_launch_config<wgmma_fp8_v3_wide>(plan->grid, WGMMA_FP8_V3_CLUSTER, &attr, stream);
        return cudaLaunchKernelEx(&cfg, wgmma_fp8_v3_wide_kernel<T, wgmma_fp8_v3_wide>, plan->M,
                                  plan->N, plan->K, plan->map_a, plan->map_b, plan->C, plan->ldc,
                                  alpha, beta, plan->vec2);
    }
    const cudaLaunchConfig_t cfg =
        wg_launch_config<wgmma_fp8_v3_narrow>(plan->grid, WGMMA_FP8_V3_CLUSTER, &attr, stream);
    return cudaLaunchKernelEx(&cfg, wgmma_fp8_v3_wide_kernel<T, wgmma_fp8_v3_narrow>, plan->M,
                              plan->N, plan->K, plan->map_a, plan->map_b, plan->C, plan->ldc, alpha,
                              beta, plan->vec2);
}

template <class T>
static cudaError_t wgmma_fp8_v3_wide_gemm(int M, int N, int K, const T *A, long lda, const T *B,
                                          long ldb, float *C, long ldc, float alpha, float beta,
                                          cudaStream_t stream)
{
    wgmma_fp8_v3_wide_plan plan;
    const cudaError_t e = wgmma_fp8_v3_wide_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? wgmma_fp8_v3_wide_run<T>(&plan, alpha, beta, stream) : e;
}

#endif /* WGMMA_FP8_V3_WIDE_CUH */
