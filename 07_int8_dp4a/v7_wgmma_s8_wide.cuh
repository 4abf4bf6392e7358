/* i8_v7_wgmma_s8_wide - v6_wgmma_s8 on 128 x 256 tiles: each k-tile of A serves twice the
 * columns, as in chapter 05's f16 ladder.
 *
 * Rung v7 of chapter 07's INT8 GEMM ladder (int8 in, int32 accumulate and out, exact).
 * Parent: v6_wgmma_s8 (v6_wgmma_s8.cuh). What changes, and why it should be faster:
 *   - a consumer warpgroup issues m64n256k32 instead of m64n128k32: per k-tile the TMA brings
 *     A's 16 KiB and B's 32 KiB for 128 x 256 outputs, 1.5 bytes per output where v6 brings 2
 *     (16 + 16 KiB for 128 x 128), the wgmma read 2.5 bytes of shared memory per output (each
 *     consumer reads all of B) where v6's read 3, and the tensor cores get one instruction of
 *     twice the work per k-step (fewer issue slots, fewer barrier rounds per output);
 *   - 128 int32 accumulators per consumer thread (64 in v6), within the 232 setmaxnreg gives;
 *   - the ring: 4 stages of 48 KiB (v6: 6 of 32), the same 192 KiB;
 *   - the cluster's B multicast slices are 128 rows (v6: 64), each block loading half of B's 256.
 * Nothing else changes: the loop, the barriers, the persistent grid and the int32 epilogue are
 * v6's (an earlier edition of v6 kept 128 x 128 on the belief that the integer wgmma stops at
 * n = 224; it does not: ptxas takes m64n256k32.s32.s8.s8).
 *
 * Problem: C = alpha * A * B + beta * C with integer alpha, beta (beta == 0 never reads C); A
 * M x K row-major int8 (lda), B K x N column-major int8 (ldb: stored N x K, K-contiguous), C
 * M x N row-major int32 (ldc). Any M, N >= 1 (the TMA zero-fills boxes past the edges, stores are
 * guarded); K >= 1 with lda, ldb multiples of 16 and 16-byte aligned A and B (the TMA's rules).
 *
 * Tile: 128 x 256 per block (two consumer warpgroups of 64 x 256, 128 int32 accumulators per
 * thread), k-tiles of one 128-byte row (128 int8 values: four wgmma of k = 32), 4 stages of 48
 * KiB. Units (two tiles high) walked in groups of 8 down a column of C.
 *
 * The plain launcher (no harness types; common/ headers and i8_gemm_parts.cuh only):
 *   i8_v7_wgmma_s8_wide_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or i8_v7_wgmma_s8_wide_prepare(&plan, ...) once and i8_v7_wgmma_s8_wide_run(&plan, alpha, beta, stream)
 * per product. Both return cudaSuccess, cudaErrorInvalidValue for sizes below 1,
 * cudaErrorNotSupported for a problem or GPU it cannot take (i8_v7_wgmma_s8_wide_unsupported says
 * why; nothing is launched), or the failed call's error.
 *
 * Requires sm_90a (built with -gencode=arch=compute_90a,code=sm_90a), CUDA 12.x or 13.x. */
#ifndef I8_V7_WGMMA_S8_WIDE_CUH
#define I8_V7_WGMMA_S8_WIDE_CUH

#include "i8_gemm_parts.cuh"
#include "wgmma_parts.cuh"

/*                     BN  STAGES CONSUMERS */
typedef wg_config<256, 4, 2> i8_v7_config; /* 128 x 256 tiles, 4 stages of 48 KiB */
constexpr int I8_V7_CLUSTER = 2;           /* blocks per cluster: a unit is 2 tiles high */
constexpr int I8_V7_GROUP_M = 8;           /* units in groups of 8 down a column of C */

/* This consumer's 64 x 256 block of C at (row0, col0): thread (warp, g = lane / 4, t = lane % 4)
 * holds d[4j .. 4j+3] = rows 16 warp + g and + 8, columns 8j + 2t and + 1 (the wgmma D layout);
 * every pair stored guarded (store_pair: int2 when the row allows) */
static __device__ __forceinline__ void i8_v7_epilogue(const int (&d)[i8_v7_config::ACC],
                                                      int *__restrict__ C, long ldc, int row0,
                                                      int col0, int M, int N, int alpha, int beta,
                                                      bool vec2)
{
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < i8_v7_config::ACC; i += 2)
        store_pair(C, ldc, row0 + 16 * warp + g + 8 * (i / 2 % 2), col0 + 8 * (i / 4) + 2 * t, M, N,
                   d[i], d[i + 1], alpha, beta, vec2);
}

