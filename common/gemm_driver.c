/* common/gemm_driver.c - see gemm_driver.h. */
#define _POSIX_C_SOURCE 200809L
#include "gemm_driver.h"

#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIM (1L << 20)
/* No GPU this repository targets has this much memory; a larger problem is refused even on a
 * machine without a GPU. */
#define MAX_DEVICE_BYTES (512.0 * (1 << 30))
/* Problems up to this many multiply-adds are checked element by element, larger ones on a
 * sample (CONTRIBUTING.md: full rows, full columns and at least 1024 random elements). */
#define FULL_CHECK_LIMIT 2147483648.0
#define SAMPLE_RANDOM    4096

/* How the operands sit in memory, per operand (A, B, C): ld_pad is added to the leading
 * dimension (3: rows no longer 16-byte aligned; 8: aligned, but ld != the row length), offset
 * moves the first element that many elements past cudaMalloc's (256-byte aligned) address. */
enum { OP_A, OP_B, OP_C, N_OPERANDS };
typedef struct {
    int ld_pad[N_OPERANDS], offset[N_OPERANDS];
} operand_layout;
// clang-format off
#define ALL3(x) {(x), (x), (x)}
// clang-format on

/* The --test matrix. Every case runs C = alpha*A*B + beta*C; `scale` picks (alpha, beta):
 * 0 = (1, 0), 1 = (0.75, -1.25) or for integers (2, -1) so that C is read back, 2 = (0.75, 0)
 * or (2, 0): alpha alone, C still poisoned and never to be read. Mixed layouts (one operand
 * aligned, another not) take the kernels' vector and scalar load paths in one launch. */
typedef struct {
    int M, N, K;
    int scale;
    operand_layout mem;
} test_case;
static const test_case test_cases[] = {
    {.M = 1, .N = 1, .K = 1},
    {.M = 17, .N = 33, .K = 65},
    {.M = 64, .N = 64, .K = 64},
    {.M = 100, .N = 37, .K = 513},
    {.M = 256, .N = 512, .K = 128},
    {.M = 17, .N = 33, .K = 65, .scale = 1},
    {.M = 100, .N = 37, .K = 513, .scale = 2},
    {.M = 40, .N = 72, .K = 40, .scale = 1},
    {.M = 100, .N = 40, .K = 520, .mem = {.ld_pad = ALL3(3)}},
    {.M = 64, .N = 64, .K = 64, .mem = {.ld_pad = ALL3(8)}},
    {.M = 64, .N = 64, .K = 64, .mem = {.ld_pad = ALL3(8), .offset = ALL3(8)}},
    {.M = 100, .N = 37, .K = 513, .mem = {.offset = ALL3(1)}},
    {.M = 17, .N = 33, .K = 65, .scale = 1, .mem = {.ld_pad = ALL3(3), .offset = ALL3(1)}},
    {.M = 64, .N = 64, .K = 64, .mem = {.offset = ALL3(1)}},
    {.M = 17, .N = 37, .K = 64, .scale = 1, .mem = {.ld_pad = ALL3(3)}},
    /* mixed: A aligned and B not, B aligned and A not, C alone unaligned, one pointer off */
    {.M = 64, .N = 64, .K = 64, .mem = {.ld_pad = {0, 3, 0}}},
    {.M = 96, .N = 80, .K = 136, .mem = {.ld_pad = {3, 0, 0}}},
    {.M = 64, .N = 72, .K = 64, .scale = 1, .mem = {.ld_pad = {0, 0, 3}}},
    {.M = 100, .N = 37, .K = 513, .mem = {.offset = {0, 1, 0}}},
    {.M = 48, .N = 40, .K = 72, .mem = {.ld_pad = {8, 0, 0}, .offset = {0, 0, 1}}},
    /* Tails and the vector rule: M, N and K in every residue modulo 8 (every 2-, 4- and 8-wide
     * store tail), each K residue once with rows 16-byte aligned although K is not a multiple
     * of 8 (ld padded up to one: a vector path that ignores the row's length reads the
     * poisoned padding) and once with rows that are not (ld = K, or an offset pointer). A
     * variant that needs K a multiple of 8 or 16 runs the second kind at K rounded up. */
    {.M = 129, .N = 58, .K = 65, .mem = {.ld_pad = {7, 7, 6}}},
    {.M = 50, .N = 51, .K = 66, .mem = {.ld_pad = {6, 6, 5}}},
    {.M = 74, .N = 83, .K = 66, .scale = 1},
    {.M = 43, .N = 46, .K = 67, .scale = 1, .mem = {.ld_pad = {5, 5, 2}}},
    {.M = 91, .N = 59, .K = 67, .mem = {.offset = ALL3(1)}},
    {.M = 60, .N = 60, .K = 68, .scale = 2, .mem = {.ld_pad = ALL3(4)}},
    {.M = 62, .N = 70, .K = 68},
    {.M = 45, .N = 44, .K = 69, .mem = {.ld_pad = {3, 3, 4}}},
    {.M = 77, .N = 85, .K = 69, .scale = 1, .mem = {.ld_pad = {0, 0, 3}}},
    {.M = 54, .N = 42, .K = 70, .scale = 1, .mem = {.ld_pad = {2, 2, 6}}},
    {.M = 47, .N = 63, .K = 70, .scale = 2},
    {.M = 55, .N = 57, .K = 71, .mem = {.ld_pad = {1, 1, 7}}},
    {.M = 86, .N = 55, .K = 71, .mem = {.offset = {0, 0, 2}}},
    /* a second 4-wide store tail (N % 4 == 3) on 16-byte aligned rows of C, beside 50x51x66 */
    {.M = 33, .N = 67, .K = 40, .mem = {.ld_pad = {0, 0, 1}}},
    /* whole aligned blocks of C with alpha != 1 (the unguarded and TMA-store epilogues) and
     * with beta != 0 (which those leave to the guarded one) */
    {.M = 256, .N = 512, .K = 128, .scale = 2},
    {.M = 192, .N = 264, .K = 136, .scale = 2, .mem = {.ld_pad = {0, 0, 8}}},
    {.M = 256, .N = 512, .K = 128, .scale = 1},
    {.M = 136, .N = 264, .K = 72, .scale = 1, .mem = {.ld_pad = ALL3(8)}},
    /* eight units of 256 x 128 of one k-tile each: a grid forced to one cluster walks them with
     * its ring as far ahead as it goes (fp8_v7's scale slots are reused at zero margin) */
    {.M = 256, .N = 1024, .K = 128},
    /* C alone 16 bytes off, A and B aligned: a TMA-store epilogue with a C the TMA still takes */
    {.M = 64, .N = 64, .K = 64, .mem = {.offset = {0, 0, 4}}},
    /* the cases above are the small ones (make sanitize runs them alone) */
    {.M = 1000, .N = 1000, .K = 1000},
    {.M = 4093, .N = 1021, .K = 2053},
    {.M = 1000, .N = 1000, .K = 1000, .scale = 1},
    {.M = 96, .N = 80, .K = 8195}, /* a long K: the accumulators' error grows with it */
    /* more units of work than an H200 has SMs or clusters (81 tiles of 256 x 256): a persistent
     * grid's last round is partial, which stream-K splits */
    {.M = 2304, .N = 2304, .K = 208},
};
static const int n_test_cases = (int)(sizeof test_cases / sizeof test_cases[0]);
#define N_SMALL_TEST_CASES 40

typedef struct {
    int ran, skipped, not_applicable, pass;
    char message[256];
    tc_check_result check;
    tc_timing timing;
    double rate; /* TFLOP/s or TOP/s, 0 when not timed */
    /* ||C - A32*B32||_F / ||A32*B32||_F on the sample, where A32, B32 are the f32 values the
     * inputs were rounded (or quantised) from: what the choice of format costs on f32 data. */
    double data_err;
    /* with vs_f32data (default table and --bench, not f64 rows) on skewed inputs, else
     * worst_row = -1: the largest ||C_i - (A32*B32)_i|| / ||(A32*B32)_i|| over
     * WORST_ROW_SAMPLE rows of C in full (every row when the check's sample is all of C) */
    double worst_row_err;
    long worst_row, worst_rows_read;
} case_result;

const char *tc_gemm_unsupported(const tc_gemm_variant *v, long M, long N, long K)
{
    static char msg[200];
    const char *dim[3] = {"M", "N", "K"};
    int mult[3] = {v->mult_m, v->mult_n, v->mult_k};
    long got[3] = {M, N, K};
    int ok = 1;
    for (int d = 0; d < 3; d++) ok &= mult[d] <= 1 || got[d] % mult[d] == 0;
    if (ok) return NULL;
    int len = snprintf(msg, sizeof msg, "variant %s needs", v->name);
    for (int d = 0, first = 1; d < 3; d++)
        if (mult[d] > 1) {
            len += snprintf(msg + len, sizeof msg - (size_t)len, "%s %s a multiple of %d",
                            first ? "" : ",", dim[d], mult[d]);
            first = 0;
        }
    snprintf(msg + len, sizeof msg - (size_t)len, " (got %ldx%ldx%ld)", M, N, K);
    return msg;
}

static long round_up(long x, int m) { return m > 1 ? (x + m - 1) / m * m : x; }

/* NULL if A, B and C of problem p meet the variant's declared alignment, else which does not */
static const char *misaligned(const tc_gemm_variant *v, const tc_gemm_problem *p)
{
    static char msg[160];
    const size_t in = tc_dtype_size(p->prec->in), out = tc_dtype_size(p->prec->out);
    const struct {
        const char *name;
        const void *ptr;
        long ld;
        size_t elem;
        tc_align need;
    } ops[] = {{"A", p->d_a, p->lda, in, v->align_ab},
               {"B", p->d_b, p->ldb, in, v->align_ab},
               {"C", p->d_c, p->ldc, out, v->align_c}};
    for (int i = 0; i < 3; i++) {
        const tc_align n = ops[i].need;
        if ((n.ptr > 1 && (uintptr_t)ops[i].ptr % (uintptr_t)n.ptr) ||
            (n.ld > 1 && (size_t)ops[i].ld * ops[i].elem % (size_t)n.ld)) {
            snprintf(msg, sizeof msg,
                     "%s needs %s at a multiple of %d bytes and its rows a multiple of %d bytes "
                     "(declared; see --list)",
                     v->name, ops[i].name, n.ptr, n.ld);
            return msg;
        }
    }
    return NULL;
}

static const char *rate_unit(const tc_precision *p)
{
    return tc_dtype_is_integer(p->in) ? "TOP/s" : "TFLOP/s";
}

