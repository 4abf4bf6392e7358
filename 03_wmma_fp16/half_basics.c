/* 03_wmma_fp16/half_basics.c - the host driver of part 1 of chapter 03: what f16 can hold, what
 * f16 accumulation costs, and an f16 AXPY at the copy bandwidth (kernels in half_basics.cu).
 *
 * Build and run
 *   make && build/bin/03_half_basics          # the precision lesson, then AXPY vs copy
 *   build/bin/03_half_basics --n 1000001      # AXPY on another length
 *   build/bin/03_half_basics --test           # probes and dot products bit-exact against the
 *                                             # host model; every AXPY variant on odd lengths
 *                                             # and misaligned pointers, exact
 *   build/bin/03_half_basics --bench          # CSV rows (GB/s, % of the copy bandwidth)
 */
#include "half_basics.h"

#include "check.h"
#include "convert.h"
#include "harness.h"
#include "program.h"
#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM   "03_half_basics"
#define DEFAULT_N ((1L << 28) + 1) /* 512 MiB per array: far beyond L2; odd, so the tail runs */
#define MAX_N     (1L << 33)

/* ---- the AXPY variants (the table --list, --variant, --test and --bench use) ---------------- */
typedef void (*axpy_fn)(long n, uint16_t a, const uint16_t *x, uint16_t *y, cudaStream_t s);
typedef struct {
    const char *name, *description;
    axpy_fn launch; /* NULL: the device-to-device copy, the baseline */
} axpy_variant;

static const axpy_variant variants[] = {
    {.name = "memcpy_d2d",
     .description = "cudaMemcpyAsync device to device: the bandwidth ceiling (baseline)"},
    {.name = "h1_hfma", .description = "one half per thread, __hfma", .launch = axpy_h1_launch},
    {.name = "h2_hfma2",
     .description = "half2 per thread, __hfma2; peeled head, scalar tail",
     .launch = axpy_h2_launch},
    {.name = "h8_vec16",
     .description = "16-byte loads/stores of 8 halves, 4 x __hfma2; head and tail peeled",
     .launch = axpy_h8_launch},
};
enum { N_VARIANTS = sizeof variants / sizeof variants[0] };
static const float AXPY_A = -0.7f; /* rounds to 0xB99A: a scale that is not a power of two */

/* ---- the precision probes (same order as the kernel half_probes in half_basics.cu) ---------- */
typedef enum { OP_CVT, OP_MUL, OP_ADD } probe_op;
typedef struct {
    const char *label;
    probe_op op;
    double a, b; /* f32 operands; MUL/ADD round each to f16 first (as the kernel does) */
    const char *lesson;
} probe;

/* hand-aligned table */
// clang-format off
static const probe probes[HALF_N_PROBES] = {
    {.label = "half(65504)",   .op = OP_CVT, .a = 65504.0,
     .lesson = "the largest finite f16"},
    {.label = "half(65519)",   .op = OP_CVT, .a = 65519.0,
     .lesson = "rounds down: spacing is 32 up here"},
    {.label = "half(65520)",   .op = OP_CVT, .a = 65520.0,
     .lesson = "overflow: the midpoint to 65536 rounds to inf"},
    {.label = "300 * 300",     .op = OP_MUL, .a = 300.0, .b = 300.0,
     .lesson = "90000 > 65504: a product overflows"},
    {.label = "half(2^-14)",   .op = OP_CVT, .a = 6.103515625e-05,
     .lesson = "the smallest normal f16 (6.1e-5)"},
    {.label = "half(1e-6)",    .op = OP_CVT, .a = 1e-6f,
     .lesson = "subnormal: spacing 6e-8, only 5 significant bits"},
    {.label = "half(2^-24)",   .op = OP_CVT, .a = 5.9604644775390625e-08,
     .lesson = "the smallest subnormal (6.0e-8)"},
    {.label = "half(1e-8)",    .op = OP_CVT, .a = 1e-8f,
     .lesson = "underflow to zero"},
    {.label = "0.001 * 0.001", .op = OP_MUL, .a = 1e-3f, .b = 1e-3f,
     .lesson = "a product of ordinary numbers is subnormal"},
    {.label = "2048 + 1",      .op = OP_ADD, .a = 2048.0, .b = 1.0,
     .lesson = "integers are exact only up to 2048"},
    {.label = "1 + 2^-11",     .op = OP_ADD, .a = 1.0, .b = 0.00048828125,
     .lesson = "a tie: rounds to even (1), eps is 2^-10"},
    {.label = "half(0.1)",     .op = OP_CVT, .a = 0.1f,
     .lesson = "0.1 is not exact: 3 decimal digits"},
};
// clang-format on

