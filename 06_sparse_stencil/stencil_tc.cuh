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
 * S = 8: 14 loads for 56 mmas, instead of one load per mma when a tile's rows are consecutive).
 *
 * The plain launcher (end of file; no harness types, this folder's headers and common/ only):
 *   stencil_tc_stencil<SPARSE, F16ACC>(r, w, in, p, q, NY, NX, ld, steps, workspace, bytes, stream)
 * or stencil_tc_prepare<SPARSE, F16ACC>(&plan, ...) once (checks, the bands packed into the
 * caller's workspace, stencil_tc_workspace_size bytes) and stencil_tc_run(&plan, steps, stream).
 * SPARSE, F16ACC name the variant: <true, true> is sparse_f16, <true, false> sparse_f32, <false, ..>
 * dense_f16 / dense_f32. Every call returns cudaSuccess, cudaErrorInvalidValue for bad sizes or
 * pointers, cudaErrorNotSupported for a problem or GPU the kernels do not take (nothing launched;
 * stencil_tc_unsupported says why), or the failed call's error. sm_80 or newer. */
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

/* Element j (0..3) of this lane's accumulators of mma tile s (f32 acc or f16 acc16), rounded to
 * f16, and its place in the warp's outputs: column i (0..15, the mma's row) and row n (0..1, in
 * steps of S rows) of the mma tile; the fused kernel writes them back the same way. */
template <bool F16ACC, int S>
static __device__ __forceinline__ __half tc_acc_half(const float (&acc)[S][4],
                                                     const uint32_t (&acc16)[S][2], int lane, int s,
                                                     int j, int &i, int &n)
{
    if (F16ACC) {
        i = st_frag_c16_row(lane, j >> 1), n = st_frag_c16_col(lane, j & 1);
        return __ushort_as_half((unsigned short)(acc16[s][j >> 1] >> (16 * (j & 1))));
    }
    i = st_frag_c_row(lane, j), n = st_frag_c_col(lane, j);
    return __float2half_rn(acc[s][j]);
}

/* One tensor-core step: out = stencil(in) on the interior cells of the block's tile.
 * MIN_BLOCKS: the __launch_bounds__ minimum of resident blocks per SM (0: none), i.e. the
 * register budget ptxas must meet (tc_cfg below chooses it per kernel). */
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
            const __half h = tc_acc_half<F16ACC>(acc, acc16, lane, s, j, i, n);
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

/* ---- the launch configuration (host code from here on) ---------------------------------------- */

/* Per radius: rows per warp tile S (register budget: A takes 4 (sparse) or 8 (dense) registers
 * per dy, the accumulators 4 S), warps per block WX x WY; and per kernel the minimum of resident
 * blocks per SM that ptxas is told to fit (__launch_bounds__; 0: none, ptxas chooses). Chosen by
 * measurement (the launch-bounds experiment in NOTES.md): with no minimum every kernel but one
 * kind is fastest; dense_f16 at r = 2 and 3 gains from 4 and 3 blocks per SM; gains under 3%
 * were not taken. */
template <int R> struct tc_cfg {
    static constexpr int S = R <= 3 ? 8 : 4;
    typedef tc_tile<R, S, 4, 2> tile;
    static constexpr int min_blocks(bool sparse, bool f16acc)
    {
        return !sparse && f16acc && R == 2 ? 4 : !sparse && f16acc && R == 3 ? 3 : 0;
    }
};
template <int R, bool SPARSE, bool F16ACC> struct tc_kernel {
    typedef typename tc_cfg<R>::tile T;
    static constexpr auto fn =
        stencil_tc_kernel<T, SPARSE, F16ACC, tc_cfg<R>::min_blocks(SPARSE, F16ACC)>;
};

/* the radii with kernels built: those of the chapter's shapes */
static inline bool tc_radius_built(int r) { return r == 1 || r == 2 || r == 3 || r == 7; }

/* the rows of output a block owns (BY) at radius r, and the kernel of a variant (NULL: none) */
static inline int tc_block_rows(int r)
{
    return r <= 3 ? tc_cfg<3>::tile::BY : tc_cfg<7>::tile::BY;
}
template <bool SPARSE, bool F16ACC> static inline const void *tc_kernel_for(int r)
{
    switch (r) {
    case 1: return (const void *)tc_kernel<1, SPARSE, F16ACC>::fn;
    case 2: return (const void *)tc_kernel<2, SPARSE, F16ACC>::fn;
    case 3: return (const void *)tc_kernel<3, SPARSE, F16ACC>::fn;
    case 7: return (const void *)tc_kernel<7, SPARSE, F16ACC>::fn;
    default: return NULL;
    }
}

/* one step: one block per BX x BY tile of the output */
template <int R, bool SPARSE, bool F16ACC>
static void tc_launch_r(const __half *in, __half *out, int NY, int NX, int ld,
                        const uint32_t *a_words, const uint32_t *meta, cudaStream_t stream)
{
    typedef typename tc_cfg<R>::tile T;
    const dim3 grid((unsigned)((NX + T::BX - 1) / T::BX), (unsigned)((NY + T::BY - 1) / T::BY));
    tc_kernel<R, SPARSE, F16ACC>::fn<<<grid, T::THREADS, 0, stream>>>(in, out, NY, NX, ld, a_words,
                                                                      meta);
}

/* ---- the plain launcher ----------------------------------------------------------------------
 * The problem: T steps of the stencil of radius r on an NY x NX f16 grid, row-major with a pitch
 * of ld halves; each step writes the interior cells (r <= y < NY - r, r <= x < NX - r) and never
 * the frame of width r (stencil_bands.h). w: the (2r+1)^2 weights on the host,
 * w[(dy + r) * (2r + 1) + dx + r] (a star is a box whose other taps are 0). Device grids: step 1
 * reads `in` and writes p, then p -> q, q -> p, ...: after T steps the result is in p (T odd) or q
 * (T even), stencil_tc_result. p and q must hold the frame (a copy of the input does); `in` may be
 * q (two buffers, the input overwritten) but not p. Rows 16-byte aligned: ld % 8 == 0 and the
 * three pointers on 16-byte boundaries; the pitch padding (columns NX .. ld - 1) of all three must
 * be finite (zeros): the tiles read it, and a zero weight times a NaN is a NaN. The workspace (device, 16-byte aligned) holds the packed
 * bands: prepare writes it, run reads it. Kernels exist for r = 1, 2, 3, 7. */
typedef struct {
    int sparse, f16acc, r, NY, NX, ld;
    const __half *in;
    __half *p, *q;
    const uint32_t *a_words, *meta; /* the packed bands, in the workspace */
} stencil_tc_plan;

/* NULL when the kernels can take the problem on this GPU, else why not */
template <bool SPARSE, bool F16ACC>
static const char *stencil_tc_unsupported(int r, int NY, int NX, int ld, const __half *in,
                                          const __half *p, const __half *q)
{
    if (r < 1 || NY < 1 || NX < 1 || ld < NX) return "r, NY, NX must be at least 1, ld at least NX";
    if (!tc_radius_built(r)) return "kernels are built for radius 1, 2, 3 and 7 only";
    if (ld % 8 != 0) return "the pitch ld must be a multiple of 8 halves (16-byte rows)";
    if ((uintptr_t)in % 16 || (uintptr_t)p % 16 || (uintptr_t)q % 16)
        return "the grids must start on 16-byte boundaries";
    if (((long)NY + tc_block_rows(r) - 1) / tc_block_rows(r) > 65535)
        return "the grid has too many rows for one launch (65535 blocks of rows)";
    cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, tc_kernel_for<SPARSE, F16ACC>(r)) != cudaSuccess) {
        (void)cudaGetLastError();
        return "no code for this GPU in this build, or no GPU (the kernels need sm_80 or newer)";
    }
    return NULL;
}