/* ---- memory estimates ---------------------------------------------------------------------- */
static double device_bytes(const tc_gemm_variant *v, long M, long N, long K)
{
    const tc_precision *p = tc_precision_get(v->precision);
    return (double)tc_dtype_size(p->in) * ((double)M * K + (double)K * N) +
           (double)tc_dtype_size(p->out) * (double)M * N;
}

static double host_bytes(const tc_gemm_variant *v, long M, long N, long K)
{
    /* inputs and output as stored, the f32 data they were rounded from, the reference's float
     * copies, the reference values (at most one double per element of C) */
    /* (block-scaled rows: also the scaled values the reference reads, 4 bytes each) */
    const double per_input = v->scaling == TC_GEMM_SCALING_BLOCK128 ? 12.0 : 8.0;
    return device_bytes(v, M, N, K) + per_input * ((double)M * K + (double)K * N) +
           8.0 * (double)M * N;
}

/* ---- inputs -------------------------------------------------------------------------------- */
/* int8 data is the f32 data quantised with one scale: q = round(127 x), so x ~ q / 127. */
#define I8_SCALE 127.0f

_Static_assert(TC_WIDE_EXP_MIN == -8 && TC_WIDE_EXP_MAX == 8 && TC_SKEW_BLOCK == 128,
               "the ranges are spelled out in dist_descriptions and the --inputs help");
static const char *const dist_names[] = {"uniform", "wide", "skewed", "skewed_rows"};
static const char *const dist_descriptions[] = {
    "uniform in [-1, 1)", "wide: u * 2^e, u uniform in [-1, 1), e uniform in -8..8",
    "skewed: u * 2^e, u uniform in [-1, 1), one e uniform in -8..8 per 1x128 slice of A and "
    "per 128x128 block of B",
    "skewed_rows: u * 2^e, u uniform in [-1, 1), one e uniform in -8..8 per row of A; B uniform "
    "in [-1, 1)"};
_Static_assert(TC_COUNT(dist_names) == TC_INPUTS_SKEWED_ROWS + 1 &&
                   TC_COUNT(dist_descriptions) == TC_INPUTS_SKEWED_ROWS + 1,
               "a name and a description per distribution");
/* skewed and skewed_rows: one exponent per block of A (and of B for skewed) */
static int dist_is_skewed(tc_input_dist d)
{
    return d == TC_INPUTS_SKEWED || d == TC_INPUTS_SKEWED_ROWS;
}
/* how many rows of C the worst-row error reads in full (skewed inputs only) */
#define WORST_ROW_SAMPLE 64

/* With uniform inputs the draws are exactly those of earlier versions of this driver (one
 * tc_rng_uniform per element), so seeds keep meaning the same data. */
static float draw(tc_input_dist dist, tc_rng *rng)
{
    float x = tc_rng_uniform(rng, -1.0f, 1.0f);
    if (dist == TC_INPUTS_WIDE) x = ldexpf(x, tc_rng_int(rng, TC_WIDE_EXP_MIN, TC_WIDE_EXP_MAX));
    return x;
}

/* f64 data: 53 random bits, uniform in [-1, 1) (wide: times 2^e as for f32) */
static double draw64(tc_input_dist dist, tc_rng *rng)
{
    double x = ldexp((double)(tc_rng_next_u64(rng) >> 11), -52) - 1.0;
    if (dist == TC_INPUTS_WIDE) x = ldexp(x, tc_rng_int(rng, TC_WIDE_EXP_MIN, TC_WIDE_EXP_MAX));
    return x;
}

static long ceil_div(long x, long d) { return (x + d - 1) / d; }

/* skewed inputs: one exponent per block of skew_rows x skew_cols, drawn before the values */
static void fill_blocks(void *h, float *h32, const tc_precision *p, tc_input_dist dist, long rows,
                        long cols, tc_layout layout, long ld, int skew_rows, int skew_cols,
                        tc_rng *rng)
{
    tc_dtype t = p->in;
    long outer = layout == TC_ROW_MAJOR ? rows : cols, inner = layout == TC_ROW_MAJOR ? cols : rows;
    memset(h, tc_poison_byte(t), (size_t)outer * (size_t)ld * tc_dtype_size(t));
    if (h32) memset(h32, 0xFF, (size_t)outer * (size_t)ld * sizeof(float));
    const long block_cols = ceil_div(cols, skew_cols);
    int *exps = NULL;
    if (dist_is_skewed(dist)) {
        const long n = ceil_div(rows, skew_rows) * block_cols;
        exps = (int *)tc_xmalloc((size_t)n * sizeof *exps);
        for (long b = 0; b < n; b++) exps[b] = tc_rng_int(rng, TC_WIDE_EXP_MIN, TC_WIDE_EXP_MAX);
    }
    for (long o = 0; o < outer; o++)
        for (long i = 0; i < inner; i++) {
            const long r = layout == TC_ROW_MAJOR ? o : i, c = layout == TC_ROW_MAJOR ? i : o;
            const int e = exps ? exps[r / skew_rows * block_cols + c / skew_cols] : 0;
            const size_t idx = (size_t)(o * ld + i);
            if (t == TC_F64) { /* stored as drawn: there is no f32 original */
                const double x64 = ldexp(draw64(dist, rng), e);
                tc_store(h, t, idx, x64);
                if (h32) h32[idx] = (float)x64;
                continue;
            }
            float x = ldexpf(draw(dist, rng), e);
            float stored = p->in_round ? p->in_round(x) : x;
            tc_store(h, t, idx, tc_dtype_is_integer(t) ? stored * I8_SCALE : stored);
            if (h32) h32[idx] = x;
        }
    free(exps);
}

void tc_gemm_fill_matrix(void *h, float *h32, const tc_precision *p, tc_input_dist dist, long rows,
                         long cols, tc_layout layout, long ld, tc_rng *rng)
{
    fill_blocks(h, h32, p, dist, rows, cols, layout, ld, 1,
                dist == TC_INPUTS_SKEWED_ROWS ? (int)cols : TC_SKEW_BLOCK, rng);
}

void tc_gemm_fill_matrix_b(void *h, float *h32, const tc_precision *p, tc_input_dist dist,
                           long rows, long cols, tc_layout layout, long ld, tc_rng *rng)
{
    /* skewed_rows skews A alone: B is drawn uniform */
    fill_blocks(h, h32, p, dist == TC_INPUTS_SKEWED_ROWS ? TC_INPUTS_UNIFORM : dist, rows, cols,
                layout, ld, TC_SKEW_BLOCK, TC_SKEW_BLOCK, rng);
}

/* the largest finite value of an fp8 format */
static double fp8_max(tc_dtype t) { return t == TC_E5M2 ? 57344.0 : 448.0; }

void tc_gemm_block_quantize(void *h, float *deq, float *scales, const float *x32, tc_dtype t,
                            long rows, long cols, tc_layout layout, long ld, int block_rows,
                            int block_cols, long scale_rs, long scale_cs)
{
    const size_t rs = layout == TC_ROW_MAJOR ? (size_t)ld : 1,
                 cs = layout == TC_ROW_MAJOR ? 1 : (size_t)ld;
    for (long r0 = 0; r0 < rows; r0 += block_rows)
        for (long c0 = 0; c0 < cols; c0 += block_cols) {
            const long r1 = r0 + block_rows < rows ? r0 + block_rows : rows,
                       c1 = c0 + block_cols < cols ? c0 + block_cols : cols;
            double amax = 0;
            for (long r = r0; r < r1; r++)
                for (long c = c0; c < c1; c++) amax = fmax(amax, fabs(x32[r * rs + c * cs]));
            /* the smallest power of two s with amax / s <= the format's largest value */
            int e = 0;
            if (amax > 0) {
                (void)frexp(amax / fp8_max(t), &e); /* amax / max = f 2^e, f in [0.5, 1) */
                if (ldexp(1.0, e - 1) >= amax / fp8_max(t)) e--; /* an exact power of two */
            }
            const float s = amax > 0 ? ldexpf(1.0f, e) : 1.0f;
            scales[(r0 / block_rows) * scale_rs + (c0 / block_cols) * scale_cs] = s;
            for (long r = r0; r < r1; r++)
                for (long c = c0; c < c1; c++) {
                    const size_t idx = r * rs + c * cs;
                    tc_store(h, t, idx, (double)(x32[idx] / s)); /* x / s is exact */
                    if (deq) deq[idx] = (float)(tc_load(h, t, idx) * (double)s);
                }
        }
}

/* NULL if the variant can take inputs of this distribution, else why not. */
static const char *dist_unsupported(const tc_gemm_variant *v, tc_input_dist dist)
{
    const tc_dtype in = tc_precision_get(v->precision)->in;
    if (dist == TC_INPUTS_WIDE && in != TC_F32 && in != TC_F64)
        return "wide inputs are defined for f32 and f64 data only";
    if (dist_is_skewed(dist) && tc_dtype_is_integer(in))
        return "skewed inputs are defined for floating-point data only";
    return NULL;
}

static long leading_dim(tc_layout layout, long rows, long cols, int pad)
{
    return (layout == TC_ROW_MAJOR ? cols : rows) + pad;
}

static size_t matrix_elems(tc_layout layout, long rows, long cols, long ld)
{
    return (size_t)(layout == TC_ROW_MAJOR ? rows : cols) * (size_t)ld;
}

/* ---- guards around C ------------------------------------------------------------------------ */
size_t tc_gemm_guard_elems(long ldc, tc_dtype out)
{
    const size_t bytes = tc_dtype_size(out), min_elems = (TC_GEMM_GUARD_BYTES + bytes - 1) / bytes;
    return (size_t)ldc > min_elems ? (size_t)ldc : min_elems;
}

long tc_gemm_outside_writes(const void *all_c, tc_dtype out, size_t head, size_t nc, long ldc,
                            long inner_len, size_t tail)
{
    long outside = 0;
    for (size_t i = 0; i < head; i++) outside += !tc_is_poison(all_c, out, i);
    for (size_t idx = 0; idx < nc; idx++)
        if ((long)(idx % (size_t)ldc) >= inner_len && !tc_is_poison(all_c, out, head + idx))
            outside++;
    for (size_t i = 0; i < tail; i++) outside += !tc_is_poison(all_c, out, head + nc + i);
    return outside;
}

static void print_operand_mods(const char *what, const int mods[N_OPERANDS])
{
    if (mods[OP_A] == mods[OP_B] && mods[OP_B] == mods[OP_C]) {
        if (mods[OP_A]) printf("%s+%d ", what, mods[OP_A]);
        return;
    }
    printf("%s+(A%d,B%d,C%d) ", what, mods[OP_A], mods[OP_B], mods[OP_C]);
}

