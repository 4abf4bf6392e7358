/* 06_sparse_stencil/stencil_stmatrix.cuh - rung g: rung e's F steps per pass, with each step's
 * accumulators written back into the tile by stmatrix.trans (sm_90) instead of 16-bit stores.
 *
 * Parent: rung e, stencil_fused_kernel (stencil_fused.cuh). What changes, and why it should be
 * faster (PART3.md, "Rung g"):
 *   Rung e's step ends with its write-back: a lane's accumulator register holds two outputs of the
 *   same column and two rows S apart (the mma's N is the grid's rows), so every output is a
 *   16-bit store of its own, plus the shifts and masks that take the half out of its register: in
 *   the sm_90 SASS of the sparse r = 3 kernel, 106 instructions per step (32 STS.U16) after the
 *   56 HMMA.SP, where an H100's profile found the kernel bound neither by DRAM nor by the tensor
 *   pipe, its time following its instructions (NOTES.md, "Rung f measured"). But the registers
 *   are exactly the fragment that
 *   ldmatrix.trans would have loaded from the tile's rows S apart, the rows the B windows are
 *   loaded from: stmatrix.trans, the same move backwards, stores two output tiles (4 matrices of
 *   8 x 8) per instruction, S / 2 instructions per step, into the same conflict-free rows.
 *   Only the write-back of a region wholly inside the grid changes (most blocks); a block whose
 *   region touches the grid's fixed rim keeps rung e's per-cell test. The rest is rung e's.
 *   Costs: sm_90 (stmatrix; elsewhere the rows report skipped), and S must be even. The f32
 *   accumulator path (stencil_stmatrix_pair) compiles but no row runs it: the driver's rows are
 *   f16, as rung e's.
 *
 * The plain launcher (end of file; no harness types), as rung e's:
 *   stencil_stmatrix_prepare<SPARSE, F16ACC>(&plan, r, w, in, p, q, NY, NX, ld, workspace,
 *                                            bytes, fuse)          fuse 0: F by the radius
 *   stencil_stmatrix_run<SPARSE, F16ACC>(&plan, steps, stream)     ceil(steps / F) launches
 *   stencil_fused_result(&plan, steps)                             where the grid lies after them
 * The workspace is stencil_tc_workspace_size<SPARSE>(r) bytes. Minimum sm_90, CUDA 12.5. */
#ifndef STENCIL_STMATRIX_CUH
#define STENCIL_STMATRIX_CUH

#include "stencil_fused.cuh" /* the parent: its tile, rim write-back, plan and checks */

/* two accumulators of an output tile as the two halves of one register: f16 accumulators already
 * are; f32 ones are rounded to f16 here, as rung e rounds each (low half: the lower column of D) */
template <bool F16ACC, int S>
static __device__ __forceinline__ uint32_t stencil_stmatrix_pair(const float (&acc)[S][4],
                                                                 const uint32_t (&acc16)[S][2],
                                                                 int s, int c)
{
    if (F16ACC) return acc16[s][c];
    const __half2 h = __floats2half2_rn(acc[s][2 * c], acc[s][2 * c + 1]);
    uint32_t u;
    memcpy(&u, &h, sizeof u);
    return u;
}

/* Step 3, the change of this rung: a warp's accumulators back into the tile, every cell of its
 * region (a region wholly inside the grid), two output tiles per stmatrix.x4.trans. Output tile
 * s holds D_s[i][n] = out[row s + S n][column i] of the warp's cells (i: 16 columns, n: 8 rows S
 * apart; stencil_tc.cuh). Matrix j = 2q + c of the instruction is D_{s+q}'s columns 8c .. 8c + 7,
 * stored transposed: its row n goes to the tile's row R + y_warp + s + q + S n, 8 halves from
 * column ST_WIN + x_warp + 8c, and lane 8j + n gives that address. */
template <class T, bool F16ACC>
static __device__ __forceinline__ void
stencil_stmatrix_write_back(uint32_t base, const float (&acc)[T::S][4],
                            const uint32_t (&acc16)[T::S][2], int lane, int y_warp, int x_warp)
{
    constexpr int R = T::R, S = T::S;
    static_assert(S % 2 == 0, "two output tiles per stmatrix.x4");
    static_assert(T::ROW_H % 8 == 0, "stmatrix's rows must start on 16-byte boundaries");
#pragma unroll
    for (int s = 0; s < S; s += 2) {
        const uint32_t r[4] = {stencil_stmatrix_pair<F16ACC, S>(acc, acc16, s, 0),
                               stencil_stmatrix_pair<F16ACC, S>(acc, acc16, s, 1),
                               stencil_stmatrix_pair<F16ACC, S>(acc, acc16, s + 1, 0),
                               stencil_stmatrix_pair<F16ACC, S>(acc, acc16, s + 1, 1)};
        const int rho = st_stsm_rho(lane, s, R, y_warp, S), col = st_stsm_col(lane, x_warp);
        stmatrix_x4_trans(base + 2u * (uint32_t)st_smem_offset(rho, col, S, T::ROW_H), r);
    }
}

