/* wgmma_fp8_v4_tmastore - fp8_v3 with C out through TMA stores, its 6 stages kept.
 *
 * Rung 4 of chapter 05's FP8 track (e4m3 or e5m2 in, f32 accumulate and out): its last rung.
 * Parent: fp8_v3_wide (fp8_v3_wide.cuh). What changes, and why it is faster: the epilogue of
 * v5_tmastore (the f16 track's v5): each consumer writes its 64 rows of C in small swizzled boxes
 * to shared memory and the copy engine stores them while the consumer goes on, first to the next
 * box, then to the next tile's wgmma. No thread guards a store (the copy engine clips at C's
 * edges). Two buffers per consumer: 64 x 32 floats (128-byte rows, 32 KiB in all) on 128-wide
 * tiles, 64 x 16 floats (64-byte rows and swizzle, 16 KiB) on 144-wide ones, whose width 32 does
 * not divide. Both fit beside the 6 stages. Needs beta == 0 and a C the TMA can address (16-byte
 * aligned, ldc and N multiples of 4); any other problem keeps the direct epilogue, in the same kernel.
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N column-major (ldb), C M x N row-major f32 (ldc); T = __nv_fp8_e4m3 or __nv_fp8_e5m2.
 * Any M, N >= 1; K >= 1 with lda, ldb multiples of 16 and 16-byte aligned A and B (the TMA's
 * rules: 16-byte rows).
 *
 * The plain launcher (no harness types; common/ headers only):
 *   wgmma_fp8_v4_tmastore_gemm<T>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or wgmma_fp8_v4_tmastore_prepare<T>(&plan, ...) once and wgmma_fp8_v4_tmastore_run<T>(&plan,
 * alpha, beta, stream) per product. Both return cudaSuccess, cudaErrorInvalidValue for sizes
 * below 1, cudaErrorNotSupported for a problem or GPU it cannot take
 * (wgmma_fp8_v4_tmastore_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_90a (built with -gencode=arch=compute_90a,code=sm_90a), CUDA 12.x or 13.x. */
#ifndef WGMMA_FP8_V4_TMASTORE_CUH
#define WGMMA_FP8_V4_TMASTORE_CUH

#include "wgmma_parts.cuh"

/* the boxes of C: 64 rows x 32 floats on 128-wide tiles, 64 x 16 on 144-wide ones */
constexpr int WGMMA_FP8_V4_BOX_NARROW = 32, WGMMA_FP8_V4_BOX_WIDE = 16;
/*                     BN  STAGES CONSUMERS EPILOGUE_BYTES: two boxes per consumer */
typedef wg_config<128, 6, 2, 2 * 2 * WG_M * WGMMA_FP8_V4_BOX_NARROW * 4> wgmma_fp8_v4_narrow;
typedef wg_config<144, 6, 2, 2 * 2 * WG_M * WGMMA_FP8_V4_BOX_WIDE * 4> wgmma_fp8_v4_wide;
constexpr int WGMMA_FP8_V4_CLUSTER = 2; /* blocks per cluster: a unit is 2 tiles high */
constexpr int WGMMA_FP8_V4_GROUP_M = 8; /* units in groups of 8 down a column of C */
/* k-tiles in unrolled runs of RUN, each ending with its last group complete; the rest in runs of
 * RUN_REST, then of one */
constexpr int WGMMA_FP8_V4_RUN = 32, WGMMA_FP8_V4_RUN_REST = 8;