static uint16_t probe_expected(const probe *p)
{
    uint16_t a = tc_f32_to_f16((float)p->a), b = tc_f32_to_f16((float)p->b);
    double x = tc_f16_to_f32(a), y = tc_f16_to_f32(b);
    switch (p->op) {
    case OP_MUL: return tc_f64_to_f16(x * y); /* exact in double, then one rounding */
    case OP_ADD: return tc_f64_to_f16(x + y);
    default: return a;
    }
}

static double probe_exact(const probe *p)
{
    double x = tc_f16_to_f32(tc_f32_to_f16((float)p->a)),
           y = tc_f16_to_f32(tc_f32_to_f16((float)p->b));
    return p->op == OP_MUL ? x * y : p->op == OP_ADD ? x + y : p->a;
}

/* ---- small helpers --------------------------------------------------------------------------- */
static uint16_t *device_halves(long n)
{
    uint16_t *d = NULL;
    TC_CUDA_CHECK(cudaMalloc((void **)&d, (size_t)(n > 0 ? n : 1) * sizeof(uint16_t)));
    return d;
}

static void random_halves(uint16_t *h, long n, float lo, float hi, tc_rng *rng)
{
    for (long i = 0; i < n; i++) h[i] = tc_f32_to_f16(tc_rng_uniform(rng, lo, hi));
}

/* ---- the precision lesson -------------------------------------------------------------------- */
static int run_probes(int verbose, int *passed, int *failed)
{
    cudaStream_t stream;
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
    uint16_t *d_out = device_halves(HALF_N_PROBES), got[HALF_N_PROBES];
    half_probes_run(d_out, stream);
    TC_CUDA_CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
    TC_CUDA_CHECK(cudaFree(d_out));
    TC_CUDA_CHECK(cudaStreamDestroy(stream));
    int bad = 0;
    if (verbose)
        printf("FP16 range and rounding: each operation on the GPU, against one IEEE rounding of "
               "the exact result\n  %-14s %-14s %-14s %-6s %-5s %s\n",
               "operation", "exact", "f16 result", "bits", "check", "what it shows");
    for (int i = 0; i < HALF_N_PROBES; i++) {
        uint16_t want = probe_expected(&probes[i]);
        int ok = got[i] == want;
        bad += !ok;
        if (verbose)
            printf("  %-14s %-14.8g %-14.8g 0x%04x %-5s %s\n", probes[i].label,
                   probe_exact(&probes[i]), tc_f16_to_f32(got[i]), got[i], ok ? "ok" : "WRONG",
                   probes[i].lesson);
        else if (!ok)
            printf("    probe %s: GPU 0x%04x, host model 0x%04x\n", probes[i].label, got[i], want);
    }
    if (!verbose) {
        printf("%s probes %-31s %d operations bit-exact against the host model\n",
               bad ? "FAIL" : "PASS", "(range, subnormals, overflow)", HALF_N_PROBES - bad);
        *passed += !bad;
        *failed += !!bad;
    }
    return bad;
}

/* The host model of dot_serial: the same operations in the same order, rounded the same way. */
static void dot_model(long n, const uint16_t *x, const uint16_t *y, uint16_t *acc16, float *acc32,
                      double *exact)
{
    uint16_t a16 = 0;
    float a32 = 0.0f;
    double e = 0.0;
    for (long i = 0; i < n; i++) {
        float xf = tc_f16_to_f32(x[i]), yf = tc_f16_to_f32(y[i]);
        a16 = tc_f16_fma(x[i], y[i], a16);
        a32 = fmaf(xf, yf, a32); /* C's fmaf rounds once, like the GPU's FFMA */
        e += (double)xf * yf;    /* products exact; a double sum of <= 2^24 terms is close */
    }
    *acc16 = a16, *acc32 = a32, *exact = e;
}

static const long dot_lengths[] = {100, 1000, 10000, 100000, 1000000};
enum { N_DOT = sizeof dot_lengths / sizeof dot_lengths[0] };

