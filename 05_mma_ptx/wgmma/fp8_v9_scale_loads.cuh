/* wgmma_fp8_v9_scale_loads - fp8_v8 with no scale copies: each consumer thread loads its own
 * scales from global memory, two k-tiles ahead, into registers.
 *
 * Rung 9 of chapter 05's FP8 track (e4m3 in, f32 scales, f32 accumulate, f32 or bf16 out).
 * Parent: fp8_v8_tmastore (fp8_v8_tmastore.cuh). What changes, and why it should be faster
 * (the first run, with read-only loads that ptxas moved, was slower: NOTES.md):
 *   - fp8_v8's producer still issues 2.5 copies per stage on average (A, B, and one stage in four
 *     a span's two scale boxes), and on an H100 a copy costs the same whatever its size (05's
 *     NOTES, thirteenth session); fp8_v7's cut from 4 copies to 2.5 gained less than its
 *     prediction, and fp8_v8's epilogue nothing at 8192^3 (fourteenth session);
 *   - here the producer issues fp8_v4's 2 copies per stage and nothing else, and each consumer
 *     thread loads the 3 floats a k-tile needs from it (its two rows' A scales and the tile's B
 *     scale: plain coherent loads, L2-resident) two k-tiles before the k-tile is issued, and
 *     multiplies them when it adds the k-tile's sum, one k-tile later still: the loads' latency
 *     hides behind the k-tiles of wgmma in between, and the reads from shared memory are gone;
 *   - with the scale slots gone, fp8_v4's boxes of C fit again beside the 6 stages: two per
 *     consumer of 64 x 32 floats (128-byte rows, 32 KiB in all), half as many stores as fp8_v8's;
 *   - the scales need no TMA rules any more: any ld_sa >= M, ld_sb >= K / 128, SA and SB 4-byte
 *     aligned.
 *
 * Problem: C = alpha * (A sa) * (B sb) + beta * C (beta == 0 never reads C). A M x K row-major
 * (lda), B K x N column-major (ldb), C M x N row-major (ldc), OutT = float or __nv_bfloat16 (one
 * rounding of the f32 result, as training code stores activations); T = __nv_fp8_e4m3 or
 * __nv_fp8_e5m2 (only e4m3 has a row in the chapter's table); the scales f32, laid out as PyTorch
 * hands them to cuBLASLt's VEC128_32F and BLK128x128_32F modes: sa(i, kb) = SA[kb * ld_sa + i]
 * (M fastest, ld_sa >= M), sb(kb, nb) = SB[nb * ld_sb + kb] (K blocks fastest, ld_sb >= K / 128).
 * lda, ldb multiples of 16 and 16-byte aligned A and B (the TMA's rules). K a multiple of 128;
 * M, N any.
 *
 * The plain launcher (no harness types; common/ headers only):
 *   wgmma_fp8_v9_scale_loads_gemm<T, OutT>(M, N, K, A, lda, SA, ld_sa, B, ldb, SB, ld_sb, C,
 *                                          ldc, alpha, beta, stream)
 * or wgmma_fp8_v9_scale_loads_prepare<T>(&plan, ...) once and
 * wgmma_fp8_v9_scale_loads_run<T>(&plan, alpha, beta, stream) per product. Both return
 * cudaSuccess, cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a problem or
 * GPU it cannot take (wgmma_fp8_v9_scale_loads_unsupported says why; nothing is launched), or the
 * failed call's error.
 *
 * Requires sm_90a (built with -gencode=arch=compute_90a,code=sm_90a), CUDA 12.x or 13.x. */
#ifndef WGMMA_FP8_V9_SCALE_LOADS_CUH
#define WGMMA_FP8_V9_SCALE_LOADS_CUH

#include "wgmma_parts.cuh"

#include <type_traits>

/* The 6 stages, then the boxes of C: 64 rows x 32 floats (128-byte rows), two per consumer */
constexpr int WGMMA_FP8_V9_STAGES = 6, WGMMA_FP8_V9_BOX_COLS = 32,
              WGMMA_FP8_V9_BOX_BYTES = 2 * 2 * WG_M * WGMMA_FP8_V9_BOX_COLS * 4;
