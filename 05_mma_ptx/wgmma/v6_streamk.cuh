/* wgmma_v6_streamk - v5 whose last round is shared out by k-tiles among all clusters (stream-K).
 *
 * Rung v6 of chapter 05's Hopper ladder (f16 and bf16 in, f32 accumulate and out): its last rung.
 * Parent: v5_tmastore (v5_tmastore.cuh). What changes, and why it is faster:
 *   - a persistent grid of c clusters walks its units in rounds of c. When units % c = r is not
 *     0, the last round leaves c - r clusters idle while r finish: at 8192^3 on an H200, 1024
 *     units over 66 clusters leave 34 of them idle for a whole unit's time. Stream-K walks the
 *     first units - r units as before and cuts the r last units' k-tiles into c equal ranges,
 *     one per cluster (stream_k.h has the arithmetic, test_stream_k.c checks it on the CPU);
 *   - a range covers the end of one unit and the start of the next at most. A cluster's segment
 *     that ends before its unit's last k-tile (a partial segment: at most one per cluster, its
 *     first stream-K segment, done first) writes its f32 sums to its blocks' slots of a workspace
 *     and raises their flags (st.release); the cluster that holds the unit's last k-tile (its
 *     finisher) waits for the flags of the same-rank blocks of the clusters before it
 *     (ld.acquire), lowers them for the next launch, adds their slots in cluster order (the same
 *     sums every run) and stores C;
 *   - every wait goes to a lower cluster, and all clusters are resident (a persistent grid), so
 *     every wait ends.
 * The cost: the partial sums' round trip through L2 (a 128 KiB slot per block), and the waits.
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N column-major (ldb), C M x N row-major f32 (ldc); T = __half or __nv_bfloat16. Any
 * M, N >= 1; K >= 1 with lda, ldb multiples of 8 and 16-byte aligned A and B (the TMA's rules).
 *
 * Tiles: v5's (128 x 256 per block, 4 stages of 48 KiB, clusters of 2, groups of 8 units, two
 * 8 KiB boxes of C per consumer).
 *
 * The plain launcher (no harness types; common/ headers and stream_k.h only):
 *   wgmma_v6_streamk_workspace_size<T>(M, N, &bytes): the workspace a problem needs: allocate it
 *   and zero it once (cudaMemset); every launch leaves it zeroed again;
 *   wgmma_v6_streamk_gemm<T>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, workspace, bytes,
 *   stream), or wgmma_v6_streamk_prepare<T>(&plan, ..., workspace, bytes) once and
 *   wgmma_v6_streamk_run<T>(&plan, alpha, beta, stream) per product (launches that share a
 *   workspace must not run at the same time). Both return cudaSuccess, cudaErrorInvalidValue for
 *   sizes below 1 or a workspace too small, cudaErrorNotSupported for a problem or GPU it cannot
 *   take (wgmma_v6_streamk_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_90a (built with -gencode=arch=compute_90a,code=sm_90a), CUDA 12.x or 13.x. */
#ifndef WGMMA_V6_STREAMK_CUH
#define WGMMA_V6_STREAMK_CUH

#include "stream_k.h"
#include "wgmma_parts.cuh"

