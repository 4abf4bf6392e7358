/* 07_int8_dp4a/correlator.c - the host driver of 07_correlator: the X-engine of a radio
 * interferometer (kernels in correlator.cu, layouts and index formulas in correlator.h).
 *
 * It makes random complex int8 voltages from a printed seed in the plain layout
 * x[channel][time][station][pol][re, im], packs them into the GPU layout (correlator.h), runs
 * each implementation, checks every visibility it compares against an int64 CPU reference
 * exactly, and times it. The output is poisoned (bytes 0x80) before every checked run, a guard
 * after it must stay poisoned, and the whole output is scanned for values left unwritten.
 *
 * Build and run
 *   make && build/bin/07_correlator                  # 256 stations x 2 pols, 128 channels, 1024
 *                                                    # samples: verify, time, print the table
 *   build/bin/07_correlator --test                   # every implementation on the test list, exact
 *   build/bin/07_correlator --stations 64 --channels 16 --time 4000 --variant dp4a
 *   build/bin/07_correlator --bench --csv corr.csv   # CSV rows (TOP/s, % of fp32, same run)
 *   build/bin/07_correlator --list                   # the implementations
 *
 * Operations are counted as 8 per complex multiply-add (4 multiplies, 4 adds), for the useful
 * work only: 8 * channels * T * 4 * S(S+1)/2 (the diagonal tiles' redundant upper halves and the
 * zero padding of the last time block are not counted). */
#include "correlator.h"

#include "check.h"
#include "convert.h"
#include "harness.h"
#include "program.h"
#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "07_correlator"

enum {
    DEFAULT_STATIONS = 256,
    DEFAULT_CHANNELS = 128,
    DEFAULT_TIME = 1024,
    GUARD_WORDS = 64,     /* int32 after the visibilities that nothing may write */
    SAMPLE_RANDOM = 4096, /* random visibilities checked on top of three full channels */
    FP32_EXACT = 1 << 24  /* integers up to 2^24 are exact in f32 */
};
/* full check when channels * baselines * T (complex products per polarisation pair) is at most
 * this; above it three whole channels and SAMPLE_RANDOM random visibilities */
#define FULL_CHECK_LIMIT 2.0e9

/* ---- the implementations (the table --list, --variant, --test and --bench use) --------------- */
typedef struct {
    const char *name, *description, *precision;
    int min_cc;
    corr_launch_fn launch;
} corr_variant;

static const corr_variant variants[CORR_N_IMPL] = {
    [CORR_FP32] = {.name = "fp32",
                   .precision = "i8f32",
                   .min_cc = 75,
                   .launch = corr_fp32_launch,
                   .description = "FP32 FFMA on CUDA cores, int8 -> float in shared memory, 4x4 "
                                  "receivers/thread"},
    [CORR_DP4A] = {.name = "dp4a",
                   .precision = "i8i32",
                   .min_cc = 75,
                   .launch = corr_dp4a_launch,
                   .description = "__dp4a on (re,im,re,im) words, one's complement for the "
                                  "conjugate, 4x4/thread"},
    [CORR_IMMA] = {.name = "imma",
                   .precision = "i8i32",
                   .min_cc = 80,
                   .launch = corr_imma_launch,
                   .description = "mma.sync m16n8k32 s8: Re=XrXr'+XiXi', Im=XiXr'-XrXi'; cp.async "
                                  "x4, 32x32/warp"},
};

/* ---- inputs ---------------------------------------------------------------------------------- */
typedef enum { DIST_UNIFORM, DIST_EXTREME, DIST_MIN } corr_dist;
static const char *const dist_names[] = {"uniform int8", "edge values", "all -128"};

/* n int8 values: uniform on [-128, 127] (8 per random word), edge values (-128 and 127 often,
 * -127, -1, 0, 1), or all -128 */
static void make_input(int8_t *x, size_t n, corr_dist dist, uint64_t seed)
{
    static const int8_t edges[8] = {-128, -128, -128, 127, 127, -127, -1, 1};
    tc_rng rng;
    tc_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = tc_rng_next_u64(&rng);
        for (size_t k = i; k < i + 8 && k < n; k++, w >>= 8) {
            if (dist == DIST_UNIFORM)
                x[k] = (int8_t)(uint8_t)(w & 0xFF);
            else if (dist == DIST_EXTREME)
                x[k] = (w & 0xF0) == 0 ? 0 : edges[w & 7];
            else
                x[k] = -128;
        }
    }
}