/* packed operands at cudaMalloc's addresses: the default and --bench layout */
static const operand_layout packed = {.ld_pad = ALL3(0), .offset = ALL3(0)};

/* ---- one case: inputs, poisoned output, launch, check, optionally time ---------------------- */
typedef struct {
    const tc_gemm_variant *v;
    tc_gemm_problem *p;
} launch_ctx;

static void launch_once(void *ctx, cudaStream_t stream)
{
    launch_ctx *c = (launch_ctx *)ctx;
    c->v->launch(c->v, c->p, stream);
    TC_LAUNCH_CHECK();
}

/* ---- the host side of a problem, kept for the next variant that needs the same one -----------
 * A bench size runs every variant of a chapter on the same seed: making 2 x 8192^2 random inputs
 * and the FP64 reference of the sample costs seconds of CPU per variant, more than the GPU's work.
 * One problem is kept: its inputs (by element type, host rounding, distribution, sizes, layouts
 * and seed), the generator's state after them, and, for alpha = 1 and beta = 0, the sample and
 * its references. A variant gets exactly what it would have made itself. */
typedef struct {
    int valid;
    tc_dtype in;
    float (*in_round)(float x);
    tc_input_dist dist;
    tc_gemm_scaling scaling;
    long M, N, K, lda, ldb;
    tc_layout a_layout, b_layout;
    uint64_t seed;
    void *h_a, *h_b;
    float *h_a32, *h_b32; /* NULL when not made */
    /* block-scaled rows: the scales (tc_gemm_problem's layout) and the values the product is of,
     * a sa and b sb, exact in f32 (the reference's inputs); NULL otherwise */
    float *h_sa, *h_sb, *h_a_deq, *h_b_deq;
    long ld_sa, ld_sb;
    tc_rng rng_after; /* the generator after the inputs */
    double s;         /* max|A| max|B| */
    /* plain scalars only: the sample drawn right after the inputs and its references */
    int have_ref, have_ref32;
    tc_sample sample;
    double *ref, *ref32;
} host_problem;

static host_problem kept;

static void host_problem_free(host_problem *h)
{
    free(h->h_a), free(h->h_b), free(h->h_a32), free(h->h_b32), free(h->ref), free(h->ref32);
    free(h->h_sa), free(h->h_sb), free(h->h_a_deq), free(h->h_b_deq);
    if (h->have_ref || h->have_ref32) tc_sample_free(&h->sample);
    memset(h, 0, sizeof *h);
}

/* The inputs of problem p of variant v from `seed` (with their f32 originals when with_h32):
 * the kept ones when they match, else made now (and kept). A block-scaled variant's inputs are
 * the same f32 data, quantised block by block. */
static host_problem *host_inputs(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                 tc_input_dist dist, uint64_t seed, int with_h32)
{
    const tc_precision *prec = p->prec;
    const int scaled = v->scaling == TC_GEMM_SCALING_BLOCK128;
    host_problem *h = &kept;
    if (scaled) with_h32 = 1; /* quantised from the f32 data */
    if (h->valid && h->in == prec->in && h->in_round == prec->in_round && h->dist == dist &&
        h->scaling == v->scaling && h->M == p->M && h->N == p->N && h->K == p->K &&
        h->lda == p->lda && h->ldb == p->ldb && h->a_layout == v->a_layout &&
        h->b_layout == v->b_layout && h->seed == seed && (!with_h32 || h->h_a32))
        return h;
    host_problem_free(h);
    h->valid = 1;
    h->in = prec->in, h->in_round = prec->in_round, h->dist = dist, h->seed = seed;
    h->scaling = v->scaling;
    h->M = p->M, h->N = p->N, h->K = p->K, h->lda = p->lda, h->ldb = p->ldb;
    h->a_layout = v->a_layout, h->b_layout = v->b_layout;
    const size_t na = matrix_elems(v->a_layout, p->M, p->K, p->lda),
                 nb = matrix_elems(v->b_layout, p->K, p->N, p->ldb), sa = tc_dtype_size(prec->in);
    h->h_a = tc_xmalloc(na * sa);
    h->h_b = tc_xmalloc(nb * sa);
    h->h_a32 = with_h32 ? (float *)tc_xmalloc(na * sizeof(float)) : NULL;
    h->h_b32 = with_h32 ? (float *)tc_xmalloc(nb * sizeof(float)) : NULL;
    tc_rng_seed(&h->rng_after, seed);
    tc_gemm_fill_matrix(h->h_a, h->h_a32, prec, dist, p->M, p->K, v->a_layout, p->lda,
                        &h->rng_after);
    tc_gemm_fill_matrix_b(h->h_b, h->h_b32, prec, dist, p->K, p->N, v->b_layout, p->ldb,
                          &h->rng_after);
    if (scaled) { /* the same f32 data, quantised with a scale per block */
        const long k_blocks = ceil_div(p->K, TC_GEMM_SCALE_BLOCK),
                   n_blocks = ceil_div(p->N, TC_GEMM_SCALE_BLOCK);
        /* rows of 16 bytes for the TMA: M rounded up to 4 (cuBLASLt's rows have M % 16 == 0) */
        h->ld_sa = round_up(p->M, 4), h->ld_sb = round_up(k_blocks, 4);
        h->h_sa = (float *)tc_xmalloc((size_t)(k_blocks * h->ld_sa) * sizeof(float));
        for (long e = 0; e < k_blocks * h->ld_sa; e++) h->h_sa[e] = 1.0f; /* the padding */
        h->h_sb = (float *)tc_xmalloc((size_t)(n_blocks * h->ld_sb) * sizeof(float));
        for (long e = 0; e < n_blocks * h->ld_sb; e++) h->h_sb[e] = 1.0f; /* the padding */
        h->h_a_deq = (float *)tc_xmalloc(na * sizeof(float));
        h->h_b_deq = (float *)tc_xmalloc(nb * sizeof(float));
        memset(h->h_a_deq, 0, na * sizeof(float)); /* padding: never read */
        memset(h->h_b_deq, 0, nb * sizeof(float));
        /* A: sa(i, kb) at kb * ld_sa + i; B: sb(kb, nb) at nb * ld_sb + kb */
        tc_gemm_block_quantize(h->h_a, h->h_a_deq, h->h_sa, h->h_a32, prec->in, p->M, p->K,
                               v->a_layout, p->lda, 1, TC_GEMM_SCALE_BLOCK, 1, h->ld_sa);
        tc_gemm_block_quantize(h->h_b, h->h_b_deq, h->h_sb, h->h_b32, prec->in, p->K, p->N,
                               v->b_layout, p->ldb, TC_GEMM_SCALE_BLOCK, TC_GEMM_SCALE_BLOCK, 1,
                               h->ld_sb);
        const tc_matrix A = tc_matrix_make(h->h_a_deq, TC_F32, p->M, p->K, v->a_layout, p->lda);
        const tc_matrix B = tc_matrix_make(h->h_b_deq, TC_F32, p->K, p->N, v->b_layout, p->ldb);
        h->s = tc_matrix_absmax(&A) * tc_matrix_absmax(&B);
        return h;
    }
    const tc_matrix A = tc_matrix_make(h->h_a, prec->in, p->M, p->K, v->a_layout, p->lda);
    const tc_matrix B = tc_matrix_make(h->h_b, prec->in, p->K, p->N, v->b_layout, p->ldb);
    h->s = tc_matrix_absmax(&A) * tc_matrix_absmax(&B);
    return h;
}

/* C = alpha*A*B + beta*C. With beta == 0 the output starts poisoned (an unwritten element
 * fails); otherwise it starts with random values (integers in [-1000, 1000] for int32) that the
 * reference reads back. */
typedef struct {
    float alpha, beta;
} scalars;
static const scalars plain = {1.0f, 0.0f};
/* [scale][integer output]: exact in every float format; integer GEMMs take integer scalars */
static const scalars test_scalars[3][2] = {
    {{1.0f, 0.0f}, {1.0f, 0.0f}}, {{0.75f, -1.25f}, {2.0f, -1.0f}}, {{0.75f, 0.0f}, {2.0f, 0.0f}}};

/* ---- the exact check (tc_gemm_emulation) --------------------------------------------------- */
static int exact_cc; /* the GPU's compute capability while --test runs, else 0 (no exact check) */

/* the model's format of a storage type, -1 for one the emulation does not read */
static int model_format(tc_dtype t)
{
    switch (t) {
    case TC_F16: return TC_FMT_F16;
    case TC_BF16: return TC_FMT_BF16;
    case TC_E4M3: return TC_FMT_E4M3;
    case TC_E5M2: return TC_FMT_E5M2;
    case TC_F32: return TC_FMT_TF32; /* f32 data on tf32 instructions: their 13 low bits unread */
    default: return -1;
    }
}

static uint32_t element_bits(const void *h, tc_dtype t, size_t idx)
{
    switch (tc_dtype_size(t)) {
    case 1: return ((const uint8_t *)h)[idx];
    case 2: return ((const uint16_t *)h)[idx];
    default: return ((const uint32_t *)h)[idx];
    }
}

enum { MAX_WORDS = 3 };
/* the words of the f32 value with bits x, as the chapters' split passes make them */
static void split_words(tc_gemm_words how, uint32_t x, uint32_t w[MAX_WORDS])
{
    float rest;
    memcpy(&rest, &x, sizeof rest);
    if (how == TC_GEMM_WORDS_TF32X2) {
        const float big = tc_f32_to_tf32_rna(rest), small = tc_f32_to_tf32_rna(rest - big);
        memcpy(&w[0], &big, sizeof big);
        memcpy(&w[1], &small, sizeof small);
        return;
    }
    for (int p = 0; p < MAX_WORDS; p++) { /* TC_GEMM_WORDS_BF16X3 */
        w[p] = tc_f32_to_bf16(rest);
        rest -= tc_bf16_to_f32((uint16_t)w[p]); /* exact */
    }
}

/* the format the model must read: the stored one, or the words' */
static int emulated_format(const tc_gemm_emulation *em, tc_dtype in)
{
    return em->words == TC_GEMM_WORDS_TF32X2   ? (in == TC_F32 ? TC_FMT_TF32 : -1)
           : em->words == TC_GEMM_WORDS_BF16X3 ? (in == TC_F32 ? TC_FMT_BF16 : -1)
                                               : model_format(in);
}

/* NULL when the variant's emulation can check it, else why not (a mistake in the variant table,
 * found when the program starts) */
