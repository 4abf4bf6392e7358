/* wgmma_fp8_v1_promote - v4's pipeline for FP8 inputs (e4m3 or e5m2), with each k-tile's partial
 * sum promoted to an f32 total on the CUDA cores.
 *
 * Rung 1 of chapter 05's FP8 track (e4m3 or e5m2 in, f32 accumulate and out).
 * Parent: v4_cluster of the f16 track (common/wgmma_v4_cluster.cuh). What changes:
 *   - the operands are 8-bit: a k-tile (one 128-byte swizzle row) holds 128 values, and one
 *     wgmma m64nNk32 takes 32 of them, so the four wgmma of a k-tile cover k = 128; FP8 wgmma
 *     wants both operands K-major, which this layout is. The TMA moves bytes (UINT8 maps);
 *   - the tensor cores' running FP8 sum keeps about 14 bits (chapter 08 measures it), far from
 *     f32's 24: summed over all of K it loses accuracy as K grows. So each k-tile goes into a
 *     fresh partial sum (its first wgmma overwrites it), and once the group is complete the CUDA
 *     cores add the partial to the f32 total, rounding to nearest ("promotion"): the tensor cores
 *     only ever sum 128 products;
 *   - the wait for the group costs: each consumer's wgmma queue runs empty once per k-tile while
 *     it waits and adds (the other consumer's wgmma run meanwhile). fp8_v2 hides it;
 *   - tiles of 128 x 128 (two sets of 64 accumulators per thread: the total and the partial) and
 *     6 stages of 32 KiB.
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N column-major (ldb), C M x N row-major f32 (ldc); T = __nv_fp8_e4m3 or __nv_fp8_e5m2.
 * Any M, N >= 1; K >= 1 with lda, ldb multiples of 16 and 16-byte aligned A and B (the TMA's
 * rules: 16-byte rows).
 *
 * The plain launcher (no harness types; common/ headers only):
 *   wgmma_fp8_v1_promote_gemm<T>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or wgmma_fp8_v1_promote_prepare<T>(&plan, ...) once and wgmma_fp8_v1_promote_run<T>(&plan,
 * alpha, beta, stream) per product. Both return cudaSuccess, cudaErrorInvalidValue for sizes
 * below 1, cudaErrorNotSupported for a problem or GPU it cannot take
 * (wgmma_fp8_v1_promote_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_90a (built with -gencode=arch=compute_90a,code=sm_90a), CUDA 12.x or 13.x. */
#ifndef WGMMA_FP8_V1_PROMOTE_CUH
#define WGMMA_FP8_V1_PROMOTE_CUH

#include "wgmma_parts.cuh"

/*                     BN  STAGES CONSUMERS */
typedef wg_config<128, 6, 2> wgmma_fp8_v1_config; /* 128 x 128 tiles, 6 stages of 32 KiB */
constexpr int WGMMA_FP8_V1_CLUSTER = 2;           /* blocks per cluster: a unit is 2 tiles high */
constexpr int WGMMA_FP8_V1_GROUP_M = 8;           /* units in groups of 8 down a column of C */

/* Adds the partial sum p of a completed group to the total d (round to nearest: CUDA cores) */
template <int ACC>
static __device__ __forceinline__ void wgmma_fp8_v1_promote_add(float (&d)[ACC], float (&p)[ACC])
{
    wgmma_fence_operand(p);
#pragma unroll
    for (int i = 0; i < ACC; i++) d[i] += p[i];
}

