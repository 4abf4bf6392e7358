/* 05_mma_ptx/wgmma_probe.c - the host driver of 05_wgmma_probe (kernels in wgmma_probe.cu): the
 * one-warpgroup unit tests of wgmma, its descriptor and the 128-byte swizzle, with operands
 * brought by the TMA and by hand, and the wgmma throughput benchmark, whose best figure is the
 * ceiling of the Hopper ladder (05_wgmma_gemm). sm_90a only: elsewhere it exits 77 with one line.
 *
 * Build and run
 *   make && build/bin/05_wgmma_probe          # unit tests, then the throughput sweep
 *   build/bin/05_wgmma_probe --test           # the unit tests and a short exact benchmark run
 *   build/bin/05_wgmma_probe --bench          # CSV rows for make bench: the ceiling per type
 *
 * "Variants" here are the two input types of wgmma with f32 accumulate. */
#include "wgmma_probe.h"

#include "check.h"
#include "convert.h"
#include "harness.h"
#include "program.h"
#include "sweep.h"
#include "verify.h"

#include <stdlib.h>
#include <string.h>

#define PROGRAM "05_wgmma_probe"

enum { N_TYPES = 2, PEAK_ITERS = 4096, TEST_ITERS = 64 };
static const char *const type_names[N_TYPES] = {"f16f32", "bf16f32"};
static const char *const type_problem[N_TYPES] = {"FP16 GEMM", "BF16 GEMM"};

static uint16_t to_bits(int bf16, float x) { return bf16 ? tc_f32_to_bf16(x) : tc_f32_to_f16(x); }
static float from_bits(int bf16, uint16_t b) { return bf16 ? tc_bf16_to_f32(b) : tc_f16_to_f32(b); }
/* small integers in lo..hi: every product and sum below is exact in f16, bf16 and f32 */
static void fill_small(int bf16, uint16_t *x, size_t n, int lo, int hi, tc_rng *rng)
{
    for (size_t i = 0; i < n; i++) x[i] = to_bits(bf16, (float)tc_rng_int(rng, lo, hi));
}

/* ---- unit test: one wgmma k-tile ------------------------------------------------------------- */
static void test_wgmma(int bf16, int n, int by_tma, int m_valid, int n_valid, int k_valid,
                       tc_rng *rng, int *passed, int *failed)
{
    uint16_t *a = tc_xmalloc((size_t)m_valid * k_valid * 2),
             *b = tc_xmalloc((size_t)n_valid * k_valid * 2);
    float *d = tc_xmalloc((size_t)64 * n * 4);
    fill_small(bf16, a, (size_t)m_valid * k_valid, -3, 3, rng);
    fill_small(bf16, b, (size_t)n_valid * k_valid, -3, 3, rng);
    uint16_t *d_a = tc_device_copy(a, (size_t)m_valid * k_valid * 2);
    uint16_t *d_b = tc_device_copy(b, (size_t)n_valid * k_valid * 2);
    float *d_d = tc_device_copy(NULL, (size_t)64 * n * 4);
    TC_CUDA_CHECK(cudaMemset(d_d, 0xFF, (size_t)64 * n * 4)); /* NaN: an unwritten D fails */
    probe_wgmma_launch(bf16, n, by_tma, d_a, d_b, m_valid, n_valid, k_valid, d_d, 0);
    tc_device_fetch(d, d_d, (size_t)64 * n * 4);
    int bad = 0;
    char detail[200];
    snprintf(detail, sizeof detail, "64x%d += %dx%d * %dx%d, %s, exact; zeros outside", n, m_valid,
             k_valid, k_valid, n_valid, by_tma ? "TMA (SWIZZLE_128B)" : "stores at the swizzle");
    for (int r = 0; r < 64; r++)
        for (int c = 0; c < n; c++) {
            double want = 0;
            if (r < m_valid && c < n_valid)
                for (int k = 0; k < k_valid; k++)
                    want += (double)from_bits(bf16, a[r * k_valid + k]) *
                            from_bits(bf16, b[c * k_valid + k]);
            const float got = d[r * n + c];
            if (!(got == want) && !bad++) {
                const int warp = r / 16, g = r % 8, i = 4 * (c / 8) + 2 * (r % 16 / 8) + c % 2;
                snprintf(detail, sizeof detail,
                         "D(%d,%d) = %g, want %g (warp %d lane %d d[%d]): check the descriptor, "
                         "the swizzle and the register map",
                         r, c, got, want, warp, 4 * g + c % 8 / 2, i);
            }
        }
    char name[64];
    snprintf(name, sizeof name, "wgmma_m64n%dk16_%s_%s%s", n, type_names[bf16],
             by_tma ? "tma" : "hand", m_valid < 64 || k_valid < 64 || n_valid < n ? "_edges" : "");
    tc_test_report(!bad, name, detail, passed, failed);
    TC_CUDA_CHECK(cudaFree(d_a));
    TC_CUDA_CHECK(cudaFree(d_b));
    TC_CUDA_CHECK(cudaFree(d_d));
    free(a), free(b), free(d);
}

