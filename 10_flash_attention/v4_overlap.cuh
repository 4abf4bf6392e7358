/* attn_v4_overlap - v3_pingpong with the overlap inside each warpgroup (FlashAttention-3's
 * "intra-warpgroup pipelining"): the next tile's S = Q K^T runs on the tensor cores while this
 * warpgroup computes the softmax of the tile before it.
 *
 * Rung v4 of chapter 10's attention ladder (f16 and bf16 in, f32 accumulate, O in the input type,
 * L in f32). Parent: v3_pingpong (v3_pingpong.cuh). What changes, and why it should be faster:
 *   - in v3 a consumer's turn issues S of tile j, and it then waits for S before its softmax: its
 *     own products and its own softmax never overlap; only the other consumer's products fill the
 *     gap. Here turn j issues two groups: S of tile j, then O += P V of tile j - 1 (P from the
 *     softmax of the previous turn). wgmma_wait_group<1> returns when S is done while P V still
 *     runs, so the softmax of tile j overlaps this warpgroup's own P V;
 *   - the rescale of O by the new max waits for P V (wgmma_wait_group<0>): O is its accumulator.
 *     The running max of tile j is known before that, so the order is: softmax of S_j (max, exp,
 *     sums, alpha), wait for P V of tile j - 1, O *= alpha, pack P_j;
 *   - turn j = 0 issues only S of tile 0 and turn n_tiles only the last P V: n_tiles + 1 turns per
 *     consumer, the first and the last peeled off the loop; consumer 1 still skips its last
 *     arrival;
 *   - a branch on the softmax's result (never taken) keeps ptxas from hoisting the wait for P V
 *     above the softmax: without it the SASS waited first, and nothing overlapped;
 *   - tile j - 1's stage is released one turn later than in v3 (its V is read by turn j), so the
 *     ring has 3 stages, not 2: with 2 the producer could load tile j + 1 only after turn j's P V,
 *     and the copy would be exposed. D = 128: 32 + 3 x 64 KiB = 224 KiB of the 227 a block may have;
 *   - registers: P of tile j - 1 (32, packed) lives beside S of tile j (64) and O (D / 2).
 * Nothing else changes: the mask, the softmax arithmetic and the epilogue are v3's. FlashAttention-3
 * also splits the ring's barrier into K's and V's, so K of the next tile can land before V of this
 * one is read: not built here.
 *
 * Problem: as v1_mma: O = softmax(scale Q K^T + mask) V per (batch, head), BSHD tensors whose rows
 * start on 16-byte boundaries (the TMA's rule: 16-byte aligned pointers, strides multiples of 8
 * elements); L = the row log-sum-exp (natural log), f32, B x H x Sq, or not written (L = NULL).
 * D = 64 or 128; any B, H <= 65535, any Sq, Sk >= 1: the TMA zero-fills rows past Sq and Sk,
 * keys past Sk are masked; the causal mask is aligned to the bottom right; rows that see no key
 * get O = 0 and L = -inf.
 *
 * Tile: BLOCK_M = 128 query rows (two consumer warpgroups of 64), BLOCK_N = 128 keys, D = 64 or
 * 128 in panels of 64 values (one 128-byte swizzle row each). Shared memory: Q, then 3 stages of
 * K and V: 16 + 3 x 32 KiB (D = 64) or 32 + 3 x 64 KiB (D = 128), and the mbarriers. Registers
 * per consumer thread: S 64, O D / 2, P 32 (packed), all live at once. Grid: (ceil(Sq / 128), H,
 * B), 384 threads.
 *
 * The plain launcher (no harness types; attn_tile.cuh, attn_wgmma.cuh and common/ headers only):
 *   attn_v4_overlap_forward<T>(B, H, Sq, Sk, D, Q, qs, K, ks, V, vs, O, os, L, causal, scale, stream)
 * or attn_v4_overlap_prepare<T>(&plan, ...the same but stream) once (the checks, the tensor maps,
 * the shared-memory opt-in, the grid) and attn_v4_overlap_run<T>(&plan, stream) per call. T =
 * __half or __nv_bfloat16; device pointers; strides in elements (attn_strides). The plan holds
 * CUtensorMaps: allocate it 128-byte aligned (the stack, or tma_host_calloc). They return
 * cudaSuccess, cudaErrorInvalidValue for a size below 1 or a null pointer, cudaErrorNotSupported
 * for a problem or GPU the kernel does not take (attn_v4_overlap_unsupported says why; nothing is
 * launched), or the failed call's error.
 *
 * Requires sm_90a (the kernel's body exists only in sm_90a code: TC_SM90A), CUDA 12.x or 13.x. */
