/* 06_sparse_stencil/stencil_stmatrix_pipe.cuh - rung h: rung g's write-back by stmatrix.trans
 * (sm_90) in rung f's persistent kernel, which loads the next tile under this tile's tensor work.
 *
 * Parent: rung g, stencil_stmatrix_kernel (stencil_stmatrix.cuh); the other parent is rung f,
 * stencil_pipe_kernel (stencil_pipe.cuh), and this kernel is rung f's with rung g's write-back.
 * What changes, and why it should be faster (PART3.md, "Rung h"):
 *   Rung g cut a pass's instructions by a third (an H100 profile at Box-2D49P: 164.9 M warp
 *   instructions to 110.3 M) and the largest stall left is the tile's global loads again (long
 *   scoreboard 1.70 per instruction, rung e 1.03): with less work per tile, the turns that rung f
 *   removed (load, wait, compute) weigh more. Rung f removed them (1.03 to 0.10) but paid with
 *   7.5% more instructions and, before its launch bound, an SM's fourth block. Here each block
 *   stays resident and walks the tiles as in rung f, and each step's write-back of a tile wholly
 *   inside the grid is rung g's stmatrix.x4.trans into the buffer of the tile being computed.
 *   The choice between stmatrix and the per-cell test is made per tile: a block's tiles are
 *   inside and on the rim in turn, where rung g's block had one tile. So the F steps are a
 *   function with two instantiations, one per write-back, chosen once per tile
 *   (stencil_stmatrix_pipe_steps): with the choice inside one step loop, ptxas computed the
 *   rim's per-cell tests for every tile (by the SASS about 43 M of the 40 M more instructions
 *   than rung g that an H100 profile counted at Box-2D49P).
 *   Measured (an H100, the first build, NOTES.md "Rung h measured"): 0.72-0.75x rung g sparse at
 *   r <= 3 (the hoisted tests above), 1.18x sparse and 1.49x dense at r = 7. The present form
 *   (an H100 at 70b2aff, "Rung h split measured"): 0.94-0.95x rung g sparse at r = 1 and 3 with
 *   rung g's instruction count, 1.33x sparse and 1.55x dense at r = 7.
 *   Costs: rung f's (two tiles of shared memory, the tile loop's registers under its launch bound)
 *   and rung g's (sm_90; S even).
 *
 * The plain launcher (end of file; no harness types), as rung f's:
 *   stencil_stmatrix_pipe_prepare<SPARSE, F16ACC>(&plan, r, w, in, p, q, NY, NX, ld, workspace,
 *                                        bytes, fuse, grid)  fuse 0: by the radius; grid 0:
 *                                                            resident blocks by the occupancy
 *   stencil_stmatrix_pipe_run<SPARSE, F16ACC>(&plan, steps, stream)  ceil(steps / F) launches
 *   stencil_pipe_result(&plan, steps)                        where the grid lies after them
 * The workspace is stencil_tc_workspace_size<SPARSE>(r) bytes. Minimum sm_90, CUDA 12.5. */
#ifndef STENCIL_STMATRIX_PIPE_CUH
#define STENCIL_STMATRIX_PIPE_CUH

#include "stencil_pipe.cuh"     /* rung f: the geometry of a pass, the plan, the tile walk */
#include "stencil_stmatrix.cuh" /* rung g: stencil_stmatrix_write_back */

/* The F steps of one tile, with the write-back of a tile wholly inside the grid (INSIDE) or of one
 * that touches the rim. Two instantiations, chosen per tile, instead of one loop that tests the
 * tile's flag at every step: in that form (this rung's first build) ptxas hoisted the rim's
 * per-cell bounds tests out of the step loop, above the test, so every tile computed them (about
 * 330 instructions per warp and tile, sparse r = 3, kept in registers with P2R), inside or not. */