/* the scales of k-tile t are loaded while k-tile t - AHEAD is issued */
constexpr int WGMMA_FP8_V9_AHEAD = 2;
/*                     BN  STAGES               CONSUMERS  bytes after the stages */
typedef wg_config<128, WGMMA_FP8_V9_STAGES, 2, WGMMA_FP8_V9_BOX_BYTES> wgmma_fp8_v9_config;
constexpr int WGMMA_FP8_V9_CLUSTER = 2; /* blocks per cluster: a unit is 2 tiles high */
constexpr int WGMMA_FP8_V9_GROUP_M = 8; /* units in groups of 8 down a column of C */
/* k-tiles in unrolled runs of RUN, each ending with its last group complete; the rest in runs of
 * RUN_REST, then of one */
constexpr int WGMMA_FP8_V9_RUN = 32, WGMMA_FP8_V9_RUN_REST = 8;

/* One k-tile's scales for this thread as loaded: sa of its two rows (row g and g + 8 of its
 * warp's 16) and the tile's sb */
struct wgmma_fp8_v9_loaded {
    float a_lo, a_hi, b;
};

/* Where this thread's scales of one unit are: the arrays and their leading dimensions (the
 * kernel's parameters), its two rows' offsets in a k-block of SA (clamped to row M - 1: a row past
 * C's last is computed and never stored), the offset of the tile's column of B's blocks in SB,
 * and the last k-block (loads ahead of it are clamped to it: loaded, never used). 32-bit offsets,
 * fewer registers than three pointers (the unsupported() check keeps them below 2^31). */
struct wgmma_fp8_v9_scale_ptrs {
    const float *SA, *SB;
    int ld_sa, last_kb;
    int a_lo, a_hi, b;
};

static __device__ __forceinline__ wgmma_fp8_v9_scale_ptrs wgmma_fp8_v9_unit_scales(
    const float *SA, int ld_sa, const float *SB, int ld_sb, int M, int K, int row, int n0)
{
    return {.SA = SA,
            .SB = SB,
            .ld_sa = ld_sa,
            .last_kb = K / 128 - 1,
            .a_lo = min(row, M - 1),
            .a_hi = min(row + 8, M - 1),
            .b = n0 / 128 * ld_sb};
}

/* One scale, by a plain (weak, coherent) load, on purpose not the read-only path (__ldg,
 * ld.global.nc): the memory model does not cover non-coherent loads, so ptxas may move them past
 * releases, fences and barriers, and with __ldg it moved each load three k-tiles down, next to its
 * use, where the promotion waited for L2 every k-tile (the first run, 14% below fp8_v8 on an H100;
 * NOTES.md). A coherent load may not be moved below a later release of its thread: the stage's
 * release (release_stage_cluster, an mbarrier arrive with .release semantics by lanes 0 and 1)
 * that follows it in the same k-tile. In the SASS the loads stay in that k-tile. */