#ifndef ATTN_V4_OVERLAP_CUH
#define ATTN_V4_OVERLAP_CUH

#include "attn_tile.cuh"  /* attn_pack2, attn_rows_aligned, attn_exp2 */
#include "attn_wgmma.cuh" /* register-A wgmma, the MN-major descriptor, the 4-D TMA */

#include "wgmma_parts.cuh" /* align_1024, release_stage, setmaxnreg split, tma_dtype, checks */

#include <float.h>
#include <math_constants.h>
#include <stdio.h>

constexpr int ATTN_V4_BLOCK_M = 128, ATTN_V4_BLOCK_N = 128;
constexpr int ATTN_V4_CONSUMERS = 2, ATTN_V4_STAGES = 3; /* v3: 2 */
constexpr int ATTN_V4_THREADS = (ATTN_V4_CONSUMERS + 1) * WG_THREADS;
constexpr int ATTN_V4_PANEL = 64; /* values of d per 128-byte swizzle row */
/* the named barriers of the two consumers' turns: ids 1 and 2 (0 is __syncthreads's), each
 * completed by 256 threads: the 128 of its consumer waiting there, the 128 of the other arriving */
constexpr int ATTN_V4_TURN_BAR = 1, ATTN_V4_TURN_THREADS = 2 * WG_THREADS;

template <int D> struct attn_v4_config {
    static constexpr int PANELS = D / ATTN_V4_PANEL;
    static constexpr int Q_PANEL_BYTES = ATTN_V4_BLOCK_M * ROW_BYTES;
    static constexpr int KV_PANEL_BYTES = ATTN_V4_BLOCK_N * ROW_BYTES;
    static constexpr int Q_BYTES = PANELS * Q_PANEL_BYTES;
    static constexpr int KV_BYTES = PANELS * KV_PANEL_BYTES; /* one tile of K, or of V */
    static constexpr int STAGE_BYTES = 2 * KV_BYTES;         /* K, then V */
    static constexpr int KSTEPS_S = D / 16;                  /* wgmma k-steps of S = Q K^T */
    static constexpr int KSTEPS_PV = ATTN_V4_BLOCK_N / 16;   /* wgmma k-steps of O += P V */
    static constexpr int S_ACC = ATTN_V4_BLOCK_N / 2;        /* f32 registers of S per thread */
    static constexpr int O_ACC = D / 2;                      /* f32 registers of O per thread */
    static constexpr int BARRIER_BYTES = (2 * ATTN_V4_STAGES + 1) * 8; /* full, empty, Q's */
    /* 1024 of slack: the dynamic shared memory is aligned to 1024 bytes by hand */
    static constexpr size_t SMEM_BYTES =
        (size_t)Q_BYTES + (size_t)ATTN_V4_STAGES * STAGE_BYTES + BARRIER_BYTES + 1024;

    static_assert(D == 64 || D == 128, "the kernel is instantiated for D = 64 and 128");
    static_assert(D % ATTN_V4_PANEL == 0, "d in whole 128-byte panels");
    static_assert(ATTN_V4_BLOCK_M == WG_M * ATTN_V4_CONSUMERS, "a consumer owns 64 query rows");
    static_assert(ATTN_V4_BLOCK_N == 128, "S is one m64n128k16 accumulator (wgmma_op<T, 128>)");
    static_assert(ATTN_V4_BLOCK_N % 16 == 0 && D % 16 == 0, "whole k16 steps of both products");
    static_assert(ATTN_V4_BLOCK_M <= 256 && ATTN_V4_BLOCK_N <= 256, "a TMA box has <= 256 rows");
    static_assert(Q_PANEL_BYTES % 1024 == 0 && KV_PANEL_BYTES % 1024 == 0,
                  "every panel starts at a swizzle atom (8 rows x 128 bytes)");
    static_assert((16 * ROW_BYTES) % 1024 == 0, "a k-step of V (16 keys) moves by whole atoms");
    static_assert(KSTEPS_S % KSTEPS == 0, "S's k-steps fill whole panels (4 per 128 bytes)");
    static_assert(ATTN_V4_STAGES >= 3, "tile j - 1 is released during turn j: tile j + 1 needs a third stage");
    static_assert(ATTN_V4_CONSUMERS == 2, "the turns alternate between exactly two consumers");
    static_assert(SMEM_BYTES <= 227 * 1024, "Q and the ring fit the 227 KiB a block may have");
};