static int run_dots(int verbose, uint64_t seed, int *passed, int *failed)
{
    const long n_max = dot_lengths[N_DOT - 1];
    uint16_t *h_x = (uint16_t *)tc_xmalloc((size_t)n_max * 2),
             *h_y = (uint16_t *)tc_xmalloc((size_t)n_max * 2);
    uint16_t *d_x = device_halves(n_max), *d_y = device_halves(n_max), *d_o16 = device_halves(1);
    float *d_o32 = NULL;
    TC_CUDA_CHECK(cudaMalloc((void **)&d_o32, sizeof(float)));
    cudaStream_t stream;
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
    int bad_total = 0;
    for (int dist = 0; dist < 2; dist++) {
        const float lo = dist == 0 ? 0.0f : -1.0f;
        tc_rng rng;
        tc_rng_seed(&rng, seed + (uint64_t)dist);
        random_halves(h_x, n_max, lo, 1.0f, &rng);
        random_halves(h_y, n_max, lo, 1.0f, &rng);
        TC_CUDA_CHECK(cudaMemcpy(d_x, h_x, (size_t)n_max * 2, cudaMemcpyHostToDevice));
        TC_CUDA_CHECK(cudaMemcpy(d_y, h_y, (size_t)n_max * 2, cudaMemcpyHostToDevice));
        if (verbose)
            printf("\nA dot product of n products of uniform [%g, 1) halves, summed in order on "
                   "one GPU thread\n  %-8s %-14s %-14s %-10s %-14s %-10s %s\n",
                   lo, "n", "exact", "f16 accum", "rel err", "f32 accum", "rel err", "check");
        int bad = 0;
        for (int i = 0; i < N_DOT; i++) {
            long n = dot_lengths[i];
            /* --test: the model is single-threaded; under the sanitizer only the short ones */
            if (!verbose && n > (getenv("TC_TEST_SMALL") ? 1000 : 100000)) continue;
            uint16_t g16, m16;
            float g32, m32;
            double exact;
            dot_serial_launch(n, d_x, d_y, d_o16, d_o32, stream);
            TC_LAUNCH_CHECK();
            TC_CUDA_CHECK(cudaStreamSynchronize(stream));
            TC_CUDA_CHECK(cudaMemcpy(&g16, d_o16, 2, cudaMemcpyDeviceToHost));
            TC_CUDA_CHECK(cudaMemcpy(&g32, d_o32, 4, cudaMemcpyDeviceToHost));
            dot_model(n, h_x, h_y, &m16, &m32, &exact);
            /* bit-exact: the same operations in the same order (a float compared by its bits) */
            int ok = g16 == m16 && tc_f32_bits(g32) == tc_f32_bits(m32);
            bad += !ok;
            if (verbose)
                printf("  %-8ld %-14.7g %-14.7g %-10.2e %-14.9g %-10.2e %s\n", n, exact,
                       tc_f16_to_f32(g16), fabs(tc_f16_to_f32(g16) - exact) / fabs(exact), g32,
                       fabs(g32 - exact) / fabs(exact), ok ? "ok" : "WRONG (host model differs)");
            else if (!ok)
                printf("    n=%ld [%g,1): GPU f16 0x%04x f32 %a, model 0x%04x %a\n", n, lo, g16,
                       g32, m16, m32);
        }
        if (!verbose) {
            printf("%s dot [%g,1) f16 and f32 accumulation   n = 100 .. %s, bit-exact against "
                   "the host model\n",
                   bad ? "FAIL" : "PASS", lo, getenv("TC_TEST_SMALL") ? "1000" : "100000");
            *passed += !bad;
            *failed += !!bad;
        }
        bad_total += bad;
    }
    TC_CUDA_CHECK(cudaStreamDestroy(stream));
    TC_CUDA_CHECK(cudaFree(d_x));
    TC_CUDA_CHECK(cudaFree(d_y));
    TC_CUDA_CHECK(cudaFree(d_o16));
    TC_CUDA_CHECK(cudaFree(d_o32));
    free(h_x);
    free(h_y);
    return bad_total;
}

/* ---- AXPY: correctness ----------------------------------------------------------------------- */
typedef struct {
    long n;
    uint16_t a;
    const uint16_t *x, *y0, *y;
    long bad, first_bad;
} axpy_check_ctx;