template <class T>
__global__ void __launch_bounds__((wgmma_fp8_v1_config::CONSUMERS + 1) * WG_THREADS, 1)
    wgmma_fp8_v1_promote_kernel(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                                const __grid_constant__ CUtensorMap map_b, float *__restrict__ C,
                                long ldc, float alpha, float beta, bool vec2)
{
#if TC_SM90A
    typedef wgmma_fp8_v1_config Cfg;
    constexpr int CLUSTER = WGMMA_FP8_V1_CLUSTER, BK = wg_bk<T>();
    constexpr int REGS = wg_consumer_regs(Cfg::CONSUMERS);
    static_assert(Cfg::BN % (8 * CLUSTER) == 0, "B's slices are whole 8-row swizzle atoms");
    static_assert(PRODUCER_REGS * WG_THREADS + REGS * WG_THREADS * Cfg::CONSUMERS <= 65536,
                  "the register file holds the producer's and the consumers' registers");
    static_assert(2 * Cfg::ACC + 16 <= REGS,
                  "promotion keeps two sets of accumulators in registers");
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
        tile_coords<WGMMA_FP8_V1_GROUP_M>(u, units_m, tiles_n, &um, &tn);
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
            for (int t = 0; t < k_tiles; t++, it++) {
                const int s = it % Cfg::STAGES;
                mbar_wait(&r.full[s], it / Cfg::STAGES % 2);
                const uint32_t a = smem_u32(r.a(s)) + cw * WG_M * ROW_BYTES, b = smem_u32(r.b(s));
                /* the k-tile into a fresh partial sum; once it is complete, the CUDA cores add it
                 * to the f32 total, rounding to nearest */
                float part[Cfg::ACC];
                wgmma_k_tile<T, Cfg>(part, a, b, true);
                wgmma_wait_group<0>();
                release_stage_cluster<CLUSTER>(&r.empty[s]);
                wgmma_fp8_v1_promote_add(d, part);
            }
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
/* What prepare() works out once: the tensor maps (they hold A's and B's addresses), C and the
 * grid. Its CUtensorMap members are 128-byte aligned: allocate it as such (on the stack, or with
 * aligned_alloc(128, ...)). */
typedef struct {
    CUtensorMap map_a, map_b;
    int M, N, K;
    float *C;
    long ldc;
    bool vec2;     /* C may be stored as float2 pairs */
    unsigned grid; /* blocks: CLUSTER x the clusters that fit at once, at most the units */
} wgmma_fp8_v1_promote_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
template <class T>
static const char *wgmma_fp8_v1_promote_unsupported(int M, int N, int K, const T *A, long lda,
                                                    const T *B, long ldb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    const char *why = wg_tma_unsupported<T>(A, lda, B, ldb);
    if (why) return why;
    return wg_code_unsupported((const void *)wgmma_fp8_v1_promote_kernel<T>);
}

/* prepare() with at most max_clusters clusters in the grid (0: as many as fit at once): the
 * persistent grid's size, which the GPU decides otherwise, forced (for tests; any smaller grid is
 * correct too, each cluster walking more units) */
template <class T>
static cudaError_t wgmma_fp8_v1_promote_prepare_clusters(wgmma_fp8_v1_promote_plan *plan,
                                                         unsigned max_clusters, int M, int N, int K,
                                                         const T *A, long lda, const T *B, long ldb,
                                                         float *C, long ldc)
{
    typedef wgmma_fp8_v1_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (wgmma_fp8_v1_promote_unsupported<T>(M, N, K, A, lda, B, ldb)) return cudaErrorNotSupported;
    const void *kernel = (const void *)wgmma_fp8_v1_promote_kernel<T>;
    cudaError_t e = smem_optin(kernel, Cfg::SMEM_BYTES);
    unsigned resident = 0;
    if (e == cudaSuccess) e = wg_resident_clusters<Cfg>(kernel, WGMMA_FP8_V1_CLUSTER, &resident);
    if (e != cudaSuccess) return e;
    if (resident == 0) return cudaErrorNotSupported; /* not even one cluster fits */
    if (max_clusters && max_clusters < resident) resident = max_clusters;
    const unsigned tiles_m = (unsigned)((M + Cfg::BM - 1) / Cfg::BM);
    const unsigned units = (tiles_m + WGMMA_FP8_V1_CLUSTER - 1) / WGMMA_FP8_V1_CLUSTER *
                           (unsigned)((N + Cfg::BN - 1) / Cfg::BN);
    plan->grid = WGMMA_FP8_V1_CLUSTER * (units < resident ? units : resident);
    plan->M = M, plan->N = N, plan->K = K, plan->C = C, plan->ldc = ldc;
    plan->vec2 = wg_c_vec2(C, ldc);
    e = tma_map_kmajor(&plan->map_a, A, tma_dtype<T>::value, M, K, lda, Cfg::BM);
    if (e == cudaSuccess)
        e = tma_map_kmajor(&plan->map_b, B, tma_dtype<T>::value, N, K, ldb,
                           Cfg::BN / WGMMA_FP8_V1_CLUSTER);
    return e;
}

template <class T>
static cudaError_t wgmma_fp8_v1_promote_prepare(wgmma_fp8_v1_promote_plan *plan, int M, int N,
                                                int K, const T *A, long lda, const T *B, long ldb,
                                                float *C, long ldc)
{
    return wgmma_fp8_v1_promote_prepare_clusters<T>(plan, 0, M, N, K, A, lda, B, ldb, C, ldc);
}

template <class T>
static cudaError_t wgmma_fp8_v1_promote_run(const wgmma_fp8_v1_promote_plan *plan, float alpha,
                                            float beta, cudaStream_t stream)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        wg_launch_config<wgmma_fp8_v1_config>(plan->grid, WGMMA_FP8_V1_CLUSTER, &attr, stream);
    return cudaLaunchKernelEx(&cfg, wgmma_fp8_v1_promote_kernel<T>, plan->M, plan->N, plan->K,
                              plan->map_a, plan->map_b, plan->C, plan->ldc, alpha, beta,
                              plan->vec2);
}

template <class T>
static cudaError_t wgmma_fp8_v1_promote_gemm(int M, int N, int K, const T *A, long lda, const T *B,
                                             long ldb, float *C, long ldc, float alpha, float beta,
                                             cudaStream_t stream)
{
    wgmma_fp8_v1_promote_plan plan;
    const cudaError_t e = wgmma_fp8_v1_promote_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? wgmma_fp8_v1_promote_run<T>(&plan, alpha, beta, stream) : e;
}

#endif /* WGMMA_FP8_V1_PROMOTE_CUH */
