/* 06_sparse_stencil/stencil.c - the host driver of 06_sparse_stencil: 2D stencils on an NY x NX
 * f16 grid for T steps, on cuDNN, CUDA cores, dense and 2:4-sparse tensor cores.
 *
 * What it teaches
 *   The ladder of one problem: cuDNN as a single-channel convolution (what published stencil work
 *   compares against), a well-written CUDA-core kernel, the stencil as banded matrices on dense
 *   tensor cores (mma.sync), and the same bands made 2:4 sparse by the strided swap on the
 *   sparse tensor cores (mma.sp). Each row prints GStencil/s (grid points x steps / s), the share
 *   of the memory-bandwidth bound (a point update must read and write one f16: 4 bytes, at the
 *   device-to-device copy bandwidth measured in the same run) and the speed against cuDNN.
 *
 * The problem (stencil_bands.h): interior cells get the weighted sum of their (2r+1)^2 (box) or
 *   4r+1 (star) neighbours, the frame of width r keeps its initial values, ping-pong buffers, f16
 *   storage after every step. Weights are random and positive with sum 1 (an averaging stencil:
 *   values neither blow up nor vanish over the steps), rounded to f16.
 *
 * Verification: inputs random from the printed seed (uniform [-1, 1), rounded to f16), outputs
 *   poisoned (f16 NaN) before every run; the reference repeats the same steps in double from the
 *   same f16 values, rounding each step to f16 like the GPU; every checked cell must lie within a
 *   running forward error bound derived from the accumulator's precision, the weights and the
 *   steps (stencil_bands.h, err_model below), NaN and unwritten cells fail. Small grids are
 *   checked whole; large ones on 3 full rows, 3 full columns and 1024 random cells. --test also
 *   runs integer inputs and weights for one step, where every variant must be exact.
 *
 * Build and run
 *   make                                                  # build/bin/06_sparse_stencil
 *   build/bin/06_sparse_stencil                           # sparse_f32 (and cuDNN) on Box-2D49P
 *   build/bin/06_sparse_stencil --variant all --shape all --grid 4096x4096 --steps 20
 *   build/bin/06_sparse_stencil --test                    # probes, every variant and shape
 *   build/bin/06_sparse_stencil --bench                   # tensor-core rates, then 10240x10240,
 *                                                         # 10 steps, every rung and shape: CSV
 *   build/bin/06_sparse_stencil --list                    # the variant and shape tables
 *   TC_BENCH_RATES_ONLY=1 build/bin/06_sparse_stencil --bench --csv r.csv   # the rates alone
 *   TC_SKIP_CUDNN=1 ncu -k regex:stencil_pipe_kernel -c 1 build/bin/06_sparse_stencil
 *       --variant sparse_f16_pipe --shape Box-2D49P --steps 2   # (one line) profile a rung
 *                                                         # with cuDNN left unloaded */
#define _POSIX_C_SOURCE 200809L
#include "stencil_bands.h"
#include "stencil_cudnn.h"
#include "stencil_kernels.h"
#include "stencil_probe.h"

#include "check.h"
#include "convert.h"
#include "harness.h"
#include "program.h"
#include "verify.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROGRAM "06_sparse_stencil"

/* ---- the shapes ----------------------------------------------------------------------------- */
typedef enum { BOX, STAR } shape_kind;
typedef struct {
    const char *name;
    int r;
    shape_kind kind;
} st_shape;

static const st_shape shapes[] = {
    {.name = "Box-2D9P", .r = 1, .kind = BOX},   {.name = "Box-2D25P", .r = 2, .kind = BOX},
    {.name = "Box-2D49P", .r = 3, .kind = BOX},  {.name = "Star-2D5P", .r = 1, .kind = STAR},
    {.name = "Star-2D9P", .r = 2, .kind = STAR}, {.name = "Star-2D13P", .r = 3, .kind = STAR},
    {.name = "Box-2D225P", .r = 7, .kind = BOX},
};
enum { N_SHAPES = sizeof shapes / sizeof shapes[0], DEFAULT_SHAPE = 2 };

static int shape_has_tap(const st_shape *s, int dy, int dx)
{
    return s->kind == BOX || dy == 0 || dx == 0;
}
static int shape_taps(const st_shape *s)
{
    return s->kind == BOX ? (2 * s->r + 1) * (2 * s->r + 1) : 4 * s->r + 1;
}

/* ---- the variant table ------------------------------------------------------------------------
 */
/* RUNG_CUDA_H2: the half2 CUDA-core kernel with F steps per pass (stencil_half2.cu) */
typedef enum { RUNG_CUDNN, RUNG_CUDA, RUNG_DENSE, RUNG_SPARSE, RUNG_CUDA_H2 } st_rung;

/* The driver's hooks of a fused tensor-core rung (stencil_kernels.h), one set per rung file.
 * grid: the resident blocks of a rung whose blocks walk the tiles (walks_tiles; 0: as many as fit),
 * which the others ignore. */
typedef struct {
    cudaError_t (*prepare)(int sparse, int f16acc, int r, const uint16_t *w16, const void *in,
                           void *p, void *q, int NY, int NX, int ld, int fuse, int grid,
                           void **hook, const char **why);
    cudaError_t (*launch)(const void *hook, int steps, cudaStream_t stream);
    int (*result)(const void *hook, int steps);
    void (*release)(void *hook);
    int (*registers)(int sparse, int f16acc, int r);
    int walks_tiles; /* a persistent grid: --test forces it small (pipe_test_grid) */
} fused_rung;

static cudaError_t rung_e_prepare(int sparse, int f16acc, int r, const uint16_t *w16,
                                  const void *in, void *p, void *q, int NY, int NX, int ld,
                                  int fuse, int grid, void **hook, const char **why)
{
    (void)grid; /* one block per tile */
    return stencil_fused_hook_prepare(sparse, f16acc, r, w16, in, p, q, NY, NX, ld, fuse, hook,
                                      why);
}
static cudaError_t rung_g_prepare(int sparse, int f16acc, int r, const uint16_t *w16,
                                  const void *in, void *p, void *q, int NY, int NX, int ld,
                                  int fuse, int grid, void **hook, const char **why)
{
    (void)grid; /* one block per tile */
    return stencil_stmatrix_hook_prepare(sparse, f16acc, r, w16, in, p, q, NY, NX, ld, fuse, hook,
                                         why);
}
static const fused_rung rung_e = {.prepare = rung_e_prepare,
                                  .launch = stencil_fused_hook_launch,
                                  .result = stencil_fused_hook_result,
                                  .release = stencil_fused_hook_release,
                                  .registers = stencil_fused_registers};
static const fused_rung rung_f = {.prepare = stencil_pipe_hook_prepare,
                                  .launch = stencil_pipe_hook_launch,
                                  .result = stencil_pipe_hook_result,
                                  .release = stencil_pipe_hook_release,
                                  .registers = stencil_pipe_registers,
                                  .walks_tiles = 1};
static const fused_rung rung_g = {.prepare = rung_g_prepare,
                                  .launch = stencil_stmatrix_hook_launch,
                                  .result = stencil_stmatrix_hook_result,
                                  .release = stencil_stmatrix_hook_release,
                                  .registers = stencil_stmatrix_registers};
static const fused_rung rung_h = {.prepare = stencil_stmatrix_pipe_hook_prepare,
                                  .launch = stencil_stmatrix_pipe_hook_launch,
                                  .result = stencil_stmatrix_pipe_hook_result,
                                  .release = stencil_stmatrix_pipe_hook_release,
                                  .registers = stencil_stmatrix_pipe_registers,
                                  .walks_tiles = 1};

typedef struct {
    const char *name, *description;
    st_rung rung;
    int f16acc;
    int fused; /* F steps per pass (PART2.md): chosen by the radius, or forced (--fuse, --test) */
    const fused_rung *hooks; /* the fused tensor-core rungs (e to h): their driver hooks */
    const char *precision;   /* f16 in and out; accumulator f32 or f16 */
    int min_cc;
    const char *sizes;
} st_variant;