/* The kernel. O as 16-bit words; its strides in elements. */
template <class T, int D>
__global__ void __launch_bounds__(ATTN_V4_THREADS, 1)
    attn_v4_overlap_kernel(int H, int Sq, int Sk, const __grid_constant__ CUtensorMap map_q,
                            const __grid_constant__ CUtensorMap map_k,
                            const __grid_constant__ CUtensorMap map_v, uint16_t *__restrict__ O,
                            attn_strides os, float *__restrict__ L, int causal, float scale_log2)
{
#if TC_SM90A
    typedef attn_v4_config<D> Cfg;
    constexpr int REGS = wg_consumer_regs(ATTN_V4_CONSUMERS);
    static_assert(PRODUCER_REGS * WG_THREADS + REGS * WG_THREADS * ATTN_V4_CONSUMERS <= 65536,
                  "the register file holds the producer's and the consumers' registers");
    extern __shared__ unsigned char smem_raw[];
    unsigned char *const smem = align_1024(smem_raw);
    unsigned char *const sQ = smem;
    unsigned char *const sKV = smem + Cfg::Q_BYTES; /* stage s: K at s STAGE_BYTES, V after it */
    uint64_t *const full = (uint64_t *)(sKV + ATTN_V4_STAGES * Cfg::STAGE_BYTES);
    uint64_t *const empty = full + ATTN_V4_STAGES;
    uint64_t *const q_full = empty + ATTN_V4_STAGES;
    if (threadIdx.x == 0) {
        for (int s = 0; s < ATTN_V4_STAGES; s++) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], ATTN_V4_CONSUMERS * 4); /* every consumer warp releases */
        }
        mbar_init(q_full, 1);
        fence_mbarrier_init();
    }
    __syncthreads();

    const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * ATTN_V4_BLOCK_M;
    /* The keys this block needs: all, or up to its last row's diagonal (row i sees keys j <= i +
     * Sk - Sq). 0 tiles: every row is fully masked, nothing is loaded. */
    long kv_end = Sk;
    if (causal) {
        const long e = (long)q0 + ATTN_V4_BLOCK_M + Sk - Sq;
        kv_end = e < 0 ? 0 : e < Sk ? e : Sk;
    }
    const int n_tiles = (int)((kv_end + ATTN_V4_BLOCK_N - 1) / ATTN_V4_BLOCK_N);
    const long diag0 = (long)q0 + Sk - Sq; /* the diagonal of the block's first row */
    const int wg = threadIdx.x / WG_THREADS;

    if (wg == 0) {
        /* the producer: one thread issues every copy */
        setmaxnreg_dec<PRODUCER_REGS>();
        if (threadIdx.x == 0 && n_tiles > 0) {
            mbar_arrive_expect_tx(q_full, Cfg::Q_BYTES);
#pragma unroll
            for (int p = 0; p < Cfg::PANELS; p++)
                attn_tma_load_4d(sQ + p * Cfg::Q_PANEL_BYTES, &map_q, q_full, p * ATTN_V4_PANEL, q0,
                                 h, b);
            for (int j = 0; j < n_tiles; j++) {
                const int s = j % ATTN_V4_STAGES;
                /* the u-th fill of stage s waits for the consumers' release of fill u - 1 */
                if (j >= ATTN_V4_STAGES) mbar_wait(&empty[s], (j / ATTN_V4_STAGES - 1) % 2);
                unsigned char *const k_tile = sKV + s * Cfg::STAGE_BYTES;
                unsigned char *const v_tile = k_tile + Cfg::KV_BYTES;
                mbar_arrive_expect_tx(&full[s], Cfg::STAGE_BYTES);
#pragma unroll
                for (int p = 0; p < Cfg::PANELS; p++) {
                    attn_tma_load_4d(k_tile + p * Cfg::KV_PANEL_BYTES, &map_k, &full[s],
                                     p * ATTN_V4_PANEL, j * ATTN_V4_BLOCK_N, h, b);
                    attn_tma_load_4d(v_tile + p * Cfg::KV_PANEL_BYTES, &map_v, &full[s],
                                     p * ATTN_V4_PANEL, j * ATTN_V4_BLOCK_N, h, b);
                }
            }
        }
        __syncwarp();
    } else {
        setmaxnreg_inc<REGS>();
        const int cw = wg - 1; /* this consumer's 64 rows of the block */
        const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
        const int row_in_block =
            WG_M * cw + 16 * warp + g; /* rows row_in_block, row_in_block + 8 */
        const uint32_t q_rows = smem_u32(sQ) + cw * WG_M * ROW_BYTES;

        float o[Cfg::O_ACC], sc[Cfg::S_ACC];
#pragma unroll
        for (int i = 0; i < Cfg::O_ACC; i++) o[i] = 0.0f;
#pragma unroll
        for (int i = 0; i < Cfg::S_ACC; i++) sc[i] = 0.0f;
        uint32_t p[Cfg::KSTEPS_PV][4]; /* P of the previous tile, packed: the A of its P V (turn 0
                                         * writes it before any P V reads it) */
        float m[2] = {-CUDART_INF_F, -CUDART_INF_F}; /* running max of rows g, g + 8 (raw S) */
        float l[2] = {0.0f, 0.0f}; /* running sum, this lane's columns (quad-summed at the end) */
        if (n_tiles > 0) mbar_wait(q_full, 0);
        /* the turns: this consumer waits at bar_mine, lets the other go at bar_other; consumer 1
         * lets consumer 0 take the first turn */
        const int bar_mine = ATTN_V4_TURN_BAR + cw, bar_other = ATTN_V4_TURN_BAR + (1 - cw);
        if (cw == 1 && n_tiles > 0) named_bar_arrive(bar_other, ATTN_V4_TURN_THREADS);

        /* the three steps of a turn's work; turn j issues S of tile j (j < n_tiles) and P V of
         * tile j - 1 (j > 0). The first and the last turn are peeled off the loop, so that every
         * wgmma and every wait stands outside a branch (with them in branches, ptxas serialises
         * the wgmma: warning C7514/C7520) */
        /* S = Q K^T: k-step kk reads 32 bytes at 32 (kk % 4) into panel kk / 4 of Q's rows and
         * of K's */
        auto issue_s = [&](uint32_t k_tile) {
#pragma unroll
            for (int kk = 0; kk < Cfg::KSTEPS_S; kk++) {
                const uint32_t off = (kk % KSTEPS) * KSTEP_BYTES;
                wgmma_op<T, ATTN_V4_BLOCK_N>::run(
                    sc, wgmma_desc_sw128(q_rows + (kk / KSTEPS) * Cfg::Q_PANEL_BYTES + off),
                    wgmma_desc_sw128(k_tile + (kk / KSTEPS) * Cfg::KV_PANEL_BYTES + off),
                    kk > 0 ? 1 : 0);
            }
            wgmma_commit_group();
        };
        /* O += P V: k-step c takes keys 16 c .. 16 c + 15, P's registers p[c] */
        auto issue_pv = [&](uint32_t v_tile) {
#pragma unroll
            for (int c = 0; c < Cfg::KSTEPS_PV; c++)
                attn_wgmma_rs<T, D>::run(
                    o, p[c],
                    attn_wgmma_desc_mn_sw128(v_tile + c * 16 * ROW_BYTES, Cfg::KV_PANEL_BYTES), 1);
            wgmma_commit_group();
        };
        /* the mask and the online softmax of tile j's S, done; alpha: O's rescale for the new max,
         * applied by the caller once O is not a pending accumulator any more */
        auto softmax = [&](int j, float (&alpha)[2]) {
            /* the mask: register i is row g + 8 ((i / 2) % 2), key k0 + 8 (i / 4) + 2 t + i % 2;
             * only tiles past Sk or past the block's first diagonal can hold masked keys */
            const long k0 = (long)j * ATTN_V4_BLOCK_N;
            if (k0 + ATTN_V4_BLOCK_N > Sk || (causal && k0 + ATTN_V4_BLOCK_N - 1 > diag0)) {
#pragma unroll
                for (int i = 0; i < Cfg::S_ACC; i++) {
                    const long key = k0 + 8 * (i / 4) + 2 * t + i % 2;
                    const long diag = diag0 + row_in_block + 8 * ((i / 2) % 2);
                    if (key >= Sk || (causal && key > diag)) sc[i] = -CUDART_INF_F;
                }
            }
            /* rows g (r = 0) and g + 8 (r = 1): registers 4 c + 2 r + e */
#pragma unroll
            for (int r = 0; r < 2; r++) {
                float mx = m[r];
#pragma unroll
                for (int c = 0; c < Cfg::S_ACC / 4; c++)
                    mx = fmaxf(mx, fmaxf(sc[4 * c + 2 * r], sc[4 * c + 2 * r + 1]));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1)); /* the quad holds the row */
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
                /* a row with no key yet keeps max -inf: exponents against 0 then give 0, not NaN */
                const float m_use = mx == -CUDART_INF_F ? 0.0f : mx * scale_log2;
                alpha[r] = mx == -CUDART_INF_F ? 1.0f : attn_exp2(m[r] * scale_log2 - m_use);
                float rowsum = 0.0f;
#pragma unroll
                for (int c = 0; c < Cfg::S_ACC / 4; c++)
#pragma unroll
                    for (int e = 0; e < 2; e++) {
                        float &x = sc[4 * c + 2 * r + e];
                        x = attn_exp2(fmaf(x, scale_log2, -m_use));
                        rowsum += x;
                    }
                l[r] = alpha[r] * l[r] + rowsum;
                m[r] = mx;
            }
        };
        /* O *= alpha, then P = S packed as the A fragment of the next P V: k-step c takes S's
         * registers 8 c .. 8 c + 7 in the A fragment's order (attn_wgmma.cuh) */
        auto rescale_and_pack = [&](const float (&alpha)[2]) {
#pragma unroll
            for (int r = 0; r < 2; r++)
#pragma unroll
                for (int c = 0; c < Cfg::O_ACC / 4; c++)
                    o[4 * c + 2 * r] *= alpha[r], o[4 * c + 2 * r + 1] *= alpha[r];
#pragma unroll
            for (int c = 0; c < Cfg::KSTEPS_PV; c++)
#pragma unroll
                for (int q = 0; q < 4; q++)
                    p[c][q] = attn_pack2<T>(sc[8 * c + 2 * q], sc[8 * c + 2 * q + 1]);
            attn_fence_a(p); /* P's packs are done before the next turn's fence */
        };
        auto stage_k = [&](int j) { return smem_u32(sKV + j % ATTN_V4_STAGES * Cfg::STAGE_BYTES); };

        if (n_tiles > 0) {
            /* turn 0: S of tile 0 alone */
            mbar_wait(&full[0], 0);
            wgmma_fence_operand(sc);
            named_bar_sync(bar_mine, ATTN_V4_TURN_THREADS); /* my turn */
            wgmma_fence();
            issue_s(stage_k(0));
            named_bar_arrive(bar_other, ATTN_V4_TURN_THREADS); /* S is issued: the other's turn */
            wgmma_wait_group<0>();
            wgmma_fence_operand(sc);
            float alpha[2];
            softmax(0, alpha);
            rescale_and_pack(alpha); /* O is 0: the rescale is a no-op */

            /* turns 1 .. n_tiles - 1: S of tile j, then P V of tile j - 1, in one turn */
            for (int j = 1; j < n_tiles; j++) {
                mbar_wait(&full[j % ATTN_V4_STAGES], (j / ATTN_V4_STAGES) % 2);
                wgmma_fence_operand(sc);
                wgmma_fence_operand(o);
                named_bar_sync(bar_mine, ATTN_V4_TURN_THREADS);
                wgmma_fence();
                issue_s(stage_k(j));
                issue_pv(stage_k(j - 1) + Cfg::KV_BYTES);
                named_bar_arrive(bar_other, ATTN_V4_TURN_THREADS);
                /* wait_group 1: all but the most recent group (P V) are complete: S is done */
                wgmma_wait_group<1>();
                wgmma_fence_operand(sc);
                softmax(j, alpha); /* runs while this warpgroup's P V does */
                /* ... if the wait below stays below it: ptxas's scheduler hoists a wgmma wait to
                 * the top of its basic block (the softmax then runs after P V, not beside it, as
                 * the SASS of the first version showed). A branch on the softmax's result ends
                 * the block. l >= 0 always, and NaN compares false: the exit is never taken */
                if (__any_sync(0xffffffffu, l[0] < 0.0f || l[1] < 0.0f)) {
                    wgmma_wait_group<0>(); /* no warp leaves with a product in flight */
                    asm volatile("exit;");
                }
                wgmma_wait_group<0>();
                wgmma_fence_operand(o);
                attn_fence_a(p);                                  /* the old P is read */
                release_stage(&empty[(j - 1) % ATTN_V4_STAGES]); /* this warp's reads of j - 1 */
                rescale_and_pack(alpha);
            }

            /* turn n_tiles: the last P V alone; consumer 1's last turn has no one after it
             * (consumer 0 waits n_tiles + 1 times at its barrier: 1 + n_tiles arrivals) */
            wgmma_fence_operand(o);
            named_bar_sync(bar_mine, ATTN_V4_TURN_THREADS);
            wgmma_fence();
            issue_pv(stage_k(n_tiles - 1) + Cfg::KV_BYTES);
            if (cw == 0) named_bar_arrive(bar_other, ATTN_V4_TURN_THREADS);
            wgmma_wait_group<0>();
            wgmma_fence_operand(o);
            attn_fence_a(p);
            release_stage(&empty[(n_tiles - 1) % ATTN_V4_STAGES]);
        }

        /* The epilogue: the row sums over the quad, O / l in T, L. A row with l = 0 saw no key. */