static const char *emulation_misfit(const tc_gemm_variant *v)
{
    static char why[200];
    const tc_gemm_emulation *em = v->emulation;
    const tc_model_params *model = em ? tc_model_recorded_sm90(em->model) : NULL;
    const tc_precision *prec = tc_precision_get(v->precision);
    const int word_pairs_ok = !em || !em->words || (em->pairs && em->n_pairs >= 1);
    int pairs_in_range = 1;
    for (int i = 0; word_pairs_ok && em && em->words && i < 2 * em->n_pairs; i++)
        pairs_in_range &=
            em->pairs[i] >= 0 && em->pairs[i] < (em->words == TC_GEMM_WORDS_TF32X2 ? 2 : MAX_WORDS);
    /* a block-scaled row's runs are its scale blocks, on the stored values */
    const int scales_fit =
        v->scaling == TC_GEMM_SCALING_NONE || (em && em->k_run == TC_GEMM_SCALE_BLOCK &&
                                               !em->words && v->mult_k % TC_GEMM_SCALE_BLOCK == 0);
    if (model && prec && emulated_format(em, prec->in) == (int)model->in &&
        model->out == TC_FMT_F32 && (prec->out == TC_F32 || prec->out == TC_BF16) &&
        !(em->words && prec->in_round) && word_pairs_ok && pairs_in_range && em->k_run >= 0 &&
        em->k_run % model->k == 0 && scales_fit)
        return NULL;
    snprintf(why, sizeof why,
             "%s: its emulation (model %s, runs of %d) does not fit its precision %s", v->name,
             em ? em->model : "none", em ? em->k_run : 0, v->precision);
    return why;
}

/* A block-scaled element: the tensor cores' sum of each scale block from a zero accumulator,
 * added as total = fma(run, sa sb, total) (the product of two powers of two, exact) */
static uint32_t scaled_dot(const tc_model_params *model, const uint32_t *a, const uint32_t *b,
                           long K, const tc_gemm_host_scales *scales, long i, long j)
{
    float total = 0.0f;
    for (long k0 = 0; k0 < K; k0 += TC_GEMM_SCALE_BLOCK) {
        const long kb = k0 / TC_GEMM_SCALE_BLOCK,
                   len = K - k0 < TC_GEMM_SCALE_BLOCK ? K - k0 : TC_GEMM_SCALE_BLOCK;
        const uint32_t bits = tc_model_gemm_dot(model, a + k0, b + k0, (int)len, 0);
        float run;
        memcpy(&run, &bits, sizeof run);
        const float scale = scales->a[kb * scales->ld_a + i] *
                            scales->b[(j / TC_GEMM_SCALE_BLOCK) * scales->ld_b + kb];
        total = fmaf(run, scale, total);
    }
    uint32_t out;
    memcpy(&out, &total, sizeof out);
    return out;
}

long tc_gemm_exact_mismatches(const tc_gemm_variant *v, const tc_gemm_problem *p, const void *h_a,
                              const void *h_b, const void *h_c, const void *h_c0,
                              const tc_sample *sample, const tc_gemm_host_scales *scales,
                              char *message, size_t size)
{
    const tc_gemm_emulation *em = v->emulation;
    const tc_precision *prec = p->prec;
    const char *misfit = emulation_misfit(v);
    if (!misfit && (v->scaling == TC_GEMM_SCALING_BLOCK128) != (scales != NULL))
        misfit = "the exact check of a block-scaled row needs its scales (and only it has any)";
    if (misfit) {
        snprintf(message, size, "%s", misfit);
        return -1;
    }
    const tc_model_params *model = tc_model_recorded_sm90(em->model);
    const long K = p->K,
               n = sample->n < TC_GEMM_EXACT_ELEMENTS ? sample->n : TC_GEMM_EXACT_ELEMENTS;
    const int alpha1_beta0 = p->alpha == 1.0f && p->beta == 0.0f;
    const int words = em->words == TC_GEMM_WORDS_TF32X2   ? 2
                      : em->words == TC_GEMM_WORDS_BF16X3 ? 3
                                                          : 1;
    uint32_t *a = (uint32_t *)tc_xmalloc((size_t)K * sizeof *a);
    uint32_t *b = (uint32_t *)tc_xmalloc((size_t)K * sizeof *b);
    uint32_t *aw[MAX_WORDS] = {a}, *bw[MAX_WORDS] = {b};
    for (int w = 1; w < words; w++) {
        aw[w] = (uint32_t *)tc_xmalloc((size_t)K * sizeof *a);
        bw[w] = (uint32_t *)tc_xmalloc((size_t)K * sizeof *b);
    }
    long bad = 0, bad_i = 0, bad_j = 0;
    float bad_got = 0, bad_want = 0;
    for (long t = 0; t < n; t++) {
        long i, j;
        tc_sample_get(sample, t * sample->n / n, &i, &j);
        for (long k = 0; k < K; k++) {
            a[k] = element_bits(
                h_a, prec->in,
                (size_t)(v->a_layout == TC_ROW_MAJOR ? i * p->lda + k : k * p->lda + i));
            b[k] = element_bits(
                h_b, prec->in,
                (size_t)(v->b_layout == TC_ROW_MAJOR ? k * p->ldb + j : j * p->ldb + k));
        }
        if (em->words)
            for (long k = 0; k < K; k++) {
                uint32_t wa[MAX_WORDS], wb[MAX_WORDS];
                split_words(em->words, a[k], wa);
                split_words(em->words, b[k], wb);
                for (int w = 0; w < words; w++) aw[w][k] = wa[w], bw[w][k] = wb[w];
            }
        const uint32_t bits = scales ? scaled_dot(model, a, b, K, scales, i, j)
                              : em->words
                                  ? tc_model_gemm_dot_words(model, (const uint32_t *const *)aw,
                                                            (const uint32_t *const *)bw, em->pairs,
                                                            em->n_pairs, (int)K, em->k_run)
                                  : tc_model_gemm_dot(model, a, b, (int)K, em->k_run);
        float total;
        memcpy(&total, &bits, sizeof total);
        const size_t ci = (size_t)(v->c_layout == TC_ROW_MAJOR ? i * p->ldc + j : j * p->ldc + i);
        /* C in f32, or in bf16: the f32 result rounded once more, to nearest even */
        const int bf16 = prec->out == TC_BF16;
        const double got = tc_load(h_c, prec->out, ci);
        double want = bf16 ? tc_bf16_to_f32(tc_f32_to_bf16(total)) : total;
        int ok;
        if (alpha1_beta0) {
            ok = got == want; /* a NaN fails; the two zeros are equal */
        } else {
            const double scaled = (double)p->alpha * total,
                         c0 = h_c0 ? (double)p->beta * tc_load(h_c0, prec->out, ci) : 0.0;
            want = scaled + c0;
            /* three f32 roundings, and bf16's own (half an ulp: 2^-8 of the result) */
            ok = fabs(got - want) <=
                 3.0 * ldexp(fabs(scaled) + fabs(c0), -24) + (bf16 ? ldexp(fabs(want), -8) : 0.0);
        }
        if (!ok && bad++ == 0) bad_i = i, bad_j = j, bad_got = (float)got, bad_want = (float)want;
    }
    for (int w = 1; w < words; w++) free(aw[w]), free(bw[w]);
    free(a), free(b);
    if (bad)
        snprintf(message, size,
                 "exact check: %ld of %ld elements differ from the emulation of the schedule (%s, "
                 "runs of %d); first C(%ld,%ld) = %.9g, emulated %.9g",
                 bad, n, em->model, em->k_run ? em->k_run : (int)K, bad_i, bad_j, bad_got,
                 bad_want);
    return bad;
}