/* ---- the reference on a list of visibilities ------------------------------------------------- */
typedef struct {
    long c, b; /* channel, baseline */
} corr_item;

typedef struct {
    const int8_t *plain;
    long S, T;
    const corr_item *items;
    long n;
    int64_t *ref, *bound; /* 8 per item */
    float *fp32;          /* 8 per item: the FP32 kernel's result, where a bound passes 2^24 */
} ref_ctx;

static void ref_part(void *ctx, int tid, int nthreads)
{
    ref_ctx *r = (ref_ctx *)ctx;
    for (long k = tid; k < r->n; k += nthreads) {
        long i, j;
        corr_baseline_stations(r->items[k].b, &i, &j);
        corr_ref_baseline(r->plain, r->S, r->T, r->items[k].c, i, j, r->ref + 8 * k,
                          r->bound + 8 * k);
        int past = 0; /* below 2^24 everywhere, the FP32 result is the exact one */
        for (int e = 0; e < 8; e++) past |= r->bound[8 * k + e] > FP32_EXACT;
        if (past) corr_fp32_emulate(r->plain, r->S, r->T, r->items[k].c, i, j, r->fp32 + 8 * k);
    }
}

/* every visibility, or three whole channels (0, C/2, C-1) and SAMPLE_RANDOM random ones */
static corr_item *make_items(long S, long C, long T, uint64_t seed, long *n, int *full)
{
    const long nbl = corr_baselines(S);
    *full = (double)C * (double)nbl * (double)T <= FULL_CHECK_LIMIT;
    const long chans[3] = {0, C / 2, C - 1},
               n_ch = *full ? C : (C >= 3 ? 3 : C); /* C/2 = 1 if C = 2 */
    *n = n_ch * nbl + (*full ? 0 : SAMPLE_RANDOM);
    corr_item *it = (corr_item *)tc_xmalloc((size_t)*n * sizeof *it);
    long k = 0;
    for (long ci = 0; ci < n_ch; ci++)
        for (long b = 0; b < nbl; b++) it[k++] = (corr_item){*full ? ci : chans[ci], b};
    tc_rng rng;
    tc_rng_seed(&rng, seed ^ 0x5eed5eedULL);
    while (k < *n) {
        it[k].c = (long)(tc_rng_next_u64(&rng) % (uint64_t)C);
        it[k].b = (long)(tc_rng_next_u64(&rng) % (uint64_t)nbl);
        k++;
    }
    return it;
}

/* ---- the check ------------------------------------------------------------------------------- */
typedef struct {
    long checked;     /* int32 values compared with the reference */
    long wrong;       /* differing (fp32 past 2^24: from the emulation of its FFMA chain) */
    long unwritten;   /* values in the whole output still holding the poison */
    long guard;       /* guard words after the output that changed */
    long inexact;     /* fp32 values whose partial sums may pass 2^24 (checked bit for bit
                         against the emulation of the kernel's FFMA chain) */
    long inexact_hit; /* ... of which exact all the same */
    int64_t max_bound;
    double max_err, max_allowed; /* over the inexact values */
    double sum_err2, sum_ref2;   /* over all checked values: the relative Frobenius error */
    int have_first;
    long c, i, j;
    int p, q, im;
    int64_t got, want;
} corr_check;

static int check_pass(const corr_check *k)
{
    return k->wrong == 0 && k->unwritten == 0 && k->guard == 0;
}

/* u * n / (1 - u * n), u = 2^-24: the rounding bound of n float additions of exact products */
static double fp32_gamma(long n)
{
    const double nu = (double)n * ldexp(1.0, -24);
    return nu / (1.0 - nu);
}

/* the kernel's __float2int_rn: to nearest, saturating at the int32 limits */
static int64_t float_to_i32_rn(float f)
{
    if (f >= 2147483648.0f) return INT32_MAX;
    if (f <= -2147483648.0f) return INT32_MIN;
    return (int64_t)llrintf(f);
}

