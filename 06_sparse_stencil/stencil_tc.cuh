/* 06_sparse_stencil/stencil_tc.cuh - the tensor-core stencil kernel (rungs c and d) as one
 * template, and the pieces the one-warp probes (stencil_probe.cu) call on their own: the tile
 * geometry, the shared-memory fill, the B fragment load (ldmatrix.x4, plus the strided swap for
 * the sparse kernels). stencil_tc.cu has the lesson, stencil_bands.h the layouts.
 *
 * A block of WX x WY warps owns BX = 16 WX columns and BY = 8 S WY rows of the output. A warp owns
 * 16 columns (the M = 16 of the mma: one band segment) and 8 S rows, as S output tiles of 16 x 8:
 * tile s holds the rows s, s + S, s + 2S, ..., s + 7S of the warp's rows (the N = 8 of the mma),
 *
 *     D_s[i][n] = out[yw + s + S n][xw + i]           (i: 16 columns, n: 8 rows S apart)
 *     B_o[k][n] = in [yw + o + S n][xw - 8 + k]       (k: the 32-wide window)
 *     D_s += A_dy B_{s+dy}    for dy = -r..r
 *
 * so B_o serves every (s, dy) with s + dy = o: S + 2r fragment loads feed S (2r + 1) mmas (r = 3,
 * S = 8: 14 loads for 56 mmas, instead of one load per mma when a tile's rows are consecutive). */
#ifndef STENCIL_TC_CUH
#define STENCIL_TC_CUH

#include "mma_sync.cuh" /* mma_m16n8k16_f16f32, ldmatrix_x4, cp_async_16 */
#include "sparse_ptx.cuh"
#include "stencil_bands.h"

#include <cuda_fp16.h>
#include <stdint.h>

template <int R_, int S_, int WX_, int WY_> struct tc_tile {
    static constexpr int R = R_, S = S_, WX = WX_, WY = WY_;
    static constexpr int D = 2 * R + 1;       /* stencil rows dy */
    static constexpr int PAIRS = (D + 1) / 2; /* metadata words per lane */
    static constexpr int WARPS = WX * WY, THREADS = 32 * WARPS;
    static constexpr int BX = 16 * WX, BY = 8 * S * WY;
    /* the input tile: rows yb - R .. yb + BY + R - 1, columns xb - 8 .. xb + BX + 7 */
    static constexpr int ROWS = BY + 2 * R;
    static constexpr int ROW_H = BX + 2 * ST_WIN;
    static constexpr int VEC_PER_ROW = ROW_H / 8;
    static constexpr int IN_H = ROWS * ROW_H + ((ROWS + S - 1) / S) * 8; /* = st_smem_halves */
    /* the output staging: BY rows of BX halves, one 16-byte gap every 2S rows (conflict-free
     * stores of the accumulator layout, whose 4 lanes t of a quad hold rows 2S apart) */
    static constexpr int OUT_H = BX, OUT_GAP = 2 * S;
    static constexpr int STAGE_H = BY * OUT_H + (BY / OUT_GAP) * 8;
    static constexpr int SMEM_H = IN_H > STAGE_H ? IN_H : STAGE_H;

    static_assert(R >= 1 && R <= ST_R_MAX, "radius 1..7: the strided swap needs 2r + 1 <= 15");
    static_assert(ROW_H % 8 == 0, "every shared row must be 16-byte aligned for ldmatrix");
    static_assert((S * ROW_H / 8) % 2 == 0, "the row gaps make ldmatrix conflict-free only then");
    static_assert(BY % OUT_GAP == 0, "whole gap periods in the staging buffer");
    static_assert((S * WX) % 2 == 0, "conflict-free staging needs S * WX even");
    static_assert(OUT_H % 8 == 0, "16-byte output vectors");
    static_assert(SMEM_H * 2 <= 48 * 1024, "static shared memory is limited to 48 KB");
};

/* The block's input tile into shared memory (cp.async, one group). Rows and columns outside the
 * grid (and the columns past the pitch ld) become zeros: they only ever feed outputs that are not
 * stored. ld is a multiple of 8, so every 16-byte vector lies wholly inside or outside a row. */
