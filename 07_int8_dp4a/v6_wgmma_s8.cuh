/* i8_v6_wgmma_s8 - the INT8 GEMM on Hopper's wgmma: chapter 05's warp-specialised, persistent,
 * clustered pipeline with int8 operands and exact int32 sums.
 *
 * Rung v6 of chapter 07's INT8 GEMM ladder (int8 in, int32 accumulate and out, exact).
 * Parent: v5_mma_s8 (v5_mma_s8.cuh). What changes, and why it should be faster:
 *   - wgmma instead of mma.sync: a warpgroup of 4 warps issues one m64n128k32 instruction that
 *     reads both operands from shared memory through descriptors, instead of each warp loading
 *     its fragments with ldmatrix into registers. The register file holds only the accumulators;
 *   - the tiles arrive by the TMA into a ring of 6 mbarrier-guarded stages, filled by a producer
 *     warpgroup while two consumer warpgroups compute (warp specialisation);
 *   - persistent: one block per SM walks units of work; clusters of 2 blocks take neighbouring
 *     tiles of a column of C and share B's k-tiles by TMA multicast;
 *   - no promotion: int32 sums are exact, so unlike chapter 05's FP8 rungs (the same shapes and
 *     the same pipeline) the tensor cores' accumulators run over the whole of K.
 * It is chapter 05's v4_cluster (common/wgmma_v4_cluster.cuh) with three differences: 128 x 128
 * tiles (m64n256k32.s32 exists too: 128 x 256 is the next rung, v7_wgmma_s8_wide), int
 * accumulators, and an int32 epilogue whose alpha and beta are integers (the product wraps modulo
 * 2^32, as the other rungs').
 *
 * Problem: C = alpha * A * B + beta * C with integer alpha, beta (beta == 0 never reads C); A
 * M x K row-major int8 (lda), B K x N column-major int8 (ldb: stored N x K, K-contiguous), C
 * M x N row-major int32 (ldc). Any M, N >= 1 (the TMA zero-fills boxes past the edges, stores are
 * guarded); K >= 1 with lda, ldb multiples of 16 and 16-byte aligned A and B (the TMA's rules).
 *
 * Tile: 128 x 128 per block (two consumer warpgroups of 64 x 128, 64 int32 accumulators per
 * thread), k-tiles of one 128-byte row (128 int8 values: four wgmma of k = 32), 6 stages of 32
 * KiB. Units (two tiles high) walked in groups of 8 down a column of C.
 *
 * The plain launcher (no harness types; common/ headers and i8_gemm_parts.cuh only):
 *   i8_v6_wgmma_s8_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or i8_v6_wgmma_s8_prepare(&plan, ...) once and i8_v6_wgmma_s8_run(&plan, alpha, beta, stream)
 * per product. Both return cudaSuccess, cudaErrorInvalidValue for sizes below 1,
 * cudaErrorNotSupported for a problem or GPU it cannot take (i8_v6_wgmma_s8_unsupported says
 * why; nothing is launched), or the failed call's error.
 *
 * Requires sm_90a (built with -gencode=arch=compute_90a,code=sm_90a), CUDA 12.x or 13.x. */
#ifndef I8_V6_WGMMA_S8_CUH
#define I8_V6_WGMMA_S8_CUH

#include "i8_gemm_parts.cuh"
#include "wgmma_parts.cuh"

/*                     BN  STAGES CONSUMERS */
typedef wg_config<128, 6, 2> i8_v6_config; /* 128 x 128 tiles, 6 stages of 32 KiB */
constexpr int I8_V6_CLUSTER = 2;           /* blocks per cluster: a unit is 2 tiles high */
constexpr int I8_V6_GROUP_M = 8;           /* units in groups of 8 down a column of C */

/* This consumer's 64 x 128 block of C at (row0, col0): thread (warp, g = lane / 4, t = lane % 4)
 * holds d[4j .. 4j+3] = rows 16 warp + g and + 8, columns 8j + 2t and + 1 (the wgmma D layout);
 * every pair stored guarded (store_pair: int2 when the row allows) */
static __device__ __forceinline__ void i8_v6_epilogue(const int (&d)[i8_v6_config::ACC],
                                                      int *__restrict__ C, long ldc, int row0,
                                                      int col0, int M, int N, int alpha, int beta,
                                                      bool vec2)
{
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < i8_v6_config::ACC; i += 2)
        store_pair(C, ldc, row0 + 16 * warp + g + 8 * (i / 2 % 2), col0 + 8 * (i / 4) + 2 * t, M, N,
                   d[i], d[i + 1], alpha, beta, vec2);
}

