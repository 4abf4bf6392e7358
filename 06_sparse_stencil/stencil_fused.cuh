/* 06_sparse_stencil/stencil_fused.cuh - rung e: the tensor-core stencil advancing F time steps per
 * pass in shared memory (temporal fusion), dense (mma.sync) and 2:4 sparse (mma.sp).
 *
 * What it teaches (PART2.md has the lesson)
 *   At one step per launch every point update reads and writes a cell of DRAM: 4 bytes, and the
 *   one-step rungs (stencil_tc.cuh) cannot pass the copy bound. Here a block loads a tile with a
 *   halo of F r rows and 8 + (F - 1) r columns rounded up to 8 and runs F steps on it before it
 *   stores: the DRAM traffic per point update falls to about 4 / F bytes, and what is left is the
 *   tensor-core work plus the overlap, the halo cells that two neighbouring blocks both compute
 *   (stencil_fuse.h).
 *
 * The step is the one-step kernel's, unchanged: the same warp tile (tc_tile; 8 x 1 warps for r <= 3,
 * stencil_fused_cfg), the same
 * A registers and metadata loaded once, the same windows B_o through ldmatrix.x4 (and the swap),
 * the same mma loop. What changes:
 *   - the tile's origin: the block's output region starts halo_x columns and F r rows into it
 *     (stencil_fuse.h's plan), and blocks step by the output region, not by the compute region;
 *   - after each step the accumulators go back into the tile itself, in place (every warp has
 *     read it: a barrier first), at the cells of the compute region that are interior cells of
 *     the grid; the frame and the cells outside the grid are never written, so they keep what was
 *     loaded: the frame's initial values, zeros outside the rows and the pitch, and the pitch
 *     padding (columns NX .. ld - 1) as it is in memory, which must be finite. The next step
 *     reads the tile again;
 *   - after F steps the output region is stored, its interior cells only, as before.
 *
 * Data layout: grids f16 row-major, pitch ld (a multiple of 8); the shared tile as in
 * stencil_tc.cuh (st_smem_offset: one 16-byte gap after every S rows). The write-back puts lane
 * (g, t)'s accumulator half at row s + S (2t + h), column g + 8j of its warp's cells: for one
 * store the 32 lanes cover 8 columns of 4 rows 2S apart, which the gaps put in 4 different
 * groups of banks (no conflict for the tiles built here).
 *
 * The plain launcher (end of file; no harness types), as stencil_tc.cuh's, with F:
 *   stencil_fused_stencil<SPARSE, F16ACC>(r, w, in, p, q, NY, NX, ld, steps, workspace, bytes,
 *                                         stream)                    F chosen by the radius
 *   stencil_fused_prepare<SPARSE, F16ACC>(&plan, ...)                F chosen by the radius
 *   stencil_fused_prepare_fuse<SPARSE, F16ACC>(&plan, ..., fuse)     F forced (1..ST_FUSE_MAX)
 *   stencil_fused_run<SPARSE, F16ACC>(&plan, steps, stream)          ceil(steps / F) launches
 *   stencil_fused_result(&plan, steps)                               where the grid lies after
 * The workspace is stencil_tc_workspace_size<SPARSE>(r) bytes (the same packed bands).
 * Minimum sm_80, CUDA 12.5 (as stencil_tc.cuh). */
#ifndef STENCIL_FUSED_CUH
#define STENCIL_FUSED_CUH

#include "stencil_fuse.h"
#include "stencil_tc.cuh"

/* a cell of the grid that the stencil updates (stencil_bands.h's st_interior, on the device) */
static __device__ __forceinline__ bool stencil_fused_interior(int y, int x, int NY, int NX, int R)
{
    return y >= R && y < NY - R && x >= R && x < NX - R;
}

/* Step 3 of the kernel below: a warp's accumulators (f32 acc or f16 acc16) back into the tile at
 * the compute region's row R + y, column ST_WIN + x, rounded to f16. CHECK: store only the grid's
 * updated cells (stencil_fused_interior); without it, every cell (a region wholly inside). */
template <class T, bool F16ACC, bool CHECK>
static __device__ __forceinline__ void
stencil_fused_write_back(__half *smem, const float (&acc)[T::S][4], const uint32_t (&acc16)[T::S][2],
                         int lane, int y_warp, int x_warp, int y_tile, int x_tile, int NY, int NX)
{
    constexpr int R = T::R, S = T::S;
#pragma unroll
    for (int s = 0; s < S; s++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int i, n;
            const __half h = tc_acc_half<F16ACC>(acc, acc16, lane, s, j, i, n);
            const int rho = R + y_warp + s + S * n, col = ST_WIN + x_warp + i;
            if (!CHECK || stencil_fused_interior(y_tile + rho, x_tile + col, NY, NX, R))
                smem[st_smem_offset(rho, col, S, T::ROW_H)] = h;
        }
}