/* Adds the partial sum p of a completed group to the total d (round to nearest: CUDA cores) */
template <int ACC>
static __device__ __forceinline__ void wgmma_fp8_v4_tmastore_add(float (&d)[ACC], float (&p)[ACC])
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
wgmma_fp8_v4_tmastore_run_k_tiles(const ring<Cfg> &r, float (&d)[Cfg::ACC], float (&p0)[Cfg::ACC],
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
            wgmma_fp8_v4_tmastore_add(d, j % 2 == 0 ? p1 : p0);
        }
    }
    wgmma_wait_group<0>();
    release_stage_cluster<CLUSTER>(&r.empty[(it0 + RUN - 1) % Cfg::STAGES]);
    wgmma_fp8_v4_tmastore_add(d, (RUN - 1) % 2 == 0 ? p0 : p1);
}

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
wgmma_fp8_v4_epilogue_tma(const float (&d)[BN / 2], unsigned char *bufs, const CUtensorMap *map_c,
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

template <class T, class Cfg, int BOX_COLS>
__global__ void __launch_bounds__((Cfg::CONSUMERS + 1) * WG_THREADS, 1)
    wgmma_fp8_v4_tmastore_kernel(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                                 const __grid_constant__ CUtensorMap map_b, float *__restrict__ C,
                                 long ldc, float alpha, float beta, bool vec2,
                                 const __grid_constant__ CUtensorMap map_c, bool c_tma)
{
#if TC_SM90A
    constexpr int CLUSTER = WGMMA_FP8_V4_CLUSTER, BK = wg_bk<T>();
    constexpr int REGS = wg_consumer_regs(Cfg::CONSUMERS);
    static_assert(Cfg::BN % (8 * CLUSTER) == 0, "B's slices are whole 8-row swizzle atoms");
    static_assert(PRODUCER_REGS * WG_THREADS + REGS * WG_THREADS * Cfg::CONSUMERS <= 65536,
                  "the register file holds the producer's and the consumers' registers");
    static_assert(Cfg::EPILOGUE_BYTES >= Cfg::CONSUMERS * 2 * WG_M * BOX_COLS * 4,
                  "every consumer has two boxes of C in the epilogue's bytes");
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
        tile_coords<WGMMA_FP8_V4_GROUP_M>(u, units_m, tiles_n, &um, &tn);
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
        unsigned char *boxes = r.epilogue() + 2 * cw * WG_M * BOX_COLS * 4;
        int turn = 0; /* wgmma_fp8_v4_epilogue_tma's boxes so far */
        float d[Cfg::ACC];
#pragma unroll
        for (int i = 0; i < Cfg::ACC; i++) d[i] = 0.0f;
        int it = 0;
        for (int i = 0; i < my_units; i++) {
            int m0, n0;
            unit_origin(cluster + i * clusters, m0, n0);
            constexpr int RUN = WGMMA_FP8_V4_RUN, RUN_REST = WGMMA_FP8_V4_RUN_REST;
            float p0[Cfg::ACC], p1[Cfg::ACC];
            int t = 0;
            for (; t + RUN <= k_tiles; t += RUN, it += RUN)
                wgmma_fp8_v4_tmastore_run_k_tiles<T, Cfg, CLUSTER, RUN>(r, d, p0, p1, it, cw);
            for (; t + RUN_REST <= k_tiles; t += RUN_REST, it += RUN_REST)
                wgmma_fp8_v4_tmastore_run_k_tiles<T, Cfg, CLUSTER, RUN_REST>(r, d, p0, p1, it, cw);
            for (; t < k_tiles; t++, it++) /* the last few: runs of one */
                wgmma_fp8_v4_tmastore_run_k_tiles<T, Cfg, CLUSTER, 1>(r, d, p0, p1, it, cw);
            if (c_tma) /* map_c exists and beta == 0 */
                wgmma_fp8_v4_epilogue_tma<Cfg::BN, BOX_COLS>(d, boxes, &map_c, m0 + cw * WG_M, n0,
                                                             M, N, alpha, cw, turn);
            else
                epilogue_direct<Cfg::ACC>(d, C, ldc, m0 + cw * WG_M, n0, M, N, alpha, beta, vec2);
#pragma unroll
            for (int i = 0; i < Cfg::ACC; i++) d[i] = 0.0f; /* the total starts again at 0 */
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
/* What prepare() works out once: the width, the tensor maps (they hold A's and B's addresses), C
 * and the grid. Its CUtensorMap members are 128-byte aligned: allocate it as such (on the stack, or
 * with aligned_alloc(128, ...)). */
typedef struct {
    CUtensorMap map_a, map_b;
    int M, N, K;
    float *C;
    long ldc;
    bool vec2;         /* C may be stored as float2 pairs */
    bool wide;         /* 128 x 144 tiles (else 128 x 128) */
    CUtensorMap map_c; /* C in boxes of 64 x the width's box columns, when has_map_c */
    bool has_map_c;    /* the TMA can write C (wg_c_tma) */
    unsigned grid;     /* blocks: CLUSTER x the clusters that fit at once, at most the units */
} wgmma_fp8_v4_tmastore_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
template <class T>
static const char *wgmma_fp8_v4_tmastore_unsupported(int M, int N, int K, const T *A, long lda,
                                                     const T *B, long ldb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    const char *why = wg_tma_unsupported<T>(A, lda, B, ldb);
    if (why) return why;
    const void *kernel =
        (const void *)wgmma_fp8_v4_tmastore_kernel<T, wgmma_fp8_v4_narrow, WGMMA_FP8_V4_BOX_NARROW>;
    return wg_code_unsupported(kernel);
}

/* The grid of the kernel with tile Cfg for an M x N C on this GPU (after the shared-memory opt-in),
 * and the cost of its rounds: ceil(units / resident clusters) x the tile's width */
template <class T, class Cfg, int BOX_COLS>
static cudaError_t wgmma_fp8_v4_tmastore_grid(int M, int N, unsigned max_clusters, unsigned *grid,
                                              unsigned long *cost)
{
    const void *kernel = (const void *)wgmma_fp8_v4_tmastore_kernel<T, Cfg, BOX_COLS>;
    cudaError_t e = smem_optin(kernel, Cfg::SMEM_BYTES);
    unsigned resident = 0;
    if (e == cudaSuccess) e = wg_resident_clusters<Cfg>(kernel, WGMMA_FP8_V4_CLUSTER, &resident);
    if (e != cudaSuccess) return e;
    if (resident == 0) return cudaErrorNotSupported; /* not even one cluster fits */
    if (max_clusters && max_clusters < resident) resident = max_clusters;
    const unsigned tiles_m = (unsigned)((M + Cfg::BM - 1) / Cfg::BM);
    const unsigned units = (tiles_m + WGMMA_FP8_V4_CLUSTER - 1) / WGMMA_FP8_V4_CLUSTER *
                           (unsigned)((N + Cfg::BN - 1) / Cfg::BN);
    *grid = WGMMA_FP8_V4_CLUSTER * (units < resident ? units : resident);
    *cost = (unsigned long)((units + resident - 1) / resident) * Cfg::BN;
    return cudaSuccess;
}

/* The width whose rounds cost less on this GPU (ties: 128); a width of which not even one cluster
 * fits costs without end (cudaErrorNotSupported only when neither fits) */
template <class T> static cudaError_t wgmma_fp8_v4_tmastore_choose_width(int M, int N, int *width)
{
    const unsigned long never = ~0ul;
    unsigned grid = 0;
    unsigned long narrow = never, wide = never;
    cudaError_t e = wgmma_fp8_v4_tmastore_grid<T, wgmma_fp8_v4_narrow, WGMMA_FP8_V4_BOX_NARROW>(
        M, N, 0, &grid, &narrow);
    if (e == cudaErrorNotSupported) narrow = never, e = cudaSuccess;
    if (e == cudaSuccess)
        e = wgmma_fp8_v4_tmastore_grid<T, wgmma_fp8_v4_wide, WGMMA_FP8_V4_BOX_WIDE>(M, N, 0, &grid,
                                                                                    &wide);
    if (e == cudaErrorNotSupported) wide = never, e = cudaSuccess;
    if (e != cudaSuccess) return e;
    if (narrow == never && wide == never) return cudaErrorNotSupported;
    *width = wide < narrow ? 144 : 128;
    return cudaSuccess;
}

/* prepare() with the tile width (128 or 144; 0: chosen as prepare() does) and at most
 * max_clusters clusters in the grid (0: as many as fit at once) given: both forced, for tests */
template <class T>
static cudaError_t wgmma_fp8_v4_tmastore_prepare_forced(wgmma_fp8_v4_tmastore_plan *plan, int width,
                                                        unsigned max_clusters, int M, int N, int K,
                                                        const T *A, long lda, const T *B, long ldb,
                                                        float *C, long ldc)
{
    if (M < 1 || N < 1 || K < 1 || (width != 0 && width != 128 && width != 144))
        return cudaErrorInvalidValue;
    if (wgmma_fp8_v4_tmastore_unsupported<T>(M, N, K, A, lda, B, ldb)) return cudaErrorNotSupported;
    cudaError_t e = width ? cudaSuccess : wgmma_fp8_v4_tmastore_choose_width<T>(M, N, &width);
    if (e != cudaSuccess) return e;
    unsigned long cost = 0;
    plan->wide = width == 144;
    e = plan->wide ? wgmma_fp8_v4_tmastore_grid<T, wgmma_fp8_v4_wide, WGMMA_FP8_V4_BOX_WIDE>(
                         M, N, max_clusters, &plan->grid, &cost)
                   : wgmma_fp8_v4_tmastore_grid<T, wgmma_fp8_v4_narrow, WGMMA_FP8_V4_BOX_NARROW>(
                         M, N, max_clusters, &plan->grid, &cost);
    if (e != cudaSuccess) return e;
    plan->M = M, plan->N = N, plan->K = K, plan->C = C, plan->ldc = ldc;
    plan->vec2 = wg_c_vec2(C, ldc);
    e = tma_map_kmajor(&plan->map_a, A, tma_dtype<T>::value, M, K, lda, 128);
    if (e == cudaSuccess) /* B in slices: this block's half of the tile's rows */
        e = tma_map_kmajor(&plan->map_b, B, tma_dtype<T>::value, N, K, ldb,
                           width / WGMMA_FP8_V4_CLUSTER);
    plan->has_map_c = wg_c_tma(C, ldc, N);
    if (e == cudaSuccess && plan->has_map_c)
        e = tma_map_box(&plan->map_c, C, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, M, N, ldc,
                        plan->wide ? WGMMA_FP8_V4_BOX_WIDE : WGMMA_FP8_V4_BOX_NARROW, WG_M);
    return e;
}

/* prepare() with the tile width given (128 or 144) instead of chosen */
template <class T>
static cudaError_t wgmma_fp8_v4_tmastore_prepare_width(wgmma_fp8_v4_tmastore_plan *plan, int width,
                                                       int M, int N, int K, const T *A, long lda,
                                                       const T *B, long ldb, float *C, long ldc)
{
    if (width != 128 && width != 144) return cudaErrorInvalidValue;
    return wgmma_fp8_v4_tmastore_prepare_forced<T>(plan, width, 0, M, N, K, A, lda, B, ldb, C, ldc);
}

/* The tile width whose rounds cost less on this GPU, as many clusters as fit */
template <class T>
static cudaError_t wgmma_fp8_v4_tmastore_prepare(wgmma_fp8_v4_tmastore_plan *plan, int M, int N,
                                                 int K, const T *A, long lda, const T *B, long ldb,
                                                 float *C, long ldc)
{
    return wgmma_fp8_v4_tmastore_prepare_forced<T>(plan, 0, 0, M, N, K, A, lda, B, ldb, C, ldc);
}

template <class T>
static cudaError_t wgmma_fp8_v4_tmastore_run(const wgmma_fp8_v4_tmastore_plan *plan, float alpha,
                                             float beta, cudaStream_t stream)
{
    cudaLaunchAttribute attr;
    if (plan->wide) {
        const cudaLaunchConfig_t cfg =
            wg_launch_config<wgmma_fp8_v4_wide>(plan->grid, WGMMA_FP8_V4_CLUSTER, &attr, stream);
        return cudaLaunchKernelEx(
            &cfg, wgmma_fp8_v4_tmastore_kernel<T, wgmma_fp8_v4_wide, WGMMA_FP8_V4_BOX_WIDE>,
            plan->M, plan->N, plan->K, plan->map_a, plan->map_b, plan->C, plan->ldc, alpha, beta,
            plan->vec2, plan->map_c, plan->has_map_c && beta == 0.0f);
    }
    const cudaLaunchConfig_t cfg =
        wg_launch_config<wgmma_fp8_v4_narrow>(plan->grid, WGMMA_FP8_V4_CLUSTER, &attr, stream);
    return cudaLaunchKernelEx(
        &cfg, wgmma_fp8_v4_tmastore_kernel<T, wgmma_fp8_v4_narrow, WGMMA_FP8_V4_BOX_NARROW>,
        plan->M, plan->N, plan->K, plan->map_a, plan->map_b, plan->C, plan->ldc, alpha, beta,
        plan->vec2, plan->map_c, plan->has_map_c && beta == 0.0f);
}

template <class T>
static cudaError_t wgmma_fp8_v4_tmastore_gemm(int M, int N, int K, const T *A, long lda, const T *B,
                                              long ldb, float *C, long ldc, float alpha, float beta,
                                              cudaStream_t stream)
{
    wgmma_fp8_v4_tmastore_plan plan;
    const cudaError_t e = wgmma_fp8_v4_tmastore_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? wgmma_fp8_v4_tmastore_run<T>(&plan, alpha, beta, stream) : e;
}

#endif /* WGMMA_FP8_V4_TMASTORE_CUH */
