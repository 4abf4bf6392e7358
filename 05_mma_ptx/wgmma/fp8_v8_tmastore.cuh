/* wgmma_fp8_v8_tmastore - fp8_v7 with an f32 C out through TMA stores, as fp8_v4 stores it.
 *
 * Rung 8 of chapter 05's FP8 track (e4m3 in, f32 scales, f32 accumulate, f32 or bf16 out).
 * Parent: fp8_v7_scale_spans (fp8_v7_scale_spans.cuh). What changes, and why it should be faster:
 *   - fp8_v7's consumers store C from registers, each thread its pairs, guarded at the edges, as
 *     fp8_v2_pairs does; the per-tensor fp8_v4_tmastore writes each consumer's 64 rows in small
 *     swizzled boxes to shared memory instead, and the copy engine stores them while the consumer
 *     starts the next tile. At 4096³, where both use 128-wide tiles, that epilogue is worth 2
 *     to 5% on H100s (fp8_v4 against fp8_v2_pairs, 05's NOTES, thirteenth session);
 *   - here the same epilogue for an f32 C with beta == 0 that the TMA can address (16-byte
 *     aligned, ldc and N multiples of 4); any other problem, and a bf16 C, keep fp8_v7's direct
 *     epilogue, in the same kernel;
 *   - the bytes after the stages now hold the scale slots (13 KiB) and then the boxes: two per
 *     consumer of 64 x 16 floats (64-byte rows in the 64-byte swizzle, 16 KiB in all, as
 *     fp8_v4's 144-wide tiles use them), since fp8_v4's 64 x 32 boxes (32 KiB) and the slots do
 *     not both fit beside the 6 stages: 6 x 32 + 13 + 16 = 221 KiB of the 227.
 *
 * Problem: C = alpha * (A sa) * (B sb) + beta * C (beta == 0 never reads C). A M x K row-major
 * (lda), B K x N column-major (ldb), C M x N row-major (ldc), OutT = float or __nv_bfloat16 (one
 * rounding of the f32 result, as training code stores activations); T = __nv_fp8_e4m3 or
 * __nv_fp8_e5m2 (only e4m3 has a row in the chapter's table); the scales f32, laid out as PyTorch
 * hands them to cuBLASLt's VEC128_32F and BLK128x128_32F modes: sa(i, kb) = SA[kb * ld_sa + i]
 * (M fastest, ld_sa >= M), sb(kb, nb) = SB[nb * ld_sb + kb] (K blocks fastest, ld_sb >= K / 128),
 * ld_sa and ld_sb multiples of 4, SA and SB 16-byte aligned. lda, ldb multiples of 16 and 16-byte
 * aligned A and B (the TMA's rules). K a multiple of 128; M, N any.
 *
 * The plain launcher (no harness types; common/ headers only):
 *   wgmma_fp8_v8_tmastore_gemm<T, OutT>(M, N, K, A, lda, SA, ld_sa, B, ldb, SB, ld_sb, C,
 *                                          ldc, alpha, beta, stream)
 * or wgmma_fp8_v8_tmastore_prepare<T>(&plan, ...) once and
 * wgmma_fp8_v8_tmastore_run<T>(&plan, alpha, beta, stream) per product. Both return
 * cudaSuccess, cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a problem or
 * GPU it cannot take (wgmma_fp8_v8_tmastore_unsupported says why; nothing is launched), or the
 * failed call's error.
 *
 * Requires sm_90a (built with -gencode=arch=compute_90a,code=sm_90a), CUDA 12.x or 13.x. */
#ifndef WGMMA_FP8_V8_TMASTORE_CUH
#define WGMMA_FP8_V8_TMASTORE_CUH

#include "wgmma_parts.cuh"

#include <type_traits>

/* The scales after the 6 stages, in SCALE_SLOTS slots of one span each: slot q's A box (4 rows
 * of 128 floats, row u the tile rows' scales for k-tile 4j + u) at 2048 q, its B box of 4 (16
 * bytes) at SCALE_B_OFFSET + 128 q (every TMA destination 128-byte aligned) */
