/* 06_sparse_stencil/stencil_fuse.h - the tile plan of the fused rungs (PART2.md): F time steps per
 * pass, each block advancing its tile F steps in shared memory before it stores. Host code, C and
 * C++ (stencil.c, the launchers of stencil_fused.cuh and stencil_half2.cu, test_stencil.c).
 *
 * ---- overlapped tiles -------------------------------------------------------------------------
 *
 * A fused kernel's block owns a fixed *compute region* of CX x CY cells, which it recomputes at
 * every step: CX = 16 WX for the tensor-core kernels (16 columns per warp), 2 TX for the half2
 * kernel (a thread per column pair). Its shared tile holds the compute region plus ST_WIN = 8
 * columns on either side (the tensor-core window starts 8 left of a 16-column segment and ends 8
 * right of it) and r rows above and below:
 *
 *     tile     rows 0 .. CY + 2r - 1,   columns 0 .. CX + 16 - 1
 *     compute  rows r .. r + CY - 1,    columns 8 .. 8 + CX - 1
 *
 * Step 1 reads the loaded tile; step k reads what step k - 1 wrote into the compute region and the
 * rim (the 8 columns, r rows) that nothing writes, which keeps the loaded values: after step 1
 * the rim is stale. A cell is right after step k when its 2r + 1 rows and columns were right after
 * step k - 1, so the cells that are right are the compute region after step 1 and shrink by r on
 * every side per step after it (the trapezoid): after F steps rows F r .. CY + 2r - F r - 1 and
 * columns 8 + (F - 1) r .. CX + 8 - (F - 1) r - 1 (the rim is r rows but 8 columns wide: in x the
 * first step loses 8 columns, not r). Those are the block's *output region*, the only cells it
 * stores. Blocks are placed output region next to output region, so their tiles overlap by the
 * halo on each side:
 *
 *     halo_y = F r rows above and below,              out_y = CY + 2r - 2 F r = CY - 2 (F - 1) r
 *     halo_x = 8 + (F - 1) r rounded up to 8 columns, out_x = CX + 16 - 2 halo_x
 *
 * halo_x is a multiple of 8 so that every tile row and every output row starts on a 16-byte
 * boundary (the pitch is a multiple of 8 halves). F = 1 costs nothing (halo_x = 8: the window's
 * columns); every F > 1 with (F - 1) r <= 8 costs the same 16 columns of the compute region
 * (halo_x = 16), and past that 16 more at a time.
 *
 * The boundary: a cell of the grid's frame (not interior) is never written, in shared memory as in
 * the grid, so it keeps its initial value at every step as the reference's does; cells outside the
 * grid are never written either (no interior cell reads them): those above, below or left of it
 * and past the pitch are loaded as zeros, but the pitch padding (columns NX .. ld - 1 of a row) is
 * loaded from memory as it is, so the caller keeps it finite (the driver's is zeros). A cell of the
 * compute region that is no longer right still holds a finite value (a sum of finite values):
 * what the tensor cores multiply by a band's zeros must not be a NaN.
 *
 * ---- what a pass costs --------------------------------------------------------------------------
 *
 * Per pass a block computes F CX CY cells and stores out_x out_y: the redundancy
 * st_fuse_redundancy = CX CY / (out_x out_y) >= 1 is the price of the overlap (the trapezoid's
 * sides computed by both neighbours). It loads (CX + 16)(CY + 2r) cells and stores out_x out_y,
 * so a point update loads st_fuse_bytes = 2 ((CX + 16)(CY + 2r) / (out_x out_y) + 1) / F bytes
 * (every tile read once, from DRAM or, for the halos neighbours share, from L2: DRAM traffic lies
 * between the ideal 4 / F and this), against 4 at F = 1 with no halo. The roofline
 * of the lesson uses the ideal 4 / F bytes: arithmetic intensity st_fuse_intensity = 2 taps F / 4
 * flop per byte, the bandwidth bound F times the one-step copy bound. */
#ifndef STENCIL_FUSE_H
#define STENCIL_FUSE_H

enum {
    ST_FUSE_MAX = 4,    /* the deepest fusion --test forces and the CLI takes (--fuse 1..4) */
    ST_FUSE_MARGIN = 8, /* the tile's columns left and right of the compute region */
    ST_FUSE_ALIGN = 8,  /* halves: 16-byte rows */
    /* the fused rungs' compute region CX x CY: 8 x 1 warps for r <= 3, part 1's 4 x 2 for r = 7
     * (stencil_fused_cfg and h2_cfg static_assert it; test_stencil.c checks its plans) */
    ST_FUSE_CX = 128,
    ST_FUSE_CY = 64,
    ST_FUSE_CX_R7 = 64,
    ST_FUSE_CY_R7 = 64
};

typedef struct {
    int fuse;             /* F, the steps of one pass */
    int halo_x, halo_y;   /* the tile's columns left of the first output column, rows above it */
    int out_x, out_y;     /* the output region of one block */
    int blocks_x, blocks_y; /* the grid of blocks for an NY x NX grid */
} st_fuse_plan;