/* hand-aligned table */
// clang-format off
static const st_variant variants[] = {
    {.name = "cudnn",      .rung = RUNG_CUDNN,  .precision = "f16f32", .min_cc = 80, .sizes = "any grid",
     .description = "(a) cuDNN: 1-channel FP16 convolution, FP32 compute, + frame restore"},
    {.name = "cuda_f32",   .rung = RUNG_CUDA,   .precision = "f16f32", .min_cc = 80, .sizes = "any grid",
     .description = "(b) CUDA cores: f32 shared tile, FP32 FMA, register-blocked columns"},
    {.name = "dense_f32",  .rung = RUNG_DENSE,  .precision = "f16f32", .min_cc = 80, .sizes = "any grid",
     .description = "(c) banded matrices on mma.sync m16n8k16, f32 accumulate"},
    {.name = "dense_f16",  .rung = RUNG_DENSE,  .precision = "f16f16", .min_cc = 80, .sizes = "any grid", .f16acc = 1,
     .description = "(c) the same, f16 accumulate"},
    {.name = "sparse_f32", .rung = RUNG_SPARSE, .precision = "f16f32", .min_cc = 80, .sizes = "any grid",
     .description = "(d) strided swap, 2:4 bands on mma.sp m16n8k32, f32 accumulate"},
    {.name = "sparse_f16", .rung = RUNG_SPARSE, .precision = "f16f16", .min_cc = 80, .sizes = "any grid", .f16acc = 1,
     .description = "(d) the same, f16 accumulate"},
    {.name = "cuda_h2_fused",    .rung = RUNG_CUDA_H2, .precision = "f16f16", .min_cc = 80, .sizes = "any grid", .f16acc = 1, .fused = 1,
     .description = "(b2) CUDA cores in half2 (HFMA2), F steps per pass on overlapped tiles"},
    {.name = "dense_f16_fused",  .rung = RUNG_DENSE,   .precision = "f16f16", .min_cc = 80, .sizes = "any grid", .f16acc = 1, .fused = 1, .hooks = &rung_e,
     .description = "(e) dense_f16 advancing F steps per pass in shared memory"},
    {.name = "sparse_f16_fused", .rung = RUNG_SPARSE,  .precision = "f16f16", .min_cc = 80, .sizes = "any grid", .f16acc = 1, .fused = 1, .hooks = &rung_e,
     .description = "(e) sparse_f16 advancing F steps per pass in shared memory"},
    {.name = "dense_f16_pipe",   .rung = RUNG_DENSE,   .precision = "f16f16", .min_cc = 80, .sizes = "any grid", .f16acc = 1, .fused = 1, .hooks = &rung_f,
     .description = "(f) dense_f16_fused, the next tile loaded under this tile's mma"},
    {.name = "sparse_f16_pipe",  .rung = RUNG_SPARSE,  .precision = "f16f16", .min_cc = 80, .sizes = "any grid", .f16acc = 1, .fused = 1, .hooks = &rung_f,
     .description = "(f) sparse_f16_fused, the next tile loaded under this tile's mma"},
    {.name = "dense_f16_stmatrix",  .rung = RUNG_DENSE,  .precision = "f16f16", .min_cc = 90, .sizes = "any grid", .f16acc = 1, .fused = 1, .hooks = &rung_g,
     .description = "(g) dense_f16_fused, each step written back by stmatrix.trans"},
    {.name = "sparse_f16_stmatrix", .rung = RUNG_SPARSE, .precision = "f16f16", .min_cc = 90, .sizes = "any grid", .f16acc = 1, .fused = 1, .hooks = &rung_g,
     .description = "(g) sparse_f16_fused, each step written back by stmatrix.trans"},
    {.name = "dense_f16_stmatrix_pipe",  .rung = RUNG_DENSE,  .precision = "f16f16", .min_cc = 90, .sizes = "any grid", .f16acc = 1, .fused = 1, .hooks = &rung_h,
     .description = "(h) dense_f16_stmatrix's write-back in dense_f16_pipe's kernel"},
    {.name = "sparse_f16_stmatrix_pipe", .rung = RUNG_SPARSE, .precision = "f16f16", .min_cc = 90, .sizes = "any grid", .f16acc = 1, .fused = 1, .hooks = &rung_h,
     .description = "(h) sparse_f16_stmatrix's write-back in sparse_f16_pipe's kernel"},
};
// clang-format on
enum { N_VARIANTS = sizeof variants / sizeof variants[0], BASE = 0, DEFAULT_VARIANT = 4 };
/* rungs f and h under --test with F forced: their resident blocks. Odd F on 1 block, which walks
 * every tile (a buffer reloaded even on the small grids of make sanitize); F = 2 on 3 (tile counts
 * that are no multiple of it, blocks with different numbers of tiles); F = 4 on 13, more than a
 * row of tiles of 1000 x 1000 at r <= 3 (9 output regions wide: its 3 steps make the one pass
 * F = 3), so that some block's first tile lies wholly inside and a later one on the rim: rung h's
 * choice of write-back is per tile */
static int pipe_test_grid(int force) { return force % 2 ? 1 : force == 2 ? 3 : 13; }

/* ---- the error model per variant ---------------------------------------------------------------
 * gamma bounds the accumulator's error as a multiple of S_a (stencil_bands.h): the number of
 * roundings a cell's sum goes through, times their unit roundoff, from the tolerance table of
 * common/verify.c:
 *   CUDA cores     one FP32 FMA per tap, to nearest:                 taps * u(f32)
 *   half2          one HFMA2 per tap and point, to nearest f16:      taps * u(f16)
 *   tensor, f32    per mma the f32 result is truncated, and the addends are aligned by
 *                  truncation to 25 bits below the largest (chapter 08): 2 * u(f32, TC) per mma
 *   tensor, f16    per mma one rounding to f16 to nearest, plus the alignment: 2 * u(f16) per mma
 *   cuDNN          its algorithm is unknown: each tap as if truncated to f32, 2 * taps * u(f32,
 * TC); FFT and Winograd multiply transformed values: eps_in = their table row's u_in where there
 * are 2 (2r+1) mma per cell dense, 2r+1 sparse. u_out = u(f16), every step's store. */
static st_err_model err_model(const st_variant *v, const st_shape *s, int transform)
{
    const tc_precision *p16 = tc_precision_get("f16f32h"), *p32 = tc_precision_get("f32");
    const double u_f16 = p16->u_out, u_tc = p16->u_acc, u_fma = p32->u_acc;
    const int taps = shape_taps(s), rows = 2 * s->r + 1;
    const int mmas = v->rung == RUNG_DENSE ? 2 * rows : rows;
    st_err_model m = {0, 0, u_f16};
    switch (v->rung) {
    case RUNG_CUDA: m.gamma = taps * u_fma; break;
    case RUNG_CUDA_H2: m.gamma = taps * u_f16; break;
    case RUNG_CUDNN:
        m.gamma = 2.0 * taps * u_tc;
        m.eps_in = transform ? tc_precision_get("f16_transform")->u_in : 0.0;
        break;
    default: m.gamma = mmas * 2.0 * (v->f16acc ? u_f16 : u_tc); break;
    }
    return m;
}

/* ---- inputs ------------------------------------------------------------------------------------
 * Weights: random in [0, 1) on the shape's taps, scaled to sum 1, rounded to f16 (w: the values,
 * w16: the bits). integer = 1: integers in [-2, 2] (one step of those is exact everywhere). */
static void make_weights(const st_shape *s, tc_rng *rng, int integer, double *w, uint16_t *w16)
{
    const int r = s->r, d = 2 * r + 1;
    double sum = 0;
    for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++) {
            double v = 0;
            if (shape_has_tap(s, dy, dx))
                v = integer ? (double)tc_rng_int(rng, -2, 2) : (double)tc_rng_uniform01(rng);
            w[(dy + r) * d + dx + r] = v;
            sum += v;
        }
    for (int i = 0; i < d * d; i++) {
        if (!integer) w[i] /= sum;
        w16[i] = tc_f32_to_f16((float)w[i]);
        w[i] = (double)tc_f16_to_f32(w16[i]);
    }
}

static void make_grid(long NY, long NX, tc_rng *rng, int integer, uint16_t *g)
{
    for (long i = 0; i < NY * NX; i++)
        g[i] = tc_f32_to_f16(integer ? (float)tc_rng_int(rng, -2, 2)
                                     : tc_rng_uniform(rng, -1.0f, 1.0f));
}

/* ---- the reference ------------------------------------------------------------------------------
 * Cells to check, with their reference values and bounds after T steps: the whole grid, or a sample
 * of pieces (full rows and columns cut into pieces of at most PIECE cells, single random cells),
 * each computed from its own cone of dependence (the piece grown by r per remaining step). */
enum { PIECE = 256, SAMPLE_RANDOM = 1024 };
/* tap updates the sampled reference may take (about a minute on 16 cores); TC_REF_BUDGET sets it */
#define REF_BUDGET       5e11
#define FULL_CHECK_LIMIT 4e9 /* cells * taps * steps below which the whole grid is checked */

typedef struct {
    long n;
    long *y, *x;
    double *ref, *bound;
    int full;
} st_sample;

static void sample_free(st_sample *s)
{
    free(s->y), free(s->x), free(s->ref), free(s->bound);
    memset(s, 0, sizeof *s);
}

/* the reference of one piece, or of the whole grid (parallel) */
static void ref_rect(const double *w, int r, long NY, long NX, const uint16_t *g0, int T,
                     const st_err_model *m, st_window rect, double *ref, double *bound,
                     int parallel)
{
    if (st_ref_rect(w, r, NY, NX, g0, T, m, rect, ref, bound, parallel ? tc_parallel : NULL))
        tc_xmalloc((size_t)-1); /* reports out of memory and exits */
}

typedef struct {
    const double *w;
    int r;
    long NY, NX;
    const uint16_t *g0;
    int T;
    const st_err_model *m;
    int n_rects;
    const st_window *rects;
    const long *first; /* first sample index of each rect */
    st_sample *s;
    _Atomic int done; /* windows finished, for the progress lines */
    double t0;        /* when the reference started */
} sample_job;

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The CPU work of one window's reference, in tap updates: its dependency cone, clipped to the
 * grid, shrinks by r on every side at each of the T steps. */
static double rect_work(st_window q, int r, long NY, long NX, int T, int taps)
{
    double work = 0;
    for (int s = 0; s < T; s++) {
        const double h = fmin((double)NY, (double)q.h + 2.0 * r * s);
        const double wd = fmin((double)NX, (double)q.w + 2.0 * r * s);
        work += h * wd * taps;
    }
    return work;
}

static void sample_worker(void *ctx, int tid, int nthreads)
{
    sample_job *j = (sample_job *)ctx;
    double next_report = j->t0 + 10.0;
    for (int i = tid; i < j->n_rects; i += nthreads) {
        ref_rect(j->w, j->r, j->NY, j->NX, j->g0, j->T, j->m, j->rects[i], j->s->ref + j->first[i],
                 j->s->bound + j->first[i], 0);
        const int done = ++j->done;
        if (tid == 0 && seconds_now() >= next_report) { /* a sign of life on long references */
            fprintf(stderr, "%s: CPU reference: %d of %d windows (%.0f s)\n", PROGRAM, done,
                    j->n_rects, seconds_now() - j->t0);
            next_report += 10.0;
        }
    }
}

