/* wgmma_v5_tmastore - v4 with C out through TMA stores: the consumers write C into small swizzled
 * boxes in shared memory and the copy engine stores them while the next tile runs.
 *
 * Rung v5 of chapter 05's Hopper ladder (f16 and bf16 in, f32 accumulate and out).
 * Parent: v4_cluster (common/wgmma_v4_cluster.cuh). What changes, and why it is faster:
 *   - v4's consumers store C from registers, 64 float2 stores per thread (guarded only at C's
 *     edges), and the tensor cores wait until every store has been issued. Here each consumer
 *     writes its 64 rows in boxes of
 *     64 x 32 floats into shared memory (in the 128-byte swizzle, so the float2 writes of a warp
 *     do not collide in banks), fences, and one thread hands the box to cp.async.bulk.tensor
 *     (wgmma_v5_epilogue_tma). The copy engine clips at C's edges, so no thread guards a store, and the
 *     consumer goes on to the next box, then to the next tile's wgmma, while the boxes drain;
 *   - two buffers per consumer, used in turn: a buffer is written again only after the copy
 *     engine has read its previous box (bulk_wait_read<1>). They take 32 KiB beside the 4 stages:
 *     no stage is given up for the epilogue;
 *   - the epilogue needs beta == 0 and a C the TMA can address (16-byte aligned, ldc and N
 *     multiples of 4: a TMA store writes whole 16-byte pieces of a row); any other problem keeps
 *     v4's direct epilogue, in the same kernel.
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N column-major (ldb), C M x N row-major f32 (ldc); T = __half or __nv_bfloat16. Any
 * M, N >= 1; K >= 1 with lda, ldb multiples of 8 and 16-byte aligned A and B (the TMA's rules).
 *
 * Tiles: v4's (128 x 256 per block, 4 stages of 48 KiB, clusters of 2, groups of 8 units), and
 * two 8 KiB boxes per consumer.
 *
 * The plain launcher (no harness types; common/ headers only):
 *   wgmma_v5_tmastore_gemm<T>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or wgmma_v5_tmastore_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc) once and
 * wgmma_v5_tmastore_run<T>(&plan, alpha, beta, stream) per product. Both return cudaSuccess,
 * cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a problem or GPU it cannot
 * take (wgmma_v5_tmastore_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_90a (built with -gencode=arch=compute_90a,code=sm_90a), CUDA 12.x or 13.x. */
#ifndef WGMMA_V5_TMASTORE_CUH
#define WGMMA_V5_TMASTORE_CUH

#include "wgmma_parts.cuh"

constexpr int WGMMA_V5_BOX_COLS = 32; /* a box of C: 64 rows x 32 floats (128-byte rows) */
/*                     BN  STAGES CONSUMERS EPILOGUE_BYTES: two boxes per consumer */
typedef wg_config<256, 4, 2, 2 * 2 * WG_M * WGMMA_V5_BOX_COLS * 4> wgmma_v5_config;
constexpr int WGMMA_V5_CLUSTER = 2; /* blocks per cluster: a unit is 2 tiles high */
constexpr int WGMMA_V5_GROUP_M = 8; /* units in groups of 8 down a column of C */

/* C's 64 rows of this consumer warpgroup, at (row0, col0), out through TMA stores in boxes of
 * 64 x COLS floats (COLS = 32: 128-byte rows; 16: 64-byte rows). For each box, thread 0 waits
 * until the buffer's previous box has been read by the copy engine (at most one other of its
 * copies still reading), the warpgroup writes alpha d into the buffer in the swizzle of the row
 * width (byte address bits 4.. XOR bits 7..: 16-byte chunk j of row r at j ^ (r % 8) for 128-byte
 * rows, j ^ (r / 2 % 4) for 64-byte ones), fences, and thread 0 issues the TMA store; the copies
 * run on while the next box is written and while the tensor cores start the next tile. The copy
 * engine clips the boxes at C's edges. `turn` counts this consumer's boxes (its parity picks the
 * buffer) across tiles. Named barrier 2 + cw: this warpgroup's 128 threads. */