constexpr int WGMMA_FP8_V8_STAGES = 6, WGMMA_FP8_V8_SPAN = 4 /* k-tiles per scale copy */,
              WGMMA_FP8_V8_SCALE_SLOTS = WGMMA_FP8_V8_STAGES,
              WGMMA_FP8_V8_A_SCALE_BYTES = 128 * 4 * WGMMA_FP8_V8_SPAN,
              WGMMA_FP8_V8_B_SCALE_BYTES = 4 * WGMMA_FP8_V8_SPAN, WGMMA_FP8_V8_B_SCALE_STRIDE = 128,
              WGMMA_FP8_V8_SCALE_B_OFFSET = WGMMA_FP8_V8_SCALE_SLOTS * WGMMA_FP8_V8_A_SCALE_BYTES,
              WGMMA_FP8_V8_SCALE_BYTES = 13 * 1024;
/* the boxes of C after the slots: 64 rows x 16 floats, two per consumer */
constexpr int WGMMA_FP8_V8_BOX_COLS = 16,
              WGMMA_FP8_V8_BOX_BYTES = 2 * 2 * WG_M * WGMMA_FP8_V8_BOX_COLS * 4;
static_assert(WGMMA_FP8_V8_SCALE_B_OFFSET +
                      WGMMA_FP8_V8_SCALE_SLOTS * WGMMA_FP8_V8_B_SCALE_STRIDE <=
                  WGMMA_FP8_V8_SCALE_BYTES,
              "every slot's scales fit the bytes after the stages");
static_assert(WGMMA_FP8_V8_SCALE_SLOTS >= WGMMA_FP8_V8_STAGES,
              "a slot is rewritten only after the k-tiles that read it were released");
static_assert(WGMMA_FP8_V8_SPAN == 4, "map_sb's boxes of 4 k-blocks hold one span's B scale");
/*                     BN  STAGES               CONSUMERS  bytes after the stages */
typedef wg_config<128, WGMMA_FP8_V8_STAGES, 2, WGMMA_FP8_V8_SCALE_BYTES + WGMMA_FP8_V8_BOX_BYTES>
    wgmma_fp8_v8_config;
constexpr int WGMMA_FP8_V8_CLUSTER = 2; /* blocks per cluster: a unit is 2 tiles high */
constexpr int WGMMA_FP8_V8_GROUP_M = 8; /* units in groups of 8 down a column of C */
/* k-tiles in unrolled runs of RUN, each ending with its last group complete; the rest in runs of
 * RUN_REST, then of one */
constexpr int WGMMA_FP8_V8_RUN = 32, WGMMA_FP8_V8_RUN_REST = 8;

/* One k-tile's scales for this thread, multiplied: sa sb of its two rows (row g and g + 8 of its
 * warp's 16) */
struct wgmma_fp8_v8_scales {
    float lo, hi;
};

/* The scales of slot q in shared memory: A's box (row u: k-tile 4j + u of span j) and B's */
static __device__ __forceinline__ float *wgmma_fp8_v8_a_scales(unsigned char *after_stages, int q)
{
    return (float *)(after_stages + q * WGMMA_FP8_V8_A_SCALE_BYTES);
}
static __device__ __forceinline__ float *wgmma_fp8_v8_b_scales(unsigned char *after_stages, int q)
{
    return (float *)(after_stages + WGMMA_FP8_V8_SCALE_B_OFFSET + q * WGMMA_FP8_V8_B_SCALE_STRIDE);
}

/* The slot of k-tile kt of the block's unit number i, of `spans` spans each (the producer's and
 * the consumers' formula) */
static __device__ __forceinline__ int wgmma_fp8_v8_slot(int i, int spans, int kt)
{
    return (i * spans + kt / WGMMA_FP8_V8_SPAN) % WGMMA_FP8_V8_SCALE_SLOTS;
}