static st_sample make_sample(const double *w, int r, long NY, long NX, const uint16_t *g0, int T,
                             const st_err_model *m, int taps, tc_rng *rng)
{
    st_sample s;
    memset(&s, 0, sizeof s);
    st_window *rects = NULL;
    int n_rects = 0;
    if ((double)NY * NX * taps * T <= FULL_CHECK_LIMIT) {
        s.full = 1;
        s.n = NY * NX;
    } else {
        const long rows[3] = {0, NY / 2, NY - 1}, cols[3] = {0, NX / 2, NX - 1};
        const int max_rects = 6 * (int)((NX > NY ? NX : NY) / PIECE + 1) + SAMPLE_RANDOM;
        rects = (st_window *)tc_xmalloc((size_t)max_rects * sizeof *rects);
        for (int i = 0; i < 3; i++)
            for (long x = 0; x < NX; x += PIECE)
                rects[n_rects++] = (st_window){rows[i], x, 1, NX - x < PIECE ? NX - x : PIECE};
        for (int i = 0; i < 3; i++)
            for (long y = 0; y < NY; y += PIECE)
                rects[n_rects++] = (st_window){y, cols[i], NY - y < PIECE ? NY - y : PIECE, 1};
        for (int i = 0; i < SAMPLE_RANDOM; i++)
            rects[n_rects++] = (st_window){(long)(tc_rng_next_u64(rng) % (uint64_t)NY),
                                           (long)(tc_rng_next_u64(rng) % (uint64_t)NX), 1, 1};
        /* A reference too long for the CPU (many steps of a wide stencil: each cell's cone grows
         * by 2r a step) is sampled down to windows spread evenly over the list, and says so. */
        double work = 0;
        for (int i = 0; i < n_rects; i++) work += rect_work(rects[i], r, NY, NX, T, taps);
        const char *budget_env = getenv("TC_REF_BUDGET");
        const double budget = budget_env && atof(budget_env) > 0 ? atof(budget_env) : REF_BUDGET;
        if (work > budget) {
            const int keep = (int)fmax(16.0, n_rects * budget / work);
            if (keep < n_rects) {
                for (int k = 0; k < keep; k++) rects[k] = rects[(long)k * n_rects / keep];
                fprintf(stderr,
                        "%s: the full sample's CPU reference would take %.3g tap updates; checking "
                        "%d of its %d windows, spread evenly (budget %.3g: TC_REF_BUDGET)\n",
                        PROGRAM, work, keep, n_rects, budget);
                n_rects = keep;
            }
        }
        for (int i = 0; i < n_rects; i++) s.n += rects[i].h * rects[i].w;
    }
    s.y = (long *)tc_xmalloc((size_t)s.n * sizeof(long));
    s.x = (long *)tc_xmalloc((size_t)s.n * sizeof(long));
    s.ref = (double *)tc_xmalloc((size_t)s.n * sizeof(double));
    s.bound = (double *)tc_xmalloc((size_t)s.n * sizeof(double));
    if (s.full) {
        for (long i = 0; i < s.n; i++) s.y[i] = i / NX, s.x[i] = i % NX;
        ref_rect(w, r, NY, NX, g0, T, m, (st_window){0, 0, NY, NX}, s.ref, s.bound, 1);
        return s;
    }
    long *first = (long *)tc_xmalloc((size_t)n_rects * sizeof(long)), at = 0;
    for (int i = 0; i < n_rects; i++) {
        first[i] = at;
        for (long y = 0; y < rects[i].h; y++)
            for (long x = 0; x < rects[i].w; x++, at++)
                s.y[at] = rects[i].y0 + y, s.x[at] = rects[i].x0 + x;
    }
    sample_job job = {w, r, NY, NX, g0, T, m, n_rects, rects, first, &s, 0, seconds_now()};
    tc_parallel(sample_worker, &job);
    free(first);
    free(rects);
    return s;
}

/* ---- the checker --------------------------------------------------------------------------------
 * A cell passes only if |got - ref| <= bound is true (a NaN fails) and it is not the poison. exact:
 * got == ref required. */
typedef struct {
    long checked, bad, nans, unwritten;
    long outside; /* cells written outside the grid: pitch padding, rows past it (any is a fail) */
    double max_abs, max_rel, max_ratio;
    double sum_err2, sum_ref2; /* for the relative Frobenius error (NaNs left out) */
    long wy, wx;
    double wgot, wref, wbound;
    int exact, pass;
} st_check_result;

static st_check_result check_cells(const uint16_t *got, long NX, const st_sample *s, int exact)
{
    st_check_result c;
    memset(&c, 0, sizeof c);
    c.exact = exact;
    c.wy = c.wx = -1;
    double worst = -1;
    for (long i = 0; i < s->n; i++) {
        const uint16_t bits = got[s->y[i] * NX + s->x[i]];
        const double v = (double)tc_f16_to_f32(bits), ref = s->ref[i];
        const double allowed = exact ? 0.0 : s->bound[i], err = fabs(v - ref);
        const int unwritten = bits == 0xFFFF, ok = !unwritten && err <= allowed;
        const double ratio = ok ? (allowed > 0 ? err / allowed : 0.0) : INFINITY;
        c.checked++;
        c.bad += !ok;
        c.unwritten += unwritten;
        c.nans += !unwritten && isnan(v);
        if (!isnan(err)) {
            if (err > c.max_abs) c.max_abs = err;
            if (ref != 0 && err / fabs(ref) > c.max_rel) c.max_rel = err / fabs(ref);
            if (allowed > 0 && err / allowed > c.max_ratio) c.max_ratio = err / allowed;
            c.sum_err2 += err * err, c.sum_ref2 += ref * ref;
        }
        if (ratio > worst) {
            worst = ratio;
            c.wy = s->y[i], c.wx = s->x[i], c.wgot = v, c.wref = ref, c.wbound = allowed;
        }
    }
    c.pass = c.bad == 0 && c.checked > 0;
    return c;
}

static void check_print(const st_check_result *c, FILE *f)
{
    fprintf(f,
            "%s: %ld cells checked, %ld bad (%ld NaN, %ld unwritten); max abs err %.3g, max rel "
            "err %.3g, ",
            c->pass ? "PASS" : "FAIL", c->checked, c->bad, c->nans, c->unwritten, c->max_abs,
            c->max_rel);
    if (c->outside)
        fprintf(f, "%ld cells written outside the grid (pitch padding or past it), ", c->outside);
    if (c->exact)
        fprintf(f, "exact match required");
    else
        fprintf(f, "largest err/bound %.3g", c->max_ratio);
    if (c->wy >= 0)
        fprintf(f, "; worst (%ld,%ld) = %.9g, ref %.9g, bound %.3g", c->wy, c->wx, c->wgot, c->wref,
                c->wbound);
    fputc('\n', f);
}

/* ---- one problem: host inputs, reference, and the runs of the variants ----------------------- */
typedef struct {
    const st_shape *sh;
    long NY, NX;
    int T, integer;
    double w[ST_D_MAX * ST_D_MAX];
    uint16_t w16[ST_D_MAX * ST_D_MAX];
    uint16_t *g0; /* NY x NX, contiguous */
} st_problem;

static void problem_make(st_problem *p, const st_shape *sh, long NY, long NX, int T, int integer,
                         uint64_t seed)
{
    memset(p, 0, sizeof *p);
    p->sh = sh, p->NY = NY, p->NX = NX, p->T = T, p->integer = integer;
    tc_rng rng;
    tc_rng_seed(&rng, seed);
    make_weights(sh, &rng, integer, p->w, p->w16);
    p->g0 = (uint16_t *)tc_xmalloc((size_t)NY * NX * 2);
    make_grid(NY, NX, &rng, integer, p->g0);
}

typedef struct {
    int ran, pass;
    char why[200], used[96];
    st_check_result check;
    tc_timing timing;
    double rate; /* GStencil/s */
    int transform;
    int fuse; /* steps per pass: 1 for the one-step rungs */
} st_result;

/* everything a run needs on the device; launch_steps runs the T steps */
typedef struct {
    const st_variant *v;
    const st_problem *p;
    int NY, NX, ld;
    void *d_init, *d_p, *d_q;
    void *tc_hook;       /* the tensor-core rungs: the plain launcher's plan and workspace */
    void *fused_hook; /* the fused tensor-core rungs: the same, their rung file's (v->hooks) */
    int fuse;            /* steps per pass (1 but for the fused rungs) */
    st_weights_f32 wf;
    st_weights_h2 wh;
    st_cudnn *cudnn;
} run_ctx;

static void launch_step(const run_ctx *c, const void *src, void *dst, cudaStream_t stream)
{
    const int r = c->p->sh->r;
    int rc = 0;
    switch (c->v->rung) {
    case RUNG_CUDNN:
        st_cudnn_step(c->cudnn, src, dst, stream);
        stencil_restore_frame_launch(r, c->d_init, dst, c->NY, c->NX, c->ld, stream);
        break;
    default: /* RUNG_CUDA; the tensor-core rungs run all their steps in launch_steps */
        rc = stencil_cuda_launch(r, c->p->sh->kind == STAR, src, dst, c->NY, c->NX, c->ld, &c->wf,
                                 stream);
        break;
    }
    if (rc != 0) {
        fprintf(stderr, "internal error: %s has no kernel for r = %d\n", c->v->name, r);
        exit(TC_EXIT_WRONG);
    }
    TC_LAUNCH_CHECK();
}

static void launch_steps(void *ctx, cudaStream_t stream)
{
    run_ctx *c = (run_ctx *)ctx;
    if (c->tc_hook) { /* the plain launcher runs the T steps: init -> p -> q -> p ... */
        TC_CUDA_CHECK(stencil_tc_hook_launch(c->tc_hook, c->p->T, stream));
        return;
    }
    if (c->fused_hook) { /* passes of F steps: init -> p -> q -> p ... */
        TC_CUDA_CHECK(c->v->hooks->launch(c->fused_hook, c->p->T, stream));
        return;
    }
    if (c->v->rung == RUNG_CUDA_H2) {
        const int r = c->p->sh->r;
        if (stencil_h2_run(r, c->p->sh->kind == STAR, c->fuse, c->d_init, c->d_p, c->d_q, c->NY,
                           c->NX, c->ld, &c->wh, c->p->T, stream) != 0) {
            fprintf(stderr, "internal error: %s has no kernel for r = %d, F = %d\n", c->v->name, r,
                    c->fuse);
            exit(TC_EXIT_WRONG);
        }
        TC_LAUNCH_CHECK();
        return;
    }
    const void *src = c->d_init;
    for (int s = 0; s < c->p->T; s++) {
        void *dst = s % 2 == 0 ? c->d_p : c->d_q;
        launch_step(c, src, dst, stream);
        src = dst;
    }
}

/* the poisoned start of the ping-pong buffers: the frame holds the initial values, the interior
 * the poison (f16 NaN 0xFFFF), the pitch padding zeros (finite: the kernels read it into windows
 * whose weights there are zero), and the guard after the last row the poison */
static void make_start(const st_problem *p, int ld, long guard, uint16_t *init, uint16_t *start)
{
    for (long y = 0; y < p->NY; y++)
        for (long x = 0; x < ld; x++) {
            const uint16_t v = x < p->NX ? p->g0[y * p->NX + x] : 0;
            init[y * ld + x] = v;
            start[y * ld + x] =
                x < p->NX && st_interior(y, x, p->NY, p->NX, p->sh->r) ? (uint16_t)0xFFFF : v;
        }
    for (long i = p->NY * ld; i < p->NY * ld + guard; i++) init[i] = start[i] = 0xFFFF;
}