static void run_case(const tc_gemm_variant *v, void *chapter_ctx, long M, long N, long K,
                     const operand_layout *mem, uint64_t seed, int warmup, int reps, int data_err,
                     scalars ab, tc_input_dist dist, int force, case_result *res)
{
    memset(res, 0, sizeof *res);
    res->worst_row = -1;
    const tc_precision *prec = tc_precision_get(v->precision);
    tc_gemm_problem p;
    memset(&p, 0, sizeof p);
    p.M = (int)M;
    p.N = (int)N;
    p.K = (int)K;
    p.prec = prec;
    p.a_layout = v->a_layout;
    p.b_layout = v->b_layout;
    p.c_layout = v->c_layout;
    p.lda = leading_dim(v->a_layout, M, K, mem->ld_pad[OP_A]);
    p.ldb = leading_dim(v->b_layout, K, N, mem->ld_pad[OP_B]);
    p.ldc = leading_dim(v->c_layout, M, N, mem->ld_pad[OP_C]);
    p.alpha = ab.alpha;
    p.beta = ab.beta;
    p.chapter_ctx = chapter_ctx;
    p.force = force;

    size_t na = matrix_elems(v->a_layout, M, K, p.lda), nb = matrix_elems(v->b_layout, K, N, p.ldb),
           nc = matrix_elems(v->c_layout, M, N, p.ldc);
    size_t sa = tc_dtype_size(prec->in), sc = tc_dtype_size(prec->out);
    /* the f32 data before rounding: for vs_f32data, and for rows whose inputs the kernel must
     * round itself (in_round: the GPU gets these, the reference the rounded values). f64 data are
     * not rounded from anything: their vs_f32data is their rel_err (set below). */
    if (prec->in == TC_F64) data_err = 0;
    const int raw_upload = prec->in_round != NULL;
    host_problem *hp = host_inputs(v, &p, dist, seed, data_err || raw_upload);
    const void *h_a = hp->h_a, *h_b = hp->h_b;
    const float *h_a32 = hp->h_a32, *h_b32 = hp->h_b32;
    tc_rng rng = hp->rng_after;
    const int plain_scalars = ab.alpha == 1.0f && ab.beta == 0.0f;

    /* Device buffers start `offset` elements past cudaMalloc's (256-byte aligned) address. C is
     * followed by a poisoned guard, so that a write past its end shows. */
    const size_t off_a = (size_t)mem->offset[OP_A], off_b = (size_t)mem->offset[OP_B],
                 off_c = (size_t)mem->offset[OP_C];
    const size_t tail_c = tc_gemm_guard_elems(p.ldc, prec->out);
    const size_t all_c = off_c + nc + tail_c;
    char *d_a = NULL, *d_b = NULL, *d_c = NULL;
    float *d_sa = NULL, *d_sb = NULL; /* a block-scaled row's scales */
    const int scaled = v->scaling == TC_GEMM_SCALING_BLOCK128;
    const tc_gemm_host_scales host_scales = {
        .a = hp->h_sa, .b = hp->h_sb, .ld_a = hp->ld_sa, .ld_b = hp->ld_sb};
    if (scaled) {
        const size_t n_sa = (size_t)(ceil_div(K, TC_GEMM_SCALE_BLOCK) * hp->ld_sa),
                     n_sb = (size_t)(ceil_div(N, TC_GEMM_SCALE_BLOCK) * hp->ld_sb);
        TC_CUDA_CHECK(cudaMalloc((void **)&d_sa, n_sa * sizeof(float)));
        TC_CUDA_CHECK(cudaMalloc((void **)&d_sb, n_sb * sizeof(float)));
        TC_CUDA_CHECK(cudaMemcpy(d_sa, hp->h_sa, n_sa * sizeof(float), cudaMemcpyHostToDevice));
        TC_CUDA_CHECK(cudaMemcpy(d_sb, hp->h_sb, n_sb * sizeof(float), cudaMemcpyHostToDevice));
        p.d_scale_a = d_sa, p.d_scale_b = d_sb;
        p.ld_scale_a = hp->ld_sa, p.ld_scale_b = hp->ld_sb;
    }
    TC_CUDA_CHECK(cudaMalloc((void **)&d_a, (na + off_a) * sa));
    TC_CUDA_CHECK(cudaMalloc((void **)&d_b, (nb + off_b) * sa));
    TC_CUDA_CHECK(cudaMalloc((void **)&d_c, all_c * sc));
    p.d_a = d_a + off_a * sa;
    p.d_b = d_b + off_b * sa;
    p.d_c = d_c + off_c * sc;
    TC_CUDA_CHECK(cudaMemcpy((void *)p.d_a, raw_upload ? (const void *)h_a32 : h_a, na * sa,
                             cudaMemcpyHostToDevice));
    TC_CUDA_CHECK(cudaMemcpy((void *)p.d_b, raw_upload ? (const void *)h_b32 : h_b, nb * sa,
                             cudaMemcpyHostToDevice));
    TC_CUDA_CHECK(cudaMemset(d_c, tc_poison_byte(prec->out), all_c * sc));
    unsigned char *h_all_c = (unsigned char *)tc_xmalloc(all_c * sc);
    void *h_c = h_all_c + off_c * sc; /* C itself, inside the copy with its guards */
    void *h_c0 = NULL;                /* C before the call, when beta != 0 */
    if (ab.beta != 0.0f) {
        /* C's values are of the size of one product, max|A| max|B| (1 for [-1, 1) data, 127^2
         * for int8 data as f32): a kernel that ignores beta is then off by about a product, which
         * every tolerance row catches, whatever the scale of the inputs */
        const float c_scale = (float)hp->s;
        h_c0 = tc_xmalloc(nc * sc);
        memset(h_c0, tc_poison_byte(prec->out), nc * sc);
        for (long i = 0; i < M; i++)
            for (long j = 0; j < N; j++) {
                size_t idx = (size_t)(v->c_layout == TC_ROW_MAJOR ? i * p.ldc + j : j * p.ldc + i);
                double x = tc_dtype_is_integer(prec->out)
                               ? (double)(int)(tc_rng_next_u64(&rng) % 2001) - 1000.0
                               : (double)(c_scale * tc_rng_uniform(&rng, -1.0f, 1.0f));
                tc_store(h_c0, prec->out, idx, x);
            }
        TC_CUDA_CHECK(cudaMemcpy(p.d_c, h_c0, nc * sc, cudaMemcpyHostToDevice));
    }

    /* A blocking stream (cudaStreamDefault), never cudaStreamNonBlocking: the uploads and the
     * poison above went to the legacy default stream, where cudaMemcpy from pageable memory may
     * return before its copy has landed and cudaMemset returns at once. A blocking stream's
     * launch waits for them; a non-blocking one does not, and on a GPU shared with other
     * programs its kernel ran before them (an H100 run, make test with 3 programs at once: C
     * "unwritten" where the poison landed after the kernel's stores, cuBLAS fed half-copied A). */
    cudaStream_t stream;
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
    const char *why = misaligned(v, &p);
    if (why) {
        snprintf(res->message, sizeof res->message, "%s", why);
        res->not_applicable = 1;
    } else if ((why = v->prepare ? v->prepare(v, &p) : NULL)) {
        snprintf(res->message, sizeof res->message, "%s", why);
        res->skipped = strncmp(why, TC_GEMM_SKIP, strlen(TC_GEMM_SKIP)) == 0;
    } else {
        launch_ctx lc = {v, &p};
        tc_poison_shared_memory(stream); /* no stage may be read before its copy lands */
        launch_once(&lc, stream);
        TC_CUDA_CHECK(cudaStreamSynchronize(stream));
        /* C with its guards: the elements before it, C, and the tail after it */
        TC_CUDA_CHECK(cudaMemcpy(h_all_c, d_c, all_c * sc, cudaMemcpyDeviceToHost));
        res->ran = 1;

        /* the values the product is of: as stored, or (block-scaled) times their scales */
        tc_matrix A = scaled ? tc_matrix_make(hp->h_a_deq, TC_F32, M, K, v->a_layout, p.lda)
                             : tc_matrix_make(h_a, prec->in, M, K, v->a_layout, p.lda);
        tc_matrix B = scaled ? tc_matrix_make(hp->h_b_deq, TC_F32, K, N, v->b_layout, p.ldb)
                             : tc_matrix_make(h_b, prec->in, K, N, v->b_layout, p.ldb);
        tc_matrix C = tc_matrix_make(h_c, prec->out, M, N, v->c_layout, p.ldc);
        /* the sample comes from the generator right after the inputs (and C's values, when
         * beta != 0): with plain scalars it is the kept problem's, and so are its references */
        tc_sample local_sample;
        tc_sample *sample_p = &local_sample;
        double *ref;
        if (plain_scalars && hp->have_ref) {
            sample_p = &hp->sample;
        } else {
            local_sample = tc_sample_make(M, N, K, FULL_CHECK_LIMIT, SAMPLE_RANDOM, &rng);
        }
        const tc_sample sample = *sample_p;
        ref = (double *)tc_xmalloc((size_t)sample.n * sizeof(double));
        if (plain_scalars && hp->have_ref) {
            memcpy(ref, hp->ref, (size_t)sample.n * sizeof(double));
        } else {
            tc_ref_gemm(&A, &B, &sample, ref);
            if (plain_scalars) { /* keep the sample and its reference for the next variant */
                hp->sample = local_sample;
                hp->ref = (double *)tc_xmalloc((size_t)sample.n * sizeof(double));
                memcpy(hp->ref, ref, (size_t)sample.n * sizeof(double));
                hp->have_ref = 1;
                sample_p = &hp->sample;
            }
        }
        if (ab.alpha != 1.0f || h_c0) {
            tc_matrix C0 = tc_matrix_make(h_c0 ? h_c0 : h_c, prec->out, M, N, v->c_layout, p.ldc);
            for (long e = 0; e < sample.n; e++) {
                long i, j;
                tc_sample_get(&sample, e, &i, &j);
                double c0 = h_c0 ? tc_load(C0.data, C0.type, (size_t)(i * C0.rs + j * C0.cs)) : 0;
                ref[e] = (double)ab.alpha * ref[e] + (double)ab.beta * c0;
            }
        }
        /* alpha scales the accumulation error; beta*C adds only output rounding (rtol) */
        double s = hp->s * fmax(1.0, fabs(ab.alpha));
        res->check = tc_check(&C, &sample, ref, prec, K, s);
        res->pass = res->check.pass;
        if (prec->in == TC_F64) res->data_err = res->check.rel_fro_err;
        /* the padding between rows (columns) of C, the elements before it and the tail after it
         * must still hold what they held: the poison */
        const long outside = tc_gemm_outside_writes(h_all_c, prec->out, off_c, nc, p.ldc,
                                                    v->c_layout == TC_ROW_MAJOR ? N : M, tail_c);
        if (outside) {
            res->pass = 0;
            snprintf(res->message, sizeof res->message,
                     "%ld elements written outside C (row padding, before its start or past its "
                     "end)",
                     outside);
        }
        if (res->pass && v->emulation && exact_cc == v->emulation->cc &&
            tc_gemm_exact_mismatches(v, &p, h_a, h_b, h_c, h_c0, &sample,
                                     scaled ? &host_scales : NULL, res->message,
                                     sizeof res->message) != 0)
            res->pass = 0;
        if (data_err) {
            const tc_matrix A32 = tc_matrix_make(h_a32, TC_F32, M, K, v->a_layout, p.lda);
            const tc_matrix B32 = tc_matrix_make(h_b32, TC_F32, K, N, v->b_layout, p.ldb);
            if (plain_scalars && hp->have_ref32) {
                memcpy(ref, hp->ref32, (size_t)sample.n * sizeof(double));
            } else {
                tc_ref_gemm(&A32, &B32, &sample, ref);
                if (plain_scalars && hp->have_ref) {
                    hp->ref32 = (double *)tc_xmalloc((size_t)sample.n * sizeof(double));
                    memcpy(hp->ref32, ref, (size_t)sample.n * sizeof(double));
                    hp->have_ref32 = 1;
                }
            }
            double q = tc_dtype_is_integer(prec->in) ? 1.0 / (I8_SCALE * I8_SCALE) : 1.0;
            res->data_err = tc_rel_fro_error(&C, &sample, ref, q);
            /* skewed inputs: what the smallest rows lose, which the Frobenius error (made by the
             * largest rows) cannot show. Whole rows: every row from the reference above when
             * the sample is all of C, else an FP64 product of 64 x N x K of its own */
            if (dist_is_skewed(dist)) {
                tc_sample rows = sample.full ? sample : tc_sample_full_rows(M, N, WORST_ROW_SAMPLE);
                double *row_ref = ref;
                if (!sample.full) {
                    row_ref = (double *)tc_xmalloc((size_t)rows.n * sizeof(double));
                    tc_ref_gemm(&A32, &B32, &rows, row_ref);
                }
                res->worst_row_err = tc_worst_row_error(&C, &rows, row_ref, q, &res->worst_row);
                res->worst_rows_read = rows.n / N;
                if (!sample.full) free(row_ref), tc_sample_free(&rows);
            }
        }
        free(ref);
        if (sample_p == &local_sample) tc_sample_free(&local_sample);

        /* with beta == 0 a second launch must write the same bits, guards included: a kernel
         * that depends on state a launch leaves behind (a workspace, flags, a counter) fails
         * here instead of in the timed launches, which nothing checks */
        if (res->pass && ab.beta == 0.0f) {
            unsigned char *again = (unsigned char *)tc_xmalloc(all_c * sc);
            tc_poison_shared_memory(stream);
            launch_once(&lc, stream);
            TC_CUDA_CHECK(cudaStreamSynchronize(stream));
            TC_CUDA_CHECK(cudaMemcpy(again, d_c, all_c * sc, cudaMemcpyDeviceToHost));
            if (memcmp(again, h_all_c, all_c * sc) != 0) {
                res->pass = 0;
                snprintf(res->message, sizeof res->message,
                         "a second launch wrote different bits (the result depends on state a "
                         "launch leaves behind)");
            }
            free(again);
        }
        /* the state the launches leave for the next one (a workspace back to zero) */
        const char *state = res->pass && v->check_state ? v->check_state(v, &p) : NULL;
        if (state) {
            res->pass = 0;
            snprintf(res->message, sizeof res->message, "after the launches: %s", state);
        }

        if (reps > 0) {
            res->timing = tc_time_gpu(launch_once, &lc, stream, warmup, reps);
            res->rate =
                2.0 * (double)M * (double)N * (double)K / (res->timing.ms_median * 1e-3) / 1e12;
        }
    }
    if (v->release && !res->not_applicable) v->release(v, &p);
    TC_CUDA_CHECK(cudaStreamDestroy(stream));
    TC_CUDA_CHECK(cudaFree(d_a));
    TC_CUDA_CHECK(cudaFree(d_b));
    TC_CUDA_CHECK(cudaFree(d_c));
    TC_CUDA_CHECK(cudaFree(d_sa));
    TC_CUDA_CHECK(cudaFree(d_sb));
    free(h_all_c);
    free(h_c0);
}