static void axpy_check_part(void *ctx, int tid, int nthreads)
{
    axpy_check_ctx *c = (axpy_check_ctx *)ctx;
    long lo = c->n * tid / nthreads, hi = c->n * (tid + 1) / nthreads, bad = 0, first = -1;
    for (long i = lo; i < hi; i++)
        if (c->y[i] != tc_f16_fma(c->a, c->x[i], c->y0[i])) {
            if (first < 0) first = i;
            bad++;
        }
    __atomic_add_fetch(&c->bad, bad, __ATOMIC_RELAXED);
    if (first >= 0) {
        long cur = __atomic_load_n(&c->first_bad, __ATOMIC_RELAXED);
        while ((cur < 0 || first < cur) &&
               !__atomic_compare_exchange_n(&c->first_bad, &cur, first, 0, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) {
        }
    }
}

/* Every element must equal one fma.rn.f16 of the inputs: an exact check. Returns bad count. */
static long axpy_check(long n, uint16_t a, const uint16_t *x, const uint16_t *y0, const uint16_t *y,
                       long *first_bad)
{
    axpy_check_ctx c = {n, a, x, y0, y, 0, -1};
    tc_parallel(axpy_check_part, &c);
    *first_bad = c.first_bad;
    return c.bad;
}

/* Runs every AXPY variant on lengths around the vector widths and on pointers misaligned the
 * same way and differently; y has guard elements before and after that must stay untouched. */
static void test_axpy(uint64_t seed, int *passed, int *failed)
{
    static const long lengths[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 1000, 65537, 1000003};
    /* TC_TEST_SMALL=1 (make sanitize): up to 65537 */
    const size_t n_lengths = sizeof lengths / sizeof lengths[0] - (getenv("TC_TEST_SMALL") ? 1 : 0);
    static const int offsets[][2] = {{0, 0}, {1, 1}, {3, 3}, {7, 7}, {1, 0}, {0, 5}};
    enum { GUARD = 64 };
    const long n_max = 1000003, total = n_max + 2 * GUARD;
    const uint16_t a = tc_f32_to_f16(AXPY_A);
    uint16_t *h_x = (uint16_t *)tc_xmalloc((size_t)total * 2);
    uint16_t *h_y0 = (uint16_t *)tc_xmalloc((size_t)total * 2);
    uint16_t *h_y = (uint16_t *)tc_xmalloc((size_t)total * 2);
    uint16_t *d_x = device_halves(total), *d_y = device_halves(total);
    tc_rng rng;
    tc_rng_seed(&rng, seed);
    random_halves(h_x, total, -1.0f, 1.0f, &rng);
    random_halves(h_y0, total, -1.0f, 1.0f, &rng);
    TC_CUDA_CHECK(cudaMemcpy(d_x, h_x, (size_t)total * 2, cudaMemcpyHostToDevice));
    for (int v = 1; v < N_VARIANTS; v++) {
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
            const int ox = GUARD + offsets[o][0], oy = GUARD + offsets[o][1];
            long bad = 0, first = -1, bad_n = 0, guard_bad = 0;
            for (size_t li = 0; li < n_lengths && !bad; li++) {
                const long n = lengths[li];
                TC_CUDA_CHECK(cudaMemcpy(d_y, h_y0, (size_t)total * 2, cudaMemcpyHostToDevice));
                variants[v].launch(n, a, d_x + ox, d_y + oy, 0);
                TC_LAUNCH_CHECK();
                TC_CUDA_CHECK(cudaMemcpy(h_y, d_y, (size_t)total * 2, cudaMemcpyDeviceToHost));
                bad = axpy_check(n, a, h_x + ox, h_y0 + oy, h_y + oy, &first);
                for (long i = 0; i < total; i++) /* outside [oy, oy + n): untouched */
                    if ((i < oy || i >= oy + n) && h_y[i] != h_y0[i]) guard_bad++;
                bad += guard_bad;
                bad_n = n;
            }
            const int ok = bad == 0;
            char what[64];
            snprintf(what, sizeof what, "x+%d y+%d", offsets[o][0], offsets[o][1]);
            printf("%s %-10s %-12s n = 1 .. %ld (%zu lengths), exact", ok ? "PASS" : "FAIL",
                   variants[v].name, what, lengths[n_lengths - 1], n_lengths);
            if (!ok)
                printf(": n=%ld: %ld wrong (first at %ld), %ld guard elements written", bad_n,
                       bad - guard_bad, first, guard_bad);
            printf("\n");
            *passed += ok;
            *failed += !ok;
        }
    }
    TC_CUDA_CHECK(cudaFree(d_x));
    TC_CUDA_CHECK(cudaFree(d_y));
    free(h_x);
    free(h_y0);
    free(h_y);
}

/* ---- AXPY: timing ---------------------------------------------------------------------------- */
typedef struct {
    const axpy_variant *v;
    long n;
    uint16_t a;
    const uint16_t *x;
    uint16_t *y;
} axpy_launch_ctx;