/* cells after the grid in each buffer: at least one row and 256 bytes */
static long guard_cells(int ld) { return ld > 128 ? ld : 128; }

static int variant_supported(const st_variant *v, const st_shape *s, char *why, size_t n)
{
    int ok = 1;
    if (v->rung == RUNG_CUDA) ok = stencil_cuda_supported(s->r, s->kind == STAR);
    if (v->rung == RUNG_CUDA_H2) ok = stencil_h2_supported(s->r, s->kind == STAR);
    if (v->rung == RUNG_DENSE || v->rung == RUNG_SPARSE) ok = stencil_tc_supported(s->r);
    if (!ok) snprintf(why, n, "skipped: no kernel built for radius %d", s->r);
    return ok;
}

static int cudnn_ok;
static char cudnn_why[160];

/* The samples a problem's variants are checked against: one per error model. The models differ
 * per variant (gamma), so each variant gets the sample of its own model; building the reference
 * once per model and problem keeps --test and --bench fast. */
typedef struct {
    st_err_model m;
    st_sample s;
    int used;
} model_sample;

enum { MAX_MODELS = 2 * N_VARIANTS };

static const st_sample *sample_for(model_sample *cache, int *n_cache, const st_problem *p,
                                   const st_err_model *m, uint64_t seed)
{
    for (int i = 0; i < *n_cache; i++)
        if (memcmp(&cache[i].m, m, sizeof *m) == 0) return &cache[i].s;
    tc_rng rng;
    tc_rng_seed(&rng, seed ^ 0x5A5A5A5Aull); /* the same cells for every model */
    model_sample *ms = &cache[(*n_cache)++];
    ms->m = *m;
    ms->s = make_sample(p->w, p->sh->r, p->NY, p->NX, p->g0, p->T, m, shape_taps(p->sh), &rng);
    return &ms->s;
}

/* Runs variant v on problem p: upload, T steps from the poisoned start, check against the sample,
 * and (reps > 0) time T steps. fuse: a fused rung's F (steps per pass), or 0 for F chosen by the
 * radius (st_fuse_default); grid: rung f's resident blocks, or 0 for as many as fit; the other
 * rungs ignore them. */
static void run_variant(const st_variant *v, const st_problem *p, model_sample *cache, int *n_cache,
                        uint64_t seed, int warmup, int reps, int fuse, int grid, st_result *res)
{
    memset(res, 0, sizeof *res);
    const int NY = (int)p->NY, NX = (int)p->NX, r = p->sh->r;
    run_ctx c;
    memset(&c, 0, sizeof c);
    c.v = v, c.p = p, c.NY = NY, c.NX = NX;
    c.fuse = !v->fused ? 1 : fuse > 0 ? fuse : st_fuse_default(r);
    res->fuse = c.fuse;
    /* cuDNN takes packed NCHW; the kernels want 16-byte aligned rows */
    c.ld = v->rung == RUNG_CUDNN ? NX : (NX + 7) / 8 * 8;
    const long guard = guard_cells(c.ld);
    const size_t cells = (size_t)NY * c.ld + (size_t)guard, bytes = cells * 2;
    uint16_t *h_init = (uint16_t *)tc_xmalloc(bytes), *h_start = (uint16_t *)tc_xmalloc(bytes);
    make_start(p, c.ld, guard, h_init, h_start);
    TC_CUDA_CHECK(cudaMalloc(&c.d_init, bytes));
    TC_CUDA_CHECK(cudaMalloc(&c.d_p, bytes));
    TC_CUDA_CHECK(cudaMalloc(&c.d_q, bytes));
    TC_CUDA_CHECK(cudaMemcpy(c.d_init, h_init, bytes, cudaMemcpyHostToDevice));

    if (v->rung == RUNG_CUDNN) {
        c.cudnn = st_cudnn_create(NY, NX, r, p->w16, c.d_init, c.d_p, res->why, sizeof res->why);
        if (c.cudnn) {
            snprintf(res->used, sizeof res->used, "%s", st_cudnn_used(c.cudnn));
            res->transform = st_cudnn_transform(c.cudnn);
        }
    } else if (v->rung == RUNG_CUDA) {
        for (int i = 0; i < (2 * r + 1) * (2 * r + 1); i++) c.wf.w[i] = (float)p->w[i];
        snprintf(res->used, sizeof res->used, "FFMA, %s taps",
                 p->sh->kind == STAR ? "star" : "box");
    } else if (v->rung == RUNG_CUDA_H2) {
        for (int i = 0; i < (2 * r + 1) * (2 * r + 1); i++)
            c.wh.w[i] = (uint32_t)p->w16[i] | (uint32_t)p->w16[i] << 16;
        snprintf(res->used, sizeof res->used, "HFMA2, %s taps, F=%d",
                 p->sh->kind == STAR ? "star" : "box", c.fuse);
    } else if (v->hooks) { /* rungs e to h (f and h: a resident grid, forced or not) */
        const int sparse = v->rung == RUNG_SPARSE;
        const char *why = NULL;
        const cudaError_t e =
            v->hooks->prepare(sparse, v->f16acc, r, p->w16, c.d_init, c.d_p, c.d_q, NY, NX, c.ld,
                              c.fuse, grid, &c.fused_hook, &why);
        if (e == cudaErrorNotSupported)
            snprintf(res->why, sizeof res->why, "skipped: %s", why ? why : "not supported");
        else
            TC_CUDA_CHECK(e);
        snprintf(res->used, sizeof res->used, "%s, F=%d, %d regs%s",
                 sparse ? "HMMA.SP m16n8k32" : "HMMA m16n8k16", c.fuse,
                 v->hooks->registers(sparse, v->f16acc, r),
                 grid && v->hooks->walks_tiles ? ", resident grid forced" : "");
    } else {
        /* the plain launcher (stencil_tc.cuh) packs the bands of the f16 weights and checks */
        const int sparse = v->rung == RUNG_SPARSE;
        const char *why = NULL;
        const cudaError_t e = stencil_tc_hook_prepare(sparse, v->f16acc, r, p->w16, c.d_init, c.d_p,
                                                      c.d_q, NY, NX, c.ld, &c.tc_hook, &why);
        if (e == cudaErrorNotSupported)
            snprintf(res->why, sizeof res->why, "skipped: %s", why ? why : "not supported");
        else
            TC_CUDA_CHECK(e);
        snprintf(res->used, sizeof res->used, "%s, %d regs",
                 sparse ? "HMMA.SP m16n8k32" : "HMMA m16n8k16",
                 stencil_tc_registers(sparse, v->f16acc, r));
    }

    const int tc = v->rung == RUNG_DENSE || v->rung == RUNG_SPARSE;
    if ((v->rung != RUNG_CUDNN || c.cudnn) &&
        (!tc || c.tc_hook || c.fused_hook)) {
        /* after cuDNN's measured search, which writes d_p */
        TC_CUDA_CHECK(cudaMemcpy(c.d_p, h_start, bytes, cudaMemcpyHostToDevice));
        TC_CUDA_CHECK(cudaMemcpy(c.d_q, h_start, bytes, cudaMemcpyHostToDevice));
        cudaStream_t stream;
        TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
        tc_poison_shared_memory(stream); /* a halo read before it is loaded shows */
        launch_steps(&c, stream);
        TC_CUDA_CHECK(cudaStreamSynchronize(stream));
        uint16_t *got = (uint16_t *)tc_xmalloc((size_t)NY * NX * 2);
        /* the one-step rungs end in p after an odd number of steps, the fused ones after an odd
         * number of passes (st_fuse_result with F = 1 is the former) */
        const int where =
            c.fused_hook ? v->hooks->result(c.fused_hook, p->T) : st_fuse_result(p->T, c.fuse);
        const void *result = where == 1 ? c.d_p : where == 2 ? c.d_q : c.d_init;
        TC_CUDA_CHECK(cudaMemcpy2D(got, (size_t)NX * 2, result, (size_t)c.ld * 2, (size_t)NX * 2,
                                   (size_t)NY, cudaMemcpyDeviceToHost));
        /* both ping-pong buffers, whole: nothing outside the grid may have changed */
        uint16_t *whole = (uint16_t *)tc_xmalloc(bytes);
        long outside = 0;
        for (int b = 0; b < 2; b++) {
            TC_CUDA_CHECK(cudaMemcpy(whole, b ? c.d_q : c.d_p, bytes, cudaMemcpyDeviceToHost));
            outside += st_count_outside(whole, h_start, NY, NX, c.ld, guard);
        }
        free(whole);
        /* the sample of this variant's error model (cuDNN's depends on the algorithm it chose) */
        const st_err_model m = err_model(v, p->sh, res->transform);
        const st_sample *s = sample_for(cache, n_cache, p, &m, seed);
        res->check = check_cells(got, NX, s, p->integer && !res->transform);
        res->check.outside = outside;
        res->check.pass &= outside == 0;
        res->pass = res->check.pass;
        res->ran = 1;
        free(got);
        if (reps > 0) {
            res->timing = tc_time_gpu(launch_steps, &c, stream, warmup, reps);
            res->rate = (double)NY * NX * p->T / (res->timing.ms_median * 1e-3) / 1e9;
        }
        TC_CUDA_CHECK(cudaStreamDestroy(stream));
    }
    st_cudnn_destroy(c.cudnn);
    TC_CUDA_CHECK(cudaFree(c.d_init));
    TC_CUDA_CHECK(cudaFree(c.d_p));
    TC_CUDA_CHECK(cudaFree(c.d_q));
    stencil_tc_hook_release(c.tc_hook);
    if (v->hooks) v->hooks->release(c.fused_hook);
    free(h_init), free(h_start);
}

static void run_checked(const st_variant *v, const st_problem *p, model_sample *cache, int *n_cache,
                        uint64_t seed, int warmup, int reps, int fuse, int grid, st_result *res)
{
    char why[200];
    if (!variant_supported(v, p->sh, why, sizeof why)) {
        memset(res, 0, sizeof *res);
        snprintf(res->why, sizeof res->why, "%s", why);
        return;
    }
    if (v->rung == RUNG_CUDNN && !cudnn_ok) {
        memset(res, 0, sizeof *res);
        snprintf(res->why, sizeof res->why, "skipped: %s", cudnn_why);
        return;
    }
    run_variant(v, p, cache, n_cache, seed, warmup, reps, fuse, grid, res);
}