/* ---- output -------------------------------------------------------------------------------- */
static void print_list(const tc_gemm_chapter *ch)
{
    printf("%s - %s\n\n", ch->name, ch->summary);
    int wv = 21, wp = 9; /* the widest name and precision, at least the headers' */
    for (int i = 0; i < ch->n_variants; i++) {
        const int lv = (int)strlen(ch->variants[i].name),
                  lp = (int)strlen(ch->variants[i].precision);
        wv = lv > wv ? lv : wv, wp = lp > wp ? lp : wp;
    }
    printf("%-*s %-*s %-6s %-11s %-6s %-11s %s\n", wv, "variant", wp, "precision", "min_sm",
           "sizes", "layout", "align", "description");
    for (int i = 0; i < ch->n_variants; i++) {
        const tc_gemm_variant *v = &ch->variants[i];
        char sizes[48], layout[16];
        if (v->mult_m <= 1 && v->mult_n <= 1 && v->mult_k <= 1)
            snprintf(sizes, sizeof sizes, "any");
        else
            snprintf(sizes, sizeof sizes, "%d|%d|%d", v->mult_m > 1 ? v->mult_m : 1,
                     v->mult_n > 1 ? v->mult_n : 1, v->mult_k > 1 ? v->mult_k : 1);
        snprintf(layout, sizeof layout, "%c%c%c", v->a_layout == TC_ROW_MAJOR ? 'R' : 'C',
                 v->b_layout == TC_ROW_MAJOR ? 'R' : 'C', v->c_layout == TC_ROW_MAJOR ? 'R' : 'C');
        char align[24] = "-";
        if (v->align_ab.ptr > 1 || v->align_ab.ld > 1 || v->align_c.ptr > 1 || v->align_c.ld > 1)
            snprintf(align, sizeof align, "%d/%d|%d/%d", v->align_ab.ptr, v->align_ab.ld,
                     v->align_c.ptr, v->align_c.ld);
        char sm[16]; /* the minimum, or the arch-specific code the row needs (sm_90a) */
        if (v->target && strchr(v->target, 'a'))
            snprintf(sm, sizeof sm, "sm_%s", v->target);
        else
            snprintf(sm, sizeof sm, "sm_%d", v->min_cc);
        printf("%-*s %-*s %-6s %-11s %-6s %-11s %s", wv, v->name, wp, v->precision, sm, sizes,
               layout, align, v->description);
        for (int f = 0; f < v->n_forced; f++) /* the choices --test forces, each on every case */
            printf("%s%s", f == 0 ? " (--test forces: " : ", ", v->forced_names[f]);
        printf("%s\n", v->n_forced > 0 ? ")" : "");
    }
    printf("\nsizes: 'any', or the multiples M|N|K must have. layout: A, B, C row (R) or column "
           "(C) major.\nalign: '-' (any), or the bytes A and B | C need: first element / row "
           "(leading dimension x element size).\nmin_sm: the minimum compute capability, or "
           "the arch-specific code a row needs (sm_90a runs on 9.0 alone).\n");
}

static void print_table_header(FILE *f, const char *baseline_hint)
{
    fprintf(f, "%-20s %-9s %-17s %9s %9s %9s %8s %10s %10s %10s %s\n", "variant", "precision",
            "size", "ms(med)", "ms(min)", "rate", "vs base", "max|err|", "rel_err", "vs_f32data",
            baseline_hint);
}

static void print_table_row(FILE *f, const char *label, const tc_gemm_variant *v, const char *size,
                            const case_result *r, double pct)
{
    if (!r->ran) {
        fprintf(f, "%-20s %-9s %-17s %s\n", label, v->precision, size,
                r->skipped || r->not_applicable ? r->message : "FAIL");
        if (!r->skipped && !r->not_applicable) fprintf(f, "    %s\n", r->message);
        return;
    }
    char pcts[16] = "-";
    if (pct > 0) snprintf(pcts, sizeof pcts, "%.0f%%", pct);
    fprintf(f, "%-20s %-9s %-17s %9.3f %9.3f %9.1f %8s %10.3g %10.3g %10.3g %s\n", label,
            v->precision, size, r->timing.ms_median, r->timing.ms_min, r->rate, pcts,
            r->check.max_abs_err, r->check.rel_fro_err, r->data_err,
            !r->pass          ? "FAIL"
            : r->check.coarse ? "coarse"
                              : "PASS");
    if (r->worst_row >= 0)
        fprintf(f, "    worst row vs f32 data: %.3g (row %ld of the %ld rows of C read in full)\n",
                r->worst_row_err, r->worst_row, r->worst_rows_read);
    if (!r->pass) {
        fprintf(f, "    ");
        tc_check_print(&r->check, f);
        if (r->message[0]) fprintf(f, "    %s\n", r->message);
    }
}

/* ---- modes --------------------------------------------------------------------------------- */
static int selected(const tc_args *a, const tc_gemm_chapter *ch, const tc_gemm_variant *v)
{
    const char *want = a->variant ? a->variant : ch->default_variant;
    return strcmp(want, "all") == 0 || strcmp(want, v->name) == 0;
}

/* what this program was compiled for (TC_BUILD_TARGETS of its main), NULL when not known */
static const char *build_targets;

/* NULL when this build's code for this GPU can run the variant, else why not */
static const char *variant_cannot_run(const tc_gemm_variant *v, const tc_device_info *dev)
{
    static char why[64];
    if (v->min_cc > dev->cc) {
        snprintf(why, sizeof why, "needs sm_%d, this GPU is sm_%d", v->min_cc, dev->cc);
        return why;
    }
    return tc_target_unsupported(v->target, dev->cc, build_targets);
}

static const tc_gemm_variant *find_variant(const tc_gemm_chapter *ch, const char *name)
{
    for (int i = 0; i < ch->n_variants; i++)
        if (strcmp(ch->variants[i].name, name) == 0) return &ch->variants[i];
    return NULL;
}

/* The counts of --test's lines */
typedef struct {
    int passed, failed, skipped, not_applicable;
} test_counts;

/* Test case ci of variant v on `seed`: the launcher's own choices, then each forced one, on the
 * same problem (kept: the forced runs reuse its inputs and reference) */
static void test_one_case(const tc_gemm_variant *v, void *ctx, int ci, uint64_t seed,
                          tc_input_dist vdist, test_counts *n)
{
    const test_case *tcase = &test_cases[ci];
    const int int_out = tc_dtype_is_integer(tc_precision_get(v->precision)->out);
    scalars ab = test_scalars[tcase->scale][int_out];
    long M = tcase->M, N = tcase->N, K = tcase->K;
    const char *why = tc_gemm_unsupported(v, M, N, K);
    if (why) {
        /* The size is outside the variant's documented constraint: the CLI rejects it
         * (tests/run_tests.sh checks the exit code); test the nearest supported size. */
        printf("note %-18s %ldx%ldx%ld rejected as documented (%s); testing ", v->name, M, N, K,
               why);
        M = round_up(M, v->mult_m);
        N = round_up(N, v->mult_n);
        K = round_up(K, v->mult_k);
        printf("%ldx%ldx%ld instead\n", M, N, K);
    }
    const long k_verifiable = tc_precision_k_verifiable(tc_precision_get(v->precision));
    if (K > k_verifiable) {
        /* The precision cannot tell a lost product from its own rounding at this K: test at the
         * largest K it can verify (a multiple of the variant's rule) instead. */
        long k_test = v->mult_k > 1 ? k_verifiable / v->mult_k * v->mult_k : k_verifiable;
        if (k_test < 1) k_test = v->mult_k > 1 ? v->mult_k : 1;
        printf("note %-18s K = %ld is beyond what %s can verify (K <= %ld); testing "
               "%ldx%ldx%ld instead\n",
               v->name, K, v->precision, k_verifiable, M, N, k_test);
        K = k_test;
    }
    for (int force = 0; force <= v->n_forced; force++) {
        case_result r;
        run_case(v, ctx, M, N, K, &tcase->mem, seed, 0, 0, 0, ab, vdist, force, &r);
        printf("%s %-18s %5ldx%-5ldx%-5ld ",
               r.not_applicable ? "n/a "
               : r.skipped      ? "SKIP"
               : r.pass         ? "PASS"
                                : "FAIL",
               v->name, M, N, K);
        if (force) printf("force=%s ", v->forced_names[force - 1]);
        if (tcase->scale) printf("alpha=%g beta=%g ", ab.alpha, ab.beta);
        print_operand_mods("ld", tcase->mem.ld_pad);
        print_operand_mods("ptr", tcase->mem.offset);
        if (r.skipped || r.not_applicable) {
            printf("%s\n", r.message);
            n->skipped += r.skipped;
            n->not_applicable += r.not_applicable;
            continue;
        }
        tc_test_line_end(r.ran, r.pass, &r.check, r.message, &n->passed, &n->failed);
        if (r.ran && r.message[0]) printf("    %s\n", r.message);
    }
}

