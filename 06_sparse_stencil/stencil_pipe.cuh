/* 06_sparse_stencil/stencil_pipe.cuh - rung f: rung e's F steps per pass, with the next tile's
 * loads under this tile's tensor work (a persistent grid, two tiles in shared memory).
 *
 * Parent: rung e, stencil_fused_kernel (stencil_fused.cuh). What changes, and why it should be
 * faster (PART3.md, "Rung f"):
 *   Rung e's block loads its tile, waits for all of it, runs F steps and stores: its DRAM traffic
 *   and its tensor work take turns, and the blocks of an SM, alike and started together, take the
 *   same turns. A model of that (NOTES.md, "Why the fused rungs sit at a third") fits every fused
 *   row of the record within 75-89%. Here a block stays resident and walks the tiles (tile,
 *   tile + gridDim.x, ...): before it computes tile k it issues the cp.async copies of tile k + 1
 *   into its other buffer, so the DRAM works while the tensor cores do. The step itself (windows,
 *   mma, write-back in place) and the output store are rung e's, unchanged; the A registers and
 *   the metadata are loaded once per block instead of once per tile.
 *   Costs: two tiles of shared memory (2 x 20 KB at r <= 3), more registers (the tile loop; the
 *   launch bounds keep rung e's blocks per SM, 4 at r <= 2 and 3 at r = 3, and spill a few
 *   words), and a grid of resident
 *   blocks chosen from the occupancy at prepare (stencil_pipe_resident), which --test forces small
 *   so that every block walks several tiles.
 *
 * Tile order: row-major over the grid of output regions (st_fuse_plan's blocks_x x blocks_y), so
 * the blocks in flight at one time hold neighbouring tiles, whose halos meet in L2.
 *
 * The plain launcher (end of file; no harness types), as rung e's, with the grid:
 *   stencil_pipe_prepare<SPARSE, F16ACC>(&plan, r, w, in, p, q, NY, NX, ld, workspace, bytes,
 *                                        fuse, grid)      fuse 0: by the radius; grid 0: resident
 *                                                         blocks by the occupancy, else forced
 *   stencil_pipe_run<SPARSE, F16ACC>(&plan, steps, stream)  ceil(steps / F) launches
 *   stencil_pipe_result(&plan, steps)                      where the grid lies after them
 * The workspace is stencil_tc_workspace_size<SPARSE>(r) bytes. Minimum sm_80, CUDA 12.5. */
#ifndef STENCIL_PIPE_CUH
#define STENCIL_PIPE_CUH

#include "stencil_fused.cuh" /* the parent: its tile, write-back, plan and checks */

/* what a launch needs of the plan (by value: the kernel's parameters) */
typedef struct {
    int fuse, halo_x, out_x, out_y;
    int blocks_x, tiles; /* the grid of output regions, row-major, and their number */
} stencil_pipe_geometry;

/* One pass: every tile of the grid, g.fuse steps each, by blocks that stay resident. */
template <class T, bool SPARSE, bool F16ACC, int MIN_BLOCKS>
__global__ void __launch_bounds__(T::THREADS, MIN_BLOCKS)
    stencil_pipe_kernel(const __half *__restrict__ in, __half *__restrict__ out, int NY, int NX,
                        int ld, const uint32_t *__restrict__ a_words,
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

        const uint32_t base = smem_u32(tsm);
        /* the compute region wholly among the grid's updated cells: no test per cell */
        const bool region_inside = st_fuse_region_inside(y_tile, x_tile, T::BX, T::BY, R, NY, NX);
        for (int step = 0; step < g.fuse; step++) {
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

            /* 4. back into the tile, in place, once every warp has read it */
            __syncthreads();
            if (region_inside)
                stencil_fused_write_back<T, F16ACC, false>(tsm, acc, acc16, lane, y_warp, x_warp,
                                                           y_tile, x_tile, NY, NX);
            else
                stencil_fused_write_back<T, F16ACC, true>(tsm, acc, acc16, lane, y_warp, x_warp,
                                                          y_tile, x_tile, NY, NX);
            __syncthreads();
        }

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

/* the kernel of a radius and variant: rung e's tile and rung e's blocks per SM, 4 at r <= 2 and 3
 * at r = 3 (the tile loop holds more registers than rung e; the bound spills a few words rather
 * than run fewer warps than the rung it is measured against: NOTES.md, "Rung f measured") */
template <int R, bool SPARSE, bool F16ACC> struct stencil_pipe_for {
    typedef typename stencil_fused_cfg<R>::tile T;
    static constexpr int MIN_BLOCKS = R <= 2 ? 4 : R == 3 ? 3 : 0;
    static constexpr auto fn = stencil_pipe_kernel<T, SPARSE, F16ACC, MIN_BLOCKS>;
};
template <bool SPARSE, bool F16ACC> static inline const void *stencil_pipe_kernel_for(int r)
{
    switch (r) {
    case 1: return (const void *)stencil_pipe_for<1, SPARSE, F16ACC>::fn;
    case 2: return (const void *)stencil_pipe_for<2, SPARSE, F16ACC>::fn;
    case 3: return (const void *)stencil_pipe_for<3, SPARSE, F16ACC>::fn;
    case 7: return (const void *)stencil_pipe_for<7, SPARSE, F16ACC>::fn;
    default: return NULL;
    }
}

/* The resident blocks of a persistent kernel `fn` of 256 threads: as many as fit on the GPU at
 * once (occupancy x SMs); forced > 0 takes that many instead (--test: a small grid, so that blocks
 * walk tiles). A pass launches at most one per tile. (Rung h's kernels use it too.) */
static inline cudaError_t stencil_resident_blocks(const void *fn, int forced, int *resident)
{
    if (forced > 0) {
        *resident = forced;
        return cudaSuccess;
    }
    int device = 0, sms = 0, per_sm = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, 256, 0);
    if (e != cudaSuccess) return e;
    const long n = (long)(per_sm > 0 ? per_sm : 1) * sms;
    *resident = (int)(n < 2147483647L ? n : 2147483647L);
    return cudaSuccess;
}