static corr_check check_vis(const int32_t *vis, size_t n_vis, const corr_item *items, long n_items,
                            const int64_t *ref, const int64_t *bound, const float *emulated, long S,
                            long T, int fp32)
{
    corr_check k;
    memset(&k, 0, sizeof k);
    const long nbl = corr_baselines(S);
    int32_t poison;
    memset(&poison, tc_poison_byte(TC_I32), sizeof poison);
    for (size_t e = 0; e < n_vis; e++) k.unwritten += vis[e] == poison;
    for (size_t e = n_vis; e < n_vis + GUARD_WORDS; e++) k.guard += vis[e] != poison;
    for (long it = 0; it < n_items; it++)
        for (int e = 0; e < 8; e++) {
            const int p = e / 4, q = e / 2 % 2, im = e % 2;
            const int64_t got = vis[corr_vis_index(nbl, items[it].c, items[it].b, p, q) + im];
            const int64_t want = ref[8 * it + e], bnd = bound[8 * it + e];
            int ok = got == want;
            if (bnd > k.max_bound) k.max_bound = bnd;
            if (fp32 && bnd > FP32_EXACT) {
                /* not exact in f32: the kernel's FFMA chain is known, so its result is too (and
                 * it lies within the rounding bound of the exact sum, which is reported) */
                const double err = fabs((double)got - (double)want);
                const double allowed = fp32_gamma(2 * T) * (double)bnd;
                ok = got == float_to_i32_rn(emulated[8 * it + e]) && err <= allowed;
                k.inexact++;
                k.inexact_hit += got == want;
                if (err > k.max_err) k.max_err = err;
                if (allowed > k.max_allowed) k.max_allowed = allowed;
            }
            k.checked++;
            k.sum_err2 += ((double)got - (double)want) * ((double)got - (double)want);
            k.sum_ref2 += (double)want * (double)want;
            if (!ok) {
                k.wrong++;
                if (!k.have_first) {
                    k.have_first = 1;
                    k.c = items[it].c;
                    corr_baseline_stations(items[it].b, &k.i, &k.j);
                    k.p = p, k.q = q, k.im = im, k.got = got, k.want = want;
                }
            }
        }
    return k;
}

static void print_check(const corr_check *k, int fp32, FILE *f)
{
    if (check_pass(k)) {
        if (k->checked > k->inexact) fprintf(f, "%ld values exact", k->checked - k->inexact);
        if (k->inexact)
            fprintf(f,
                    "%s%ld values with partial-sum bounds past 2^24 equal to the emulation of the "
                    "kernel's FFMA chain (%ld of them exact; max err %.0f, rounding bound %.0f)",
                    k->checked > k->inexact ? ", " : "", k->inexact, k->inexact_hit, k->max_err,
                    k->max_allowed);
        else if (fp32)
            fprintf(f, " (every partial sum <= %.3g < 2^24)", (double)k->max_bound);
        return;
    }
    fprintf(f, "%ld of %ld values wrong, %ld unwritten, %ld guard words written", k->wrong,
            k->checked, k->unwritten, k->guard);
    if (k->have_first)
        fprintf(f, "; first: channel %ld baseline (%ld,%ld) pols (%d,%d) %s = %lld, want %lld",
                k->c, k->i, k->j, k->p, k->q, k->im ? "Im" : "Re", (long long)k->got,
                (long long)k->want);
}

/* ---- one problem on the GPU ------------------------------------------------------------------ */
typedef struct {
    long S, C, T, ntb;
    size_t packed_bytes, n_vis;
    int8_t *plain, *packed; /* host */
    int32_t *vis;           /* host copy of the output, n_vis + GUARD_WORDS */
    int8_t *d_x;
    int32_t *d_vis;
    corr_item *items;
    long n_items;
    int full;
    int64_t *ref, *bound;
    float *fp32; /* the FP32 kernel's result where a bound passes 2^24 (corr_fp32_emulate) */
} corr_problem;