template <class T, bool SPARSE, bool F16ACC, bool INSIDE>
__device__ __forceinline__ void
stencil_stmatrix_pipe_steps(__half *tsm, const uint32_t (&a)[T::D][SPARSE ? 4 : 8],
                            const uint32_t (&e)[T::PAIRS], int lane, int wx, int wy, int y_warp,
                            int x_warp, int y_tile, int x_tile, int NY, int NX, int fuse)
{
    constexpr int R = T::R, S = T::S, D = T::D, NA = SPARSE ? 4 : 8;
    const uint32_t base = smem_u32(tsm);
    for (int step = 0; step < fuse; step++) {
        /* 3. one step of the compute region: window o feeds every tile s = o - dy (rung e's) */
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

        /* 4. back into this tile's buffer, in place, once every warp has read it: rung g's
         *    stmatrix for a region wholly inside (every cell), rung e's per-cell test for one
         *    that touches the rim */
        __syncthreads();
        if constexpr (INSIDE)
            stencil_stmatrix_write_back<T, F16ACC>(base, acc, acc16, lane, y_warp, x_warp);
        else
            stencil_fused_write_back<T, F16ACC, true>(tsm, acc, acc16, lane, y_warp, x_warp,
                                                      y_tile, x_tile, NY, NX);
        __syncthreads();
    }
}

/* One pass: every tile of the grid, g.fuse steps each, by blocks that stay resident. */
template <class T, bool SPARSE, bool F16ACC, int MIN_BLOCKS>
__global__ void __launch_bounds__(T::THREADS, MIN_BLOCKS)
    stencil_stmatrix_pipe_kernel(const __half *__restrict__ in, __half *__restrict__ out, int NY,
                                 int NX, int ld, const uint32_t *__restrict__ a_words,
                                 const uint32_t *__restrict__ meta, stencil_pipe_geometry g)
{
    constexpr int R = T::R, S = T::S, D = T::D, NA = SPARSE ? 4 : 8;
    static_assert(T::BX % 16 == 0, "the compute region is whole 16-column segments");
    static_assert(ST_WIN == ST_FUSE_MARGIN, "the plan's free columns are the window's 8");
    static_assert(R <= ST_FUSE_MARGIN, "a step must not read past the tile's 8 free columns");
    constexpr int TILE_H = (T::IN_H + 63) / 64 * 64; /* a tile, rounded to 128 bytes */
    static_assert(2 * TILE_H * 2 <= 48 * 1024, "two tiles in static shared memory");
    __shared__ __align__(128) __half smem[2][TILE_H];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wx = warp % T::WX, wy = warp / T::WX;
    const int y_warp = 8 * S * wy, x_warp = 16 * wx;
    int tile = blockIdx.x;
    if (tile >= g.tiles) return; /* the launcher never makes such a block; nothing to meet */

    /* 1. the first tile into buffer 0, the A registers and the metadata (once per block) */
    {
        const int xo = tile % g.blocks_x * g.out_x, yo = tile / g.blocks_x * g.out_y;
        tc_load_tile<T>(smem[0], in, NY, ld, xo - g.halo_x + ST_WIN, yo - g.fuse * R + R);
    }
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

    for (int buf = 0; tile < g.tiles; tile += gridDim.x, buf ^= 1) {
        __half *const tsm = smem[buf];
        const int xo = tile % g.blocks_x * g.out_x, yo = tile / g.blocks_x * g.out_y;
        const int x_tile = xo - g.halo_x, y_tile = yo - g.fuse * R;

        /* 2. the next tile's copies into the other buffer (free: every thread passed the
         *    barrier that ended the tile before), then wait for this tile's */
        const int next = tile + gridDim.x;
        if (next < g.tiles) {
            const int xn = next % g.blocks_x * g.out_x, yn = next / g.blocks_x * g.out_y;
            tc_load_tile<T>(smem[buf ^ 1], in, NY, ld, xn - g.halo_x + ST_WIN, yn - g.fuse * R + R);
            cp_async_wait_group<1>(); /* all but the group just issued: this tile's */
        } else {
            cp_async_wait_group<0>();
        }
        __syncthreads();

        /* 3-4. the F steps: the compute region wholly among the grid's updated cells needs no
         *      test per cell (rung g's stmatrix write-back); a block's tiles differ, so the
         *      choice is made per tile */
        if (st_fuse_region_inside(y_tile, x_tile, T::BX, T::BY, R, NY, NX))
            stencil_stmatrix_pipe_steps<T, SPARSE, F16ACC, true>(tsm, a, e, lane, wx, wy, y_warp,
                                                                 x_warp, y_tile, x_tile, NY, NX,
                                                                 g.fuse);
        else
            stencil_stmatrix_pipe_steps<T, SPARSE, F16ACC, false>(tsm, a, e, lane, wx, wy, y_warp,
                                                                  x_warp, y_tile, x_tile, NY, NX,
                                                                  g.fuse);

        /* 5. the output region: coalesced 16-byte stores of its interior cells (rung e's) */
        const int vec_per_row = g.out_x / 8;
        for (int v = threadIdx.x; v < g.out_y * vec_per_row; v += T::THREADS) {
            const int yl = v / vec_per_row, xl = 8 * (v % vec_per_row);
            const int y = yo + yl, x = xo + xl;
            if (y < R || y >= NY - R || x + 8 <= R || x >= NX - R) continue;
            const __half *src = tsm + st_smem_offset(g.fuse * R + yl, g.halo_x + xl, S, T::ROW_H);
            __half *dst = out + (size_t)y * ld + x;
            if (x >= R && x + 8 <= NX - R) {
                *(uint4 *)dst = *(const uint4 *)src;
            } else {
                for (int q = 0; q < 8; q++)
                    if (x + q >= R && x + q < NX - R) dst[q] = src[q];
            }
        }
        __syncthreads(); /* every thread is done with this buffer: the next tile but one loads it */
    }
}