static void free_cache(model_sample *cache, int n)
{
    for (int i = 0; i < n; i++) sample_free(&cache[i].s);
}

/* ---- the copy bandwidth: the bound every row is measured against --------------------------------
 */
typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
} copy_ctx;

static void copy_run(void *ctx, cudaStream_t stream)
{
    const copy_ctx *c = (const copy_ctx *)ctx;
    TC_CUDA_CHECK(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, stream));
}

/* GB/s of a device-to-device copy of one grid (bytes read + written) */
static double copy_bandwidth(long NY, long NX, int warmup, int reps)
{
    copy_ctx c;
    c.bytes = (size_t)NY * (size_t)((NX + 7) / 8 * 8) * 2;
    TC_CUDA_CHECK(cudaMalloc(&c.dst, c.bytes));
    TC_CUDA_CHECK(cudaMalloc((void **)&c.src, c.bytes));
    TC_CUDA_CHECK(cudaMemset((void *)c.src, 0x3C, c.bytes));
    cudaStream_t stream;
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
    const tc_timing t = tc_time_gpu(copy_run, &c, stream, warmup, reps);
    TC_CUDA_CHECK(cudaStreamDestroy(stream));
    TC_CUDA_CHECK(cudaFree(c.dst));
    TC_CUDA_CHECK(cudaFree((void *)c.src));
    return 2.0 * (double)c.bytes / (t.ms_median * 1e-3) / 1e9;
}

/* ---- command line -------------------------------------------------------------------------------
 */
enum { FLAG_GRID, FLAG_STEPS, FLAG_SHAPE, FLAG_FUSE, FLAG_RESIDENT };
static const tc_cli_flag flags[] = {
    [FLAG_GRID] = {.name = "--grid",
                   .metavar = "NYxNX",
                   .help = "grid rows x columns, each 1..65536 (default 10240x10240)"},
    [FLAG_STEPS] = {.name = "--steps", .metavar = "T", .help = "time steps, 1..10000 (default 10)"},
    [FLAG_SHAPE] = {.name = "--shape",
                    .metavar = "NAME|all",
                    .help = "a shape of the table (see --list) or all (default Box-2D49P)"},
    [FLAG_FUSE] = {.name = "--fuse",
                   .metavar = "F",
                   .help = "steps per pass of the _fused, _pipe, _stmatrix and _stmatrix_pipe "
                           "rungs, 1..4 (default: by the radius)"},
    [FLAG_RESIDENT] = {.name = "--resident",
                       .metavar = "N",
                       .help = "plain runs: the resident blocks of the _pipe and _stmatrix_pipe "
                               "rungs, 1..1048576 (default: as many as fit on the GPU)"},
};
enum {
    MAX_DIM = 65536,
    MAX_STEPS = 10000,
    DEFAULT_GRID = 10240,
    DEFAULT_STEPS = 10,
    MAX_RESIDENT = 1 << 20
};

/* What check_args makes of the flags, for the modes: the grid, the steps, shapes first..last */
static struct {
    long NY, NX;
    int T, first, last;
    int fuse;     /* the fused rungs' F, 0: chosen by the radius */
    int resident; /* the persistent rungs' grid (plain runs), 0: as many blocks as fit */
} opts = {.NY = DEFAULT_GRID,
          .NX = DEFAULT_GRID,
          .T = DEFAULT_STEPS,
          .first = DEFAULT_SHAPE,
          .last = DEFAULT_SHAPE};
#define MAX_CELLS 1073741824.0 /* 2^30 cells: three f16 grids are 6 GiB */

static void parse_grid(const char *text, long *NY, long *NX)
{
    long v[2];
    const char *p = text;
    for (int i = 0; i < 2; i++) {
        char *end = NULL;
        if (*p < '0' || *p > '9') goto bad;
        v[i] = strtol(p, &end, 10);
        if (end == p || v[i] < 1 || v[i] > MAX_DIM) goto bad;
        p = end;
        if (i == 0) {
            if (*p != 'x' && *p != 'X') goto bad;
            p++;
        }
    }
    if (*p != '\0') goto bad;
    if ((double)v[0] * (double)v[1] > MAX_CELLS)
        tc_usage_error(PROGRAM, "bad --grid '%s': at most 2^30 cells", text);
    *NY = v[0], *NX = v[1];
    return;
bad:
    tc_usage_error(PROGRAM,
                   "bad --grid '%s': expected NYxNX with integers in 1..%d, e.g. 10240x10240", text,
                   MAX_DIM);
}

static int find_shape(const char *name)
{
    for (int i = 0; i < N_SHAPES; i++) {
        const char *a = name, *b = shapes[i].name;
        while (*a && *b && (*a | 32) == (*b | 32)) a++, b++;
        if (!*a && !*b) return i;
    }
    return -1;
}

static void print_list(void)
{
    printf("%s - 2D stencils on cuDNN, CUDA cores, dense and 2:4-sparse tensor cores\n\n", PROGRAM);
    int wv = 7; /* the widest name, at least the header's */
    for (int i = 0; i < N_VARIANTS; i++) {
        const int lv = (int)strlen(variants[i].name);
        wv = lv > wv ? lv : wv;
    }
    printf("%-*s %-9s %-6s %-9s %s\n", wv, "variant", "precision", "min_sm", "sizes",
           "description");
    for (int i = 0; i < N_VARIANTS; i++) {
        const fused_rung *h = variants[i].hooks;
        printf("%-*s %-9s sm_%-3d %-9s %s%s", wv, variants[i].name, variants[i].precision,
               variants[i].min_cc, variants[i].sizes, variants[i].description,
               i == BASE              ? " [baseline]"
               : i == DEFAULT_VARIANT ? " [default]"
                                      : "");
        /* the choices --test forces on every case, besides the one the launcher makes */
        if (variants[i].fused)
            printf(" (--test forces: F = 1..%d%s)", ST_FUSE_MAX,
                   h && h->walks_tiles ? ", on 1, 3 or 13 resident blocks" : "");
        printf("\n");
    }
    printf("\nshapes (--shape):\n");
    for (int i = 0; i < N_SHAPES; i++)
        printf("  %-11s %s, radius %d, %d taps%s\n", shapes[i].name,
               shapes[i].kind == BOX ? "box " : "star", shapes[i].r, shape_taps(&shapes[i]),
               i == DEFAULT_SHAPE ? " [default]" : "");
    printf("\nGStencil/s = grid points x steps / s. Bandwidth bound: 4 bytes per point update (one "
           "f16 read, one written)\nat the device-to-device copy bandwidth measured in the same "
           "run.\n");
    printf("\nThe _fused, _pipe, _stmatrix and _stmatrix_pipe rungs' tile plans (PART2.md; the "
           "tensor-core and half2 tiles "
           "are the same):"
           " F steps per pass,\nby the radius (*) or --fuse F; per block a halo of x columns and y "
           "rows, the output region, the cells\ncomputed per cell stored (redundancy), DRAM bytes "
           "per point update if every tile is read once,\nand the box's arithmetic intensity at "
           "4 / F bytes per point update (flop/byte):\n");
    printf("  %-6s %-3s %-8s %-8s %10s %12s %8s\n", "radius", "F", "halo x/y", "output",
           "redundancy", "bytes/update", "AI box");
    const int radii[] = {1, 2, 3, 7};
    for (int k = 0; k < 4; k++)
        for (int f = 1; f <= ST_FUSE_MAX; f++) {
            const int r = radii[k], d = 2 * r + 1;
            st_fuse_plan plan;
            char fcol[8], halo[16], out[16];
            if (stencil_fused_plan_for(r, f, 10240, 10240, &plan) != 0) continue;
            snprintf(fcol, sizeof fcol, "%d%s", f, f == st_fuse_default(r) ? "*" : "");
            snprintf(halo, sizeof halo, "%d/%d", plan.halo_x, plan.halo_y);
            snprintf(out, sizeof out, "%dx%d", plan.out_x, plan.out_y);
            printf("  %-6d %-3s %-8s %-8s %10.3f %12.2f %8.1f\n", r, fcol, halo, out,
                   st_fuse_redundancy(stencil_fused_compute_x(r), stencil_fused_compute_y(r), &plan),
                   st_fuse_bytes(stencil_fused_compute_x(r), stencil_fused_compute_y(r), r, &plan),
                   st_fuse_intensity(d * d, f));
        }
}

/* ---- the timed table (default mode and --bench) ---------------------------------------------- */
/* The roofline columns (PART2.md): F, the steps per pass (1 for the one-step rungs); AI, the
 * arithmetic intensity of the stencil at F, 2 flop per tap over 4 / F bytes per point update
 * (st_fuse_intensity); %bnd(F), the rate over the bandwidth bound at F, F times the copy bound. */
static void print_header(FILE *f)
{
    fprintf(f, "%-16s %-40s %9s %10s %7s %2s %6s %8s %8s %9s %s\n", "variant", "used", "ms(med)",
            "GStencil/s", "%copy", "F", "AI", "%bnd(F)", "vs cudnn", "max err", "check");
}

static void print_row(FILE *f, const st_variant *v, const st_result *r, int taps, double base_rate,
                      double bound_rate)
{
    if (!r->ran) {
        fprintf(f, "%-16s %s\n", v->name, r->why);
        return;
    }
    char vs[16] = "-";
    if (base_rate > 0) snprintf(vs, sizeof vs, "%.2fx", r->rate / base_rate);
    const int fuse = r->fuse > 0 ? r->fuse : 1;
    fprintf(f, "%-16s %-40s %9.3f %10.1f %6.1f%% %2d %6.1f %7.1f%% %8s %9.2e %s\n", v->name,
            r->used, r->timing.ms_median, r->rate, 100 * r->rate / bound_rate, fuse,
            st_fuse_intensity(taps, fuse), 100 * r->rate / (fuse * bound_rate), vs,
            r->check.max_abs, r->pass ? "PASS" : "FAIL");
    if (!r->pass) {
        fprintf(f, "    ");
        check_print(&r->check, f);
    }
}