static void problem_make(corr_problem *pr, long S, long C, long T, corr_dist dist, uint64_t seed)
{
    memset(pr, 0, sizeof *pr);
    pr->S = S, pr->C = C, pr->T = T, pr->ntb = corr_time_blocks(T);
    const size_t n_plain = (size_t)C * (size_t)T * (size_t)S * 4;
    pr->packed_bytes = corr_packed_bytes(S, C, T);
    pr->n_vis = corr_vis_count(S, C);
    pr->plain = (int8_t *)tc_xmalloc(n_plain);
    pr->packed = (int8_t *)tc_xmalloc(pr->packed_bytes);
    pr->vis = (int32_t *)tc_xmalloc((pr->n_vis + GUARD_WORDS) * sizeof(int32_t));
    make_input(pr->plain, n_plain, dist, seed);
    corr_pack(pr->plain, pr->packed, S, C, T);
    TC_CUDA_CHECK(cudaMalloc((void **)&pr->d_x, pr->packed_bytes));
    TC_CUDA_CHECK(cudaMalloc((void **)&pr->d_vis, (pr->n_vis + GUARD_WORDS) * sizeof(int32_t)));
    TC_CUDA_CHECK(cudaMemcpy(pr->d_x, pr->packed, pr->packed_bytes, cudaMemcpyHostToDevice));
    pr->items = make_items(S, C, T, seed, &pr->n_items, &pr->full);
    pr->ref = (int64_t *)tc_xmalloc((size_t)pr->n_items * 8 * sizeof(int64_t));
    pr->bound = (int64_t *)tc_xmalloc((size_t)pr->n_items * 8 * sizeof(int64_t));
    pr->fp32 = (float *)tc_xmalloc((size_t)pr->n_items * 8 * sizeof(float));
    ref_ctx rc = {pr->plain, S, T, pr->items, pr->n_items, pr->ref, pr->bound, pr->fp32};
    tc_parallel(ref_part, &rc);
}

static void problem_free(corr_problem *pr)
{
    TC_CUDA_CHECK(cudaFree(pr->d_x));
    TC_CUDA_CHECK(cudaFree(pr->d_vis));
    free(pr->plain);
    free(pr->packed);
    free(pr->vis);
    free(pr->items);
    free(pr->ref);
    free(pr->bound);
    free(pr->fp32);
}

typedef struct {
    corr_launch_fn launch;
    const corr_problem *pr;
} run_ctx;

static void run_launch(void *ctx, cudaStream_t stream)
{
    const run_ctx *r = (const run_ctx *)ctx;
    r->launch(r->pr->d_x, r->pr->d_vis, (int)r->pr->S, (int)r->pr->C, (int)r->pr->ntb, stream);
    TC_LAUNCH_CHECK();
}

/* poison the output and the guard, run once, fetch, check */
static corr_check run_checked(int impl, corr_problem *pr, cudaStream_t stream)
{
    const size_t bytes = (pr->n_vis + GUARD_WORDS) * sizeof(int32_t);
    TC_CUDA_CHECK(cudaMemsetAsync(pr->d_vis, tc_poison_byte(TC_I32), bytes, stream));
    run_ctx rc = {variants[impl].launch, pr};
    tc_poison_shared_memory(stream); /* a stage read before it is written shows */
    run_launch(&rc, stream);
    TC_CUDA_CHECK(cudaStreamSynchronize(stream));
    TC_CUDA_CHECK(cudaMemcpy(pr->vis, pr->d_vis, bytes, cudaMemcpyDeviceToHost));
    return check_vis(pr->vis, pr->n_vis, pr->items, pr->n_items, pr->ref, pr->bound, pr->fp32,
                     pr->S, pr->T, impl == CORR_FP32);
}

/* 1 if impl can run here; else 0 with the reason */
static int impl_available(int impl, const tc_device_info *dev, char *why, size_t why_size)
{
    if (dev->cc < variants[impl].min_cc) {
        snprintf(why, why_size, "needs sm_%d, this GPU is sm_%d", variants[impl].min_cc, dev->cc);
        return 0;
    }
    return corr_impl_runnable(impl, why, why_size);
}

static int wanted(const tc_args *a, int impl)
{
    return !a->variant || strcmp(a->variant, "all") == 0 ||
           strcmp(a->variant, variants[impl].name) == 0;
}

static double ops_per_run(long S, long C, long T)
{
    return 8.0 * (double)C * (double)T * 4.0 * (double)corr_baselines(S);
}

/* ---- --test ---------------------------------------------------------------------------------- */
typedef struct {
    long S, C, T;
    corr_dist dist;
    int large; /* left out under TC_TEST_SMALL (make sanitize: long under racecheck) */
    const char *what;
} corr_case;