/* rung f's resident blocks. Every radius's tile has 8 warps (stencil_fused_cfg). */
template <bool SPARSE, bool F16ACC>
static cudaError_t stencil_pipe_resident(int r, int forced, int *resident)
{
    static_assert(stencil_fused_cfg<1>::tile::THREADS == 256 &&
                      stencil_fused_cfg<7>::tile::THREADS == 256,
                  "one block size for every radius");
    return stencil_resident_blocks(stencil_pipe_kernel_for<SPARSE, F16ACC>(r), forced, resident);
}

/* one pass of `fuse` steps: in -> out, on min(resident, tiles) blocks */
template <int R, bool SPARSE, bool F16ACC>
static cudaError_t stencil_pipe_launch_r(const __half *in, __half *out, int NY, int NX, int ld,
                                         const uint32_t *a_words, const uint32_t *meta, int fuse,
                                         int resident, cudaStream_t stream)
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
    stencil_pipe_for<R, SPARSE, F16ACC>::fn<<<grid, T::THREADS, 0, stream>>>(in, out, NY, NX, ld,
                                                                             a_words, meta, g);
    return cudaGetLastError();
}

/* ---- the plain launcher -------------------------------------------------------------------------
 * Rung e's plan (buffers, packed bands, F) and the grid: pass 1 reads `in` and writes p, pass 2 q,
 * ...; stencil_pipe_result says where the grid is after them. */
typedef struct {
    stencil_fused_plan fused; /* rung e's: the buffers, the sizes, the bands and F */
    int resident;             /* the blocks a pass keeps resident (at most one per tile) */
} stencil_pipe_plan;

/* NULL when the kernels can take the problem with F steps per pass on this GPU, else why not
 * (rung e's checks, against this rung's kernels, and its own grid's limit) */
template <bool SPARSE, bool F16ACC>
static const char *stencil_pipe_unsupported(int r, int NY, int NX, int ld, const __half *in,
                                            const __half *p, const __half *q, int fuse)
{
    st_fuse_plan plan;
    const char *why = stencil_fused_problem_unsupported(
        r, NY, NX, ld, in, p, q, fuse, stencil_pipe_kernel_for<SPARSE, F16ACC>(r), &plan);
    if (!why && (long)plan.blocks_x * plan.blocks_y > 2147483647L) why = "more than 2^31 - 1 tiles";
    return why;
}

/* fuse: 1 .. ST_FUSE_MAX, or 0 for F by the radius; grid: resident blocks, 0 by occupancy */
template <bool SPARSE, bool F16ACC>
static cudaError_t stencil_pipe_prepare(stencil_pipe_plan *plan, int r, const __half *w,
                                        const __half *in, __half *p, __half *q, int NY, int NX,
                                        int ld, void *workspace, size_t bytes, int fuse, int grid)
{
    const int f = fuse > 0 ? fuse : st_fuse_default(r);
    if (stencil_fused_bad_args(plan, r, w, in, p, q, NY, NX, ld, f) || fuse < 0 || grid < 0)
        return cudaErrorInvalidValue;
    if (stencil_pipe_unsupported<SPARSE, F16ACC>(r, NY, NX, ld, in, p, q, f))
        return cudaErrorNotSupported;
    const cudaError_t e = stencil_fused_fill_plan<SPARSE, F16ACC>(&plan->fused, r, w, in, p, q, NY,
                                                                  NX, ld, workspace, bytes, f);
    if (e != cudaSuccess) return e;
    return stencil_pipe_resident<SPARSE, F16ACC>(r, grid, &plan->resident);
}

/* where the grid lies after `steps` steps of stencil_pipe_run */
static inline const __half *stencil_pipe_result(const stencil_pipe_plan *plan, int steps)
{
    return stencil_fused_result(&plan->fused, steps);
}

/* `steps` steps as ceil(steps / F) launches on `stream` (the last one shorter); only launches */
template <bool SPARSE, bool F16ACC>
static cudaError_t stencil_pipe_run(const stencil_pipe_plan *plan, int steps, cudaStream_t stream)
{
    if (!plan || steps < 0 || plan->fused.tc.sparse != SPARSE || plan->fused.tc.f16acc != F16ACC)
        return cudaErrorInvalidValue;
    const stencil_tc_plan &c = plan->fused.tc;
    cudaError_t (*const pass)(const __half *, __half *, int, int, int, const uint32_t *,
                              const uint32_t *, int, int, cudaStream_t) =
        c.r == 1   ? stencil_pipe_launch_r<1, SPARSE, F16ACC>
        : c.r == 2 ? stencil_pipe_launch_r<2, SPARSE, F16ACC>
        : c.r == 3 ? stencil_pipe_launch_r<3, SPARSE, F16ACC>
        : c.r == 7 ? stencil_pipe_launch_r<7, SPARSE, F16ACC>
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

#endif /* STENCIL_PIPE_CUH */