/* the workspace: per stencil row dy and lane the A registers (sparse 4 words, dense 8), then
 * (sparse) per pair of rows one metadata word per lane */
template <bool SPARSE> static cudaError_t stencil_tc_workspace_size(int r, size_t *bytes)
{
    if (r < 1 || !bytes) return cudaErrorInvalidValue;
    if (!tc_radius_built(r)) return cudaErrorNotSupported;
    const size_t d = 2 * (size_t)r + 1;
    *bytes = 4 * 32 * (d * (SPARSE ? 4 : 8) + (SPARSE ? (d + 1) / 2 : 0));
    return cudaSuccess;
}

/* The bands of the weights w (host, f16) packed into the workspace (device, 16-byte aligned, at
 * least stencil_tc_workspace_size bytes): *a_words and *meta (sparse; else NULL) point into it.
 * cudaErrorNotSupported for a band that is not 2:4 after the swap (r > 7). Host only. */
template <bool SPARSE>
static cudaError_t stencil_tc_pack_bands(int r, const __half *w, void *workspace, size_t bytes,
                                         const uint32_t **a_words, const uint32_t **meta)
{
    size_t need = 0;
    cudaError_t e = stencil_tc_workspace_size<SPARSE>(r, &need);
    if (e != cudaSuccess) return e;
    if (!w || !workspace || bytes < need || (uintptr_t)workspace % 16) return cudaErrorInvalidValue;
    const int d = 2 * r + 1, n_a = SPARSE ? 4 : 8;
    uint32_t *ws = (uint32_t *)workspace;
#if !defined(__CUDA_ARCH__) /* the packing is host code (stencil_bands.h) */
    /* the bands of the weights' exact values: swapped, compressed, in lane order */
    double wd[ST_D_MAX * ST_D_MAX];
    uint32_t words[ST_D_MAX * 32 * 8 + ST_PAIRS_MAX * 32];
    for (int i = 0; i < d * d; i++) wd[i] = (double)__half2float(w[i]);
    memset(words, 0, sizeof words);
    if (st_pack_fragments(wd, r, SPARSE, words, words + d * 32 * n_a) != 0)
        return cudaErrorNotSupported; /* a band that is not 2:4 after the swap: r > 7 */
    e = cudaMemcpy(ws, words, need, cudaMemcpyHostToDevice);
    /* from pageable memory the copy may still be in flight when cudaMemcpy returns: wait, so that
     * run() on any stream reads the bands */
    if (e == cudaSuccess) e = cudaStreamSynchronize(0);
    if (e != cudaSuccess) return e;
#endif
    *a_words = ws;
    *meta = SPARSE ? ws + d * 32 * n_a : NULL;
    return cudaSuccess;
}