/* This thread's scales of k-tile kt of a unit whose span kt / 4 sits in slot q (the full barrier
 * of the span's first k-tile has completed), multiplied (powers of two: exact); row = its first
 * row in the tile, cw * 64 + 16 warp + g */
template <class Cfg>
static __device__ __forceinline__ wgmma_fp8_v8_scales wgmma_fp8_v8_read_scales(const ring<Cfg> &r,
                                                                               int q, int kt,
                                                                               int row)
{
    const int u = kt % WGMMA_FP8_V8_SPAN; /* the k-tile's place in its span */
    const float *sa = wgmma_fp8_v8_a_scales(r.epilogue(), q) + u * Cfg::BM;
    const float sb = wgmma_fp8_v8_b_scales(r.epilogue(), q)[u];
    return {.lo = sa[row] * sb, .hi = sa[row + 8] * sb};
}

/* Adds the partial sum p of a completed group, times its scales, to the total d: register i
 * holds row 16 warp + g + 8 ((i / 2) % 2) of the warpgroup's 64 (wgmma's layout), so its scale
 * is lo or hi. One fma, rounded once (CUDA cores) */
template <int ACC>
static __device__ __forceinline__ void wgmma_fp8_v8_tmastore_add(float (&d)[ACC], float (&p)[ACC],
                                                                 wgmma_fp8_v8_scales sc)
{
    wgmma_fence_operand(p);
#pragma unroll
    for (int i = 0; i < ACC; i++) d[i] = fmaf(p[i], (i / 2) % 2 ? sc.hi : sc.lo, d[i]);
}

/* RUN consecutive k-tiles of one consumer, from ring position it0 and k-tile kt0 of the block's
 * unit number i (of `spans` spans): k-tile j into partial sum (j even ? p0 : p1) and its scales
 * read from its span's slot; once it is
 * issued, k-tile j-1's group is waited for, its stage released and its sum added with its scales
 * (read before the release: every lane's, __syncwarp, as lanes 0 and 1 release for the warp), so
 * one group runs on the tensor cores while the CUDA cores add. The run is unrolled and waits for
 * its last group before it returns (no group in flight across the caller's loop). */
template <class T, class Cfg, int CLUSTER, int RUN>
static __device__ __forceinline__ void
wgmma_fp8_v8_tmastore_run_k_tiles(const ring<Cfg> &r, float (&d)[Cfg::ACC], float (&p0)[Cfg::ACC],
                                  float (&p1)[Cfg::ACC], int it0, int kt0, int i, int spans, int cw,
                                  int row)
{
    wgmma_fp8_v8_scales previous = {}; /* k-tile j-1's */
#pragma unroll
    for (int j = 0; j < RUN; j++) {
        const int it = it0 + j, s = it % Cfg::STAGES;
        mbar_wait(&r.full[s], it / Cfg::STAGES % 2);
        const uint32_t a = smem_u32(r.a(s)) + cw * WG_M * ROW_BYTES, b = smem_u32(r.b(s));
        wgmma_k_tile<T, Cfg>(j % 2 == 0 ? p0 : p1, a, b, true);
        const wgmma_fp8_v8_scales current =
            wgmma_fp8_v8_read_scales(r, wgmma_fp8_v8_slot(i, spans, kt0 + j), kt0 + j, row);
        if (j > 0) { /* k-tile j-1 is complete (j runs on): free its stage, add its sum */
            wgmma_wait_group<1>();
            __syncwarp();
            release_stage_cluster<CLUSTER>(&r.empty[(it - 1) % Cfg::STAGES]);
            wgmma_fp8_v8_tmastore_add(d, j % 2 == 0 ? p1 : p0, previous);
        }
        previous = current;
    }
    wgmma_wait_group<0>();
    __syncwarp();
    release_stage_cluster<CLUSTER>(&r.empty[(it0 + RUN - 1) % Cfg::STAGES]);
    wgmma_fp8_v8_tmastore_add(d, (RUN - 1) % 2 == 0 ? p0 : p1, previous);
}