static __device__ __forceinline__ float wgmma_fp8_v9_load_scale(const float *p)
{
    float v;
    asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

/* k-block kb's scales (the scales are never written while the kernel runs) */
static __device__ __forceinline__ wgmma_fp8_v9_loaded
wgmma_fp8_v9_load_scales(const wgmma_fp8_v9_scale_ptrs &sp, int kb)
{
    kb = min(kb, sp.last_kb);
    const int at = kb * sp.ld_sa;
    return {.a_lo = wgmma_fp8_v9_load_scale(sp.SA + (sp.a_lo + at)),
            .a_hi = wgmma_fp8_v9_load_scale(sp.SA + (sp.a_hi + at)),
            .b = wgmma_fp8_v9_load_scale(sp.SB + (sp.b + kb))};
}

/* Adds the partial sum p of a completed group, times its scales, to the total d: register i
 * holds row 16 warp + g + 8 ((i / 2) % 2) of the warpgroup's 64 (wgmma's layout), so its scale
 * is lo or hi. One fma, rounded once (CUDA cores) */
template <int ACC>
static __device__ __forceinline__ void
wgmma_fp8_v9_scale_loads_add(float (&d)[ACC], float (&p)[ACC], wgmma_fp8_v9_loaded sc)
{
    const float lo = sc.a_lo * sc.b, hi = sc.a_hi * sc.b; /* powers of two in the tests: exact */
    wgmma_fence_operand(p);
#pragma unroll
    for (int i = 0; i < ACC; i++) d[i] = fmaf(p[i], (i / 2) % 2 ? hi : lo, d[i]);
}

/* RUN consecutive k-tiles of one consumer, from ring position it0 and k-tile kt0 of its unit:
 * k-tile j into partial sum (j even ? p0 : p1); as it is issued, its scales are taken off the
 * front of `ahead` (loaded AHEAD k-tiles ago) and those of k-tile kt0 + j + AHEAD are loaded into
 * its back; then k-tile j-1's group is waited for, its stage released and its sum added with its
 * scales, so one group runs on the tensor cores while the CUDA cores add. No scale is read from
 * shared memory: the stage is released as in fp8_v4, without fp8_v8's __syncwarp. The run is
 * unrolled and waits for its last group before it returns (no group in flight across the
 * caller's loop); `ahead` runs on across the caller's runs of one unit. */
template <class T, class Cfg, int CLUSTER, int RUN>
static __device__ __forceinline__ void
wgmma_fp8_v9_scale_loads_run_k_tiles(const ring<Cfg> &r, float (&d)[Cfg::ACC],
                                     float (&p0)[Cfg::ACC], float (&p1)[Cfg::ACC], int it0, int kt0,
                                     int cw, const wgmma_fp8_v9_scale_ptrs &sp,
                                     wgmma_fp8_v9_loaded (&ahead)[WGMMA_FP8_V9_AHEAD])
{
    wgmma_fp8_v9_loaded previous = {}; /* k-tile j-1's */
#pragma unroll
    for (int j = 0; j < RUN; j++) {
        const int it = it0 + j, s = it % Cfg::STAGES;
        mbar_wait(&r.full[s], it / Cfg::STAGES % 2);
        const uint32_t a = smem_u32(r.a(s)) + cw * WG_M * ROW_BYTES, b = smem_u32(r.b(s));
        wgmma_k_tile<T, Cfg>(j % 2 == 0 ? p0 : p1, a, b, true);
        const wgmma_fp8_v9_loaded current = ahead[0];
#pragma unroll
        for (int q = 0; q + 1 < WGMMA_FP8_V9_AHEAD; q++) ahead[q] = ahead[q + 1];
        ahead[WGMMA_FP8_V9_AHEAD - 1] = wgmma_fp8_v9_load_scales(sp, kt0 + j + WGMMA_FP8_V9_AHEAD);
        if (j > 0) { /* k-tile j-1 is complete (j runs on): free its stage, add its sum */
            wgmma_wait_group<1>();
            release_stage_cluster<CLUSTER>(&r.empty[(it - 1) % Cfg::STAGES]);
            wgmma_fp8_v9_scale_loads_add(d, j % 2 == 0 ? p1 : p0, previous);
        }
        previous = current;
    }
    wgmma_wait_group<0>();
    release_stage_cluster<CLUSTER>(&r.empty[(it0 + RUN - 1) % Cfg::STAGES]);
    wgmma_fp8_v9_scale_loads_add(d, (RUN - 1) % 2 == 0 ? p0 : p1, previous);
}

/* C in bf16, as training code stores activations: the pair (x, y) of C(r, c), C(r, c + 1) as
 * alpha (x, y) + beta C in f32, rounded to bf16 once (to nearest even), guarded at the edges;
 * vec2: the pair is one 4-byte __nv_bfloat162 */
static __device__ __forceinline__ void wgmma_fp8_v9_store_pair(__nv_bfloat16 *__restrict__ C,
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
static __device__ __forceinline__ void wgmma_fp8_v9_epilogue(float (&d)[ACC], float *C, long ldc,
                                                             int row0, int col0, int M, int N,
                                                             float alpha, float beta, bool vec2)
{
    epilogue_direct<ACC>(d, C, ldc, row0, col0, M, N, alpha, beta, vec2);
}
template <int ACC>
static __device__ __forceinline__ void
wgmma_fp8_v9_epilogue(float (&d)[ACC], __nv_bfloat16 *C, long ldc, int row0, int col0, int M, int N,
                      float alpha, float beta, bool vec2)
{
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < ACC; i += 2)
        wgmma_fp8_v9_store_pair(C, ldc, row0 + 16 * warp + g + 8 * (i / 2 % 2),
                                col0 + 8 * (i / 4) + 2 * t, M, N, d[i], d[i + 1], alpha, beta,
                                vec2);
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
wgmma_fp8_v9_epilogue_tma(const float (&d)[BN / 2], unsigned char *bufs, const CUtensorMap *map_c,
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

template <class T, class OutT>
__global__ void __launch_bounds__((wgmma_fp8_v9_config::CONSUMERS + 1) * WG_THREADS, 1)
    wgmma_fp8_v9_scale_loads_kernel(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                                    const __grid_constant__ CUtensorMap map_b,
                                    const float *__restrict__ SA, int ld_sa,
                                    const float *__restrict__ SB, int ld_sb, OutT *__restrict__ C,
                                    long ldc, float alpha, float beta, bool vec2,
                                    const __grid_constant__ CUtensorMap map_c, bool c_tma)
{
#if TC_SM90A
    typedef wgmma_fp8_v9_config Cfg;
    constexpr int CLUSTER = WGMMA_FP8_V9_CLUSTER, BK = wg_bk<T>();
    constexpr int REGS = wg_consumer_regs(Cfg::CONSUMERS);
    static_assert(Cfg::BN % (8 * CLUSTER) == 0, "B's slices are whole 8-row swizzle atoms");
    static_assert(PRODUCER_REGS * WG_THREADS + REGS * WG_THREADS * Cfg::CONSUMERS <= 65536,
                  "the register file holds the producer's and the consumers' registers");
    static_assert(3 * Cfg::ACC + 16 <= REGS, "the total and two partial sums live in registers");
    static_assert(BK == 128, "one k-tile is one scale block of 128 values of K");
    static_assert(Cfg::BN == 128, "a tile's columns are one 128-wide block of B: one B scale");
    static_assert(Cfg::EPILOGUE_BYTES >= Cfg::CONSUMERS * 2 * WG_M * WGMMA_FP8_V9_BOX_COLS * 4,
                  "every consumer has two boxes of C after the stages");
    static_assert(WGMMA_FP8_V9_AHEAD >= 1, "a k-tile's scales are loaded before it is issued");
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
        tile_coords<WGMMA_FP8_V9_GROUP_M>(u, units_m, tiles_n, &um, &tn);
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
                    /* A, and all of B: this block's slice and the partner's multicast; no
                     * scales (the consumers load their own) */
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
        unsigned char *boxes = r.epilogue() + 2 * cw * WG_M * WGMMA_FP8_V9_BOX_COLS * 4;
        int turn = 0; /* wgmma_fp8_v9_epilogue_tma's boxes so far */
        /* this thread's first row in the tile (and 8 more): the rows of its scales */
        const int row = cw * WG_M + 16 * (threadIdx.x / 32 % 4) + threadIdx.x % 32 / 4;
        float d[Cfg::ACC];
#pragma unroll
        for (int i = 0; i < Cfg::ACC; i++) d[i] = 0.0f;
        int it = 0;
        for (int i = 0; i < my_units; i++) {
            int m0, n0;
            unit_origin(cluster + i * clusters, m0, n0);
            /* the unit's scales: the first AHEAD k-tiles' loaded now, before the first stage is
             * waited for (the first is multiplied one k-tile after it is issued) */
            const wgmma_fp8_v9_scale_ptrs sp =
                wgmma_fp8_v9_unit_scales(SA, ld_sa, SB, ld_sb, M, K, m0 + row, n0);
            wgmma_fp8_v9_loaded ahead[WGMMA_FP8_V9_AHEAD];
#pragma unroll
            for (int q = 0; q < WGMMA_FP8_V9_AHEAD; q++) ahead[q] = wgmma_fp8_v9_load_scales(sp, q);
            constexpr int RUN = WGMMA_FP8_V9_RUN, RUN_REST = WGMMA_FP8_V9_RUN_REST;
            float p0[Cfg::ACC], p1[Cfg::ACC];
            int t = 0;
            for (; t + RUN <= k_tiles; t += RUN, it += RUN)
                wgmma_fp8_v9_scale_loads_run_k_tiles<T, Cfg, CLUSTER, RUN>(r, d, p0, p1, it, t, cw,
                                                                           sp, ahead);
            for (; t + RUN_REST <= k_tiles; t += RUN_REST, it += RUN_REST)
                wgmma_fp8_v9_scale_loads_run_k_tiles<T, Cfg, CLUSTER, RUN_REST>(r, d, p0, p1, it, t,
                                                                                cw, sp, ahead);
            for (; t < k_tiles; t++, it++) /* the last few: runs of one */
                wgmma_fp8_v9_scale_loads_run_k_tiles<T, Cfg, CLUSTER, 1>(r, d, p0, p1, it, t, cw,
                                                                         sp, ahead);
            if constexpr (std::is_same<OutT, float>::value) {
                if (c_tma) /* map_c exists and beta == 0 */
                    wgmma_fp8_v9_epilogue_tma<Cfg::BN, WGMMA_FP8_V9_BOX_COLS>(
                        d, boxes, &map_c, m0 + cw * WG_M, n0, M, N, alpha, cw, turn);
                else
                    wgmma_fp8_v9_epilogue<Cfg::ACC>(d, C, ldc, m0 + cw * WG_M, n0, M, N, alpha,
                                                    beta, vec2);
            } else {
                wgmma_fp8_v9_epilogue<Cfg::ACC>(d, C, ldc, m0 + cw * WG_M, n0, M, N, alpha, beta,
                                                vec2);
            }
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
/* What prepare() works out once: the tensor maps (they hold A's and B's addresses), C and the
 * grid. Its CUtensorMap members are 128-byte aligned: allocate it as such (on the stack, or with
 * aligned_alloc(128, ...)). */
typedef struct {
    CUtensorMap map_a, map_b;
    const float *SA, *SB; /* the scales, read by the consumers themselves */
    int ld_sa, ld_sb;     /* below 2^31 with every index into the scales (unsupported) */
    int M, N, K;
    void *C; /* float or __nv_bfloat16, as the functions' OutT */
    long ldc;
    bool vec2;         /* C may be stored in pairs (float2, __nv_bfloat162) */
    CUtensorMap map_c; /* an f32 C in boxes of 64 x 32, when has_map_c */
    bool has_map_c;    /* C is f32 and the TMA can write it (wg_c_tma) */
    unsigned grid;     /* blocks: CLUSTER x the clusters that fit at once, at most the units */
} wgmma_fp8_v9_scale_loads_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
template <class T, class OutT = float>
static const char *wgmma_fp8_v9_scale_loads_unsupported(int M, int N, int K, const T *A, long lda,
                                                        const float *SA, long ld_sa, const T *B,
                                                        long ldb, const float *SB, long ld_sb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (K % 128) return "block-scaled FP8 needs K a multiple of 128 (one scale per 128 values)";
    if (!SA || !SB || ld_sa < M || ld_sb < K / 128)
        return "the scales need ld_sa >= M (A's: M fastest) and ld_sb >= K / 128 (B's)";
    if ((uintptr_t)SA % 4 || (uintptr_t)SB % 4) return "the scales must be 4-byte aligned floats";
    if ((double)ld_sa * (K / 128) > 2147483647.0 ||
        (double)ld_sb * ((N + 127) / 128) > 2147483647.0)
        return "the scales' indices must fit in 32 bits (ld_sa K / 128 and ld_sb N / 128)";
    const char *why = wg_tma_unsupported<T>(A, lda, B, ldb);
    if (why) return why;
    return wg_code_unsupported((const void *)wgmma_fp8_v9_scale_loads_kernel<T, OutT>);
}

/* prepare() with at most max_clusters clusters in the grid (0: as many as fit at once): the
 * persistent grid's size, which the GPU decides otherwise, forced (for tests; any smaller grid is
 * correct too, each cluster walking more units) */
template <class T, class OutT = float>
static cudaError_t
wgmma_fp8_v9_scale_loads_prepare_clusters(wgmma_fp8_v9_scale_loads_plan *plan,
                                          unsigned max_clusters, int M, int N, int K, const T *A,
                                          long lda, const float *SA, long ld_sa, const T *B,
                                          long ldb, const float *SB, long ld_sb, OutT *C, long ldc)
{
    typedef wgmma_fp8_v9_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (wgmma_fp8_v9_scale_loads_unsupported<T, OutT>(M, N, K, A, lda, SA, ld_sa, B, ldb, SB,
                                                      ld_sb))
        return cudaErrorNotSupported;
    const void *kernel = (const void *)wgmma_fp8_v9_scale_loads_kernel<T, OutT>;
    cudaError_t e = smem_optin(kernel, Cfg::SMEM_BYTES);
    unsigned resident = 0;
    if (e == cudaSuccess) e = wg_resident_clusters<Cfg>(kernel, WGMMA_FP8_V9_CLUSTER, &resident);
    if (e != cudaSuccess) return e;
    if (resident == 0) return cudaErrorNotSupported; /* not even one cluster fits */
    if (max_clusters && max_clusters < resident) resident = max_clusters;
    const unsigned tiles_m = (unsigned)((M + Cfg::BM - 1) / Cfg::BM);
    const unsigned units = (tiles_m + WGMMA_FP8_V9_CLUSTER - 1) / WGMMA_FP8_V9_CLUSTER *
                           (unsigned)((N + Cfg::BN - 1) / Cfg::BN);
    plan->grid = WGMMA_FP8_V9_CLUSTER * (units < resident ? units : resident);
    plan->M = M, plan->N = N, plan->K = K, plan->C = C, plan->ldc = ldc;
    plan->vec2 = (uintptr_t)C % (2 * sizeof(OutT)) == 0 && ldc % 2 == 0; /* pairs */
    plan->SA = SA, plan->SB = SB, plan->ld_sa = (int)ld_sa, plan->ld_sb = (int)ld_sb;
    e = tma_map_kmajor(&plan->map_a, A, tma_dtype<T>::value, M, K, lda, Cfg::BM);
    if (e == cudaSuccess)
        e = tma_map_kmajor(&plan->map_b, B, tma_dtype<T>::value, N, K, ldb,
                           Cfg::BN / WGMMA_FP8_V9_CLUSTER);
    plan->has_map_c = false;
    if constexpr (std::is_same<OutT, float>::value) plan->has_map_c = wg_c_tma(C, ldc, N);
    if (e == cudaSuccess && plan->has_map_c)
        e = tma_map_box(&plan->map_c, C, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, M, N, ldc,
                        WGMMA_FP8_V9_BOX_COLS, WG_M);
    return e;
}

template <class T, class OutT = float>
static cudaError_t
wgmma_fp8_v9_scale_loads_prepare(wgmma_fp8_v9_scale_loads_plan *plan, int M, int N, int K,
                                 const T *A, long lda, const float *SA, long ld_sa, const T *B,
                                 long ldb, const float *SB, long ld_sb, OutT *C, long ldc)
{
    return wgmma_fp8_v9_scale_loads_prepare_clusters<T, OutT>(plan, 0, M, N, K, A, lda, SA, ld_sa,
                                                              B, ldb, SB, ld_sb, C, ldc);
}

template <class T, class OutT = float>
static cudaError_t wgmma_fp8_v9_scale_loads_run(const wgmma_fp8_v9_scale_loads_plan *plan,
                                                float alpha, float beta, cudaStream_t stream)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        wg_launch_config<wgmma_fp8_v9_config>(plan->grid, WGMMA_FP8_V9_CLUSTER, &attr, stream);
    return cudaLaunchKernelEx(&cfg, wgmma_fp8_v9_scale_loads_kernel<T, OutT>, plan->M, plan->N,
                              plan->K, plan->map_a, plan->map_b, plan->SA, plan->ld_sa, plan->SB,
                              plan->ld_sb, (OutT *)plan->C, plan->ldc, alpha, beta, plan->vec2,
                              plan->map_c, plan->has_map_c && beta == 0.0f);
}

template <class T, class OutT = float>
static cudaError_t wgmma_fp8_v9_scale_loads_gemm(int M, int N, int K, const T *A, long lda,
                                                 const float *SA, long ld_sa, const T *B, long ldb,
                                                 const float *SB, long ld_sb, OutT *C, long ldc,
                                                 float alpha, float beta, cudaStream_t stream)
{
    wgmma_fp8_v9_scale_loads_plan plan;
    const cudaError_t e = wgmma_fp8_v9_scale_loads_prepare<T, OutT>(
        &plan, M, N, K, A, lda, SA, ld_sa, B, ldb, SB, ld_sb, C, ldc);
    return e == cudaSuccess ? wgmma_fp8_v9_scale_loads_run<T, OutT>(&plan, alpha, beta, stream) : e;
}

#endif /* WGMMA_FP8_V9_SCALE_LOADS_CUH */