/* The seed of case ci of variant vi. The small cases draw per variant. The large ones (1000^3 and
 * up: their inputs and FP64 reference are most of --test's time) draw the same inputs for every
 * variant, and run case by case across the variants (test_order), so that the rows of one input
 * type in a row reuse the kept problem instead of making and checking it again each. */
uint64_t tc_gemm_test_seed(uint64_t seed, int vi, int ci, int n_small)
{
    return seed * 1000003u + (ci < n_small ? (uint64_t)(vi * 100 + ci) : 1000000u + (uint64_t)ci);
}

/* The order of --test: every (variant, case) once; each variant's small cases in a row (variant
 * by variant), then each large case for every variant in turn. Writes n_variants n_cases pairs
 * (vi, ci) into order[2 k], order[2 k + 1]. */
void tc_gemm_test_order(int n_variants, int n_cases, int n_small, int *order)
{
    int k = 0;
    for (int vi = 0; vi < n_variants; vi++)
        for (int ci = 0; ci < n_small && ci < n_cases; ci++)
            order[2 * k] = vi, order[2 * k + 1] = ci, k++;
    for (int ci = n_small; ci < n_cases; ci++)
        for (int vi = 0; vi < n_variants; vi++) order[2 * k] = vi, order[2 * k + 1] = ci, k++;
}

static int mode_test(const tc_gemm_chapter *ch, const tc_args *a, const tc_device_info *dev,
                     void *ctx, tc_input_dist dist)
{
    test_counts n = {0, 0, 0, 0};
    if (dist != TC_INPUTS_UNIFORM) printf("inputs    : %s\n", dist_descriptions[dist]);
    exact_cc = dev->cc;
    /* each variant once: can it run here, on which inputs (its notes printed now) */
    int *runs = (int *)tc_xmalloc((size_t)ch->n_variants * sizeof *runs);
    tc_input_dist *vdists = (tc_input_dist *)tc_xmalloc((size_t)ch->n_variants * sizeof *vdists);
    for (int vi = 0; vi < ch->n_variants; vi++) {
        const tc_gemm_variant *v = &ch->variants[vi];
        runs[vi] = 0;
        if (a->variant && !selected(a, ch, v)) continue;
        const char *cannot = variant_cannot_run(v, dev);
        if (cannot) {
            printf("SKIP %-18s %s\n", v->name, cannot);
            n.skipped++;
            continue;
        }
        if (dist_unsupported(v, dist)) { /* declared by the precision: not a skip */
            printf("n/a  %-18s %s (precision %s)\n", v->name, dist_unsupported(v, dist),
                   v->precision);
            n.not_applicable++;
            continue;
        }
        runs[vi] = 1;
        /* a block-scaled row on uniform data would get one scale everywhere (every block's max
         * is near 1), and a scale read from the wrong row, k-tile or block would go unseen: its
         * test inputs are skewed, one exponent per block (skewed_rows too: one scale along a
         * row of A and the same for every block of B would hide a wrong k-tile's or block's) */
        vdists[vi] = v->scaling != TC_GEMM_SCALING_NONE &&
                             (dist == TC_INPUTS_UNIFORM || dist == TC_INPUTS_SKEWED_ROWS)
                         ? TC_INPUTS_SKEWED
                         : dist;
        if (vdists[vi] != dist)
            printf("note %-18s block-scaled: tested on skewed inputs (%s data would give "
                   "every block of a row, or of B, the same scale)\n",
                   v->name, dist_names[dist]);
        if (v->wide_test_inputs && dist == TC_INPUTS_UNIFORM) {
            vdists[vi] = TC_INPUTS_WIDE;
            printf("note %-18s tested on wide inputs (on uniform data nearly every exponent it "
                   "finds would be 0)\n",
                   v->name);
        }
        if (v->emulation) {
            const tc_gemm_emulation *em = v->emulation;
            char run[24] = "all K", words[64] = "";
            if (em->k_run) snprintf(run, sizeof run, "%d", em->k_run);
            if (em->words)
                snprintf(words, sizeof words, " on %s words (%d word products a k-step)",
                         em->words == TC_GEMM_WORDS_TF32X2 ? "2 tf32" : "3 bf16", em->n_pairs);
            if (exact_cc == em->cc)
                printf("note %-18s exact check: up to %d elements a case against the emulation "
                       "of %s%s in runs of %s products\n",
                       v->name, TC_GEMM_EXACT_ELEMENTS, em->model, words, run);
            else
                printf("note %-18s no exact check: the record of %s is of sm_%d\n", v->name,
                       v->emulation->model, v->emulation->cc);
        }
    }
    /* TC_TEST_SMALL=1 (make sanitize): only the small cases */
    const int n_cases = getenv("TC_TEST_SMALL") ? N_SMALL_TEST_CASES : n_test_cases;
    int *order = (int *)tc_xmalloc((size_t)ch->n_variants * n_cases * 2 * sizeof *order);
    tc_gemm_test_order(ch->n_variants, n_cases, N_SMALL_TEST_CASES, order);
    for (int k = 0; k < ch->n_variants * n_cases; k++) {
        const int vi = order[2 * k], ci = order[2 * k + 1];
        if (!runs[vi]) continue;
        test_one_case(&ch->variants[vi], ctx, ci,
                      tc_gemm_test_seed(a->seed, vi, ci, N_SMALL_TEST_CASES), vdists[vi], &n);
    }
    free(order), free(runs), free(vdists);
    if (n.not_applicable)
        printf("%d case%s not applicable: outside what the variant declares (--list)\n",
               n.not_applicable, n.not_applicable > 1 ? "s" : "");
    return tc_test_finish(ch->name, n.passed, n.failed, n.skipped);
}

static int mode_default(const tc_gemm_chapter *ch, const tc_args *a, const tc_device_info *dev,
                        void *ctx, tc_input_dist dist)
{
    long M = a->m ? a->m : ch->default_m, N = a->m ? a->n : ch->default_n,
         K = a->m ? a->k : ch->default_k;
    char size[64];
    snprintf(size, sizeof size, "%ldx%ldx%ld", M, N, K);
    int failed = 0, ran = 0;
    int n = ch->n_variants;
    case_result *res = (case_result *)calloc((size_t)n, sizeof *res);
    printf("problem   : C = A*B, %s, seed %llu, median of %d runs after %d warm-up, L2 flushed "
           "before each\ninputs    : %s\n\n",
           size, (unsigned long long)a->seed, a->reps, a->warmup, dist_descriptions[dist]);
    print_table_header(stdout, "check");
    for (int vi = 0; vi < n; vi++) {
        const tc_gemm_variant *v = &ch->variants[vi];
        if (!selected(a, ch, v)) continue;
        case_result *r = &res[vi];
        const char *why = tc_gemm_unsupported(v, M, N, K);
        if (!why) why = dist_unsupported(v, dist);
        if (!why) why = variant_cannot_run(v, dev);
        if (why) {
            r->skipped = 1;
            snprintf(r->message, sizeof r->message, "skipped: %s", why);
        } else {
            run_case(v, ctx, M, N, K, &packed, a->seed, a->warmup, a->reps, 1, plain, dist, 0, r);
            ran += !r->skipped && !r->not_applicable;
            failed += !r->pass && !r->skipped && !r->not_applicable;
        }
        double pct = 0;
        const tc_gemm_variant *b = v->baseline ? find_variant(ch, v->baseline) : NULL;
        if (b && res[b - ch->variants].rate > 0 && r->rate > 0)
            pct = 100.0 * r->rate / res[b - ch->variants].rate;
        print_table_row(stdout, v->name, v, size, r, pct);
        fflush(stdout);
    }
    free(res);
    if (ran) {
        printf("\nvs base   : rate as a percentage of the row's baseline variant, same run");
        if (ch->variants[0].baseline) printf(" (%s)", ch->variants[0].baseline);
        printf(
            "\nrel_err   : ||C - ref||_F / ||ref||_F, ref = FP64 product of the values the GPU was "
            "given\nvs_f32data: the same against the FP64 product of the f32 data those values "
            "were\n            rounded from (int8: quantised as round(127 x)): the cost of the "
            "format\n");
        printf("coarse    : the check passed but catches gross errors only: K is beyond what the "
               "precision\n            can tell from a result that lost one product\n");
    }
    if (!ran) tc_skip(ch->name, "no selected variant can run on this GPU at this size");
    return failed ? TC_EXIT_WRONG : TC_EXIT_PASS;
}

typedef struct {
    const char *label;
    const tc_gemm_variant *v;
    long M, N, K;
    case_result r;
} bench_entry;

static double find_rate(const bench_entry *e, int n, const char *name, long M, long N, long K,
                        int same_k)
{
    for (int i = 0; i < n; i++)
        if (strcmp(e[i].label, name) == 0 && e[i].M == M && e[i].N == N &&
            (!same_k || e[i].K == K) && e[i].r.rate > 0)
            return e[i].r.rate;
    return 0;
}