static const corr_case test_cases[] = {
    {1, 1, 1, DIST_UNIFORM, 0, "one station, one sample"},
    {1, 2, 33, DIST_UNIFORM, 0, "autocorrelations only; one block + 1 sample"},
    {3, 1, 31, DIST_UNIFORM, 0, "T below one block, not a multiple of 4"},
    {2, 3, 5, DIST_EXTREME, 0, "edge values, tiny"},
    {17, 3, 65, DIST_UNIFORM, 0, "odd S inside one tile; T = 2 blocks + 1"},
    {32, 2, 64, DIST_UNIFORM, 0, "exactly one tile, whole blocks"},
    {33, 2, 97, DIST_UNIFORM, 0, "one station into a second tile row"},
    {65, 2, 1000, DIST_UNIFORM, 0, "three tile rows (six tiles), T % 32 = 8"},
    {100, 3, 129, DIST_EXTREME, 0, "int8 edge values -128, -127, 127, 0, +-1"},
    {256, 8, 1024, DIST_UNIFORM, 1, "medium: 36 tiles per channel"},
    {5, 1, 4096, DIST_UNIFORM, 0, "autocorrelations past 2^24: fp32 equals its emulation"},
    {2, 1, CORR_MAX_T, DIST_MIN, 1, "all -128 at T = 65535: Re = 2^31 - 2^15, the int32 limit"},
};
enum { N_CASES = sizeof test_cases / sizeof test_cases[0] };

static int mode_test(const tc_args *a, const tc_device_info *dev)
{
    int passed = 0, failed = 0, skipped = 0;
    const int small = getenv("TC_TEST_SMALL") != NULL;
    cudaStream_t stream;
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
    for (int ci = 0; ci < N_CASES; ci++) {
        const corr_case *tc = &test_cases[ci];
        if (small && tc->large) continue;
        corr_problem pr;
        problem_make(&pr, tc->S, tc->C, tc->T, tc->dist, a->seed + 1000u * (uint64_t)ci);
        char size[64];
        snprintf(size, sizeof size, "%ldst x %ldch x %ldt", tc->S, tc->C, tc->T);
        for (int impl = 0; impl < CORR_N_IMPL; impl++) {
            if (!wanted(a, impl)) continue;
            char why[256];
            if (!impl_available(impl, dev, why, sizeof why)) {
                printf("SKIP %-5s %-22s %s\n", variants[impl].name, size, why);
                skipped++;
                continue;
            }
            const corr_check k = run_checked(impl, &pr, stream);
            const int ok = check_pass(&k);
            printf("%s %-5s %-22s ", ok ? "PASS" : "FAIL", variants[impl].name, size);
            print_check(&k, impl == CORR_FP32, stdout);
            printf(" [%s; %s]\n", tc->what, dist_names[tc->dist]);
            fflush(stdout);
            passed += ok;
            failed += !ok;
        }
        problem_free(&pr);
    }
    TC_CUDA_CHECK(cudaStreamDestroy(stream));
    return tc_test_finish(PROGRAM, passed, failed, skipped);
}

/* ---- default run and --bench ----------------------------------------------------------------- */
/* What check_args makes of --stations, --channels and --time, for the modes */
static struct {
    long S, C, T;
} opts = {.S = DEFAULT_STATIONS, .C = DEFAULT_CHANNELS, .T = DEFAULT_TIME};