template <class T>
static __device__ __forceinline__ void tc_load_tile(__half *smem, const __half *in, int NY, int ld,
                                                    int xb, int yb)
{
    const uint32_t base = smem_u32(smem);
    for (int v = threadIdx.x; v < T::ROWS * T::VEC_PER_ROW; v += T::THREADS) {
        const int rho = v / T::VEC_PER_ROW, grp = v % T::VEC_PER_ROW;
        const int y = yb - T::R + rho, x = xb - ST_WIN + 8 * grp;
        const bool inside = y >= 0 && y < NY && x >= 0 && x < ld;
        const __half *src = inside ? in + (size_t)y * ld + x : in;
        cp_async_16(base + 2u * (uint32_t)st_smem_offset(rho, 8 * grp, T::S, T::ROW_H), src,
                    inside ? 16 : 0);
    }
    cp_async_commit_group();
}

/* The dense B fragment of window B_o (oo = o + R) for warp (wx, wy): r[j] = (B_o[2t+8j][g],
 * B_o[2t+8j+1][g]). Lane l points ldmatrix at row n = l % 8 (grid row yw + o + S n), columns
 * 8 (l / 8) .. +7 of the window. */
template <class T>
static __device__ __forceinline__ void tc_load_b(uint32_t (&r)[4], uint32_t smem_base, int lane,
                                                 int wx, int wy, int oo)
{
    const int rho = st_ldm_b_rho(lane, 8 * T::S * wy + oo, T::S);
    const int col = st_ldm_b_col(lane, 16 * wx);
    ldmatrix_x4(r, smem_base + 2u * (uint32_t)st_smem_offset(rho, col, T::S, T::ROW_H));
}

/* The same, swapped for the sparse kernels: b[j] holds (B_o[p][g], B_o[p+1][g]) at the swapped
 * positions p = 2t + 8j (st_swap_col), by four half-word merges of the dense fragment (4 PRMT
 * in the sm_90 SASS). */
template <class T>
static __device__ __forceinline__ void tc_load_b_swapped(uint32_t (&b)[4], uint32_t smem_base,
                                                         int lane, int wx, int wy, int oo)
{
    uint32_t r[4];
    tc_load_b<T>(r, smem_base, lane, wx, wy, oo);
    st_swap_b(r, b);
}

/* One tensor-core step: out = stencil(in) on the interior cells of the block's tile.
 * MIN_BLOCKS: the __launch_bounds__ minimum of resident blocks per SM (0: none), i.e. the
 * register budget ptxas must meet (stencil_tc.cu's tc_cfg chooses it per kernel). */