/* the baseline always; the default variant without --variant; --bench: every rung (CONTRIBUTING.md:
 * the bench reports all shapes for every rung) */
static int selected(const tc_args *a, int i)
{
    return i == BASE || (!a->variant && (i == DEFAULT_VARIANT || a->mode == TC_MODE_BENCH)) ||
           (a->variant &&
            (strcmp(a->variant, "all") == 0 || strcmp(a->variant, variants[i].name) == 0));
}

static int run_timed(const tc_args *a, const tc_device_info *dev, int first, int last, long NY,
                     long NX, int T, FILE *out, FILE *csv)
{
    int failed = 0;
    const double bw = copy_bandwidth(NY, NX, a->warmup, a->reps), bound = bw / 4.0;
    fprintf(out,
            "copy      : %.0f GB/s device to device (read + write) -> bandwidth bound %.1f "
            "GStencil/s at 4 bytes per point update\n",
            bw, bound);
    char size[24];
    snprintf(size, sizeof size, "%ldx%ld", NY, NX);
    if (csv) {
        tc_bench_row row;
        memset(&row, 0, sizeof row);
        row.chapter = PROGRAM, row.variant = "copy_bound", row.problem = "stencil";
        row.precision = "f16", row.rate = bound, row.unit = "GStencil/s";
        snprintf(row.size, sizeof row.size, "%s", size);
        row.baseline = "copy_bound", row.pct_of_baseline = 100.0, row.verified = -1;
        tc_bench_csv_write(csv, &row, dev);
    }
    /* the bandwidth bound of the fused rungs' F (PART2.md): F point updates per 4 bytes, F times
     * the copy bound; a row per F > 1 that the selected shapes run (copy_bound_f2, ...) */
    int f_used[ST_FUSE_MAX + 1] = {0};
    for (int si = first; si <= last; si++)
        f_used[opts.fuse > 0 ? opts.fuse : st_fuse_default(shapes[si].r)] = 1;
    for (int f = 2; f <= ST_FUSE_MAX; f++) {
        if (!f_used[f]) continue;
        fprintf(out, "bound F=%d : %.1f GStencil/s at 4 / %d bytes per point update\n", f, f * bound,
                f);
        if (!csv) continue;
        tc_bench_row row;
        char name[24];
        snprintf(name, sizeof name, "copy_bound_f%d", f);
        memset(&row, 0, sizeof row);
        row.chapter = PROGRAM, row.variant = name, row.problem = "stencil";
        row.precision = "f16", row.rate = f * bound, row.unit = "GStencil/s";
        snprintf(row.size, sizeof row.size, "%s", size);
        row.baseline = "copy_bound", row.pct_of_baseline = 100.0 * f, row.verified = -1;
        tc_bench_csv_write(csv, &row, dev);
    }
    /* --bench: the rates of the two tensor-core instructions, and from them what each shape's
     * tensor-core rungs could reach if nothing but the tensor cores limited them */
    st_rates rates;
    memset(&rates, 0, sizeof rates);
    if (csv) {
        st_rates_measure(out, dev, a->warmup, a->reps, &rates);
        failed += !rates.exact;
        for (int sparse = 0; sparse <= 1; sparse++) {
            const st_rate *q = sparse ? &rates.sparse : &rates.dense;
            tc_bench_row row;
            memset(&row, 0, sizeof row);
            row.chapter = PROGRAM, row.problem = "tensor-core rate", row.precision = "f16f32";
            row.variant = sparse ? "mma_sp_k32_rate" : "mma_k16_rate";
            snprintf(row.size, sizeof row.size, "%dchains_%dwarps", q->chains, q->warps_per_sm);
            row.ms_median = q->t.ms_median, row.ms_min = q->t.ms_min;
            row.rate = q->tflops, row.unit = "TFLOP/s", row.baseline = "mma_k16_rate";
            row.pct_of_baseline = rates.dense.tflops > 0 ? 100 * q->tflops / rates.dense.tflops : 0;
            row.verified = rates.exact;
            tc_bench_csv_write(csv, &row, dev);
        }
        /* TC_BENCH_RATES_ONLY: the bandwidth and the rates (and their prmt mix) alone, about 20 s
         * instead of the stencil rows' minutes, for a profiler or a short device session */
        if (getenv("TC_BENCH_RATES_ONLY")) {
            fprintf(out, "\nTC_BENCH_RATES_ONLY is set: no stencil rows\n");
            return failed;
        }
    }
    for (int si = first; si <= last; si++) {
        const st_shape *sh = &shapes[si];
        st_problem p;
        problem_make(&p, sh, NY, NX, T, 0, a->seed + (uint64_t)si);
        model_sample cache[MAX_MODELS];
        int n_cache = 0;
        fprintf(out, "\n%s (radius %d, %d taps) on %ldx%ld, %d steps\n", sh->name, sh->r,
                shape_taps(sh), NY, NX, T);
        if (rates.dense.tflops > 0) /* 2 (2r + 1) m16n8k16 = 2r + 1 m16n8k32 per 128 points */
            fprintf(out,
                    "tensor-core bound: %.1f GStencil/s dense, %.1f sparse (%d flop per point at "
                    "the rates above)\n",
                    rates.dense.tflops * 1e3 / (64.0 * (2 * sh->r + 1)),
                    rates.sparse.tflops * 1e3 / (64.0 * (2 * sh->r + 1)), 64 * (2 * sh->r + 1));
        print_header(out);
        st_result res[N_VARIANTS];
        for (int i = 0; i < N_VARIANTS; i++) {
            if (!selected(a, i)) continue;
            if (variants[i].min_cc > dev->cc) {
                memset(&res[i], 0, sizeof res[i]);
                snprintf(res[i].why, sizeof res[i].why, "skipped: needs sm_%d", variants[i].min_cc);
            } else {
                run_checked(&variants[i], &p, cache, &n_cache, a->seed, a->warmup, a->reps,
                            opts.fuse, opts.resident, &res[i]);
                failed += res[i].ran && !res[i].pass;
            }
            const double base_rate = res[BASE].ran ? res[BASE].rate : 0;
            print_row(out, &variants[i], &res[i], shape_taps(sh), i == BASE ? 0 : base_rate,
                      bound);
            fflush(out);
            if (csv && res[i].ran) {
                tc_bench_row row;
                memset(&row, 0, sizeof row);
                row.chapter = PROGRAM, row.variant = variants[i].name, row.problem = "stencil";
                row.precision = variants[i].precision;
                snprintf(row.size, sizeof row.size, "%s %s T%d", sh->name, size, T);
                row.ms_median = res[i].timing.ms_median, row.ms_min = res[i].timing.ms_min;
                row.rate = res[i].rate, row.unit = "GStencil/s";
                row.baseline = variants[BASE].name;
                row.pct_of_baseline = base_rate > 0 ? 100 * res[i].rate / base_rate : 0;
                row.verified = res[i].pass;
                /* a NaN cell fails the check above; the error column covers the others */
                row.has_rel_err = res[i].check.checked > 0 && res[i].check.sum_ref2 > 0;
                row.rel_err = row.has_rel_err
                                  ? sqrt(res[i].check.sum_err2 / res[i].check.sum_ref2)
                                  : 0;
                tc_bench_csv_write(csv, &row, dev);
            }
        }
        free_cache(cache, n_cache);
        free(p.g0);
    }
    fprintf(out, "\n%%copy: rate x 4 bytes / copy bandwidth; max err: largest |gpu - ref| of the "
                 "checked cells, ref = the same steps in double, rounded to f16 after each\n");
    return failed;
}

/* ---- --test ---------------------------------------------------------------------------------- */
typedef struct {
    long NY, NX;
    int T;
} test_grid;
/* small, odd and non-multiple sizes; the first N_SMALL_GRIDS are what `make sanitize` runs */
static const test_grid test_grids[] = {
    {.NY = 1, .NX = 1, .T = 2},    {.NY = 5, .NX = 7, .T = 3},     {.NY = 17, .NX = 33, .T = 3},
    {.NY = 64, .NX = 200, .T = 2}, {.NY = 135, .NX = 259, .T = 2}, {.NY = 129, .NX = 77, .T = 5},
    {.NY = 1000, .NX = 1000, .T = 3}};
enum { N_TEST_GRIDS = sizeof test_grids / sizeof test_grids[0], N_SMALL_GRIDS = 5 };
/* 135 x 259: about the smallest grid on which every radius and F = 1 .. 4 has a fused block whose
 * region lies wholly inside (the write-back without a test per cell, rung g's stmatrix), so that
 * make sanitize and the exact-integer case reach that path too */
static const test_grid exact_grid = {.NY = 135, .NX = 259, .T = 1};
/* the fused rungs' own: at every F > 1 at least two full passes and a short last one, of 3, 2 and
 * 1 steps (11 = 4 + 4 + 3 = 3 + 3 + 3 + 2 = 2 + 2 + 2 + 2 + 2 + 1), and both result buffers: an
 * odd number of passes ends in p (F = 1: 11, F = 4: 3), an even one in q (F = 3: 4, F = 2: 6);
 * on a grid that is no multiple of any block's output region, more than one in each direction */
static const test_grid fused_grid = {.NY = 267, .NX = 301, .T = 11};

/* Every selected variant on problem p (fused_only: the fused rungs alone). A fused rung runs once
 * with F chosen by the radius and once more per F = 1 .. ST_FUSE_MAX, forced (CONTRIBUTING.md:
 * every run-time choice is forceable): every F meets every grid, whatever the radius picks. */