static void axpy_launch(void *ctx, cudaStream_t stream)
{
    axpy_launch_ctx *c = (axpy_launch_ctx *)ctx;
    if (c->v->launch)
        c->v->launch(c->n, c->a, c->x, c->y, stream);
    else
        TC_CUDA_CHECK(
            cudaMemcpyAsync(c->y, c->x, (size_t)c->n * 2, cudaMemcpyDeviceToDevice, stream));
    TC_LAUNCH_CHECK();
}

typedef struct {
    int ran, pass;
    tc_timing t;
    double gbs;
} axpy_result;

static void time_axpy(const axpy_variant *v, long n, const tc_args *args, uint16_t *d_x,
                      uint16_t *d_y, const uint16_t *h_x, const uint16_t *h_y0, uint16_t *h_y,
                      axpy_result *r)
{
    const uint16_t a = tc_f32_to_f16(AXPY_A);
    cudaStream_t stream;
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
    TC_CUDA_CHECK(cudaMemcpy(d_y, h_y0, (size_t)n * 2, cudaMemcpyHostToDevice));
    axpy_launch_ctx c = {v, n, a, d_x, d_y};
    axpy_launch(&c, stream);
    TC_CUDA_CHECK(cudaStreamSynchronize(stream));
    TC_CUDA_CHECK(cudaMemcpy(h_y, d_y, (size_t)n * 2, cudaMemcpyDeviceToHost));
    long first;
    r->pass = v->launch ? axpy_check(n, a, h_x, h_y0, h_y, &first) == 0
                        : memcmp(h_x, h_y, (size_t)n * 2) == 0;
    /* y changes every repetition (y += a*x); the time does not depend on the values */
    r->t = tc_time_gpu(axpy_launch, &c, stream, args->warmup, args->reps);
    /* bytes that cross the memory bus: AXPY reads x and y and writes y; a copy reads and writes */
    const double bytes = (v->launch ? 3.0 : 2.0) * 2.0 * (double)n;
    r->gbs = bytes / (r->t.ms_median * 1e-3) / 1e9;
    r->ran = 1;
    TC_CUDA_CHECK(cudaStreamDestroy(stream));
}

static int run_axpy_table(const tc_args *args, const tc_device_info *dev, long n, FILE *info,
                          FILE *csv)
{
    const size_t bytes = (size_t)n * 2;
    uint16_t *h_x = (uint16_t *)tc_xmalloc(bytes), *h_y0 = (uint16_t *)tc_xmalloc(bytes),
             *h_y = (uint16_t *)tc_xmalloc(bytes);
    tc_rng rng;
    tc_rng_seed(&rng, args->seed);
    random_halves(h_x, n, -1.0f, 1.0f, &rng);
    random_halves(h_y0, n, -1.0f, 1.0f, &rng);
    uint16_t *d_x = device_halves(n), *d_y = device_halves(n);
    TC_CUDA_CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    axpy_result res[N_VARIANTS];
    memset(res, 0, sizeof res);
    fprintf(info,
            "\nAXPY y = a*x + y in f16, n = %ld (%.0f MiB per array), median of %d runs after %d "
            "warm-up, L2 flushed before each\n  %-11s %9s %9s %9s %8s %-5s %s\n",
            n, bytes / 1048576.0, args->reps, args->warmup, "variant", "ms(med)", "ms(min)", "GB/s",
            "vs copy", "check", "description");
    int failed = 0;
    for (int v = 0; v < N_VARIANTS; v++) {
        /* the copy always runs: every row is a percentage of it */
        if (v > 0 && args->variant && strcmp(args->variant, "all") != 0 &&
            strcmp(args->variant, variants[v].name) != 0)
            continue;
        time_axpy(&variants[v], n, args, d_x, d_y, h_x, h_y0, h_y, &res[v]);
        const double pct = 100.0 * res[v].gbs / res[0].gbs;
        failed += !res[v].pass;
        fprintf(info, "  %-11s %9.3f %9.3f %9.0f %7.1f%% %-5s %s\n", variants[v].name,
                res[v].t.ms_median, res[v].t.ms_min, res[v].gbs, pct, res[v].pass ? "PASS" : "FAIL",
                variants[v].description);
        if (csv) {
            tc_bench_row row;
            memset(&row, 0, sizeof row);
            row.chapter = PROGRAM;
            row.variant = variants[v].name;
            row.problem = "FP16 AXPY";
            row.precision = "f16";
            snprintf(row.size, sizeof row.size, "n=%ld", n);
            row.ms_median = res[v].t.ms_median;
            row.ms_min = res[v].t.ms_min;
            row.rate = res[v].gbs;
            row.unit = "GB/s";
            row.baseline = variants[0].name;
            row.pct_of_baseline = pct;
            row.verified = res[v].pass;
            tc_bench_csv_write(csv, &row, dev);
        }
    }
    fprintf(info, "\nGB/s: bytes read + written per second (AXPY 6 bytes per element, copy 4); "
                  "check: every element equals one fma.rn.f16 of its inputs\n");
    TC_CUDA_CHECK(cudaFree(d_x));
    TC_CUDA_CHECK(cudaFree(d_y));
    free(h_x);
    free(h_y0);
    free(h_y);
    return failed;
}