constexpr int WGMMA_V6_BOX_COLS = 32; /* a box of C: 64 rows x 32 floats (128-byte rows) */
/*                     BN  STAGES CONSUMERS EPILOGUE_BYTES: two boxes per consumer */
typedef wg_config<256, 4, 2, 2 * 2 * WG_M * WGMMA_V6_BOX_COLS * 4> wgmma_v6_config;
constexpr int WGMMA_V6_CLUSTER = 2; /* blocks per cluster: a unit is 2 tiles high */
constexpr int WGMMA_V6_GROUP_M = 8; /* units in groups of 8 down a column of C */

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
wgmma_v6_epilogue_tma(const float (&d)[BN / 2], unsigned char *bufs, const CUtensorMap *map_c,
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

/* A consumer thread's accumulators in workspace slot `slot`: value i of consumer thread j at
 * [slot][i][j], so that each store and load of a warp is one contiguous 128 bytes */
template <class Cfg>
static __device__ __forceinline__ float *wgmma_v6_sk_slot(float *ws, int slot, int consumer_thread)
{
    return ws + (size_t)slot * Cfg::ACC * Cfg::CONSUMERS * WG_THREADS + consumer_thread;
}

template <class T>
__global__ void __launch_bounds__((wgmma_v6_config::CONSUMERS + 1) * WG_THREADS, 1)
    wgmma_v6_streamk_kernel(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                            const __grid_constant__ CUtensorMap map_b, float *__restrict__ C,
                            long ldc, float alpha, float beta, bool vec2,
                            const __grid_constant__ CUtensorMap map_c, bool c_tma,
                            float *__restrict__ ws, int *flags)
{
#if TC_SM90A
    typedef wgmma_v6_config Cfg;
    constexpr int CLUSTER = WGMMA_V6_CLUSTER, BK = wg_bk<T>();
    constexpr int REGS = wg_consumer_regs(Cfg::CONSUMERS);
    static_assert(Cfg::BN % (8 * CLUSTER) == 0, "B's slices are whole 8-row swizzle atoms");
    static_assert(PRODUCER_REGS * WG_THREADS + REGS * WG_THREADS * Cfg::CONSUMERS <= 65536,
                  "the register file holds the producer's and the consumers' registers");
    static_assert(Cfg::ACC + 16 <= REGS, "a consumer's accumulators live in its registers");
    static_assert(Cfg::EPILOGUE_BYTES >= Cfg::CONSUMERS * 2 * WG_M * WGMMA_V6_BOX_COLS * 4,
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
    /* this cluster's segments: (unit, k-tiles [t0, t1)) pieces, whole units first (stream_k.h) */
    const tc_sk_work w =
        tc_sk_make(units, (int)gridDim.x / CLUSTER, blockIdx.x / CLUSTER, k_tiles, 1);
    const int wg = threadIdx.x / WG_THREADS;
    /* the origin of this block's tile in unit u: the same for producer and consumers */
    const auto unit_origin = [&](int u, int &m0, int &n0) {
        int um, tn;
        tile_coords<WGMMA_V6_GROUP_M>(u, units_m, tiles_n, &um, &tn);
        m0 = (um * CLUSTER + (int)rank) * Cfg::BM, n0 = tn * Cfg::BN;
    };

    if (wg == 0) {
        setmaxnreg_dec<PRODUCER_REGS>();
        if (threadIdx.x == 0) {
            int it = 0, u, t0, t1; /* the ring's position runs on across segments */
            for (int seg = 0; tc_sk_segment(&w, seg, &u, &t0, &t1); seg++) {
                int m0, n0;
                unit_origin(u, m0, n0);
                for (int t = t0; t < t1; t++, it++) {
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
        unsigned char *boxes = r.epilogue() + 2 * cw * WG_M * WGMMA_V6_BOX_COLS * 4;
        int turn = 0; /* wgmma_v6_epilogue_tma's boxes so far */
        float d[Cfg::ACC];
#pragma unroll
        for (int i = 0; i < Cfg::ACC; i++) d[i] = 0.0f;
        int it = 0, u, t0, t1;
        for (int seg = 0; tc_sk_segment(&w, seg, &u, &t0, &t1); seg++) {
            int m0, n0;
            unit_origin(u, m0, n0);
            for (int t = t0; t < t1; t++, it++) {
                const int s = it % Cfg::STAGES;
                mbar_wait(&r.full[s], it / Cfg::STAGES % 2);
                const uint32_t a = smem_u32(r.a(s)) + cw * WG_M * ROW_BYTES, b = smem_u32(r.b(s));
                wgmma_k_tile<T, Cfg>(d, a, b, t == t0);
                wgmma_wait_group<1>(); /* the previous k-tile's group is done */
                if (t > t0) release_stage_cluster<CLUSTER>(&r.empty[(it - 1) % Cfg::STAGES]);
            }
            wgmma_wait_group<0>();
            wgmma_fence_operand(d);
            release_stage_cluster<CLUSTER>(&r.empty[(it - 1) % Cfg::STAGES]);
            const int consumer_thread = threadIdx.x - WG_THREADS;
            constexpr int CONSUMER_THREADS = Cfg::CONSUMERS * WG_THREADS;
            if (t1 < k_tiles) { /* a partial segment (this cluster's first stream-K one) */
                float *slot = wgmma_v6_sk_slot<Cfg>(ws, blockIdx.x, consumer_thread);
#pragma unroll
                for (int i = 0; i < Cfg::ACC; i++) slot[(size_t)i * CONSUMER_THREADS] = d[i];
                __threadfence();
                named_bar_sync(1, CONSUMER_THREADS);
                if (consumer_thread == 0) st_release_gpu(&flags[blockIdx.x], 1);
                continue; /* the next segment's first wgmma overwrites d */
            }
            if (t0 > 0) { /* the finisher of a split unit: add the earlier clusters' sums */
                for (int c = tc_sk_first_partial(&w, u); c < w.cid; c++) {
                    const int from = c * CLUSTER + (int)rank;
                    if (consumer_thread == 0) {
                        while (ld_acquire_gpu(&flags[from]) != 1) __nanosleep(32);
                        flags[from] = 0; /* lowered: one finisher reads each partial sum */
                    }
                    named_bar_sync(1, CONSUMER_THREADS);
                    const float *slot = wgmma_v6_sk_slot<Cfg>(ws, from, consumer_thread);
#pragma unroll
                    for (int i = 0; i < Cfg::ACC; i++) d[i] += slot[(size_t)i * CONSUMER_THREADS];
                }
            }
            if (c_tma) /* map_c exists and beta == 0 */
                wgmma_v6_epilogue_tma<Cfg::BN, WGMMA_V6_BOX_COLS>(d, boxes, &map_c, m0 + cw * WG_M,
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
    CUtensorMap map_c; /* C in boxes of 64 x WGMMA_V6_BOX_COLS floats, when has_map_c */
    bool has_map_c;    /* the TMA can write C (wg_c_tma) */
    bool vec2;         /* C may be stored as float2 pairs */
    unsigned grid;     /* blocks: CLUSTER x the clusters that fit at once, at most the units */
    float *ws;         /* the workspace: a slot of BM x BN sums per block, */
    int *flags;        /* then a flag per block (0 between launches) */
} wgmma_v6_streamk_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
template <class T>
static const char *wgmma_v6_streamk_unsupported(int M, int N, int K, const T *A, long lda,
                                                const T *B, long ldb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    const char *why = wg_tma_unsupported<T>(A, lda, B, ldb);
    if (why) return why;
    return wg_code_unsupported((const void *)wgmma_v6_streamk_kernel<T>);
}

/* The grid: CLUSTER x the clusters that fit on this GPU at once, at most the units of an M x N C
 * (after the shared-memory opt-in) */
template <class T>
static cudaError_t wgmma_v6_streamk_grid(int M, int N, unsigned max_clusters, unsigned *grid)
{
    typedef wgmma_v6_config Cfg;
    const void *kernel = (const void *)wgmma_v6_streamk_kernel<T>;
    cudaError_t e = smem_optin(kernel, Cfg::SMEM_BYTES);
    unsigned resident = 0;
    if (e == cudaSuccess) e = wg_resident_clusters<Cfg>(kernel, WGMMA_V6_CLUSTER, &resident);
    if (e != cudaSuccess) return e;
    if (resident == 0) return cudaErrorNotSupported; /* not even one cluster fits */
    if (max_clusters && max_clusters < resident) resident = max_clusters;
    const unsigned tiles_m = (unsigned)((M + Cfg::BM - 1) / Cfg::BM);
    const unsigned units = (tiles_m + WGMMA_V6_CLUSTER - 1) / WGMMA_V6_CLUSTER *
                           (unsigned)((N + Cfg::BN - 1) / Cfg::BN);
    *grid = WGMMA_V6_CLUSTER * (units < resident ? units : resident);
    return cudaSuccess;
}

/* The workspace bytes an M x N problem needs on this GPU: a slot of BM x BN floats and a flag per
 * block. Allocate them and zero them once (cudaMemset): every launch leaves the flags at 0.
 * cudaErrorNotSupported (and 0 bytes) on a GPU that cannot run the kernel. */
template <class T> static cudaError_t wgmma_v6_streamk_workspace_size(int M, int N, size_t *bytes)
{
    typedef wgmma_v6_config Cfg;
    *bytes = 0;
    if (M < 1 || N < 1) return cudaErrorInvalidValue;
    cudaError_t e = wg_code_runs_here((const void *)wgmma_v6_streamk_kernel<T>);
    unsigned grid = 0;
    if (e == cudaSuccess) e = wgmma_v6_streamk_grid<T>(M, N, 0, &grid);
    if (e != cudaSuccess) return e;
    *bytes = (size_t)grid * Cfg::BM * Cfg::BN * sizeof(float) + (size_t)grid * sizeof(int);
    return cudaSuccess;
}

/* prepare() with at most max_clusters clusters (0: as many as fit at once): the grid, and with it
 * where the last round's split falls, forced (for tests; any smaller grid is correct too) */
template <class T>
static cudaError_t
wgmma_v6_streamk_prepare_clusters(wgmma_v6_streamk_plan *plan, unsigned max_clusters, int M, int N,
                                  int K, const T *A, long lda, const T *B, long ldb, float *C,
                                  long ldc, void *workspace, size_t workspace_bytes)
{
    typedef wgmma_v6_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (wgmma_v6_streamk_unsupported<T>(M, N, K, A, lda, B, ldb)) return cudaErrorNotSupported;
    size_t need = 0;
    cudaError_t e = wgmma_v6_streamk_workspace_size<T>(M, N, &need);
    if (e != cudaSuccess) return e;
    if (!workspace || workspace_bytes < need) return cudaErrorInvalidValue;
    e = wgmma_v6_streamk_grid<T>(M, N, max_clusters, &plan->grid);
    if (e != cudaSuccess) return e;
    plan->ws = (float *)workspace;
    plan->flags = (int *)(plan->ws + (size_t)plan->grid * Cfg::BM * Cfg::BN);
    plan->M = M, plan->N = N, plan->K = K, plan->C = C, plan->ldc = ldc;
    plan->vec2 = wg_c_vec2(C, ldc);
    e = tma_map_kmajor(&plan->map_a, A, tma_dtype<T>::value, M, K, lda, Cfg::BM);
    if (e == cudaSuccess)
        e = tma_map_kmajor(&plan->map_b, B, tma_dtype<T>::value, N, K, ldb,
                           Cfg::BN / WGMMA_V6_CLUSTER);
    plan->has_map_c = wg_c_tma(C, ldc, N);
    if (e == cudaSuccess && plan->has_map_c)
        e = tma_map_box(&plan->map_c, C, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, M, N, ldc,
                        WGMMA_V6_BOX_COLS, WG_M);
    return e;
}

template <class T>
static cudaError_t wgmma_v6_streamk_prepare(wgmma_v6_streamk_plan *plan, int M, int N, int K,
                                            const T *A, long lda, const T *B, long ldb, float *C,
                                            long ldc, void *workspace, size_t workspace_bytes)
{
    return wgmma_v6_streamk_prepare_clusters<T>(plan, 0, M, N, K, A, lda, B, ldb, C, ldc, workspace,
                                                workspace_bytes);
}

template <class T>
static cudaError_t wgmma_v6_streamk_run(const wgmma_v6_streamk_plan *plan, float alpha, float beta,
                                        cudaStream_t stream)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        wg_launch_config<wgmma_v6_config>(plan->grid, WGMMA_V6_CLUSTER, &attr, stream);
    return cudaLaunchKernelEx(&cfg, wgmma_v6_streamk_kernel<T>, plan->M, plan->N, plan->K,
                              plan->map_a, plan->map_b, plan->C, plan->ldc, alpha, beta, plan->vec2,
                              plan->map_c, plan->has_map_c && beta == 0.0f, plan->ws, plan->flags);
}

template <class T>
static cudaError_t wgmma_v6_streamk_gemm(int M, int N, int K, const T *A, long lda, const T *B,
                                         long ldb, float *C, long ldc, float alpha, float beta,
                                         void *workspace, size_t workspace_bytes,
                                         cudaStream_t stream)
{
    wgmma_v6_streamk_plan plan;
    const cudaError_t e = wgmma_v6_streamk_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc,
                                                      workspace, workspace_bytes);
    return e == cudaSuccess ? wgmma_v6_streamk_run<T>(&plan, alpha, beta, stream) : e;
}

#endif /* WGMMA_V6_STREAMK_CUH */