/* what a launch needs of the plan (by value: the kernel's parameters) */
typedef struct {
    int fuse, halo_x, out_x, out_y;
} stencil_fused_geometry;

/* One pass: g.fuse steps of the block's tile, then its output region. */
template <class T, bool SPARSE, bool F16ACC, int MIN_BLOCKS>
__global__ void __launch_bounds__(T::THREADS, MIN_BLOCKS)
    stencil_fused_kernel(const __half *__restrict__ in, __half *__restrict__ out, int NY, int NX,
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

        /* 3. back into the tile, in place, once every warp has read it (a block whose region
         *    touches the grid's fixed rim tests every cell; the others, most, test none) */
        __syncthreads();
        if (region_inside)
            stencil_fused_write_back<T, F16ACC, false>(smem, acc, acc16, lane, y_warp, x_warp,
                                                       y_tile, x_tile, NY, NX);
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

/* The tile of a radius: the one-step kernel's warp tile (S rows per mma tile) and register budget
 * (tc_cfg), but for r <= 3 its 8 warps side by side, 8 x 1 (CX = 128, CY = 64) instead of 4 x 2:
 * every F > 1 loses 16 columns of the compute region to the stale rim (stencil_fuse.h), which is
 * a quarter of 64 columns and an eighth of 128, while the rows lose 2 (F - 1) r of 64. r = 7 (F = 1
 * by default) keeps the one-step tile. */
template <int R> struct stencil_fused_cfg {
    typedef tc_tile<R, tc_cfg<R>::S, (R <= 3 ? 8 : 4), (R <= 3 ? 1 : 2)> tile;
    static_assert(tile::BX == (R <= 3 ? ST_FUSE_CX : ST_FUSE_CX_R7) &&
                      tile::BY == (R <= 3 ? ST_FUSE_CY : ST_FUSE_CY_R7),
                  "the compute region stencil_fuse.h declares (test_stencil.c checks its plans)");
};

/* the kernel of a radius and variant */
template <int R, bool SPARSE, bool F16ACC> struct stencil_fused_for {
    typedef typename stencil_fused_cfg<R>::tile T;
    static constexpr auto fn =
        stencil_fused_kernel<T, SPARSE, F16ACC, tc_cfg<R>::min_blocks(SPARSE, F16ACC)>;
};
template <bool SPARSE, bool F16ACC> static inline const void *stencil_fused_kernel_for(int r)
{
    switch (r) {
    case 1: return (const void *)stencil_fused_for<1, SPARSE, F16ACC>::fn;
    case 2: return (const void *)stencil_fused_for<2, SPARSE, F16ACC>::fn;
    case 3: return (const void *)stencil_fused_for<3, SPARSE, F16ACC>::fn;
    case 7: return (const void *)stencil_fused_for<7, SPARSE, F16ACC>::fn;
    default: return NULL;
    }
}

/* the compute region of a block at radius r (the plan's CX x CY) */
static inline int stencil_fused_cx(int r)
{
    return r <= 3 ? stencil_fused_cfg<3>::tile::BX : stencil_fused_cfg<7>::tile::BX;
}
static inline int stencil_fused_cy(int r)
{
    return r <= 3 ? stencil_fused_cfg<3>::tile::BY : stencil_fused_cfg<7>::tile::BY;
}

/* the plan of F steps per pass on NY x NX at radius r: 0, or -1 (F out of range for the tile) */
static inline int stencil_fused_plan_make(int r, int fuse, int NY, int NX, st_fuse_plan *plan)
{
    if (fuse < 1 || fuse > ST_FUSE_MAX) return -1;
    return st_fuse_plan_make(stencil_fused_cx(r), stencil_fused_cy(r), r, fuse, NY, NX, plan);
}

/* one pass of `fuse` steps: in -> out. cudaErrorInvalidValue, nothing launched, when the plan
 * fails (prepare checked the full pass; a shorter one only widens the output region), else the
 * launch's error */
template <int R, bool SPARSE, bool F16ACC>
static cudaError_t stencil_fused_launch_r(const __half *in, __half *out, int NY, int NX, int ld,
                                          const uint32_t *a_words, const uint32_t *meta, int fuse,
                                          cudaStream_t stream)
{
    typedef typename stencil_fused_cfg<R>::tile T;
    st_fuse_plan p;
    if (st_fuse_plan_make(T::BX, T::BY, R, fuse, NY, NX, &p) != 0 || p.blocks_y > 65535)
        return cudaErrorInvalidValue;
    const stencil_fused_geometry g = {p.fuse, p.halo_x, p.out_x, p.out_y};
    const dim3 grid((unsigned)p.blocks_x, (unsigned)p.blocks_y);
    stencil_fused_for<R, SPARSE, F16ACC>::fn<<<grid, T::THREADS, 0, stream>>>(in, out, NY, NX, ld,
                                                                              a_words, meta, g);
    return cudaGetLastError();
}

/* ---- the plain launcher -------------------------------------------------------------------------
 * The problem and the buffers are stencil_tc.cuh's (in, p, q, ld, the frame, the finite pitch
 * padding, the workspace of packed bands); steps run as passes of F: pass 1 reads `in` and writes
 * p, pass 2 q, ...; stencil_fused_result says where the grid is after them. */
typedef struct {
    stencil_tc_plan tc; /* the buffers, the sizes and the packed bands */
    int fuse;           /* F, steps per pass */
} stencil_fused_plan;

/* The checks of a problem that rungs e and f share: NULL when `kernel` (this build's code for the
 * radius, or NULL) can take it with F steps per pass on this GPU, else why not; *plan is the tile
 * plan of the full pass. Each rung adds the limit of its own grid. */
static inline const char *stencil_fused_problem_unsupported(int r, int NY, int NX, int ld,
                                                            const __half *in, const __half *p,
                                                            const __half *q, int fuse,
                                                            const void *kernel, st_fuse_plan *plan)
{
    if (r < 1 || NY < 1 || NX < 1 || ld < NX) return "r, NY, NX must be at least 1, ld at least NX";
    if (!tc_radius_built(r)) return "kernels are built for radius 1, 2, 3 and 7 only";
    if (fuse < 1 || fuse > ST_FUSE_MAX) return "steps per pass must be 1..4";
    if (stencil_fused_plan_make(r, fuse, NY, NX, plan) != 0)
        return "that many steps per pass leave a block no output at this radius";
    if (ld % 8 != 0) return "the pitch ld must be a multiple of 8 halves (16-byte rows)";
    if ((uintptr_t)in % 16 || (uintptr_t)p % 16 || (uintptr_t)q % 16)
        return "the grids must start on 16-byte boundaries";
    cudaFuncAttributes fa;
    if (!kernel || cudaFuncGetAttributes(&fa, kernel) != cudaSuccess) {
        (void)cudaGetLastError();
        return "no code for this GPU in this build, or no GPU (the kernels need sm_80 or newer)";
    }
    return NULL;
}

/* NULL when the kernels can take the problem with F steps per pass on this GPU, else why not */
template <bool SPARSE, bool F16ACC>
static const char *stencil_fused_unsupported(int r, int NY, int NX, int ld, const __half *in,
                                             const __half *p, const __half *q, int fuse)
{
    st_fuse_plan plan;
    const char *why = stencil_fused_problem_unsupported(
        r, NY, NX, ld, in, p, q, fuse, stencil_fused_kernel_for<SPARSE, F16ACC>(r), &plan);
    if (!why && plan.blocks_y > 65535)
        why = "the grid has too many rows for one launch (65535 blocks)";
    return why;
}

/* Arguments no problem can have (cudaErrorInvalidValue), shared by rungs e and f */
static inline bool stencil_fused_bad_args(const void *plan, int r, const __half *w,
                                          const __half *in, const __half *p, const __half *q,
                                          int NY, int NX, int ld, int fuse)
{
    return !plan || !w || !in || !p || !q || in == p || p == q || r < 1 || NY < 1 || NX < 1 ||
           ld < NX || fuse < 1 || fuse > ST_FUSE_MAX;
}

/* The plan of a supported problem: the packed bands into the workspace, the buffers, F (shared by
 * rungs e and f, after their checks) */
template <bool SPARSE, bool F16ACC>
static cudaError_t stencil_fused_fill_plan(stencil_fused_plan *plan, int r, const __half *w,
                                           const __half *in, __half *p, __half *q, int NY, int NX,
                                           int ld, void *workspace, size_t bytes, int fuse)
{
    stencil_tc_plan *c = &plan->tc;
    const cudaError_t e =
        stencil_tc_pack_bands<SPARSE>(r, w, workspace, bytes, &c->a_words, &c->meta);
    if (e != cudaSuccess) return e;
    c->sparse = SPARSE, c->f16acc = F16ACC, c->r = r;
    c->NY = NY, c->NX = NX, c->ld = ld;
    c->in = in, c->p = p, c->q = q;
    plan->fuse = fuse;
    return cudaSuccess;
}

/* F forced: 1 .. ST_FUSE_MAX */
template <bool SPARSE, bool F16ACC>
static cudaError_t stencil_fused_prepare_fuse(stencil_fused_plan *plan, int r, const __half *w,
                                              const __half *in, __half *p, __half *q, int NY,
                                              int NX, int ld, void *workspace, size_t bytes,
                                              int fuse)
{
    if (stencil_fused_bad_args(plan, r, w, in, p, q, NY, NX, ld, fuse))
        return cudaErrorInvalidValue;
    if (stencil_fused_unsupported<SPARSE, F16ACC>(r, NY, NX, ld, in, p, q, fuse))
        return cudaErrorNotSupported;
    return stencil_fused_fill_plan<SPARSE, F16ACC>(plan, r, w, in, p, q, NY, NX, ld, workspace,
                                                   bytes, fuse);
}

/* F chosen by the radius (st_fuse_default) */
template <bool SPARSE, bool F16ACC>
static cudaError_t stencil_fused_prepare(stencil_fused_plan *plan, int r, const __half *w,
                                         const __half *in, __half *p, __half *q, int NY, int NX,
                                         int ld, void *workspace, size_t bytes)
{
    return stencil_fused_prepare_fuse<SPARSE, F16ACC>(plan, r, w, in, p, q, NY, NX, ld, workspace,
                                                      bytes, st_fuse_default(r));
}

/* where the grid lies after `steps` steps of stencil_fused_run */
static inline const __half *stencil_fused_result(const stencil_fused_plan *plan, int steps)
{
    const int where = st_fuse_result(steps, plan->fuse);
    return where == 0 ? plan->tc.in : where == 1 ? plan->tc.p : plan->tc.q;
}

/* `steps` steps as ceil(steps / F) launches on `stream` (the last one shorter); only launches */
template <bool SPARSE, bool F16ACC>
static cudaError_t stencil_fused_run(const stencil_fused_plan *plan, int steps,
                                     cudaStream_t stream)
{
    if (!plan || steps < 0 || plan->tc.sparse != SPARSE || plan->tc.f16acc != F16ACC)
        return cudaErrorInvalidValue;
    const stencil_tc_plan &c = plan->tc;
    cudaError_t (*const pass)(const __half *, __half *, int, int, int, const uint32_t *,
                              const uint32_t *, int, cudaStream_t) =
        c.r == 1   ? stencil_fused_launch_r<1, SPARSE, F16ACC>
        : c.r == 2 ? stencil_fused_launch_r<2, SPARSE, F16ACC>
        : c.r == 3 ? stencil_fused_launch_r<3, SPARSE, F16ACC>
        : c.r == 7 ? stencil_fused_launch_r<7, SPARSE, F16ACC>
                   : NULL;
    if (!pass) return cudaErrorInvalidValue;
    const int passes = st_fuse_passes(steps, plan->fuse);
    for (int i = 0; i < passes; i++) {
        const __half *src = i == 0 ? c.in : i % 2 ? c.p : c.q;
        const cudaError_t e = pass(src, i % 2 ? c.q : c.p, c.NY, c.NX, c.ld, c.a_words, c.meta,
                                   st_fuse_pass_steps(steps, plan->fuse, i), stream);
        if (e != cudaSuccess) return e; /* a plan that failed, or the launch's error */
    }
    return cudaSuccess;
}

/* prepare (F by the radius) and run in one call */
template <bool SPARSE, bool F16ACC>
static cudaError_t stencil_fused_stencil(int r, const __half *w, const __half *in, __half *p,
                                         __half *q, int NY, int NX, int ld, int steps,
                                         void *workspace, size_t bytes, cudaStream_t stream)
{
    stencil_fused_plan plan;
    const cudaError_t e = stencil_fused_prepare<SPARSE, F16ACC>(&plan, r, w, in, p, q, NY, NX, ld,
                                                                workspace, bytes);
    return e == cudaSuccess ? stencil_fused_run<SPARSE, F16ACC>(&plan, steps, stream) : e;
}

#endif /* STENCIL_FUSED_CUH */