/* ---- command line and modes -------------------------------------------------------------------
 */
static const tc_cli_flag flags[] = {
    {.name = "--n", .metavar = "N", .help = "AXPY length in halves, 1..2^33 (default 2^28 + 1)"},
};
static long axpy_n = DEFAULT_N; /* --n */

static void print_list(void)
{
    printf("%s - f16 AXPY variants (the bandwidth ladder) and the precision lesson\n\n", PROGRAM);
    printf("%-11s %s\n", "variant", "description");
    for (int v = 0; v < N_VARIANTS; v++)
        printf("%-11s %s\n", variants[v].name, variants[v].description);
    printf("\nprecision probes (run by default and by --test):\n");
    for (int i = 0; i < HALF_N_PROBES; i++)
        printf("  %-14s %s\n", probes[i].label, probes[i].lesson);
}

static void check_args(const tc_args *a)
{
    if (a->flag_values[0]) {
        if (a->mode == TC_MODE_TEST)
            tc_usage_error(PROGRAM, "--test runs its own lengths; drop --n");
        axpy_n = tc_parse_long(PROGRAM, "--n", a->flag_values[0], 1, MAX_N);
    }
    /* host: x, y as uploaded, y as read back */
    double host = (double)tc_host_memory_bytes(), need_host = 6.0 * (double)axpy_n;
    if (a->mode != TC_MODE_TEST && host > 0 && need_host > host)
        tc_usage_error(PROGRAM, "--n %ld needs %.1f GiB of host memory; this machine has %.1f GiB",
                       axpy_n, need_host / (1 << 30), host / (1 << 30));
}

static void check_device(const tc_args *a, const tc_device_info *dev)
{
    if (a->mode != TC_MODE_TEST &&
        4.0 * (double)axpy_n + 2.0 * dev->l2_bytes > (double)dev->mem_free)
        tc_usage_error(PROGRAM, "--n %ld needs %.1f GiB of GPU memory; %s has %.1f GiB free",
                       axpy_n, 4.0 * (double)axpy_n / (1 << 30), dev->name,
                       (double)dev->mem_free / (1 << 30));
}

/* --test: the probes and dot products bit-exact, every AXPY variant on odd lengths, exact */
static int mode_test(const tc_args *a, const tc_device_info *dev)
{
    int passed = 0, failed = 0;
    run_probes(0, &passed, &failed);
    run_dots(0, a->seed, &passed, &failed);
    test_axpy(a->seed, &passed, &failed);
    return tc_test_finish(PROGRAM, passed, failed, 0);
}

/* default mode: the precision lesson first (the AXPY table follows) */
static int lesson(const tc_args *a, const tc_device_info *dev)
{
    int passed = 0, failed = 0;
    return run_probes(1, &passed, &failed) + run_dots(1, a->seed, &passed, &failed);
}

/* default mode and --bench: the AXPY table */
static int measure(const tc_args *a, const tc_device_info *dev, FILE *info, FILE *csv)
{
    return run_axpy_table(a, dev, axpy_n, info, csv) ? TC_EXIT_WRONG : TC_EXIT_PASS;
}

int main(int argc, char **argv)
{
    static const tc_program program = {
        .cli = {.program = PROGRAM,
                .summary =
                    "half and half2: an f16 AXPY at the copy bandwidth, and what f16 can hold",
                TC_VARIANT_TABLE(variants),
                .default_reps = 20,
                .default_warmup = 3,
                .flags = flags,
                .n_flags = TC_COUNT(flags)},
        .min_cc = 70,
        .list = print_list,
        .check_args = check_args,
        .check_device = check_device,
        .test = mode_test,
        .measure = measure,
        .default_tests = lesson,
    };
    return tc_program_main(argc, argv, &program);
}