/* One pass: g.fuse steps of the block's tile, then its output region. */
template <class T, bool SPARSE, bool F16ACC, int MIN_BLOCKS>
__global__ void __launch_bounds__(T::THREADS, MIN_BLOCKS)
    stencil_stmatrix_kernel(const __half *__restrict__ in, __half *__restrict__ out, int NY, int NX,
                            int ld, const uint32_t *__restrict__ a_words,
                            const uint32_t *__restrict__ meta, stencil_fused_geometry g)
{
    constexpr int R = T::R, S = T::S, D = T::D, NA = SPARSE ? 4 : 8;
    static_assert(T::BX % 16 == 0, "the compute region is whole 16-column segments");
    static_assert(ST_WIN == ST_FUSE_MARGIN, "the plan's free columns are the window's 8");
    static_assert(R <= ST_FUSE_MARGIN, "a step must not read past the tile's 8 free columns");
    __shared__ __align__(128) __half smem[T::IN_H];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wx = warp % T::WX, wy = warp / T::WX;
    /* the block's first output cell, and the grid cell of the tile's (row 0, column 0) */
    const int xo = blockIdx.x * g.out_x, yo = blockIdx.y * g.out_y;
    const int x_tile = xo - g.halo_x, y_tile = yo - g.fuse * R;

    /* 1. the tile (tc_load_tile's origin is its compute region's: R rows, ST_WIN columns in),
     *    the A registers and the metadata, as in the one-step kernel */
    tc_load_tile<T>(smem, in, NY, ld, x_tile + ST_WIN, y_tile + R);
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

    const uint32_t base = smem_u32(smem);
    const int y_warp = 8 * S * wy, x_warp = 16 * wx;
    /* the compute region (rows R .. R + BY - 1, columns ST_WIN .. ST_WIN + BX - 1 of the tile)
     * wholly among the grid's updated cells: the write-back needs no test per cell */
    const bool region_inside = st_fuse_region_inside(y_tile, x_tile, T::BX, T::BY, R, NY, NX);
    for (int step = 0; step < g.fuse; step++) {
        /* 2. one step of the compute region: window o feeds every tile s = o - dy */
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
                const int s = oo - dd;
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
                    const uint32_t a1[4] = {a[dd][4 % NA], a[dd][5 % NA], a[dd][6 % NA],
                                            a[dd][7 % NA]};
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

        /* 3. back into the tile, in place, once every warp has read it: stmatrix for a region
         *    wholly inside (every cell), rung e's per-cell test for one that touches the rim */
        __syncthreads();
        if (region_inside)
            stencil_stmatrix_write_back<T, F16ACC>(base, acc, acc16, lane, y_warp, x_warp);
        else
            stencil_fused_write_back<T, F16ACC, true>(smem, acc, acc16, lane, y_warp, x_warp,
                                                      y_tile, x_tile, NY, NX);
        __syncthreads();
    }

    /* 4. the output region: coalesced 16-byte stores of its interior cells */
    const int vec_per_row = g.out_x / 8;
    for (int v = threadIdx.x; v < g.out_y * vec_per_row; v += T::THREADS) {
        const int yl = v / vec_per_row, xl = 8 * (v % vec_per_row);
        const int y = yo + yl, x = xo + xl;
        if (y < R || y >= NY - R || x + 8 <= R || x >= NX - R) continue;
        const __half *src = smem + st_smem_offset(g.fuse * R + yl, g.halo_x + xl, S, T::ROW_H);
        __half *dst = out + (size_t)y * ld + x;
        if (x >= R && x + 8 <= NX - R) {
            *(uint4 *)dst = *(const uint4 *)src;
        } else {
            for (int q = 0; q < 8; q++)
                if (x + q >= R && x + q < NX - R) dst[q] = src[q];
        }
    }
}

/* ---- host code from here on ------------------------------------------------------------------ */

/* the kernel of a radius and variant: rung e's tile, and rung e's blocks per SM: its register
 * budget, and at r = 3 with f16 sums a minimum of 3 blocks (rung e fits 3 there by itself, 80
 * registers; this kernel, left alone, takes 95 for sparse, which leaves room for 2). Not for f32
 * sums, where 80 registers would spill hundreds of bytes (dense) */
template <int R, bool SPARSE, bool F16ACC> struct stencil_stmatrix_for {
    typedef typename stencil_fused_cfg<R>::tile T;
    static constexpr int MIN_BLOCKS = R == 3 && F16ACC ? 3 : tc_cfg<R>::min_blocks(SPARSE, F16ACC);
    static constexpr auto fn = stencil_stmatrix_kernel<T, SPARSE, F16ACC, MIN_BLOCKS>;
};
template <bool SPARSE, bool F16ACC> static inline const void *stencil_stmatrix_kernel_for(int r)
{
    switch (r) {
    case 1: return (const void *)stencil_stmatrix_for<1, SPARSE, F16ACC>::fn;
    case 2: return (const void *)stencil_stmatrix_for<2, SPARSE, F16ACC>::fn;
    case 3: return (const void *)stencil_stmatrix_for<3, SPARSE, F16ACC>::fn;
    case 7: return (const void *)stencil_stmatrix_for<7, SPARSE, F16ACC>::fn;
    default: return NULL;
    }
}

