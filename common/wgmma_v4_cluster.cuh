/* wgmma_v4_cluster - v3 made persistent, in clusters of 2 blocks that share B by multicast.
 *
 * Rung v4 of chapter 05's Hopper ladder (f16 and bf16), and chapter 04's tf32 rung (float in: the
 * tensor cores read tf32 from f32 bits). It lives in common/ because both chapters run it.
 * Parent: v3_warpspec (05_mma_ptx/wgmma/v3_warpspec.cuh). What changes, and why it is faster:
 *   - persistent: the grid is as many blocks as fit on the GPU at once (one per SM), and each
 *     block walks units of work in a loop (cluster c takes units c, c + clusters, ...) instead of
 *     computing one tile and exiting. The ring keeps running across units, so the producer loads
 *     the next unit's first k-tiles while the consumers store the last one's C;
 *   - clusters of 2: the two blocks of a cluster take vertically neighbouring tiles (one unit is a
 *     column of two tiles), which need the same k-tiles of B. Each block loads half of B's tile and
 *     the TMA multicasts it into both blocks: B's traffic from L2 halves;
 *   - so a stage is full only when both halves have landed, and it is free only when the
 *     consumers of both blocks are done with it: the producer's expect_tx counts all of B, and a
 *     consumer warp releases a stage in both blocks (lane c arrives on block c's barrier, through
 *     mapa). No block may exit while its partner can still write into it: a cluster barrier ends
 *     the kernel.
 * Measured: neither persistence nor clusters alone beat v3 at both bench sizes; the two together
 * do (chapter 05's NOTES.md has the figures).
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N column-major (ldb), C M x N row-major f32 (ldc); T = __half, __nv_bfloat16 or float
 * (read as tf32: the 13 low bits ignored). Any M, N >= 1 (the TMA zero-fills boxes past the edge,
 * stores are guarded); K >= 1 with lda, ldb multiples of 16 bytes and 16-byte aligned A and B
 * (the TMA's rules).
 *
 * Tiles: 128 x 256 per block (two consumer warpgroups of 64 x 256, m64n256 wgmma, 128 f32
 * accumulators per thread), k-tiles of one 128-byte row (64 f16 values), 4 stages of 48 KiB.
 * Tiles are walked in groups of 8 units down a column of C (tile_coords), for L2 reuse.
 *
 * The plain launcher (no harness types; common/ headers only):
 *   wgmma_v4_cluster_gemm<T>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or, with the host work (tensor maps, the shared-memory opt-in, the grid) done once:
 *   wgmma_v4_cluster_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc), then
 *   wgmma_v4_cluster_run<T>(&plan, alpha, beta, stream) for each product.
 * Both return cudaSuccess, cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a
 * problem or GPU it cannot take (wgmma_v4_cluster_unsupported says why; nothing is launched), or
 * the error of the CUDA call that failed.
 *
 * Requires sm_90a (built with -gencode=arch=compute_90a,code=sm_90a), CUDA 12.x or 13.x. */
#ifndef WGMMA_V4_CLUSTER_CUH
#define WGMMA_V4_CLUSTER_CUH

#include "wgmma_parts.cuh"

/*                     BN  STAGES CONSUMERS */
typedef wg_config<256, 4, 2> wgmma_v4_config; /* 128 x 256 tiles, 4 stages of 48 KiB */
constexpr int WGMMA_V4_CLUSTER = 2;           /* blocks per cluster: a unit is 2 tiles high */
constexpr int WGMMA_V4_GROUP_M = 8;           /* units in groups of 8 down a column of C */

template <class T>
__global__ void __launch_bounds__((wgmma_v4_config::CONSUMERS + 1) * WG_THREADS, 1)
    wgmma_v4_cluster_kernel(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                            const __grid_constant__ CUtensorMap map_b, float *__restrict__ C,
                            long ldc, float alpha, float beta, bool vec2)
{
#if TC_SM90A
    typedef wgmma_v4_config Cfg;
    constexpr int CLUSTER = WGMMA_V4_CLUSTER, BK = wg_bk<T>();
    constexpr int REGS = wg_consumer_regs(Cfg::CONSUMERS);
    static_assert(Cfg::BN % (8 * CLUSTER) == 0, "B's slices are whole 8-row swizzle atoms");
    static_assert(PRODUCER_REGS * WG_THREADS + REGS * WG_THREADS * Cfg::CONSUMERS <= 65536,
                  "the register file holds the producer's and the consumers' registers");
    static_assert(Cfg::ACC + 16 <= REGS, "a consumer's accumulators live in its registers");
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
        tile_coords<WGMMA_V4_GROUP_M>(u, units_m, tiles_n, &um, &tn);
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
                wgmma_k_tile<T, Cfg>(d, a, b, t == 0);
                wgmma_wait_group<1>(); /* the previous k-tile's group is done */
                if (t > 0) release_stage_cluster<CLUSTER>(&r.empty[(it - 1) % Cfg::STAGES]);
            }
            wgmma_wait_group<0>();
            wgmma_fence_operand(d);
            release_stage_cluster<CLUSTER>(&r.empty[(it - 1) % Cfg::STAGES]);
            epilogue_direct<Cfg::ACC>(d, C, ldc, m0 + cw * WG_M, n0, M, N, alpha, beta, vec2);
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
} wgmma_v4_cluster_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
template <class T>
static const char *wgmma_v4_cluster_unsupported(int M, int N, int K, const T *A, long lda,
                                                const T *B, long ldb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    const char *why = wg_tma_unsupported<T>(A, lda, B, ldb);
    if (why) return why;
    return wg_code_unsupported((const void *)wgmma_v4_cluster_kernel<T>);
}