/* ---- host code from here on ------------------------------------------------------------------ */

/* the kernel of a radius and variant: rung f's tile and blocks per SM (4 at r <= 2, 3 at r = 3) */
template <int R, bool SPARSE, bool F16ACC> struct stencil_stmatrix_pipe_for {
    typedef typename stencil_fused_cfg<R>::tile T;
    static constexpr int MIN_BLOCKS = R <= 2 ? 4 : R == 3 ? 3 : 0;
    static constexpr auto fn = stencil_stmatrix_pipe_kernel<T, SPARSE, F16ACC, MIN_BLOCKS>;
};
template <bool SPARSE, bool F16ACC>
static inline const void *stencil_stmatrix_pipe_kernel_for(int r)
{
    switch (r) {
    case 1: return (const void *)stencil_stmatrix_pipe_for<1, SPARSE, F16ACC>::fn;
    case 2: return (const void *)stencil_stmatrix_pipe_for<2, SPARSE, F16ACC>::fn;
    case 3: return (const void *)stencil_stmatrix_pipe_for<3, SPARSE, F16ACC>::fn;
    case 7: return (const void *)stencil_stmatrix_pipe_for<7, SPARSE, F16ACC>::fn;
    default: return NULL;
    }
}

/* one pass of `fuse` steps: in -> out, on min(resident, tiles) blocks */
template <int R, bool SPARSE, bool F16ACC>
static cudaError_t stencil_stmatrix_pipe_launch_r(const __half *in, __half *out, int NY, int NX,
                                                  int ld, const uint32_t *a_words,
                                                  const uint32_t *meta, int fuse, int resident,
                                                  cudaStream_t stream)
{
    typedef typename stencil_fused_cfg<R>::tile T;
    st_fuse_plan p;
    if (st_fuse_plan_make(T::BX, T::BY, R, fuse, NY, NX, &p) != 0) return cudaErrorInvalidValue;
    const long tiles = (long)p.blocks_x * p.blocks_y;
    if (tiles > 2147483647L) return cudaErrorInvalidValue;
    if (resident < 1) return cudaErrorInvalidValue;
    const int grid = (int)(resident < tiles ? resident : tiles);
    const stencil_pipe_geometry g = {.fuse = p.fuse,
                                     .halo_x = p.halo_x,
                                     .out_x = p.out_x,
                                     .out_y = p.out_y,
                                     .blocks_x = p.blocks_x,
                                     .tiles = (int)tiles};
    stencil_stmatrix_pipe_for<R, SPARSE, F16ACC>::fn<<<grid, T::THREADS, 0, stream>>>(
        in, out, NY, NX, ld, a_words, meta, g);
    return cudaGetLastError();
}