template <bool SPARSE, bool F16ACC>
static cudaError_t stencil_tc_prepare(stencil_tc_plan *plan, int r, const __half *w,
                                      const __half *in, __half *p, __half *q, int NY, int NX,
                                      int ld, void *workspace, size_t bytes)
{
    if (!plan || !w || !in || !p || !q || in == p || p == q || r < 1 || NY < 1 || NX < 1 || ld < NX)
        return cudaErrorInvalidValue;
    if (stencil_tc_unsupported<SPARSE, F16ACC>(r, NY, NX, ld, in, p, q))
        return cudaErrorNotSupported;
    const uint32_t *a_words = NULL, *meta = NULL;
    const cudaError_t e = stencil_tc_pack_bands<SPARSE>(r, w, workspace, bytes, &a_words, &meta);
    if (e != cudaSuccess) return e;
    plan->sparse = SPARSE, plan->f16acc = F16ACC, plan->r = r;
    plan->NY = NY, plan->NX = NX, plan->ld = ld;
    plan->in = in, plan->p = p, plan->q = q;
    plan->a_words = a_words, plan->meta = meta;
    return cudaSuccess;
}

/* where the grid lies after `steps` steps of stencil_tc_run */
static inline const __half *stencil_tc_result(const stencil_tc_plan *plan, int steps)
{
    return steps == 0 ? plan->in : steps % 2 ? plan->p : plan->q;
}

/* `steps` steps, one launch each, on `stream`; only launches */
template <bool SPARSE, bool F16ACC>
static cudaError_t stencil_tc_run(const stencil_tc_plan *plan, int steps, cudaStream_t stream)
{
    if (!plan || steps < 0 || plan->sparse != SPARSE || plan->f16acc != F16ACC)
        return cudaErrorInvalidValue;
    const stencil_tc_plan &c = *plan;
    void (*const step)(const __half *, __half *, int, int, int, const uint32_t *, const uint32_t *,
                       cudaStream_t) = c.r == 1   ? tc_launch_r<1, SPARSE, F16ACC>
                                       : c.r == 2 ? tc_launch_r<2, SPARSE, F16ACC>
                                       : c.r == 3 ? tc_launch_r<3, SPARSE, F16ACC>
                                       : c.r == 7 ? tc_launch_r<7, SPARSE, F16ACC>
                                                  : NULL;
    if (!step) return cudaErrorInvalidValue;
    for (int s = 0; s < steps; s++) {
        const __half *src = s == 0 ? c.in : s % 2 ? c.p : c.q;
        step(src, s % 2 ? c.q : c.p, c.NY, c.NX, c.ld, c.a_words, c.meta, stream);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

/* prepare and run in one call */
template <bool SPARSE, bool F16ACC>
static cudaError_t stencil_tc_stencil(int r, const __half *w, const __half *in, __half *p,
                                      __half *q, int NY, int NX, int ld, int steps, void *workspace,
                                      size_t bytes, cudaStream_t stream)
{
    stencil_tc_plan plan;
    const cudaError_t e =
        stencil_tc_prepare<SPARSE, F16ACC>(&plan, r, w, in, p, q, NY, NX, ld, workspace, bytes);
    return e == cudaSuccess ? stencil_tc_run<SPARSE, F16ACC>(&plan, steps, stream) : e;
}

#endif /* STENCIL_TC_CUH */