__global__ void __launch_bounds__((i8_v7_config::CONSUMERS + 1) * WG_THREADS, 1)
    i8_v7_wgmma_s8_wide_kernel(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                          const __grid_constant__ CUtensorMap map_b, int *__restrict__ C, long ldc,
                          int alpha, int beta, bool vec2)
{
#if TC_SM90A
    typedef i8_v7_config Cfg;
    constexpr int CLUSTER = I8_V7_CLUSTER, BK = wg_bk<int8_t>();
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
        tile_coords<I8_V7_GROUP_M>(u, units_m, tiles_n, &um, &tn);
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
                wgmma_k_tile<int8_t, i8_v7_config>(d, a, b, t == 0);
                wgmma_wait_group<1>(); /* the previous k-tile's group is done */
                if (t > 0) release_stage_cluster<CLUSTER>(&r.empty[(it - 1) % Cfg::STAGES]);
            }
            wgmma_wait_group<0>();
            wgmma_fence_operand(d);
            release_stage_cluster<CLUSTER>(&r.empty[(it - 1) % Cfg::STAGES]);
            i8_v7_epilogue(d, C, ldc, m0 + cw * WG_M, n0, M, N, alpha, beta, vec2);
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
} i8_v7_wgmma_s8_wide_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
static inline const char *i8_v7_wgmma_s8_wide_unsupported(int M, int N, int K, const int8_t *A, long lda,
                                                     const int8_t *B, long ldb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    const char *why = wg_tma_unsupported<int8_t>(A, lda, B, ldb);
    if (why) return why;
    return wg_code_unsupported((const void *)i8_v7_wgmma_s8_wide_kernel);
}

/* prepare() with at most max_clusters clusters in the grid (0: as many as fit at once): the
 * persistent grid's size, which the GPU decides otherwise, forced (for tests; any smaller grid is
 * correct too, each cluster walking more units) */
static inline cudaError_t i8_v7_wgmma_s8_wide_prepare_clusters(i8_v7_wgmma_s8_wide_plan *plan,
                                                          unsigned max_clusters, int M, int N,
                                                          int K, const int8_t *A, long lda,
                                                          const int8_t *B, long ldb, int *C,
                                                          long ldc)
{
    typedef i8_v7_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (i8_v7_wgmma_s8_wide_unsupported(M, N, K, A, lda, B, ldb)) return cudaErrorNotSupported;
    const void *kernel = (const void *)i8_v7_wgmma_s8_wide_kernel;
    cudaError_t e = smem_optin(kernel, Cfg::SMEM_BYTES);
    unsigned resident = 0;
    if (e == cudaSuccess) e = wg_resident_clusters<Cfg>(kernel, I8_V7_CLUSTER, &resident);
    if (e != cudaSuccess) return e;
    if (resident == 0) return cudaErrorNotSupported; /* not even one cluster fits */
    if (max_clusters && max_clusters < resident) resident = max_clusters;
    const unsigned tiles_m = (unsigned)((M + Cfg::BM - 1) / Cfg::BM);
    const unsigned units =
        (tiles_m + I8_V7_CLUSTER - 1) / I8_V7_CLUSTER * (unsigned)((N + Cfg::BN - 1) / Cfg::BN);
    plan->grid = I8_V7_CLUSTER * (units < resident ? units : resident);
    plan->M = M, plan->N = N, plan->K = K, plan->C = C, plan->ldc = ldc;
    plan->vec2 = (uintptr_t)C % 8 == 0 && ldc % 2 == 0;
    e = tma_map_kmajor(&plan->map_a, A, tma_dtype<int8_t>::value, M, K, lda, Cfg::BM);
    if (e == cudaSuccess)
        e = tma_map_kmajor(&plan->map_b, B, tma_dtype<int8_t>::value, N, K, ldb,
                           Cfg::BN / I8_V7_CLUSTER);
    return e;
}

static inline cudaError_t i8_v7_wgmma_s8_wide_prepare(i8_v7_wgmma_s8_wide_plan *plan, int M, int N, int K,
                                                 const int8_t *A, long lda, const int8_t *B,
                                                 long ldb, int *C, long ldc)
{
    return i8_v7_wgmma_s8_wide_prepare_clusters(plan, 0, M, N, K, A, lda, B, ldb, C, ldc);
}

static inline cudaError_t i8_v7_wgmma_s8_wide_run(const i8_v7_wgmma_s8_wide_plan *plan, int alpha, int beta,
                                             cudaStream_t stream)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        wg_launch_config<i8_v7_config>(plan->grid, I8_V7_CLUSTER, &attr, stream);
    return cudaLaunchKernelEx(&cfg, i8_v7_wgmma_s8_wide_kernel, plan->M, plan->N, plan->K, plan->map_a,
                              plan->map_b, plan->C, plan->ldc, alpha, beta, plan->vec2);
}

static inline cudaError_t i8_v7_wgmma_s8_wide_gemm(int M, int N, int K, const int8_t *A, long lda,
                                              const int8_t *B, long ldb, int *C, long ldc,
                                              int alpha, int beta, cudaStream_t stream)
{
    i8_v7_wgmma_s8_wide_plan plan;
    const cudaError_t e = i8_v7_wgmma_s8_wide_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? i8_v7_wgmma_s8_wide_run(&plan, alpha, beta, stream) : e;
}

#endif /* I8_V7_WGMMA_S8_WIDE_CUH */