/* NULL when the kernels can take the problem with F steps per pass on this GPU, else why not
 * (rung e's checks against this rung's kernels, rung f's tile count, rung g's sm_90) */
template <bool SPARSE, bool F16ACC>
static const char *stencil_stmatrix_pipe_unsupported(int r, int NY, int NX, int ld,
                                                     const __half *in, const __half *p,
                                                     const __half *q, int fuse)
{
    st_fuse_plan plan;
    const void *fn = stencil_stmatrix_pipe_kernel_for<SPARSE, F16ACC>(r);
    const char *why = stencil_fused_problem_unsupported(r, NY, NX, ld, in, p, q, fuse, fn, &plan);
    if (why) return why;
    if ((long)plan.blocks_x * plan.blocks_y > 2147483647L) return "more than 2^31 - 1 tiles";
    /* code built for sm_90: a binary for an older target alone has the trapping stand-in */
    cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, fn) != cudaSuccess) {
        (void)cudaGetLastError();
        return "no code for this GPU in this build";
    }
    return fa.ptxVersion >= 90 ? NULL : "stmatrix needs sm_90 or newer, and code built for it";
}

/* fuse: 1 .. ST_FUSE_MAX, or 0 for F by the radius; grid: resident blocks, 0 by occupancy */
template <bool SPARSE, bool F16ACC>
static cudaError_t stencil_stmatrix_pipe_prepare(stencil_pipe_plan *plan, int r, const __half *w,
                                                 const __half *in, __half *p, __half *q, int NY,
                                                 int NX, int ld, void *workspace, size_t bytes,
                                                 int fuse, int grid)
{
    const int f = fuse > 0 ? fuse : st_fuse_default(r);
    if (stencil_fused_bad_args(&plan->fused, r, w, in, p, q, NY, NX, ld, f) || fuse < 0 || grid < 0)
        return cudaErrorInvalidValue;
    if (stencil_stmatrix_pipe_unsupported<SPARSE, F16ACC>(r, NY, NX, ld, in, p, q, f))
        return cudaErrorNotSupported;
    const cudaError_t e = stencil_fused_fill_plan<SPARSE, F16ACC>(&plan->fused, r, w, in, p, q, NY,
                                                                  NX, ld, workspace, bytes, f);
    if (e != cudaSuccess) return e;
    return stencil_resident_blocks(stencil_stmatrix_pipe_kernel_for<SPARSE, F16ACC>(r), grid,
                                   &plan->resident);
}

/* `steps` steps as ceil(steps / F) launches on `stream` (the last one shorter); only launches */
template <bool SPARSE, bool F16ACC>
static cudaError_t stencil_stmatrix_pipe_run(const stencil_pipe_plan *plan, int steps,
                                             cudaStream_t stream)
{
    if (!plan || steps < 0 || plan->fused.tc.sparse != SPARSE || plan->fused.tc.f16acc != F16ACC)
        return cudaErrorInvalidValue;
    const stencil_tc_plan &c = plan->fused.tc;
    cudaError_t (*const pass)(const __half *, __half *, int, int, int, const uint32_t *,
                              const uint32_t *, int, int, cudaStream_t) =
        c.r == 1   ? stencil_stmatrix_pipe_launch_r<1, SPARSE, F16ACC>
        : c.r == 2 ? stencil_stmatrix_pipe_launch_r<2, SPARSE, F16ACC>
        : c.r == 3 ? stencil_stmatrix_pipe_launch_r<3, SPARSE, F16ACC>
        : c.r == 7 ? stencil_stmatrix_pipe_launch_r<7, SPARSE, F16ACC>
                   : NULL;
    if (!pass) return cudaErrorInvalidValue;
    const int fuse = plan->fused.fuse, passes = st_fuse_passes(steps, fuse);
    for (int i = 0; i < passes; i++) {
        const __half *src = i == 0 ? c.in : i % 2 ? c.p : c.q;
        const cudaError_t e = pass(src, i % 2 ? c.q : c.p, c.NY, c.NX, c.ld, c.a_words, c.meta,
                                   st_fuse_pass_steps(steps, fuse, i), plan->resident, stream);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

#endif /* STENCIL_STMATRIX_PIPE_CUH */