/* The plan of a block with a CX x CY compute region for F steps of radius r on an NY x NX grid.
 * Returns 0, or -1 when the arguments are out of range or F steps leave the block no output (F too
 * deep for the tile). CX must be a multiple of 16 (the tensor-core segments, the column pairs). */
static inline int st_fuse_plan_make(int cx, int cy, int r, int fuse, long NY, long NX,
                                    st_fuse_plan *p)
{
    if (cx < 16 || cx % 16 != 0 || cy < 1 || r < 1 || r > ST_FUSE_MARGIN || fuse < 1 || NY < 1 ||
        NX < 1)
        return -1;
    const int reach = ST_FUSE_MARGIN + (fuse - 1) * r; /* the columns that are stale after F */
    p->fuse = fuse;
    p->halo_x = (reach + ST_FUSE_ALIGN - 1) / ST_FUSE_ALIGN * ST_FUSE_ALIGN;
    p->halo_y = fuse * r;
    p->out_x = cx + 2 * ST_FUSE_MARGIN - 2 * p->halo_x;
    p->out_y = cy - 2 * (fuse - 1) * r;
    if (p->out_x < ST_FUSE_ALIGN || p->out_y < 1) return -1;
    p->blocks_x = (int)((NX + p->out_x - 1) / p->out_x);
    p->blocks_y = (int)((NY + p->out_y - 1) / p->out_y);
    return 0;
}

/* F by the radius, when no F is forced (a prediction from the bounds, PART2.md; --fuse measures
 * the others): any F > 1 pays the same 16 columns while (F - 1) r <= 8, the rows' share
 * 2 (F - 1) r / CY grows with F, and the one-step rungs' own limits say how far the memory needs
 * relieving: r = 1: 4 and r = 2: 3 (their one-step rungs are the closest to the copy bound,
 * README), r = 3: 2 (one fused step already doubles the memory bound, past both tensor-core
 * bounds less the overlap), r = 7: 1 (its one-step rungs are far from the copy bound, and F = 2
 * would cost a quarter of the columns and a fifth of the rows). */
static inline int st_fuse_default(int r)
{
    return r == 1 ? 4 : r == 2 ? 3 : r == 3 ? 2 : 1;
}

/* the passes of `steps` steps at F per pass (the last one shorter when F does not divide steps),
 * and the steps of pass i */
static inline int st_fuse_passes(int steps, int fuse) { return (steps + fuse - 1) / fuse; }
static inline int st_fuse_pass_steps(int steps, int fuse, int pass)
{
    const int left = steps - pass * fuse;
    return left < fuse ? left : fuse;
}

/* Where the grid lies after `steps` steps run as passes that ping-pong from `in`: pass 1 writes
 * p, pass 2 q, ...: 0 = in (no step), 1 = p, 2 = q. It follows the passes, not the steps. */
static inline int st_fuse_result(int steps, int fuse)
{
    const int passes = st_fuse_passes(steps, fuse);
    return passes == 0 ? 0 : passes % 2 ? 1 : 2;
}

/* cells computed per cell stored, per step (>= 1) */
static inline double st_fuse_redundancy(int cx, int cy, const st_fuse_plan *p)
{
    return (double)cx * cy / ((double)p->out_x * p->out_y);
}
/* DRAM bytes per point update when every tile is read once and every output written once */
static inline double st_fuse_bytes(int cx, int cy, int r, const st_fuse_plan *p)
{
    const double tile = (double)(cx + 2 * ST_FUSE_MARGIN) * (cy + 2 * r);
    return 2.0 * (tile / ((double)p->out_x * p->out_y) + 1.0) / p->fuse;
}
/* the roofline's arithmetic intensity: 2 flop per tap, 4 / F bytes per point update */
static inline double st_fuse_intensity(int taps, int fuse) { return 2.0 * taps * fuse / 4.0; }

/* The compute region of a block whose tile starts at grid cell (y_tile, x_tile), rows y_tile + r
 * .. y_tile + r + cy - 1 and columns x_tile + ST_FUSE_MARGIN .. x_tile + ST_FUSE_MARGIN + cx - 1,
 * lies wholly among the cells a step updates (r <= y < NY - r, r <= x < NX - r): the fused
 * kernel's write-back then needs no test per cell (stencil_fused.cuh). The kernels call it on
 * the device; --test checks it on the host against every cell of every block it runs. */
#if defined(__CUDACC__)
#define ST_FUSE_HD __host__ __device__
#else
#define ST_FUSE_HD
#endif
ST_FUSE_HD static inline int st_fuse_region_inside(long y_tile, long x_tile, int cx, int cy, int r,
                                                   long NY, long NX)
{
    return y_tile >= 0 && y_tile + r + cy <= NY - r && x_tile + ST_FUSE_MARGIN >= r &&
           x_tile + ST_FUSE_MARGIN + cx <= NX - r;
}

#endif /* STENCIL_FUSE_H */