/* ---- the benchmark --------------------------------------------------------------------------- */
/* the sweep: warpgroups per block (1..PEAK_MAX_WARPGROUPS) x blocks per SM, one */
static const int sweep_warpgroups[] = {1, 2, 3};
_Static_assert(PEAK_MAX_WARPGROUPS == 3, "sweep_warpgroups lists 1..PEAK_MAX_WARPGROUPS");
static const int sweep_blocks_per_sm[] = {1};

typedef struct {
    int bf16, warpgroups, blocks, iters;
    const uint16_t *a, *b;
    float *out;
} peak_ctx;

static void peak_work(void *ctx, cudaStream_t stream)
{
    const peak_ctx *c = (const peak_ctx *)ctx;
    peak_launch(c->bf16, c->warpgroups, c->blocks, c->iters, c->a, c->b, c->out, stream);
    TC_LAUNCH_CHECK();
}

/* A and B of -1, 0, 1: |D| <= 64 iters, exact in f32 for iters <= 2^18. */
static tc_sweep_point run_peak(int bf16, int warpgroups, int blocks, int iters, const tc_args *args,
                               tc_rng *rng)
{
    tc_sweep_point r;
    memset(&r, 0, sizeof r);
    uint16_t a[64 * 64], b[256 * 64];
    fill_small(bf16, a, 64 * 64, -1, 1, rng);
    fill_small(bf16, b, 256 * 64, -1, 1, rng);
    peak_ctx c = {bf16, warpgroups, blocks, iters, NULL, NULL, NULL};
    c.a = tc_device_copy(a, sizeof a), c.b = tc_device_copy(b, sizeof b);
    c.out = tc_device_copy(NULL, 2 * 64 * 256 * sizeof(float));
    TC_CUDA_CHECK(cudaMemset(c.out, 0xFF, 2 * 64 * 256 * sizeof(float)));
    if (args) {
        r.t = tc_time_gpu(peak_work, &c, 0, args->warmup, args->reps);
        r.rate = (double)blocks * warpgroups * iters * 2.0 * 64 * 256 * 64 /
                 (r.t.ms_median * 1e-3) / 1e12;
    } else {
        peak_work(&c, 0);
    }
    float *out = tc_xmalloc(2 * 64 * 256 * sizeof(float));
    tc_device_fetch(out, c.out, 2 * 64 * 256 * sizeof(float));
    r.exact = 1;
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 256; j++) {
                double s = 0;
                for (int k = 0; k < 64; k++)
                    s += (double)from_bits(bf16, a[i * 64 + k]) * from_bits(bf16, b[j * 64 + k]);
                r.exact &= out[w * 64 * 256 + i * 256 + j] == s * iters;
            }
    free(out);
    TC_CUDA_CHECK(cudaFree((void *)c.a));
    TC_CUDA_CHECK(cudaFree((void *)c.b));
    TC_CUDA_CHECK(cudaFree(c.out));
    return r;
}

static int wanted(const tc_args *a, int bf16)
{
    return !a->variant || strcmp(a->variant, "all") == 0 ||
           strcmp(a->variant, type_names[bf16]) == 0;
}

static void run_unit_tests(const tc_args *a, int *passed, int *failed)
{
    tc_rng rng;
    tc_rng_seed(&rng, a->seed);
    for (int bf16 = 0; bf16 < N_TYPES; bf16++) {
        if (!wanted(a, bf16)) continue;
        for (int n = 128; n <= 256; n *= 2)
            for (int by_tma = 1; by_tma >= 0; by_tma--) {
                test_wgmma(bf16, n, by_tma, 64, n, 64, &rng, passed, failed);
                /* a matrix smaller than the tile: the TMA's zero fill (k a multiple of 8) */
                test_wgmma(bf16, n, by_tma, 50, n - 56, 40, &rng, passed, failed);
            }
    }
}

static int mode_test(const tc_args *a, const tc_device_info *dev)
{
    int passed = 0, failed = 0;
    run_unit_tests(a, &passed, &failed);
    tc_rng rng;
    tc_rng_seed(&rng, a->seed + 7);
    for (int bf16 = 0; bf16 < N_TYPES; bf16++)
        for (int w = 1; w <= PEAK_MAX_WARPGROUPS && wanted(a, bf16); w++) {
            const tc_sweep_point r = run_peak(bf16, w, 2, TEST_ITERS, NULL, &rng);
            char name[64], detail[96];
            snprintf(name, sizeof name, "wgmma_peak_%s_%dwarpgroups", type_names[bf16], w);
            snprintf(detail, sizeof detail, "2 blocks x %d groups of 4 wgmma: D exact", TEST_ITERS);
            tc_test_report(r.exact, name, detail, &passed, &failed);
        }
    (void)dev;
    return tc_test_finish(PROGRAM, passed, failed, 0);
}