/* prepare() with at most max_clusters clusters in the grid (0: as many as fit at once): the
 * persistent grid's size, which the GPU decides otherwise, forced (for tests; any smaller grid is
 * correct too, each cluster walking more units) */
template <class T>
static cudaError_t wgmma_v4_cluster_prepare_clusters(wgmma_v4_cluster_plan *plan,
                                                     unsigned max_clusters, int M, int N, int K,
                                                     const T *A, long lda, const T *B, long ldb,
                                                     float *C, long ldc)
{
    typedef wgmma_v4_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (wgmma_v4_cluster_unsupported<T>(M, N, K, A, lda, B, ldb)) return cudaErrorNotSupported;
    const void *kernel = (const void *)wgmma_v4_cluster_kernel<T>;
    cudaError_t e = smem_optin(kernel, Cfg::SMEM_BYTES);
    unsigned resident = 0;
    if (e == cudaSuccess) e = wg_resident_clusters<Cfg>(kernel, WGMMA_V4_CLUSTER, &resident);
    if (e != cudaSuccess) return e;
    if (resident == 0) return cudaErrorNotSupported; /* not even one cluster fits */
    if (max_clusters && max_clusters < resident) resident = max_clusters;
    const unsigned tiles_m = (unsigned)((M + Cfg::BM - 1) / Cfg::BM);
    const unsigned units = (tiles_m + WGMMA_V4_CLUSTER - 1) / WGMMA_V4_CLUSTER *
                           (unsigned)((N + Cfg::BN - 1) / Cfg::BN);
    plan->grid = WGMMA_V4_CLUSTER * (units < resident ? units : resident);
    plan->M = M, plan->N = N, plan->K = K, plan->C = C, plan->ldc = ldc;
    plan->vec2 = wg_c_vec2(C, ldc);
    e = tma_map_kmajor(&plan->map_a, A, tma_dtype<T>::value, M, K, lda, Cfg::BM);
    if (e == cudaSuccess)
        e = tma_map_kmajor(&plan->map_b, B, tma_dtype<T>::value, N, K, ldb,
                           Cfg::BN / WGMMA_V4_CLUSTER);
    return e;
}

template <class T>
static cudaError_t wgmma_v4_cluster_prepare(wgmma_v4_cluster_plan *plan, int M, int N, int K,
                                            const T *A, long lda, const T *B, long ldb, float *C,
                                            long ldc)
{
    return wgmma_v4_cluster_prepare_clusters<T>(plan, 0, M, N, K, A, lda, B, ldb, C, ldc);
}

template <class T>
static cudaError_t wgmma_v4_cluster_run(const wgmma_v4_cluster_plan *plan, float alpha, float beta,
                                        cudaStream_t stream)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        wg_launch_config<wgmma_v4_config>(plan->grid, WGMMA_V4_CLUSTER, &attr, stream);
    return cudaLaunchKernelEx(&cfg, wgmma_v4_cluster_kernel<T>, plan->M, plan->N, plan->K,
                              plan->map_a, plan->map_b, plan->C, plan->ldc, alpha, beta,
                              plan->vec2);
}

template <class T>
static cudaError_t wgmma_v4_cluster_gemm(int M, int N, int K, const T *A, long lda, const T *B,
                                         long ldb, float *C, long ldc, float alpha, float beta,
                                         cudaStream_t stream)
{
    wgmma_v4_cluster_plan plan;
    const cudaError_t e = wgmma_v4_cluster_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? wgmma_v4_cluster_run<T>(&plan, alpha, beta, stream) : e;
}

#endif /* WGMMA_V4_CLUSTER_CUH */