template <int BN, int COLS>
static __device__ __forceinline__ void
wgmma_v5_epilogue_tma(const float (&d)[BN / 2], unsigned char *bufs, const CUtensorMap *map_c,
                      int row0, int col0, int M, int N, float alpha, int cw, int &turn)
{
    static_assert(COLS == 32 || COLS == 16, "a box row is one 128- or 64-byte swizzle row");
    static_assert(BN % COLS == 0, "the TMA-store epilogue takes whole boxes of the tile");
    const int wt = threadIdx.x % WG_THREADS, warp = wt / 32, lane = wt % 32, g = lane / 4,
              t = lane % 4;
#pragma unroll
    for (int c0 = 0; c0 < BN; c0 += COLS, turn++) {
        unsigned char *buf = bufs + turn % 2 * (WG_M * COLS * 4);
        if (wt == 0) bulk_wait_read<1>();
        named_bar_sync(2 + cw, WG_THREADS);
#pragma unroll
        for (int i = 0; i < BN / 2; i += 2) {
            const int col = 8 * (i / 4) + 2 * t;
            if (col < c0 || col >= c0 + COLS) continue; /* resolved at compile time */
            const int row = 16 * warp + g + 8 * (i / 2 % 2), at = row * COLS * 4 + (col - c0) * 4;
            *(float2 *)(buf + (at ^ (((at >> 7) & (COLS * 4 / 16 - 1)) << 4))) =
                make_float2(alpha * d[i], alpha * d[i + 1]);
        }
        fence_proxy_async(); /* the generic-proxy stores, seen by the copy engine */
        named_bar_sync(2 + cw, WG_THREADS);
        if (wt == 0) { /* a group per box, empty for a box wholly outside C: the wait above
                        * counts boxes */
            if (row0 < M && col0 + c0 < N) tma_store_2d(map_c, buf, col0 + c0, row0);
            bulk_commit();
        }
    }
}

template <class T>
__global__ void __launch_bounds__((wgmma_v5_config::CONSUMERS + 1) * WG_THREADS, 1)
    wgmma_v5_tmastore_kernel(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                             const __grid_constant__ CUtensorMap map_b, float *__restrict__ C,
                             long ldc, float alpha, float beta, bool vec2,
                             const __grid_constant__ CUtensorMap map_c, bool c_tma)
{
#if TC_SM90A
    typedef wgmma_v5_config Cfg;
    constexpr int CLUSTER = WGMMA_V5_CLUSTER, BK = wg_bk<T>();
    constexpr int REGS = wg_consumer_regs(Cfg::CONSUMERS);
    static_assert(Cfg::BN % (8 * CLUSTER) == 0, "B's slices are whole 8-row swizzle atoms");
    static_assert(PRODUCER_REGS * WG_THREADS + REGS * WG_THREADS * Cfg::CONSUMERS <= 65536,
                  "the register file holds the producer's and the consumers' registers");
    static_assert(Cfg::ACC + 16 <= REGS, "a consumer's accumulators live in its registers");
    static_assert(Cfg::EPILOGUE_BYTES >= Cfg::CONSUMERS * 2 * WG_M * WGMMA_V5_BOX_COLS * 4,
                  "every consumer has two boxes of C in the epilogue's bytes");
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
        tile_coords<WGMMA_V5_GROUP_M>(u, units_m, tiles_n, &um, &tn);
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
        /* its two box buffers, after the stages */
        unsigned char *boxes = r.epilogue() + 2 * cw * WG_M * WGMMA_V5_BOX_COLS * 4;
        int turn = 0; /* wgmma_v5_epilogue_tma's boxes so far */
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
            if (c_tma) /* map_c exists and beta == 0 */
                wgmma_v5_epilogue_tma<Cfg::BN, WGMMA_V5_BOX_COLS>(d, boxes, &map_c, m0 + cw * WG_M,
                                                                  n0, M, N, alpha, cw, turn);
            else
                epilogue_direct<Cfg::ACC>(d, C, ldc, m0 + cw * WG_M, n0, M, N, alpha, beta, vec2);
        }
    }
    /* the last boxes' copies read this block's shared memory: done before it exits */
    bulk_wait<0>();
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
    CUtensorMap map_c; /* C in boxes of 64 x WGMMA_V5_BOX_COLS floats, when has_map_c */
    bool has_map_c;    /* the TMA can write C (wg_c_tma) */
    bool vec2;         /* C may be stored as float2 pairs */
    unsigned grid;     /* blocks: CLUSTER x the clusters that fit at once, at most the units */
} wgmma_v5_tmastore_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
template <class T>
static const char *wgmma_v5_tmastore_unsupported(int M, int N, int K, const T *A, long lda,
                                                 const T *B, long ldb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    const char *why = wg_tma_unsupported<T>(A, lda, B, ldb);
    if (why) return why;
    return wg_code_unsupported((const void *)wgmma_v5_tmastore_kernel<T>);
}