static void test_case(const tc_args *a, const tc_device_info *dev, const st_problem *p,
                      const char *label, int fused_only, int *passed, int *failed, int *skipped)
{
    model_sample cache[MAX_MODELS];
    int n_cache = 0;
    for (int i = 0; i < N_VARIANTS; i++) {
        if (a->variant && strcmp(a->variant, "all") != 0 && strcmp(a->variant, variants[i].name))
            continue;
        if (fused_only && !variants[i].fused) continue;
        for (int force = 0; force <= (variants[i].fused ? ST_FUSE_MAX : 0); force++) {
            char case_label[80];
            if (!variants[i].fused)
                snprintf(case_label, sizeof case_label, "%s", label);
            else if (force && variants[i].hooks && variants[i].hooks->walks_tiles)
                snprintf(case_label, sizeof case_label, "%s F%d g%d", label, force,
                         pipe_test_grid(force));
            else if (force)
                snprintf(case_label, sizeof case_label, "%s F%d", label, force);
            else /* F chosen by the radius */
                snprintf(case_label, sizeof case_label, "%s Fr", label);
            if (variants[i].min_cc > dev->cc) {
                printf("SKIP %-16s %-11s %-17s needs sm_%d\n", variants[i].name, p->sh->name,
                       case_label, variants[i].min_cc);
                (*skipped)++;
                continue;
            }
            st_result r;
            /* rungs f and h: F forced on 1, 3 or 13 resident blocks (pipe_test_grid), so that
             * blocks walk several tiles and load the next under the mma (their natural grid, F by
             * the radius, at force 0, may give every block one tile) */
            run_checked(&variants[i], p, cache, &n_cache, a->seed, 0, 0, force,
                        variants[i].hooks && variants[i].hooks->walks_tiles && force
                            ? pipe_test_grid(force)
                            : 0,
                        &r);
            if (!r.ran && strncmp(r.why, "skipped", 7) == 0) {
                printf("SKIP %-16s %-11s %-17s %s\n", variants[i].name, p->sh->name, case_label,
                       r.why);
                (*skipped)++;
                continue;
            }
            printf("%s %-16s %-11s %-17s ", r.pass ? "PASS" : "FAIL", variants[i].name,
                   p->sh->name, case_label);
            if (r.ran)
                check_print(&r.check, stdout);
            else
                printf("%s\n", r.why);
            fflush(stdout);
            *passed += r.pass;
            *failed += !r.pass;
        }
    }
    free_cache(cache, n_cache);
}

/* The error per step of f16 and f32 accumulation: the same problem for T = 1 .. GROWTH_STEPS, the
 * largest |gpu - ref| after each, next to the bound. */
enum { GROWTH_STEPS = 12 };
static void error_growth(const tc_args *a, const tc_device_info *dev, int si, int *passed,
                         int *failed)
{
    const int order[] = {1, 2, 3, 4,
                         5}; /* cuda_f32, dense_f32, dense_f16, sparse_f32, sparse_f16 */
    enum { N_ORDER = 5 };
    const long NY = 256, NX = 256;
    double err[N_ORDER][GROWTH_STEPS], bnd[N_ORDER][GROWTH_STEPS];
    int ok[N_ORDER];
    for (int k = 0; k < N_ORDER; k++) ok[k] = variants[order[k]].min_cc <= dev->cc;
    for (int t = 1; t <= GROWTH_STEPS; t++) {
        st_problem p;
        problem_make(&p, &shapes[si], NY, NX, t, 0, a->seed + 77);
        model_sample cache[MAX_MODELS];
        int n_cache = 0;
        for (int k = 0; k < N_ORDER; k++) {
            if (!ok[k]) continue;
            st_result r;
            run_checked(&variants[order[k]], &p, cache, &n_cache, a->seed, 0, 0, 0, 0, &r);
            err[k][t - 1] = r.check.max_abs;
            if (!r.pass) {
                ok[k] = 0;
                printf("FAIL error growth %s step %d: ", variants[order[k]].name, t);
                check_print(&r.check, stdout);
            }
            /* the largest bound of the grid under this variant's model, for the table */
            const st_err_model m = err_model(&variants[order[k]], p.sh, 0);
            bnd[k][t - 1] = 0;
            for (int c = 0; c < n_cache; c++)
                if (memcmp(&cache[c].m, &m, sizeof m) == 0)
                    for (long e = 0; e < cache[c].s.n; e++)
                        if (cache[c].s.bound[e] > bnd[k][t - 1])
                            bnd[k][t - 1] = cache[c].s.bound[e];
        }
        free_cache(cache, n_cache);
        free(p.g0);
    }
    printf("\nerror growth, %s on %ldx%ld, values |x| < 1 (f16 ulp at 0.5..1: 4.9e-4): largest "
           "|gpu - ref| after T steps (largest bound in brackets)\n",
           shapes[si].name, NY, NX);
    printf("%4s", "T");
    for (int k = 0; k < N_ORDER; k++) printf(" %22s", variants[order[k]].name);
    printf("\n");
    for (int t = 0; t < GROWTH_STEPS; t++) {
        printf("%4d", t + 1);
        for (int k = 0; k < N_ORDER; k++)
            if (variants[order[k]].min_cc <= dev->cc)
                printf("   %9.2e (%9.2e)", err[k][t], bnd[k][t]);
            else
                printf(" %22s", "-");
        printf("\n");
    }
    for (int k = 0; k < N_ORDER; k++) {
        if (variants[order[k]].min_cc > dev->cc) continue;
        printf("%s error growth %-10s every step within its bound\n", ok[k] ? "PASS" : "FAIL",
               variants[order[k]].name);
        *passed += ok[k];
        *failed += !ok[k];
    }
    printf("\n");
}

/* every grid --test runs: the exact-integer grid, the test grids, the fused rungs' own */
enum { N_ALL_GRIDS = N_TEST_GRIDS + 2 };
static int all_test_grids(const test_grid *grids[N_ALL_GRIDS])
{
    int n = 0;
    grids[n++] = &exact_grid;
    for (int gi = 0; gi < N_TEST_GRIDS; gi++) grids[n++] = &test_grids[gi];
    grids[n++] = &fused_grid;
    return n;
}

/* The fused kernels' shortcut, st_fuse_region_inside (a block's write-back without a test per
 * cell), against the rule it stands for: every cell of the block's compute region is one a step
 * updates (st_interior). Every block of every plan --test runs (radius, F = 1 .. ST_FUSE_MAX, every
 * grid), on the host: exact whatever the seed, where a wrong shortcut on the GPU only writes the
 * fixed rim in shared memory, an error the f16 tolerance may absorb. Both answers must occur. */
static void fused_region_check(int *passed, int *failed)
{
    static const int radii[] = {1, 2, 3, 7};
    const test_grid *grids[N_ALL_GRIDS];
    const int n_grids = all_test_grids(grids);
    long blocks = 0, inside = 0, wrong = 0;
    char first[200] = "";
    for (int ri = 0; ri < 4; ri++)
        for (int f = 1; f <= ST_FUSE_MAX; f++)
            for (int gi = 0; gi < n_grids; gi++) {
                const int r = radii[ri];
                const long NY = grids[gi]->NY, NX = grids[gi]->NX;
                st_fuse_plan p;
                if (stencil_fused_plan_for(r, f, NY, NX, &p) != 0) continue;
                const int cx = stencil_fused_compute_x(r), cy = stencil_fused_compute_y(r);
                for (int by = 0; by < p.blocks_y; by++)
                    for (int bx = 0; bx < p.blocks_x; bx++) {
                        /* the tile's first cell, as the kernel places it */
                        const long x_tile = (long)bx * p.out_x - p.halo_x;
                        const long y_tile = (long)by * p.out_y - (long)f * r;
                        int all = 1;
                        for (int rho = r; rho < r + cy && all; rho++)
                            for (int col = ST_FUSE_MARGIN; col < ST_FUSE_MARGIN + cx && all; col++)
                                all = st_interior(y_tile + rho, x_tile + col, NY, NX, r);
                        const int got = st_fuse_region_inside(y_tile, x_tile, cx, cy, r, NY, NX);
                        blocks++, inside += got;
                        if (got != all && wrong++ == 0)
                            snprintf(first, sizeof first,
                                     "r = %d, F = %d, %ldx%ld, block (%d, %d): shortcut %d, cells %d",
                                     r, f, NY, NX, by, bx, got, all);
                    }
            }
    const int ok = wrong == 0 && inside > 0 && inside < blocks;
    printf("%s fused_region_inside  %ld blocks, %ld inside: %s\n", ok ? "PASS" : "FAIL", blocks,
           inside,
           wrong ? first : ok ? "the shortcut agrees with every cell" : "one answer never occurs");
    *passed += ok;
    *failed += !ok;
}

/* Rung h decides its write-back per tile, and a block of it walks tiles inside and on the rim; a
 * kernel that decided by the block's first tile would fail only where a block starts inside and
 * later reaches the rim (mutant 156). This host check replays --test's forced walking grids
 * (pipe_test_grid, every test grid, every pass) and asks that such a block occur at every radius
 * of a box shape, so that a change of the grids or of the tile plans cannot hide that bug. */
static void walk_grid_check(int *passed, int *failed)
{
    static const int radii[] = {1, 2, 3, 7};
    const test_grid *grids[N_ALL_GRIDS];
    const int n_grids = all_test_grids(grids);
    int radii_reached = 0;
    char missing[64] = "";
    for (int ri = 0; ri < 4; ri++) {
        const int r = radii[ri], cx = stencil_fused_compute_x(r), cy = stencil_fused_compute_y(r);
        long found = 0;
        for (int f = 1; f <= ST_FUSE_MAX; f++)
            for (int gi = 0; gi < n_grids; gi++) {
                const long NY = grids[gi]->NY, NX = grids[gi]->NX;
                const int T = grids[gi]->T, resident = pipe_test_grid(f);
                for (int pass = 0; pass < st_fuse_passes(T, f); pass++) {
                    st_fuse_plan p;
                    if (stencil_fused_plan_for(r, st_fuse_pass_steps(T, f, pass), NY, NX, &p))
                        continue;
                    const long tiles = (long)p.blocks_x * p.blocks_y;
                    for (long b = 0; b < resident && b < tiles; b++) {
                        int first_inside = 0, later_rim = 0;
                        for (long t = b; t < tiles; t += resident) {
                            const long x_tile = t % p.blocks_x * p.out_x - p.halo_x;
                            const long y_tile = t / p.blocks_x * p.out_y - (long)p.fuse * r;
                            const int in = st_fuse_region_inside(y_tile, x_tile, cx, cy, r, NY, NX);
                            if (t == b)
                                first_inside = in;
                            else
                                later_rim |= !in;
                        }
                        found += first_inside && later_rim;
                    }
                }
            }
        if (found)
            radii_reached++;
        else if (!missing[0])
            snprintf(missing, sizeof missing, "none at r = %d", r);
    }
    /* found at F = 4 (13 blocks) alone: on 1000 x 1000 at r <= 3 (blocks 10-12), on 267 x 301 at
     * r = 2, 3 and 7 (NOTES.md, "Rung h") */
    const int ok = radii_reached == 4;
    printf("%s %-44s %d of 4 radii: %s\n", ok ? "PASS" : "FAIL",
           "walking grids start a block inside", radii_reached,
           ok ? "some block starts inside and later meets the rim" : missing);
    *passed += ok;
    *failed += !ok;
}