typedef struct {
    int bf16;
    const tc_args *a;
    const tc_device_info *dev;
    tc_rng *rng;
} sweep_ctx;

static tc_sweep_point sweep_point(void *ctx, int warpgroups, int blocks_per_sm)
{
    const sweep_ctx *c = (const sweep_ctx *)ctx;
    return run_peak(c->bf16, warpgroups, c->dev->sms * blocks_per_sm, PEAK_ITERS, c->a, c->rng);
}

/* default (csv == NULL) and --bench: the sweep over warpgroups per SM, one block per SM */
static int mode_measure(const tc_args *a, const tc_device_info *dev, FILE *info, FILE *csv)
{
    int bad = 0;
    tc_rng rng;
    tc_rng_seed(&rng, a->seed);
    for (int bf16 = 0; bf16 < N_TYPES; bf16++) {
        if (!wanted(a, bf16)) continue;
        fprintf(info,
                "\nwgmma.m64n256k16 %s throughput, TFLOP/s (%d groups of 4 wgmma per "
                "warpgroup, median of %d, results checked exactly)\n",
                type_names[bf16], PEAK_ITERS, a->reps);
        sweep_ctx ctx = {.bf16 = bf16, .a = a, .dev = dev, .rng = &rng};
        const tc_sweep sweep = {.row_name = "warpgroups",
                                .col_name = "blocks/SM",
                                .rows = sweep_warpgroups,
                                .n_rows = TC_COUNT(sweep_warpgroups),
                                .cols = sweep_blocks_per_sm,
                                .n_cols = TC_COUNT(sweep_blocks_per_sm),
                                .run = sweep_point,
                                .ctx = &ctx};
        const tc_sweep_result best = tc_sweep_run(&sweep, info);
        bad += !best.all_exact;
        fprintf(info,
                "  ceiling %.1f TFLOP/s (%d warpgroups per SM) = %.0f flop/clock/SM at the "
                "driver's maximum clock of %d MHz\n",
                best.best.rate, best.row,
                best.best.rate * 1e12 / ((double)dev->sms * dev->clock_mhz * 1e6), dev->clock_mhz);
        if (!csv) continue;
        tc_bench_row row;
        memset(&row, 0, sizeof row);
        row.chapter = PROGRAM;
        row.variant = "wgmma_ceiling";
        row.problem = type_problem[bf16];
        row.precision = type_names[bf16];
        snprintf(row.size, sizeof row.size, "%dwarpgroups_per_SM", best.row);
        row.ms_median = best.best.t.ms_median, row.ms_min = best.best.t.ms_min;
        row.rate = best.best.rate;
        row.unit = "TFLOP/s";
        row.baseline = "wgmma_ceiling"; /* its own; 05_wgmma_gemm's cuBLAS rows are the same run */
        row.pct_of_baseline = 100.0;
        row.verified = best.best.exact;
        tc_bench_csv_write(csv, &row, dev);
    }
    return bad ? TC_EXIT_WRONG : TC_EXIT_PASS;
}

static void print_list(void)
{
    printf(
        "%s - unit tests of wgmma, its descriptor, the swizzle and the TMA; the wgmma ceiling\n\n",
        PROGRAM);
    printf("variants (--variant): the input type of wgmma, f32 accumulate\n");
    for (int t = 0; t < N_TYPES; t++)
        printf("  %-8s %s in, f32 accumulate\n", type_names[t], t ? "bf16" : "f16");
    printf(
        "\nunit tests (--test; one warpgroup each, exact against the CPU):\n"
        "  wgmma_m64n{128,256}k16_<type>_{tma,hand}[_edges]   D of a 64-deep k-tile; operands\n"
        "      by the TMA or by plain stores at the swizzle's addresses; _edges: a matrix smaller\n"
        "      than the tile (the TMA's zero fill)\n"
        "  wgmma_peak_<type>_<n>warpgroups    the benchmark kernel, short run, checked\n"
        "\nbenchmark (default, --bench): 1..%d warpgroups per SM, %d groups of 4 wgmma each\n",
        PEAK_MAX_WARPGROUPS, PEAK_ITERS);
}

/* default mode: the unit tests first (the benchmark follows) */
static int default_tests(const tc_args *a, const tc_device_info *dev)
{
    int passed = 0, failed = 0;
    printf("Unit tests (one warpgroup each, exact against the CPU):\n");
    run_unit_tests(a, &passed, &failed);
    (void)dev;
    return failed;
}

int main(int argc, char **argv)
{
    static const tc_program program = {
        .cli = {.program = PROGRAM,
                .summary = "wgmma/TMA unit tests and the wgmma throughput ceiling (sm_90a)",
                TC_VARIANT_TABLE(type_names),
                .default_reps = 20,
                .default_warmup = 5},
        .min_cc = 90,
        .target = "90a", /* every kernel is wgmma/TMA code */
        .list = print_list,
        .test = mode_test,
        .measure = mode_measure,
        .default_tests = default_tests,
    };
    return tc_program_main(argc, argv, &program);
}