static int mode_measure(const tc_args *a, const tc_device_info *dev, FILE *info, FILE *csv)
{
    const long S = opts.S, C = opts.C, T = opts.T;
    corr_problem pr;
    fprintf(info,
            "problem   : %ld stations x 2 pols (%ld receivers), %ld baselines with "
            "autocorrelations, %ld channels, %ld samples (%ld blocks of %d)\n",
            S, 2 * S, corr_baselines(S), C, T, corr_time_blocks(T), CORR_TB);
    problem_make(&pr, S, C, T, DIST_UNIFORM, a->seed);
    const double ops = ops_per_run(S, C, T);
    fprintf(info,
            "data      : %.1f MiB packed int8 in, %.1f MiB int32 visibilities out; %.1f G ops per "
            "run (8 per complex multiply-add)\n",
            (double)pr.packed_bytes / 1048576.0, (double)pr.n_vis * 4 / 1048576.0, ops / 1e9);
    fprintf(info,
            "inputs    : uniform int8 re and im, seed %llu; checked against an int64 CPU "
            "reference: %s\n",
            (unsigned long long)a->seed,
            pr.full ? "every visibility"
                    : "channels 0, C/2, C-1 in full and 4096 random visibilities");
    fprintf(info, "timing    : median of %d runs after %d warm-up, L2 flushed before each\n\n",
            a->reps, a->warmup);
    fprintf(info, "%-5s %-6s %9s %9s %9s %8s %5s  %-5s %s\n", "impl", "prec", "ms(med)", "ms(min)",
            "TOP/s", "vs fp32", "regs", "check", "description");
    cudaStream_t stream;
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
    double rate[CORR_N_IMPL] = {0};
    int failed = 0;
    char size[64];
    snprintf(size, sizeof size, "%ldst_%ldch_%ldt", S, C, T);
    for (int impl = 0; impl < CORR_N_IMPL; impl++) {
        if (impl != CORR_FP32 && !wanted(a, impl)) continue; /* fp32: the baseline, always */
        const corr_variant *v = &variants[impl];
        char why[256];
        if (!impl_available(impl, dev, why, sizeof why)) {
            fprintf(info, "%-5s %-6s skipped: %s\n", v->name, v->precision, why);
            continue;
        }
        const corr_check k = run_checked(impl, &pr, stream);
        const int ok = check_pass(&k);
        failed += !ok;
        run_ctx rc = {v->launch, &pr};
        const tc_timing t = tc_time_gpu(run_launch, &rc, stream, a->warmup, a->reps);
        rate[impl] = ops / (t.ms_median * 1e-3) / 1e12;
        const double pct = rate[CORR_FP32] > 0 ? 100.0 * rate[impl] / rate[CORR_FP32] : 0;
        int regs, smem, threads;
        corr_impl_resources(impl, &regs, &smem, &threads);
        fprintf(info, "%-5s %-6s %9.3f %9.3f %9.1f %7.2fx %5d  %-5s %s\n", v->name, v->precision,
                t.ms_median, t.ms_min, rate[impl], pct / 100.0, regs, ok ? "PASS" : "FAIL",
                v->description);
        fprintf(info, "      check: ");
        print_check(&k, impl == CORR_FP32, info);
        fprintf(info, "\n");
        fflush(info);
        if (csv) {
            tc_bench_row row;
            memset(&row, 0, sizeof row);
            row.chapter = PROGRAM;
            row.variant = v->name;
            row.problem = "Correlator";
            row.precision = v->precision;
            snprintf(row.size, sizeof row.size, "%s", size);
            row.ms_median = t.ms_median;
            row.ms_min = t.ms_min;
            row.rate = rate[impl];
            row.unit = "TOP/s";
            row.baseline = variants[CORR_FP32].name;
            row.pct_of_baseline = pct;
            row.verified = ok;
            row.has_rel_err = k.checked > 0 && k.sum_ref2 > 0;
            row.rel_err = row.has_rel_err ? sqrt(k.sum_err2 / k.sum_ref2) : 0;
            tc_bench_csv_write(csv, &row, dev);
        }
    }
    if (rate[CORR_DP4A] > 0 && rate[CORR_IMMA] > 0)
        fprintf(info, "\nspeedups  : dp4a %.2fx fp32, imma %.2fx dp4a, imma %.2fx fp32\n",
                rate[CORR_DP4A] / rate[CORR_FP32], rate[CORR_IMMA] / rate[CORR_DP4A],
                rate[CORR_IMMA] / rate[CORR_FP32]);
    fprintf(info,
            "\nTOP/s: 8 ops per complex multiply-add of the %ld x 4 polarisation pairs per "
            "channel and sample; regs: registers per thread\n",
            corr_baselines(S));
    TC_CUDA_CHECK(cudaStreamDestroy(stream));
    problem_free(&pr);
    return failed ? TC_EXIT_WRONG : TC_EXIT_PASS;
}

/* ---- command line ---------------------------------------------------------------------------- */
static const tc_cli_flag flags[] = {
    {.name = "--stations",
     .metavar = "N",
     .help = "stations, 1..8192 (default 256); two polarisations each"},
    {.name = "--channels", .metavar = "C", .help = "frequency channels, 1..65535 (default 128)"},
    {.name = "--time",
     .metavar = "T",
     .help = "samples per integration, 1..65535 (default 1024; int32 exact up to 65535)"},
};
enum { N_FLAGS = sizeof flags / sizeof flags[0] };