/* Every fused tensor-core row binds its own rung's hooks: rows of every fused rung compute the same
 * stencil, so a row bound to another rung's kernel would pass every case while testing the wrong
 * code. The rung is in the name: _fused (e), _pipe (f), _stmatrix (g), _stmatrix_pipe (h; the
 * longest suffix decides). On the host. */
static void fused_hooks_check(int *passed, int *failed)
{
    static const struct {
        const char *suffix;
        const fused_rung *hooks;
    } rungs[] = {{"_fused", &rung_e},
                 {"_pipe", &rung_f},
                 {"_stmatrix", &rung_g},
                 {"_stmatrix_pipe", &rung_h}};
    char first[160] = "";
    int rows = 0, wrong = 0;
    for (int i = 0; i < N_VARIANTS; i++) {
        const st_variant *v = &variants[i];
        if (v->rung != RUNG_DENSE && v->rung != RUNG_SPARSE) continue;
        const fused_rung *want = NULL;
        const size_t n = strlen(v->name);
        size_t matched = 0; /* the longest suffix decides: _stmatrix_pipe is rung h, not f */
        for (int k = 0; k < (int)(sizeof rungs / sizeof rungs[0]); k++) {
            const size_t m = strlen(rungs[k].suffix);
            if (n > m && m > matched && strcmp(v->name + n - m, rungs[k].suffix) == 0)
                want = rungs[k].hooks, matched = m;
        }
        rows += want != NULL;
        if (v->hooks != want || (want && !v->fused)) {
            if (!wrong++) snprintf(first, sizeof first, "%s is bound to the wrong hooks", v->name);
        }
    }
    const int ok = !wrong && rows == 8;
    printf("%s %-44s %d fused rows, %s\n", ok ? "PASS" : "FAIL",
           "fused rows bind their rung's hooks", rows,
           wrong ? first
           : ok  ? "each its own"
                 : "not the 8 rows of rungs e, f, g and h");
    *passed += ok;
    *failed += !ok;
}

static int run_tests(const tc_args *a, const tc_device_info *dev, int first, int last)
{
    int passed = 0, failed = 0, skipped = 0;
    const int small = getenv("TC_TEST_SMALL") != NULL;
    st_probes_run(&passed, &failed);
    fused_region_check(&passed, &failed);
    fused_hooks_check(&passed, &failed);
    walk_grid_check(&passed, &failed);
    for (int si = first; si <= last; si++) {
        const st_shape *sh = &shapes[si];
        char label[64];
        st_problem p;
        problem_make(&p, sh, exact_grid.NY, exact_grid.NX, exact_grid.T, 1,
                     a->seed * 1000003u + (uint64_t)si);
        snprintf(label, sizeof label, "%ldx%ld T%d int", exact_grid.NY, exact_grid.NX,
                 exact_grid.T);
        test_case(a, dev, &p, label, 0, &passed, &failed, &skipped);
        free(p.g0);
        for (int gi = 0; gi < (small ? N_SMALL_GRIDS : N_TEST_GRIDS); gi++) {
            const test_grid *g = &test_grids[gi];
            problem_make(&p, sh, g->NY, g->NX, g->T, 0,
                         a->seed * 1000003u + (uint64_t)(100 * si + gi));
            snprintf(label, sizeof label, "%ldx%ld T%d", g->NY, g->NX, g->T);
            test_case(a, dev, &p, label, 0, &passed, &failed, &skipped);
            free(p.g0);
        }
        if (!small) {
            problem_make(&p, sh, fused_grid.NY, fused_grid.NX, fused_grid.T, 0,
                         a->seed * 1000003u + (uint64_t)(100 * si + 99));
            snprintf(label, sizeof label, "%ldx%ld T%d", fused_grid.NY, fused_grid.NX,
                     fused_grid.T);
            test_case(a, dev, &p, label, 1, &passed, &failed, &skipped);
            free(p.g0);
        }
    }
    if (!small)
        error_growth(a, dev,
                     first <= DEFAULT_SHAPE && DEFAULT_SHAPE <= last ? DEFAULT_SHAPE : first,
                     &passed, &failed);
    return tc_test_finish(PROGRAM, passed, failed, skipped);
}

/* the chapter's flags, checked before any CUDA call */
static void check_args(const tc_args *a)
{
    const char *grid_text = a->flag_values[FLAG_GRID], *steps_text = a->flag_values[FLAG_STEPS],
               *shape_text = a->flag_values[FLAG_SHAPE], *fuse_text = a->flag_values[FLAG_FUSE],
               *resident_text = a->flag_values[FLAG_RESIDENT];
    if (a->mode == TC_MODE_TEST && (grid_text || steps_text))
        tc_usage_error(PROGRAM, "--test runs its own grids and steps; drop --grid/--steps");
    if (a->mode == TC_MODE_TEST && fuse_text)
        tc_usage_error(PROGRAM, "--test forces every steps per pass itself; drop --fuse");
    if (resident_text && a->mode != TC_MODE_DEFAULT)
        tc_usage_error(PROGRAM, "--resident is for plain runs (--test and --bench choose the "
                                "grid themselves); drop it");
    if (fuse_text) opts.fuse = (int)tc_parse_long(PROGRAM, "--fuse", fuse_text, 1, ST_FUSE_MAX);
    if (resident_text)
        opts.resident = (int)tc_parse_long(PROGRAM, "--resident", resident_text, 1, MAX_RESIDENT);
    if (grid_text) parse_grid(grid_text, &opts.NY, &opts.NX);
    if (steps_text) opts.T = (int)tc_parse_long(PROGRAM, "--steps", steps_text, 1, MAX_STEPS);
    if (a->mode == TC_MODE_TEST || a->mode == TC_MODE_BENCH)
        opts.first = 0, opts.last = N_SHAPES - 1;
    if (shape_text && strcmp(shape_text, "all") == 0) {
        opts.first = 0, opts.last = N_SHAPES - 1;
    } else if (shape_text) {
        opts.first = opts.last = find_shape(shape_text);
        if (opts.first < 0)
            tc_unknown_name(PROGRAM, "shape", shape_text, shapes, sizeof shapes[0], N_SHAPES);
    }
    if (a->mode != TC_MODE_TEST) { /* host memory: the grid, its download, start images, sample */
        const double need = 2.0 * opts.NY * opts.NX * 4 + 64.0 * (1 << 20);
        const double host = (double)tc_host_memory_bytes();
        if (host > 0 && need > host)
            tc_usage_error(
                PROGRAM,
                "bad --grid %ldx%ld: needs %.1f GiB of host memory, this machine has %.1f GiB",
                opts.NY, opts.NX, need / (1 << 30), host / (1 << 30));
    }
}

static void check_device(const tc_args *a, const tc_device_info *dev)
{
    if (a->mode == TC_MODE_TEST) return;
    const double bytes = 3.0 * opts.NY * ((opts.NX + 7) / 8 * 8) * 2 + (1 << 30);
    if (bytes > (double)dev->mem_free)
        tc_usage_error(
            PROGRAM, "bad --grid %ldx%ld: needs %.1f GiB of GPU memory, %s has %.1f GiB free",
            opts.NY, opts.NX, bytes / (1 << 30), dev->name, (double)dev->mem_free / (1 << 30));
}

static void init(const tc_args *a, const tc_device_info *dev, FILE *info)
{
    /* TC_SKIP_CUDNN: leave cuDNN unloaded, so that a profiler (ncu) need not load its thousands
     * of kernels to reach ours; the cudnn rung is then skipped */
    if (getenv("TC_SKIP_CUDNN")) {
        cudnn_ok = 0;
        snprintf(cudnn_why, sizeof cudnn_why, "TC_SKIP_CUDNN is set");
    } else {
        cudnn_ok = st_cudnn_init(cudnn_why, sizeof cudnn_why) == 0;
    }
    if (cudnn_ok)
        st_cudnn_print_version(info);
    else
        tc_info_line(info, "cuDNN", "%s (the cudnn rung is skipped)", cudnn_why);
}

static void fini(void) { st_cudnn_shutdown(); }

static int mode_test(const tc_args *a, const tc_device_info *dev)
{
    /* one variant this GPU cannot run: the whole run is a skip (exit 77), not a pass of the probes
     * and checks that run anyway (make mutants counts a pass as a missed mutant) */
    for (int i = 0; a->variant && i < N_VARIANTS; i++)
        if (strcmp(a->variant, variants[i].name) == 0 && variants[i].min_cc > dev->cc)
            tc_skip(PROGRAM, "%s needs sm_%d", variants[i].name, variants[i].min_cc);
    return run_tests(a, dev, opts.first, opts.last);
}

/* default mode and --bench: the timed table of every selected shape */
static int measure(const tc_args *a, const tc_device_info *dev, FILE *info, FILE *csv)
{
    fprintf(info,
            "problem   : %ldx%ld f16 grid, %d steps, seed %llu, median of %d runs after %d "
            "warm-up, L2 flushed before each\n",
            opts.NY, opts.NX, opts.T, (unsigned long long)a->seed, a->reps, a->warmup);
    const int failed =
        run_timed(a, dev, opts.first, opts.last, opts.NY, opts.NX, opts.T, info, csv);
    return failed ? TC_EXIT_WRONG : TC_EXIT_PASS;
}

int main(int argc, char **argv)
{
    static const tc_program program = {
        .cli = {.program = PROGRAM,
                .summary = "2D stencils on cuDNN, CUDA cores, dense and 2:4-sparse tensor cores",
                TC_VARIANT_TABLE(variants),
                .default_reps = 20,
                .default_warmup = 3,
                .flags = flags,
                .n_flags = TC_COUNT(flags)},
        .min_cc = 80,
        .list = print_list,
        .check_args = check_args,
        .check_device = check_device,
        .init = init,
        .test = mode_test,
        .measure = measure,
        .fini = fini,
    };
    return tc_program_main(argc, argv, &program);
}