#pragma unroll
        for (int r = 0; r < 2; r++) {
            float sum = l[r];
            sum += __shfl_xor_sync(0xffffffffu, sum, 1);
            sum += __shfl_xor_sync(0xffffffffu, sum, 2);
            const long i = (long)q0 + row_in_block + 8 * r;
            if (i >= Sq) continue;
            const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
            uint16_t *orow = O + b * os.batch + i * os.seq + h * os.head;
#pragma unroll
            for (int c = 0; c < Cfg::O_ACC / 4; c++)
                *reinterpret_cast<uint32_t *>(orow + 8 * c + 2 * t) =
                    attn_pack2<T>(o[4 * c + 2 * r] * inv, o[4 * c + 2 * r + 1] * inv);
            if (L && t == 0)
                L[((long)b * H + h) * Sq + i] =
                    sum > 0.0f ? (m[r] * scale_log2 + log2f(sum)) * 0.69314718056f : -CUDART_INF_F;
        }
    }
#endif
}

/* ---- the host side ------------------------------------------------------------------------- */
/* What prepare() works out once. Its CUtensorMap members are 128-byte aligned: allocate it as such
 * (on the stack, or with tma_host_calloc). */
typedef struct {
    CUtensorMap map_q, map_k, map_v;
    int B, H, Sq, Sk, D, causal;
    uint16_t *O;
    float *L;
    attn_strides os;
    float scale_log2;
    dim3 grid;
    size_t smem;
} attn_v4_overlap_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
template <class T>
static const char *attn_v4_overlap_unsupported(int B, int H, int Sq, int Sk, int D, const T *Q,
                                                attn_strides qs, const T *K, attn_strides ks,
                                                const T *V, attn_strides vs, const T *O,
                                                attn_strides os)
{
    static char why[160];
    if (B < 1 || H < 1 || Sq < 1 || Sk < 1 || D < 1) return "B, H, Sq, Sk and D must be at least 1";
    if (!Q || !K || !V || !O) return "Q, K, V and O must be device pointers";
    if (D != 64 && D != 128) {
        snprintf(why, sizeof why, "head dimension D = %d: the kernel is built for D = 64 and 128",
                 D);
        return why;
    }
    if (B > 65535 || H > 65535) return "B and H must be at most 65535 (the grid's y and z)";
    if (!attn_rows_aligned(Q, qs) || !attn_rows_aligned(K, ks) || !attn_rows_aligned(V, vs) ||
        !attn_rows_aligned(O, os))
        return "rows must start on 16-byte boundaries (the TMA): pointers 16-byte aligned, "
               "strides multiples of 8 elements";
    return wg_code_unsupported(D == 64 ? (const void *)attn_v4_overlap_kernel<T, 64>
                                       : (const void *)attn_v4_overlap_kernel<T, 128>);
}