static int mode_bench(const tc_gemm_chapter *ch, const tc_args *a, const tc_device_info *dev,
                      void *ctx, FILE *info)
{
    int n_sizes = a->m ? 1 : ch->n_bench_sizes;
    int cap = n_sizes * ch->n_variants + ch->n_bench_extras;
    bench_entry *e = (bench_entry *)calloc((size_t)cap, sizeof *e);
    int n = 0, failed = 0;
    for (int si = 0; si < n_sizes; si++) {
        long M = a->m ? a->m : ch->bench_sizes[si][0], N = a->m ? a->n : ch->bench_sizes[si][1],
             K = a->m ? a->k : ch->bench_sizes[si][2];
        for (int vi = 0; vi < ch->n_variants; vi++) {
            const tc_gemm_variant *v = &ch->variants[vi];
            int wanted =
                !a->variant || strcmp(a->variant, "all") == 0 || strcmp(a->variant, v->name) == 0;
            /* the baseline of a selected variant runs too: every row names a figure of this run */
            for (int vj = 0; vj < ch->n_variants && !wanted; vj++)
                wanted = strcmp(ch->variants[vj].name, a->variant) == 0 &&
                         ch->variants[vj].baseline &&
                         strcmp(ch->variants[vj].baseline, v->name) == 0;
            if (!wanted || variant_cannot_run(v, dev) || tc_gemm_unsupported(v, M, N, K)) continue;
            bench_entry *b = &e[n++];
            b->label = v->name;
            b->v = v;
            b->M = M, b->N = N, b->K = K;
            fprintf(info, "bench %s %ldx%ldx%ld ...\n", v->name, M, N, K);
            run_case(v, ctx, M, N, K, &packed, a->seed + (uint64_t)si, a->warmup, a->reps, 1, plain,
                     TC_INPUTS_UNIFORM, 0, &b->r);
        }
    }
    for (int xi = 0; xi < ch->n_bench_extras && !a->m && !a->variant; xi++) {
        const tc_gemm_bench_extra *x = &ch->bench_extras[xi];
        const tc_gemm_variant *v = find_variant(ch, x->variant);
        if (!v || variant_cannot_run(v, dev) || tc_gemm_unsupported(v, x->M, x->N, x->K)) continue;
        bench_entry *b = &e[n++];
        b->label = x->label;
        b->v = v;
        b->M = x->M, b->N = x->N, b->K = x->K;
        fprintf(info, "bench %s %dx%dx%d ...\n", x->label, x->M, x->N, x->K);
        const operand_layout mem = {.ld_pad = ALL3(x->ld_pad), .offset = ALL3(x->offset_elems)};
        run_case(v, ctx, x->M, x->N, x->K, &mem, a->seed, a->warmup, a->reps, 1, plain,
                 x->inputs, 0, &b->r);
    }

    FILE *csv = tc_bench_csv_open(a->csv_path);
    if (!csv) return TC_EXIT_USAGE;
    fprintf(info, "\n");
    print_table_header(info, "check");
    for (int i = 0; i < n; i++) {
        bench_entry *b = &e[i];
        const char *base = b->v->baseline ? b->v->baseline : b->label;
        int extra = 0; /* the entry is a bench extra (its label and its size) */
        for (int xi = 0; xi < ch->n_bench_extras; xi++) {
            const tc_gemm_bench_extra *x = &ch->bench_extras[xi];
            if (strcmp(x->label, b->label) == 0 && x->M == b->M && x->N == b->N && x->K == b->K)
                base = x->baseline, extra = 1;
        }
        /* the baseline at the same size; an extra without one there is compared with the
         * baseline's row of the same M and N (e.g. K = 8191 with K = 8192) */
        double base_rate = find_rate(e, n, base, b->M, b->N, b->K, 1);
        if (base_rate == 0 && extra) base_rate = find_rate(e, n, base, b->M, b->N, b->K, 0);
        double pct = base_rate > 0 && b->r.rate > 0 ? 100.0 * b->r.rate / base_rate : 0;
        char size[64];
        snprintf(size, sizeof size, "%ldx%ldx%ld", b->M, b->N, b->K);
        print_table_row(info, b->label, b->v, size, &b->r, pct);
        failed += !b->r.pass && !b->r.skipped && !b->r.not_applicable;
        if (!b->r.ran) continue;
        tc_bench_row row;
        memset(&row, 0, sizeof row);
        row.chapter = ch->name;
        row.variant = b->label;
        row.problem = b->v->problem;
        row.precision = b->v->precision;
        snprintf(row.size, sizeof row.size, "%s", size);
        row.ms_median = b->r.timing.ms_median;
        row.ms_min = b->r.timing.ms_min;
        row.rate = b->r.rate;
        row.unit = rate_unit(tc_precision_get(b->v->precision));
        row.baseline = base;
        row.pct_of_baseline = pct;
        row.verified = !b->r.pass ? 0 : b->r.check.coarse ? TC_VERIFIED_COARSE : 1;
        /* every case that ran was checked on its sample, and its data error measured (f64
         * inputs: the data are the values, so the two errors are one) */
        row.has_rel_err = row.has_rel_err_vs_data = b->r.check.checked > 0;
        row.rel_err = b->r.check.rel_fro_err;
        row.rel_err_vs_data = b->r.data_err;
        tc_bench_csv_write(csv, &row, dev);
    }
    tc_bench_csv_close(csv);
    free(e);
    return failed ? TC_EXIT_WRONG : TC_EXIT_PASS;
}

/* ---- entry point --------------------------------------------------------------------------- */
int tc_gemm_main_built(int argc, char **argv, const tc_gemm_chapter *chapter, const char *targets)
{
    build_targets = targets;
    /* the fields a chapter leaves out: every variant, 4096^3, bench sizes 4096^3 and 8192^3 */
    static const int standard_bench_sizes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}};
    tc_gemm_chapter filled = *chapter;
    if (!filled.default_variant) filled.default_variant = "all";
    if (!filled.default_m) filled.default_m = TC_GEMM_DEFAULT_DIM;
    if (!filled.default_n) filled.default_n = TC_GEMM_DEFAULT_DIM;
    if (!filled.default_k) filled.default_k = TC_GEMM_DEFAULT_DIM;
    if (!filled.bench_sizes) {
        filled.bench_sizes = standard_bench_sizes;
        filled.n_bench_sizes = TC_COUNT(standard_bench_sizes);
    }
    const tc_gemm_chapter *ch = &filled;
    /* a variant table whose emulation cannot check its row is a mistake: say so at once */
    for (int i = 0; i < ch->n_variants; i++) {
        const char *misfit = ch->variants[i].emulation ? emulation_misfit(&ch->variants[i]) : NULL;
        if (misfit) {
            fprintf(stderr, "%s: error in the variant table: %s\n", ch->name, misfit);
            return TC_EXIT_WRONG;
        }
    }
    /* --inputs belongs to the driver: every GEMM chapter takes it */
    static const tc_cli_flag flags[] = {
        {.name = "--inputs",
         .metavar = "uniform|wide|skewed|skewed_rows",
         .help = "uniform in [-1,1) (default); wide: u*2^e, e in -8..8 (f32, f64 data); "
                 "skewed: one e per 1x128 slice of A, 128x128 block of B; skewed_rows: one e per "
                 "row of A, B uniform (both floating point; the table adds the worst row's "
                 "error)"}};
    const tc_cli_spec spec = {.program = ch->name,
                              .summary = ch->summary,
                              .variants = ch->variants,
                              .variant_size = sizeof *ch->variants,
                              .n_variants = ch->n_variants,
                              .max_dim = MAX_DIM,
                              .default_reps = 20,
                              .default_warmup = 5,
                              .flags = flags,
                              .n_flags = TC_COUNT(flags)};
    tc_args a;
    tc_parse_args(argc, argv, &spec, &a);
    tc_input_dist dist = TC_INPUTS_UNIFORM;
    if (a.flag_values[0]) {
        int found = 0;
        for (int d = 0; d < TC_COUNT(dist_names); d++)
            if (strcmp(a.flag_values[0], dist_names[d]) == 0) dist = (tc_input_dist)d, found = 1;
        if (!found)
            tc_usage_error(ch->name,
                           "bad value '%s' for --inputs: expected uniform, wide, skewed or "
                           "skewed_rows",
                           a.flag_values[0]);
        if (a.mode == TC_MODE_BENCH)
            tc_usage_error(ch->name, "--inputs goes with the default table or --test; --bench "
                                     "always uses uniform inputs (one meaning per CSV row)");
    }
    if (a.mode == TC_MODE_LIST) {
        print_list(ch);
        return TC_EXIT_PASS;
    }

    /* Checks that need no GPU: size constraints of a named variant, and memory. With --size, the
     * variants that will run are the named one (or the chapter's default), else all of them. */
    const tc_gemm_variant *only =
        a.variant && strcmp(a.variant, "all") != 0 ? find_variant(ch, a.variant) : NULL;
    if (!only && a.mode == TC_MODE_DEFAULT && strcmp(ch->default_variant, "all") != 0)
        only = find_variant(ch, ch->default_variant);
    double need_dev = 0, need_host = 0;
    if (a.m) {
        const char *why = only ? tc_gemm_unsupported(only, a.m, a.n, a.k) : NULL;
        if (why) tc_usage_error(ch->name, "bad --size: %s", why);
        for (int i = 0; i < ch->n_variants; i++) {
            /* the named variant and its baseline (bench runs the baseline too) */
            if (only && &ch->variants[i] != only &&
                !(only->baseline && strcmp(only->baseline, ch->variants[i].name) == 0))
                continue;
            double d = device_bytes(&ch->variants[i], a.m, a.n, a.k);
            double h = host_bytes(&ch->variants[i], a.m, a.n, a.k);
            if (d > need_dev) need_dev = d;
            if (h > need_host) need_host = h;
        }
        if (need_dev > MAX_DEVICE_BYTES)
            tc_usage_error(ch->name,
                           "--size %ldx%ldx%ld needs %.0f GiB of GPU memory, more than any "
                           "GPU has (limit %.0f GiB)",
                           a.m, a.n, a.k, need_dev / (1 << 30), MAX_DEVICE_BYTES / (1 << 30));
        double host = (double)tc_host_memory_bytes();
        if (host > 0 && need_host > host)
            tc_usage_error(ch->name,
                           "--size %ldx%ldx%ld needs %.1f GiB of host memory for inputs "
                           "and the CPU reference; this machine has %.1f GiB",
                           a.m, a.n, a.k, need_host / (1 << 30), host / (1 << 30));
    }

    FILE *info = a.mode == TC_MODE_BENCH && !a.csv_path ? stderr : stdout;
    tc_device_info dev;
    tc_device_open(&dev, ch->min_cc, ch->name);
    if (a.m) {
        /* plus the L2 flush buffer and library workspace */
        double need = need_dev + 2.0 * dev.l2_bytes + 64.0 * (1 << 20);
        if (need > (double)dev.mem_free)
            tc_usage_error(ch->name,
                           "--size %ldx%ldx%ld needs %.1f GiB of GPU memory; %s has %.1f "
                           "GiB free",
                           a.m, a.n, a.k, need / (1 << 30), dev.name,
                           (double)dev.mem_free / (1 << 30));
    }
    if (a.mode == TC_MODE_DEFAULT && only && only->min_cc > dev.cc)
        tc_skip(ch->name, "variant %s needs compute capability %d.%d; %s is %d.%d", only->name,
                only->min_cc / 10, only->min_cc % 10, dev.name, dev.cc / 10, dev.cc % 10);
    fprintf(info, "%s - %s\n", ch->name, ch->summary);
    tc_device_print(&dev, info);
    void *ctx = ch->init ? ch->init(&dev, info) : NULL;
    fprintf(info, "\n");
    fflush(info);

    int rc;
    switch (a.mode) {
    case TC_MODE_TEST: rc = mode_test(ch, &a, &dev, ctx, dist); break;
    case TC_MODE_BENCH: rc = mode_bench(ch, &a, &dev, ctx, info); break;
    default: rc = mode_default(ch, &a, &dev, ctx, dist); break;
    }
    if (ch->fini) ch->fini(ctx);
    host_problem_free(&kept);
    tc_timing_release();
    return rc;
}