/* C in bf16, as training code stores activations: the pair (x, y) of C(r, c), C(r, c + 1) as
 * alpha (x, y) + beta C in f32, rounded to bf16 once (to nearest even), guarded at the edges;
 * vec2: the pair is one 4-byte __nv_bfloat162 */
static __device__ __forceinline__ void wgmma_fp8_v8_store_pair(__nv_bfloat16 *__restrict__ C,
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
static __device__ __forceinline__ void wgmma_fp8_v8_epilogue(float (&d)[ACC], float *C, long ldc,
                                                             int row0, int col0, int M, int N,
                                                             float alpha, float beta, bool vec2)
{
    epilogue_direct<ACC>(d, C, ldc, row0, col0, M, N, alpha, beta, vec2);
}
template <int ACC>
static __device__ __forceinline__ void
wgmma_fp8_v8_epilogue(float (&d)[ACC], __nv_bfloat16 *C, long ldc, int row0, int col0, int M, int N,
                      float alpha, float beta, bool vec2)
{
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < ACC; i += 2)
        wgmma_fp8_v8_store_pair(C, ldc, row0 + 16 * warp + g + 8 * (i / 2 % 2),
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
wgmma_fp8_v8_epilogue_tma(const float (&d)[BN / 2], unsigned char *bufs, const CUtensorMap *map_c,
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
__global__ void __launch_bounds__((wgmma_fp8_v8_config::CONSUMERS + 1) * WG_THREADS, 1)
    wgmma_fp8_v8_tmastore_kernel(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                                 const __grid_constant__ CUtensorMap map_b,
                                 const __grid_constant__ CUtensorMap map_sa,
                                 const __grid_constant__ CUtensorMap map_sb, OutT *__restrict__ C,
                                 long ldc, float alpha, float beta, bool vec2,
                                 const __grid_constant__ CUtensorMap map_c, bool c_tma)
{
#if TC_SM90A
    typedef wgmma_fp8_v8_config Cfg;
    constexpr int CLUSTER = WGMMA_FP8_V8_CLUSTER, BK = wg_bk<T>();
    constexpr int REGS = wg_consumer_regs(Cfg::CONSUMERS);
    static_assert(Cfg::BN % (8 * CLUSTER) == 0, "B's slices are whole 8-row swizzle atoms");
    static_assert(PRODUCER_REGS * WG_THREADS + REGS * WG_THREADS * Cfg::CONSUMERS <= 65536,
                  "the register file holds the producer's and the consumers' registers");
    static_assert(3 * Cfg::ACC + 16 <= REGS, "the total and two partial sums live in registers");
    static_assert(BK == 128, "one k-tile is one scale block of 128 values of K");
    static_assert(Cfg::BN == 128, "a tile's columns are one 128-wide block of B: one B scale");
    static_assert(Cfg::EPILOGUE_BYTES >= WGMMA_FP8_V8_SCALE_BYTES +
                                             Cfg::CONSUMERS * 2 * WG_M * WGMMA_FP8_V8_BOX_COLS * 4,
                  "every consumer has two boxes of C after the scale slots");
    static_assert(WGMMA_FP8_V8_SCALE_BYTES % 1024 == 0, "the boxes start at a swizzle atom");
    static_assert(Cfg::BM * 4 * WGMMA_FP8_V8_SPAN == WGMMA_FP8_V8_A_SCALE_BYTES,
                  "a slot holds the tile rows' scales for the span's k-tiles");
    extern __shared__ unsigned char smem_raw[];
    const ring<Cfg> r(align_1024(smem_raw));
    const unsigned rank = cluster_ctarank();
    /* every consumer warp of every block of the cluster releases each stage */
    if (threadIdx.x == 0) r.init(Cfg::CONSUMERS * 4 * CLUSTER);
    cluster_sync(); /* the partner's barriers exist before anything arrives on them */

    const int tiles_m = (M + Cfg::BM - 1) / Cfg::BM, tiles_n = (N + Cfg::BN - 1) / Cfg::BN;
    const int units_m = (tiles_m + CLUSTER - 1) / CLUSTER, units = units_m * tiles_n;
    const int k_tiles = (K + BK - 1) / BK;
    const int spans = (k_tiles + WGMMA_FP8_V8_SPAN - 1) / WGMMA_FP8_V8_SPAN; /* per unit */
    /* this cluster's units: cluster, cluster + clusters, ... */
    const int clusters = (int)gridDim.x / CLUSTER, cluster = blockIdx.x / CLUSTER;
    const int my_units = cluster < units ? (units - 1 - cluster) / clusters + 1 : 0;
    const int wg = threadIdx.x / WG_THREADS;
    /* the origin of this block's tile in unit u: the same for producer and consumers */
    const auto unit_origin = [&](int u, int &m0, int &n0) {
        int um, tn;
        tile_coords<WGMMA_FP8_V8_GROUP_M>(u, units_m, tiles_n, &um, &tn);
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
                    /* A, and all of B: this block's slice and the partner's multicast; with a
                     * span's first k-tile, the span's scales: the tile's 128 rows of A for 4
                     * k-blocks (M fastest) and B's box of 4 k-blocks, into the span's slot */
                    const bool span_first = t % WGMMA_FP8_V8_SPAN == 0;
                    mbar_arrive_expect_tx(
                        &r.full[s], Cfg::STAGE_BYTES + (span_first ? WGMMA_FP8_V8_A_SCALE_BYTES +
                                                                         WGMMA_FP8_V8_B_SCALE_BYTES
                                                                   : 0));
                    tma_load_2d(r.a(s), &map_a, &r.full[s], t * BK, m0);
                    if (span_first) {
                        const int q = wgmma_fp8_v8_slot(i, spans, t);
                        tma_load_2d(wgmma_fp8_v8_a_scales(r.epilogue(), q), &map_sa, &r.full[s], m0,
                                    t);
                        tma_load_2d(wgmma_fp8_v8_b_scales(r.epilogue(), q), &map_sb, &r.full[s], t,
                                    n0 / Cfg::BN);
                    }
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
        /* its two box buffers, after the scale slots */
        unsigned char *boxes =
            r.epilogue() + WGMMA_FP8_V8_SCALE_BYTES + 2 * cw * WG_M * WGMMA_FP8_V8_BOX_COLS * 4;
        int turn = 0; /* wgmma_fp8_v8_epilogue_tma's boxes so far */
        /* this thread's first row in the tile (and 8 more): its scales' place in a stage */
        const int row = cw * WG_M + 16 * (threadIdx.x / 32 % 4) + threadIdx.x % 32 / 4;
        float d[Cfg::ACC];
#pragma unroll
        for (int i = 0; i < Cfg::ACC; i++) d[i] = 0.0f;
        int it = 0;
        for (int i = 0; i < my_units; i++) {
            int m0, n0;
            unit_origin(cluster + i * clusters, m0, n0);
            constexpr int RUN = WGMMA_FP8_V8_RUN, RUN_REST = WGMMA_FP8_V8_RUN_REST;
            float p0[Cfg::ACC], p1[Cfg::ACC];
            int t = 0;
            for (; t + RUN <= k_tiles; t += RUN, it += RUN)
                wgmma_fp8_v8_tmastore_run_k_tiles<T, Cfg, CLUSTER, RUN>(r, d, p0, p1, it, t, i,
                                                                        spans, cw, row);
            for (; t + RUN_REST <= k_tiles; t += RUN_REST, it += RUN_REST)
                wgmma_fp8_v8_tmastore_run_k_tiles<T, Cfg, CLUSTER, RUN_REST>(r, d, p0, p1, it, t, i,
                                                                             spans, cw, row);
            for (; t < k_tiles; t++, it++) /* the last few: runs of one */
                wgmma_fp8_v8_tmastore_run_k_tiles<T, Cfg, CLUSTER, 1>(r, d, p0, p1, it, t, i, spans,
                                                                      cw, row);
            if constexpr (std::is_same<OutT, float>::value) {
                if (c_tma) /* map_c exists and beta == 0 */
                    wgmma_fp8_v8_epilogue_tma<Cfg::BN, WGMMA_FP8_V8_BOX_COLS>(
                        d, boxes, &map_c, m0 + cw * WG_M, n0, M, N, alpha, cw, turn);
                else
                    wgmma_fp8_v8_epilogue<Cfg::ACC>(d, C, ldc, m0 + cw * WG_M, n0, M, N, alpha,
                                                    beta, vec2);
            } else {
                wgmma_fp8_v8_epilogue<Cfg::ACC>(d, C, ldc, m0 + cw * WG_M, n0, M, N, alpha, beta,
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
    CUtensorMap map_sa, map_sb; /* the scales: boxes of 128 x 4 of A's (M fastest), 4 of B's */
    int M, N, K;
    void *C; /* float or __nv_bfloat16, as the functions' OutT */
    long ldc;
    bool vec2;         /* C may be stored in pairs (float2, __nv_bfloat162) */
    CUtensorMap map_c; /* an f32 C in boxes of 64 x 16, when has_map_c */
    bool has_map_c;    /* C is f32 and the TMA can write it (wg_c_tma) */
    unsigned grid;     /* blocks: CLUSTER x the clusters that fit at once, at most the units */
} wgmma_fp8_v8_tmastore_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
template <class T, class OutT = float>
static const char *wgmma_fp8_v8_tmastore_unsupported(int M, int N, int K, const T *A, long lda,
                                                     const float *SA, long ld_sa, const T *B,
                                                     long ldb, const float *SB, long ld_sb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (K % 128) return "block-scaled FP8 needs K a multiple of 128 (one scale per 128 values)";
    if (!SA || !SB || ld_sa < M || ld_sb < K / 128)
        return "the scales need ld_sa >= M (A's: M fastest) and ld_sb >= K / 128 (B's)";
    if (ld_sa % 4 || ld_sb % 4 || (uintptr_t)SA % 16 || (uintptr_t)SB % 16)
        return "the TMA reads the scales: ld_sa, ld_sb multiples of 4, SA and SB 16-byte aligned";
    const char *why = wg_tma_unsupported<T>(A, lda, B, ldb);
    if (why) return why;
    return wg_code_unsupported((const void *)wgmma_fp8_v8_tmastore_kernel<T, OutT>);
}

/* prepare() with at most max_clusters clusters in the grid (0: as many as fit at once): the
 * persistent grid's size, which the GPU decides otherwise, forced (for tests; any smaller grid is
 * correct too, each cluster walking more units) */
template <class T, class OutT = float>
static cudaError_t
wgmma_fp8_v8_tmastore_prepare_clusters(wgmma_fp8_v8_tmastore_plan *plan, unsigned max_clusters,
                                       int M, int N, int K, const T *A, long lda, const float *SA,
                                       long ld_sa, const T *B, long ldb, const float *SB,
                                       long ld_sb, OutT *C, long ldc)
{
    typedef wgmma_fp8_v8_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (wgmma_fp8_v8_tmastore_unsupported<T, OutT>(M, N, K, A, lda, SA, ld_sa, B, ldb, SB, ld_sb))
        return cudaErrorNotSupported;
    const void *kernel = (const void *)wgmma_fp8_v8_tmastore_kernel<T, OutT>;
    cudaError_t e = smem_optin(kernel, Cfg::SMEM_BYTES);
    unsigned resident = 0;
    if (e == cudaSuccess) e = wg_resident_clusters<Cfg>(kernel, WGMMA_FP8_V8_CLUSTER, &resident);
    if (e != cudaSuccess) return e;
    if (resident == 0) return cudaErrorNotSupported; /* not even one cluster fits */
    if (max_clusters && max_clusters < resident) resident = max_clusters;
    const unsigned tiles_m = (unsigned)((M + Cfg::BM - 1) / Cfg::BM);
    const unsigned units = (tiles_m + WGMMA_FP8_V8_CLUSTER - 1) / WGMMA_FP8_V8_CLUSTER *
                           (unsigned)((N + Cfg::BN - 1) / Cfg::BN);
    plan->grid = WGMMA_FP8_V8_CLUSTER * (units < resident ? units : resident);
    plan->M = M, plan->N = N, plan->K = K, plan->C = C, plan->ldc = ldc;
    plan->vec2 = (uintptr_t)C % (2 * sizeof(OutT)) == 0 && ldc % 2 == 0; /* pairs */
    e = tma_map_kmajor(&plan->map_a, A, tma_dtype<T>::value, M, K, lda, Cfg::BM);
    if (e == cudaSuccess) /* K / 128 rows of M scales: a box is a span's 4 rows of the tile's 128 */
        e = tma_map_plain(&plan->map_sa, SA, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, K / 128, M, ld_sa,
                          Cfg::BM, WGMMA_FP8_V8_SPAN);
    if (e == cudaSuccess) /* ceil(N / 128) rows of K / 128 scales: boxes of 4 (16 bytes) */
        e = tma_map_plain(&plan->map_sb, SB, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, (N + 127) / 128,
                          K / 128, ld_sb, 4, 1);
    if (e == cudaSuccess)
        e = tma_map_kmajor(&plan->map_b, B, tma_dtype<T>::value, N, K, ldb,
                           Cfg::BN / WGMMA_FP8_V8_CLUSTER);
    plan->has_map_c = false;
    if constexpr (std::is_same<OutT, float>::value) plan->has_map_c = wg_c_tma(C, ldc, N);
    if (e == cudaSuccess && plan->has_map_c)
        e = tma_map_box(&plan->map_c, C, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, M, N, ldc,
                        WGMMA_FP8_V8_BOX_COLS, WG_M);
    return e;
}

template <class T, class OutT = float>
static cudaError_t wgmma_fp8_v8_tmastore_prepare(wgmma_fp8_v8_tmastore_plan *plan, int M, int N,
                                                 int K, const T *A, long lda, const float *SA,
                                                 long ld_sa, const T *B, long ldb, const float *SB,
                                                 long ld_sb, OutT *C, long ldc)
{
    return wgmma_fp8_v8_tmastore_prepare_clusters<T, OutT>(plan, 0, M, N, K, A, lda, SA, ld_sa, B,
                                                           ldb, SB, ld_sb, C, ldc);
}

template <class T, class OutT = float>
static cudaError_t wgmma_fp8_v8_tmastore_run(const wgmma_fp8_v8_tmastore_plan *plan, float alpha,
                                             float beta, cudaStream_t stream)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        wg_launch_config<wgmma_fp8_v8_config>(plan->grid, WGMMA_FP8_V8_CLUSTER, &attr, stream);
    return cudaLaunchKernelEx(&cfg, wgmma_fp8_v8_tmastore_kernel<T, OutT>, plan->M, plan->N,
                              plan->K, plan->map_a, plan->map_b, plan->map_sa, plan->map_sb,
                              (OutT *)plan->C, plan->ldc, alpha, beta, plan->vec2, plan->map_c,
                              plan->has_map_c && beta == 0.0f);
}

template <class T, class OutT = float>
static cudaError_t wgmma_fp8_v8_tmastore_gemm(int M, int N, int K, const T *A, long lda,
                                              const float *SA, long ld_sa, const T *B, long ldb,
                                              const float *SB, long ld_sb, OutT *C, long ldc,
                                              float alpha, float beta, cudaStream_t stream)
{
    wgmma_fp8_v8_tmastore_plan plan;
    const cudaError_t e = wgmma_fp8_v8_tmastore_prepare<T, OutT>(&plan, M, N, K, A, lda, SA, ld_sa,
                                                                 B, ldb, SB, ld_sb, C, ldc);
    return e == cudaSuccess ? wgmma_fp8_v8_tmastore_run<T, OutT>(&plan, alpha, beta, stream) : e;
}

#endif /* WGMMA_FP8_V8_TMASTORE_CUH */