/* prepare() with at most max_clusters clusters in the grid (0: as many as fit at once): the
 * persistent grid's size, which the GPU decides otherwise, forced (for tests; any smaller grid is
 * correct too, each cluster walking more units) */
template <class T>
static cudaError_t wgmma_v5_tmastore_prepare_clusters(wgmma_v5_tmastore_plan *plan,
                                                      unsigned max_clusters, int M, int N, int K,
                                                      const T *A, long lda, const T *B, long ldb,
                                                      float *C, long ldc)
{
    typedef wgmma_v5_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (wgmma_v5_tmastore_unsupported<T>(M, N, K, A, lda, B, ldb)) return cudaErrorNotSupported;
    const void *kernel = (const void *)wgmma_v5_tmastore_kernel<T>;
    cudaError_t e = smem_optin(kernel, Cfg::SMEM_BYTES);
    unsigned resident = 0;
    if (e == cudaSuccess) e = wg_resident_clusters<Cfg>(kernel, WGMMA_V5_CLUSTER, &resident);
    if (e != cudaSuccess) return e;
    if (resident == 0) return cudaErrorNotSupported; /* not even one cluster fits */
    if (max_clusters && max_clusters < resident) resident = max_clusters;
    const unsigned tiles_m = (unsigned)((M + Cfg::BM - 1) / Cfg::BM);
    const unsigned units = (tiles_m + WGMMA_V5_CLUSTER - 1) / WGMMA_V5_CLUSTER *
                           (unsigned)((N + Cfg::BN - 1) / Cfg::BN);
    plan->grid = WGMMA_V5_CLUSTER * (units < resident ? units : resident);
    plan->M = M, plan->N = N, plan->K = K, plan->C = C, plan->ldc = ldc;
    plan->vec2 = wg_c_vec2(C, ldc);
    e = tma_map_kmajor(&plan->map_a, A, tma_dtype<T>::value, M, K, lda, Cfg::BM);
    if (e == cudaSuccess)
        e = tma_map_kmajor(&plan->map_b, B, tma_dtype<T>::value, N, K, ldb,
                           Cfg::BN / WGMMA_V5_CLUSTER);
    plan->has_map_c = wg_c_tma(C, ldc, N);
    if (e == cudaSuccess && plan->has_map_c)
        e = tma_map_box(&plan->map_c, C, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, M, N, ldc,
                        WGMMA_V5_BOX_COLS, WG_M);
    return e;
}

template <class T>
static cudaError_t wgmma_v5_tmastore_prepare(wgmma_v5_tmastore_plan *plan, int M, int N, int K,
                                             const T *A, long lda, const T *B, long ldb, float *C,
                                             long ldc)
{
    return wgmma_v5_tmastore_prepare_clusters<T>(plan, 0, M, N, K, A, lda, B, ldb, C, ldc);
}

template <class T>
static cudaError_t wgmma_v5_tmastore_run(const wgmma_v5_tmastore_plan *plan, float alpha,
                                         float beta, cudaStream_t stream)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        wg_launch_config<wgmma_v5_config>(plan->grid, WGMMA_V5_CLUSTER, &attr, stream);
    return cudaLaunchKernelEx(&cfg, wgmma_v5_tmastore_kernel<T>, plan->M, plan->N, plan->K,
                              plan->map_a, plan->map_b, plan->C, plan->ldc, alpha, beta, plan->vec2,
                              plan->map_c, plan->has_map_c && beta == 0.0f);
}

template <class T>
static cudaError_t wgmma_v5_tmastore_gemm(int M, int N, int K, const T *A, long lda, const T *B,
                                          long ldb, float *C, long ldc, float alpha, float beta,
                                          cudaStream_t stream)
{
    wgmma_v5_tmastore_plan plan;
    const cudaError_t e = wgmma_v5_tmastore_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? wgmma_v5_tmastore_run<T>(&plan, alpha, beta, stream) : e;
}

#endif /* WGMMA_V5_TMASTORE_CUH */