template <class T, bool SPARSE, bool F16ACC, int MIN_BLOCKS>
__global__ void __launch_bounds__(T::THREADS, MIN_BLOCKS)
    stencil_tc_kernel(const __half *__restrict__ in, __half *__restrict__ out, int NY, int NX,
                      int ld, const uint32_t *__restrict__ a_words,
                      const uint32_t *__restrict__ meta)
{
    constexpr int R = T::R, S = T::S, D = T::D, NA = SPARSE ? 4 : 8;
    __shared__ __align__(128) __half smem[T::SMEM_H];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wx = warp % T::WX, wy = warp / T::WX;
    const int xb = blockIdx.x * T::BX, yb = blockIdx.y * T::BY;

    /* 1. the input tile, asynchronously; meanwhile this lane's A registers for every dy and
     *    (sparse) one metadata word per pair of dy: the same for every block, from L2 */
    tc_load_tile<T>(smem, in, NY, ld, xb, yb);
    uint32_t a[D][NA];
#pragma unroll
    for (int dd = 0; dd < D; dd++)
#pragma unroll
        for (int q = 0; q < NA / 4; q++) {
            const uint4 v = __ldg((const uint4 *)(a_words + (dd * 32 + lane) * NA) + q);
            a[dd][4 * q] = v.x, a[dd][4 * q + 1] = v.y, a[dd][4 * q + 2] = v.z,
                      a[dd][4 * q + 3] = v.w;
        }
    uint32_t e[T::PAIRS];
#pragma unroll
    for (int p = 0; p < T::PAIRS; p++) e[p] = SPARSE ? __ldg(meta + p * 32 + lane) : 0u;
    cp_async_wait_group<0>();
    __syncthreads();

    /* 2. the mmas: window o feeds every tile s = o - dy */
    const uint32_t base = smem_u32(smem);
    float acc[S][4];
    uint32_t acc16[S][2];
#pragma unroll
    for (int s = 0; s < S; s++) {
        acc[s][0] = acc[s][1] = acc[s][2] = acc[s][3] = 0.0f;
        acc16[s][0] = acc16[s][1] = 0u;
    }
#pragma unroll
    for (int oo = 0; oo < S + 2 * R; oo++) {
        uint32_t b[4];
        if (SPARSE)
            tc_load_b_swapped<T>(b, base, lane, wx, wy, oo);
        else
            tc_load_b<T>(b, base, lane, wx, wy, oo);
#pragma unroll
        for (int dd = 0; dd < D; dd++) {
            const int s = oo - dd; /* (o + R) - (dy + R) */
            if (s < 0 || s >= S) continue;
            if (SPARSE) {
                const uint32_t ad[4] = {a[dd][0], a[dd][1], a[dd][2], a[dd][3]};
                if (F16ACC) {
                    if (dd & 1)
                        mma_sp_m16n8k32_f16f16<1>(acc16[s], ad, b, e[dd / 2]);
                    else
                        mma_sp_m16n8k32_f16f16<0>(acc16[s], ad, b, e[dd / 2]);
                } else {
                    if (dd & 1)
                        mma_sp_m16n8k32_f16f32<1>(acc[s], ad, b, e[dd / 2]);
                    else
                        mma_sp_m16n8k32_f16f32<0>(acc[s], ad, b, e[dd / 2]);
                }
            } else {
                const uint32_t a0[4] = {a[dd][0], a[dd][1], a[dd][2], a[dd][3]};
                const uint32_t a1[4] = {a[dd][4 % NA], a[dd][5 % NA], a[dd][6 % NA], a[dd][7 % NA]};
                const uint32_t b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
                if (F16ACC) {
                    mma_m16n8k16_f16f16(acc16[s], a0, b0);
                    mma_m16n8k16_f16f16(acc16[s], a1, b1);
                } else {
                    mma_m16n8k16_f16f32(acc[s], a0, b0);
                    mma_m16n8k16_f16f32(acc[s], a1, b1);
                }
            }
        }
    }

    /* 3. the results through shared memory (the input tile is no longer needed), rounded to f16 */
    __syncthreads();
    const int y_warp = 8 * S * wy, x_warp = 16 * wx;
#pragma unroll
    for (int s = 0; s < S; s++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int i, n;
            __half h;
            if (F16ACC) {
                i = st_frag_c16_row(lane, j >> 1), n = st_frag_c16_col(lane, j & 1);
                h = __ushort_as_half((unsigned short)(acc16[s][j >> 1] >> (16 * (j & 1))));
            } else {
                i = st_frag_c_row(lane, j), n = st_frag_c_col(lane, j);
                h = __float2half_rn(acc[s][j]);
            }
            const int yl = y_warp + s + S * n, xl = x_warp + i;
            smem[yl * T::OUT_H + (yl / T::OUT_GAP) * 8 + xl] = h;
        }
    __syncthreads();

    /* 4. coalesced 16-byte stores of the interior cells (the frame keeps its values) */
    for (int v = threadIdx.x; v < T::BY * (T::BX / 8); v += T::THREADS) {
        const int yl = v / (T::BX / 8), x = xb + 8 * (v % (T::BX / 8)), y = yb + yl;
        if (y < R || y >= NY - R || x + 8 <= R || x >= NX - R) continue;
        const __half *src = smem + yl * T::OUT_H + (yl / T::OUT_GAP) * 8 + (x - xb);
        __half *dst = out + (size_t)y * ld + x;
        if (x >= R && x + 8 <= NX - R) {
            *(uint4 *)dst = *(const uint4 *)src;
        } else {
            for (int q = 0; q < 8; q++)
                if (x + q >= R && x + q < NX - R) dst[q] = src[q];
        }
    }
}

#endif /* STENCIL_TC_CUH */