template <class T>
static cudaError_t attn_v4_overlap_prepare(attn_v4_overlap_plan *plan, int B, int H, int Sq,
                                            int Sk, int D, const T *Q, attn_strides qs, const T *K,
                                            attn_strides ks, const T *V, attn_strides vs, T *O,
                                            attn_strides os, float *L, int causal, float scale)
{
    /* the running max is taken over the raw scores: the max of the scaled ones only for scale > 0 */
    if (B < 1 || H < 1 || Sq < 1 || Sk < 1 || D < 1 || !Q || !K || !V || !O ||
        !(scale > 0.0f && scale <= FLT_MAX))
        return cudaErrorInvalidValue;
    if (attn_v4_overlap_unsupported<T>(B, H, Sq, Sk, D, Q, qs, K, ks, V, vs, O, os))
        return cudaErrorNotSupported;
    const void *kernel = D == 64 ? (const void *)attn_v4_overlap_kernel<T, 64>
                                 : (const void *)attn_v4_overlap_kernel<T, 128>;
    const size_t smem = D == 64 ? attn_v4_config<64>::SMEM_BYTES : attn_v4_config<128>::SMEM_BYTES;
    cudaError_t e = smem_optin(kernel, smem);
    if (e != cudaSuccess) return e;
    const CUtensorMapDataType type = tma_dtype<T>::value;
    e = attn_tma_map_bshd(&plan->map_q, Q, type, B, Sq, H, D, qs, ATTN_V4_BLOCK_M);
    if (e == cudaSuccess)
        e = attn_tma_map_bshd(&plan->map_k, K, type, B, Sk, H, D, ks, ATTN_V4_BLOCK_N);
    if (e == cudaSuccess)
        e = attn_tma_map_bshd(&plan->map_v, V, type, B, Sk, H, D, vs, ATTN_V4_BLOCK_N);
    if (e != cudaSuccess) return e;
    plan->B = B, plan->H = H, plan->Sq = Sq, plan->Sk = Sk, plan->D = D, plan->causal = causal;
    plan->O = (uint16_t *)O, plan->L = L, plan->os = os;
    plan->scale_log2 = scale * 1.4426950408889634f; /* exp(x) = exp2(x log2 e) */
    plan->grid =
        dim3((unsigned)((Sq + ATTN_V4_BLOCK_M - 1) / ATTN_V4_BLOCK_M), (unsigned)H, (unsigned)B);
    plan->smem = smem;
    return cudaSuccess;
}