/* one pass of `fuse` steps: in -> out (rung e's launch, this rung's kernel) */
template <int R, bool SPARSE, bool F16ACC>
static cudaError_t stencil_stmatrix_launch_r(const __half *in, __half *out, int NY, int NX, int ld,
                                             const uint32_t *a_words, const uint32_t *meta,
                                             int fuse, cudaStream_t stream)
{
    typedef typename stencil_fused_cfg<R>::tile T;
    st_fuse_plan p;
    if (st_fuse_plan_make(T::BX, T::BY, R, fuse, NY, NX, &p) != 0 || p.blocks_y > 65535)
        return cudaErrorInvalidValue;
    const stencil_fused_geometry g = {p.fuse, p.halo_x, p.out_x, p.out_y};
    const dim3 grid((unsigned)p.blocks_x, (unsigned)p.blocks_y);
    stencil_stmatrix_for<R, SPARSE, F16ACC>::fn<<<grid, T::THREADS, 0, stream>>>(
        in, out, NY, NX, ld, a_words, meta, g);
    return cudaGetLastError();
}

/* NULL when the kernels can take the problem with F steps per pass on this GPU, else why not
 * (rung e's checks, against this rung's kernels, and stmatrix's sm_90) */
template <bool SPARSE, bool F16ACC>
static const char *stencil_stmatrix_unsupported(int r, int NY, int NX, int ld, const __half *in,
                                                const __half *p, const __half *q, int fuse)
{
    st_fuse_plan plan;
    const char *why = stencil_fused_problem_unsupported(
        r, NY, NX, ld, in, p, q, fuse, stencil_stmatrix_kernel_for<SPARSE, F16ACC>(r), &plan);
    if (why) return why;
    if (plan.blocks_y > 65535) return "the grid has too many rows for one launch (65535 blocks)";
    /* the code this GPU runs must have been compiled for sm_90: a binary built for an older target
     * alone (its PTX compiled for this GPU at load time) has the trapping stand-in instead */
    cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, stencil_stmatrix_kernel_for<SPARSE, F16ACC>(r)) != cudaSuccess) {
        (void)cudaGetLastError();
        return "no code for this GPU in this build";
    }
    return fa.ptxVersion >= 90 ? NULL : "stmatrix needs sm_90 or newer, and code built for it";
}

/* fuse: 1 .. ST_FUSE_MAX, or 0 for F by the radius */
template <bool SPARSE, bool F16ACC>
static cudaError_t stencil_stmatrix_prepare(stencil_fused_plan *plan, int r, const __half *w,
                                            const __half *in, __half *p, __half *q, int NY, int NX,
                                            int ld, void *workspace, size_t bytes, int fuse)
{
    const int f = fuse > 0 ? fuse : st_fuse_default(r);
    if (stencil_fused_bad_args(plan, r, w, in, p, q, NY, NX, ld, f) || fuse < 0)
        return cudaErrorInvalidValue;
    if (stencil_stmatrix_unsupported<SPARSE, F16ACC>(r, NY, NX, ld, in, p, q, f))
        return cudaErrorNotSupported;
    return stencil_fused_fill_plan<SPARSE, F16ACC>(plan, r, w, in, p, q, NY, NX, ld, workspace,
                                                   bytes, f);
}

/* `steps` steps as ceil(steps / F) launches on `stream` (the last one shorter); only launches */
template <bool SPARSE, bool F16ACC>
static cudaError_t stencil_stmatrix_run(const stencil_fused_plan *plan, int steps,
                                        cudaStream_t stream)
{
    if (!plan || steps < 0 || plan->tc.sparse != SPARSE || plan->tc.f16acc != F16ACC)
        return cudaErrorInvalidValue;
    const stencil_tc_plan &c = plan->tc;
    cudaError_t (*const pass)(const __half *, __half *, int, int, int, const uint32_t *,
                              const uint32_t *, int, cudaStream_t) =
        c.r == 1   ? stencil_stmatrix_launch_r<1, SPARSE, F16ACC>
        : c.r == 2 ? stencil_stmatrix_launch_r<2, SPARSE, F16ACC>
        : c.r == 3 ? stencil_stmatrix_launch_r<3, SPARSE, F16ACC>
        : c.r == 7 ? stencil_stmatrix_launch_r<7, SPARSE, F16ACC>
                   : NULL;
    if (!pass) return cudaErrorInvalidValue;
    const int passes = st_fuse_passes(steps, plan->fuse);
    for (int i = 0; i < passes; i++) {
        const __half *src = i == 0 ? c.in : i % 2 ? c.p : c.q;
        const cudaError_t e = pass(src, i % 2 ? c.q : c.p, c.NY, c.NX, c.ld, c.a_words, c.meta,
                                   st_fuse_pass_steps(steps, plan->fuse, i), stream);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

#endif /* STENCIL_STMATRIX_CUH */