static void print_list(void)
{
    printf("%s - the X-engine of a radio interferometer in 8-bit integers: for every channel,\n"
           "station pair i >= j and polarisation pair, V = sum over time of x_i conj(x_j)\n\n",
           PROGRAM);
    printf("%-5s %-6s %-6s %-5s %s\n", "impl", "prec", "min_sm", "sizes", "description");
    for (int i = 0; i < CORR_N_IMPL; i++)
        printf("%-5s %-6s sm_%-3d %-5s %s\n", variants[i].name, variants[i].precision,
               variants[i].min_cc, "any", variants[i].description);
    printf("\nsizes: any stations, channels and T <= 65535 (the packed layout pads the last block "
           "of 32\nsamples with zeros). fp32 is exact while every partial sum stays <= 2^24; the "
           "program\nchecks which outputs that guarantees and holds the rest, bit for bit, to the "
           "host's emulation\nof the kernel's FFMA chain.\n\n--test cases:\n");
    for (int i = 0; i < N_CASES; i++)
        printf("  %5ld stations %3ld channels %6ld samples  %s\n", test_cases[i].S, test_cases[i].C,
               test_cases[i].T, test_cases[i].what);
}

static void check_args(const tc_args *a)
{
    if (a->mode == TC_MODE_TEST)
        for (int f = 0; f < N_FLAGS; f++)
            if (a->flag_values[f])
                tc_usage_error(PROGRAM, "--test runs its own size list; drop %s", flags[f].name);
    if (a->flag_values[0])
        opts.S = tc_parse_long(PROGRAM, "--stations", a->flag_values[0], 1, CORR_MAX_STATIONS);
    if (a->flag_values[1])
        opts.C = tc_parse_long(PROGRAM, "--channels", a->flag_values[1], 1, CORR_MAX_CHANNELS);
    if (a->flag_values[2]) {
        const char *v = a->flag_values[2];
        if (strspn(v, "0123456789") == strlen(v) && (strlen(v) > 9 || atol(v) > CORR_MAX_T))
            tc_usage_error(PROGRAM,
                           "bad value '%s' for --time: at most %d samples, the largest T for which "
                           "int32 accumulation is exact (each sample adds up to 2*128*128 = 2^15; "
                           "2^16 samples reach 2^31); correlate longer integrations in parts and "
                           "add the parts in int64",
                           v, CORR_MAX_T);
        opts.T = tc_parse_long(PROGRAM, "--time", v, 1, CORR_MAX_T);
    }
    /* host: plain + packed input, the output copy, reference and bounds of the checked items */
    const long S = opts.S, C = opts.C, T = opts.T;
    const double nbl = (double)corr_baselines(S);
    const double need_host =
        (double)C * T * S * 4 * 2 + (double)C * nbl * 32 + (3 * nbl + SAMPLE_RANDOM) * 128;
    const double host = (double)tc_host_memory_bytes();
    if (a->mode != TC_MODE_TEST && host > 0 && need_host > 0.8 * host)
        tc_usage_error(PROGRAM,
                       "%ld stations x %ld channels x %ld samples need %.1f GiB of host memory; "
                       "this machine has %.1f GiB",
                       S, C, T, need_host / 1073741824.0, host / 1073741824.0);
}

static void check_device(const tc_args *a, const tc_device_info *dev)
{
    const long S = opts.S, C = opts.C, T = opts.T;
    const double need_gpu = (double)corr_packed_bytes(S, C, T) +
                            (double)C * (double)corr_baselines(S) * 32 + 2.0 * dev->l2_bytes +
                            (64 << 20);
    if (a->mode != TC_MODE_TEST && need_gpu > (double)dev->mem_free)
        tc_usage_error(PROGRAM,
                       "%ld stations x %ld channels x %ld samples need %.1f GiB of GPU "
                       "memory; %s has %.1f GiB free",
                       S, C, T, need_gpu / 1073741824.0, dev->name,
                       (double)dev->mem_free / 1073741824.0);
}

int main(int argc, char **argv)
{
    static const tc_program program = {
        .cli = {.program = PROGRAM,
                .summary =
                    "radio-astronomy correlator in int8: FP32 vs __dp4a vs IMMA tensor cores",
                TC_VARIANT_TABLE(variants),
                .default_reps = 20,
                .default_warmup = 3,
                .flags = flags, /* no --size: --stations, --channels, --time */
                .n_flags = N_FLAGS},
        .min_cc = 75,
        .list = print_list,
        .check_args = check_args,
        .check_device = check_device,
        .test = mode_test,
        .measure = mode_measure,
    };
    return tc_program_main(argc, argv, &program);
}