template <class T>
static cudaError_t attn_v4_overlap_run(const attn_v4_overlap_plan *p, cudaStream_t stream)
{
    if (p->D == 64)
        attn_v4_overlap_kernel<T, 64><<<p->grid, ATTN_V4_THREADS, p->smem, stream>>>(
            p->H, p->Sq, p->Sk, p->map_q, p->map_k, p->map_v, p->O, p->os, p->L, p->causal,
            p->scale_log2);
    else
        attn_v4_overlap_kernel<T, 128><<<p->grid, ATTN_V4_THREADS, p->smem, stream>>>(
            p->H, p->Sq, p->Sk, p->map_q, p->map_k, p->map_v, p->O, p->os, p->L, p->causal,
            p->scale_log2);
    return cudaGetLastError();
}

template <class T>
static cudaError_t attn_v4_overlap_forward(int B, int H, int Sq, int Sk, int D, const T *Q,
                                            attn_strides qs, const T *K, attn_strides ks,
                                            const T *V, attn_strides vs, T *O, attn_strides os,
                                            float *L, int causal, float scale, cudaStream_t stream)
{
    attn_v4_overlap_plan plan;
    const cudaError_t e = attn_v4_overlap_prepare<T>(&plan, B, H, Sq, Sk, D, Q, qs, K, ks, V, vs,
                                                      O, os, L, causal, scale);
    return e == cudaSuccess ? attn_v4_overlap_run<T>(&plan, stream) : e;
}

#endif /* ATTN_V4_OVERLAP_CUH */