__global__ void __launch_bounds__((i8_v6_config::CONSUMERS + 1) * WG_THREADS, 1)
    i8_v6_wgmma_s8_kernel(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                          const __grid_constant__ CUtensorMap map_b, int *__restrict__ C, long ldc,
                          int alpha, int beta, bool vec2)
{
#if TC_SM90A
    typedef i8_v6_config Cfg;
    constexpr int CLUSTER = I8_V6_CLUSTER, BK = wg_bk<int8_t>();
    constexpr int REGS = wg_consumer_regs(Cfg::CONSUMERS);
    static_assert(BK == 128, "a k-tile is one 128-byte row of int8 values");
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
        tile_coords<I8_V6_GROUP_M>(u, units_m, tiles_n, &um, &tn);
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
        int d[Cfg::ACC];
#pragma unroll
        for (int i = 0; i < Cfg::ACC; i++) d[i] = 0;
        int it = 0;
        for (int i = 0; i < my_units; i++) {
            int m0, n0;
            unit_origin(cluster + i * clusters, m0, n0);
            for (int t = 0; t < k_tiles; t++, it++) {
                const int s = it % Cfg::STAGES;
                mbar_wait(&r.full[s], it / Cfg::STAGES % 2);
                const uint32_t a = smem_u32(r.a(s)) + cw * WG_M * ROW_BYTES, b = smem_u32(r.b(s));
                wgmma_k_tile<int8_t, i8_v6_config>(d, a, b, t == 0);
                wgmma_wait_group<1>(); /* the previous k-tile's group is done */
                if (t > 0) release_stage_cluster<CLUSTER>(&r.empty[(it - 1) % Cfg::STAGES]);
            }
            wgmma_wait_group<0>();
            wgmma_fence_operand(d);
            release_stage_cluster<CLUSTER>(&r.empty[(it - 1) % Cfg::STAGES]);
            i8_v6_epilogue(d, C, ldc, m0 + cw * WG_M, n0, M, N, alpha, beta, vec2);
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
    int *C;
    long ldc;
    bool vec2;     /* C may be stored as int2 pairs */
    unsigned grid; /* blocks: CLUSTER x the clusters that fit at once, at most the units */
} i8_v6_wgmma_s8_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
static inline const char *i8_v6_wgmma_s8_unsupported(int M, int N, int K, const int8_t *A, long lda,
                                                     const int8_t *B, long ldb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    const char *why = wg_tma_unsupported<int8_t>(A, lda, B, ldb);
    if (why) return why;
    return wg_code_unsupported((const void *)i8_v6_wgmma_s8_kernel);
}

/* prepare() with at most max_clusters clusters in the grid (0: as many as fit at once): the
 * persistent grid's size, which the GPU decides otherwise, forced (for tests; any smaller grid is
 * correct too, each cluster walking more units) */
static inline cudaError_t i8_v6_wgmma_s8_prepare_clusters(i8_v6_wgmma_s8_plan *plan,
                                                          unsigned max_clusters, int M, int N,
                                                          int K, const int8_t *A, long lda,
                                                          const int8_t *B, long ldb, int *C,
                                                          long ldc)
{
    typedef i8_v6_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (i8_v6_wgmma_s8_unsupported(M, N, K, A, lda, B, ldb)) return cudaErrorNotSupported;
    const void *kernel = (const void *)i8_v6_wgmma_s8_kernel;
    cudaError_t e = smem_optin(kernel, Cfg::SMEM_BYTES);
    unsigned resident = 0;
    if (e == cudaSuccess) e = wg_resident_clusters<Cfg>(kernel, I8_V6_CLUSTER, &resident);
    if (e != cudaSuccess) return e;
    if (resident == 0) return cudaErrorNotSupported; /* not even one cluster fits */
    if (max_clusters && max_clusters < resident) resident = max_clusters;
    const unsigned tiles_m = (unsigned)((M + Cfg::BM - 1) / Cfg::BM);
    const unsigned units =
        (tiles_m + I8_V6_CLUSTER - 1) / I8_V6_CLUSTER * (unsigned)((N + Cfg::BN - 1) / Cfg::BN);
    plan->grid = I8_V6_CLUSTER * (units < resident ? units : resident);
    plan->M = M, plan->N = N, plan->K = K, plan->C = C, plan->ldc = ldc;
    plan->vec2 = (uintptr_t)C % 8 == 0 && ldc % 2 == 0;
    e = tma_map_kmajor(&plan->map_a, A, tma_dtype<int8_t>::value, M, K, lda, Cfg::BM);
    if (e == cudaSuccess)
        e = tma_map_kmajor(&plan->map_b, B, tma_dtype<int8_t>::value, N, K, ldb,
                           Cfg::BN / I8_V6_CLUSTER);
    return e;
}

static inline cudaError_t i8_v6_wgmma_s8_prepare(i8_v6_wgmma_s8_plan *plan, int M, int N, int K,
                                                 const int8_t *A, long lda, const int8_t *B,
                                                 long ldb, int *C, long ldc)
{
    return i8_v6_wgmma_s8_prepare_clusters(plan, 0, M, N, K, A, lda, B, ldb, C, ldc);
}

static inline cudaError_t i8_v6_wgmma_s8_run(const i8_v6_wgmma_s8_plan *plan, int alpha, int beta,
                                             cudaStream_t stream)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        wg_launch_config<i8_v6_config>(plan->grid, I8_V6_CLUSTER, &attr, stream);
    return cudaLaunchKernelEx(&cfg, i8_v6_wgmma_s8_kernel, plan->M, plan->N, plan->K, plan->map_a,
                              plan->map_b, plan->C, plan->ldc, alpha, beta, plan->vec2);
}

static inline cudaError_t i8_v6_wgmma_s8_gemm(int M, int N, int K, const int8_t *A, long lda,
                                              const int8_t *B, long ldb, int *C, long ldc,
                                              int alpha, int beta, cudaStream_t stream)
{
    i8_v6_wgmma_s8_plan plan;
    const cudaError_t e = i8_v6_wgmma_s8_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? i8_v6_wgmma_s8_run(&plan, alpha, beta, stream) : e;
}

#endif /* I8_V6_WGMMA_S8_CUH */
