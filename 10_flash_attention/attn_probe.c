/* 10_flash_attention/attn_probe.c - the host driver of 10_attn_probe (kernels in attn_probe.cu):
 * the one-warpgroup unit tests of the PTX wrappers v2_wgmma relies on (attn_wgmma.cuh), checked
 * against the CPU. sm_90a only: elsewhere it exits 77 with one line.
 *
 *   rs_m64n{64,128}k16_<type>_k{16,32}_{tma,hand}   D = A B with A from registers (attn_pack2 of
 *       an accumulator-shaped array), B MN-major through attn_wgmma_desc_mn_sw128, one or two
 *       k-steps; B by attn_tma_load_4d or by stores at the swizzle's addresses
 *   tma_4d_bshd_<type>_D64, _D128_qkv   attn_tma_map_bshd + attn_tma_load_4d of a 2 x 70 x 3 x D
 *       tensor (packed, and inside a fused QKV buffer) in boxes of 64 rows: every value in place
 *       after un-swizzling, rows past S zero
 *   turns_named_barriers   v3_pingpong's turns: two warpgroups alternate through named_bar_sync
 *       and named_bar_arrive (common/wgmma_parts.cuh), 64 turns each, in strict order
 *
 * Build and run
 *   make && build/bin/10_attn_probe --test        # the unit tests (make test runs them)
 *   build/bin/10_attn_probe --variant bf16f32     # one input type
 *
 * Inputs are uniform in [-1, 1) from the printed seed, rounded to the input type. The product's
 * reference is the exact sum in double of the same values; the tensor core's f32 accumulation
 * (chapter 08's recorded sm_90 fit: products aligned to the largest with 25 bits below it,
 * truncated, then rounded toward zero) is within 2^-19 of the sum of |a b| over two k-steps, and
 * the line also says how many elements match that model bit for bit. */
#include "attn_probe.h"

#include "check.h"
#include "convert.h"
#include "harness.h"
#include "program.h"
#include "tc_model.h"
#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "10_attn_probe"

enum { N_TYPES = 2 };
static const char *const type_names[N_TYPES] = {"f16f32", "bf16f32"};

static uint16_t to_bits(int bf16, float x) { return bf16 ? tc_f32_to_bf16(x) : tc_f32_to_f16(x); }
static float from_bits(int bf16, uint16_t b) { return bf16 ? tc_bf16_to_f32(b) : tc_f16_to_f32(b); }
static uint16_t nan_bits(int bf16) { return bf16 ? 0x7FC0 : 0x7E00; }
/* uniform in [-1, 1) in the input type, never zero */
static uint16_t random_value(int bf16, tc_rng *rng)
{
    uint16_t v;
    do v = to_bits(bf16, tc_rng_uniform(rng, -1.0f, 1.0f));
    while ((v & 0x7FFF) == 0);
    return v;
}

/* ---- 1. O += P V's wgmma: A from registers, B MN-major --------------------------------------- */
static void test_rs(int bf16, int n, int ksteps, int by_tma, tc_rng *rng, int *passed, int *failed)
{
    const int K = 16 * ksteps;
    /* what the kernel must not read is NaN: A's columns and B's rows past K (the TMA zero-fills
     * those rows itself) */
    float *a = tc_xmalloc(64 * PROBE_K_MAX * sizeof(float)),
          *d = tc_xmalloc(64 * n * sizeof(float));
    uint16_t *b = tc_xmalloc((size_t)PROBE_K_MAX * n * 2);
    for (int i = 0; i < 64 * PROBE_K_MAX; i++)
        a[i] = i % PROBE_K_MAX < K ? from_bits(bf16, random_value(bf16, rng)) : NAN;
    for (int i = 0; i < PROBE_K_MAX * n; i++)
        b[i] = i / n < K ? random_value(bf16, rng) : nan_bits(bf16);
    float *d_a = tc_device_copy(a, 64 * PROBE_K_MAX * sizeof(float));
    uint16_t *d_b = tc_device_copy(b, (size_t)PROBE_K_MAX * n * 2);
    float *d_d = tc_device_copy(NULL, 64 * n * sizeof(float));
    TC_CUDA_CHECK(cudaMemset(d_d, 0xFF, 64 * n * sizeof(float))); /* NaN: an unwritten D fails */

    char name[64], detail[240];
    snprintf(name, sizeof name, "rs_m64n%dk16_%s_k%d_%s", n, type_names[bf16], K,
             by_tma ? "tma" : "hand");
    const char *why = probe_rs_launch(bf16, n, ksteps, by_tma, d_a, d_b, d_d, 0);
    if (why) {
        snprintf(detail, sizeof detail, "the tensor map was refused: %s", why);
        tc_test_report(0, name, detail, passed, failed);
    } else {
        TC_LAUNCH_CHECK();
        tc_device_fetch(d, d_d, 64 * n * sizeof(float));
        const tc_model_params *model = tc_model_recorded_sm90(bf16 ? "wg_bf16f32" : "wg_f16f32");
        int bad = 0, bad_right = 0, exact = 0;
        for (int r = 0; r < 64; r++)
            for (int c = 0; c < n; c++) {
                double want = 0, size = 0;
                uint32_t ua[PROBE_K_MAX], ub[PROBE_K_MAX];
                for (int k = 0; k < K; k++) {
                    const double p = (double)a[r * PROBE_K_MAX + k] * from_bits(bf16, b[k * n + c]);
                    want += p, size += fabs(p);
                    ua[k] = to_bits(bf16, a[r * PROBE_K_MAX + k]), ub[k] = b[k * n + c];
                }
                const float got = d[r * n + c];
                uint32_t got_bits;
                memcpy(&got_bits, &got, 4);
                exact += model && got_bits == tc_model_dot(model, ua, ub, K, 0);
                if (fabs(got - want) <= 0x1p-19 * size) continue; /* NaN fails */
                bad_right += c >= 64;
                if (!bad++) {
                    const int i = 4 * (c / 8) + 2 * (r % 16 / 8) + c % 2;
                    snprintf(detail, sizeof detail,
                             "D(%d,%d) = %g, want %.9g (warp %d lane %d d[%d])", r, c, got, want,
                             r / 16, 4 * (r % 8) + c % 8 / 2, i);
                }
            }
        if (bad) {
            const size_t len = strlen(detail);
            snprintf(detail + len, sizeof detail - len,
                     "; %d of %d wrong, %d in columns 64..: attn_wgmma.cuh's descriptor, "
                     "transpose bit or A's packing",
                     bad, 64 * n, bad_right);
        } else {
            snprintf(detail, sizeof detail,
                     "64x%d = 64x%d (registers) * %dx%d (MN-major, %s): within 2^-19 sum|ab|, "
                     "%d of %d bit-exact with 08's sm_90 model",
                     n, K, K, n, by_tma ? "TMA" : "stores at the swizzle", exact, 64 * n);
        }
        tc_test_report(!bad, name, detail, passed, failed);
    }
    TC_CUDA_CHECK(cudaFree(d_a));
    TC_CUDA_CHECK(cudaFree(d_b));
    TC_CUDA_CHECK(cudaFree(d_d));
    free(a), free(b), free(d);
}

/* ---- 2. the 4-D TMA of a BSHD tensor --------------------------------------------------------- */
/* qkv = 1: the tensor is K inside a fused QKV buffer (rows 3 H D apart, starting at H D) */
static void test_tma(int bf16, int D, int qkv, tc_rng *rng, int *passed, int *failed)
{
    const int B = 2, S = 70, H = 3, tiles = (S + PROBE_TMA_ROWS - 1) / PROBE_TMA_ROWS,
              panels = D / 64;
    attn_strides st = attn_strides_bshd(S, H, D);
    if (qkv) st.seq = 3L * H * D, st.batch = (long)S * st.seq;
    const long offset = qkv ? (long)H * D : 0, total = B * st.batch;
    const size_t out_values = (size_t)B * H * tiles * panels * PROBE_TMA_ROWS * 64;
    uint16_t *x = tc_xmalloc(total * 2), *out = tc_xmalloc(out_values * 2);
    for (long i = 0; i < total; i++) x[i] = nan_bits(bf16); /* Q and V of the fused buffer */
    for (int b = 0; b < B; b++)
        for (int s = 0; s < S; s++)
            for (int h = 0; h < H; h++)
                for (int e = 0; e < D; e++)
                    x[offset + b * st.batch + s * st.seq + h * st.head + e] =
                        random_value(bf16, rng);
    uint16_t *d_x = tc_device_copy(x, total * 2), *d_out = tc_device_copy(NULL, out_values * 2);
    TC_CUDA_CHECK(cudaMemset(d_out, 0xFF, out_values * 2));

    char name[64], detail[240];
    snprintf(name, sizeof name, "tma_4d_bshd_%s_D%d%s", type_names[bf16], D, qkv ? "_qkv" : "");
    const char *why = probe_tma_launch(bf16, d_x + offset, B, S, H, D, st, d_out, 0);
    if (why) {
        snprintf(detail, sizeof detail, "the tensor map was refused: %s", why);
        tc_test_report(0, name, detail, passed, failed);
    } else {
        TC_LAUNCH_CHECK();
        tc_device_fetch(out, d_out, out_values * 2);
        long bad = 0, bad_fill = 0;
        for (int b = 0; b < B; b++)
            for (int h = 0; h < H; h++)
                for (int tile = 0; tile < tiles; tile++)
                    for (int p = 0; p < panels; p++)
                        for (int r = 0; r < PROBE_TMA_ROWS; r++)
                            for (int e = 0; e < 64; e++) {
                                const size_t box =
                                    (((size_t)b * H + h) * tiles + tile) * panels + p;
                                /* row r, 16-byte chunk e / 8 at position (e / 8) XOR (r % 8) */
                                const uint16_t got = out[box * PROBE_TMA_ROWS * 64 + r * 64 +
                                                         8 * ((e / 8) ^ (r % 8)) + e % 8];
                                const int s = tile * PROBE_TMA_ROWS + r;
                                const uint16_t want = s < S ? x[offset + b * st.batch + s * st.seq +
                                                                h * st.head + 64 * p + e]
                                                            : 0;
                                if (got == want) continue;
                                bad_fill += s >= S;
                                if (!bad++)
                                    snprintf(detail, sizeof detail,
                                             "(b %d, s %d, h %d, d %d) = 0x%04x, want 0x%04x", b, s,
                                             h, 64 * p + e, got, want);
                            }
        if (bad) {
            const size_t len = strlen(detail);
            snprintf(detail + len, sizeof detail - len,
                     "; %ld of %zu wrong, %ld in rows past S: attn_tma_map_bshd's dimensions, "
                     "strides or box, or attn_tma_load_4d's coordinates",
                     bad, out_values, bad_fill);
        } else {
            snprintf(detail, sizeof detail,
                     "%dx%dx%dx%d%s in %d boxes of %dx64, SWIZZLE_128B: every value in place, "
                     "rows past S zero",
                     B, S, H, D, qkv ? " (fused QKV strides)" : "", B * H * tiles * panels,
                     PROBE_TMA_ROWS);
        }
        tc_test_report(!bad, name, detail, passed, failed);
    }
    TC_CUDA_CHECK(cudaFree(d_x));
    TC_CUDA_CHECK(cudaFree(d_out));
    free(x), free(out);
}

/* turns_named_barriers: the two warpgroups' turns of v3_pingpong (no input type) */
static void test_turns(int *passed, int *failed)
{
    enum { ROUNDS = 64 };
    int *d_log = NULL, *d_count = NULL, h_log[2 * ROUNDS], count = -1;
    TC_CUDA_CHECK(cudaMalloc((void **)&d_log, sizeof h_log));
    TC_CUDA_CHECK(cudaMalloc((void **)&d_count, sizeof count));
    TC_CUDA_CHECK(cudaMemset(d_log, 0xFF, sizeof h_log)); /* -1: a turn never taken */
    probe_turns_launch(ROUNDS, d_log, d_count, 0);
    TC_LAUNCH_CHECK();
    TC_CUDA_CHECK(cudaDeviceSynchronize());
    TC_CUDA_CHECK(cudaMemcpy(h_log, d_log, sizeof h_log, cudaMemcpyDeviceToHost));
    TC_CUDA_CHECK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
    TC_CUDA_CHECK(cudaFree(d_log));
    TC_CUDA_CHECK(cudaFree(d_count));
    int bad = -1;
    for (int i = 0; i < 2 * ROUNDS && bad < 0; i++)
        if (h_log[i] != i % 2) bad = i;
    const int ok = bad < 0 && count == 2 * ROUNDS;
    printf("%s %-46s two warpgroups, %d turns each through named_bar_sync/_arrive: ",
           ok ? "PASS" : "FAIL", "turns_named_barriers", ROUNDS);
    if (ok)
        printf("the log alternates 0, 1 over all %d turns\n", 2 * ROUNDS);
    else if (bad >= 0)
        printf("turn %d was warpgroup %d's (expected %d), %d turns counted\n", bad, h_log[bad],
               bad % 2, count);
    else
        printf("%d turns counted, expected %d\n", count, 2 * ROUNDS);
    *(ok ? passed : failed) += 1;
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
        for (int n = 64; n <= 128; n *= 2)
            for (int ksteps = 1; ksteps <= 2; ksteps++)
                for (int by_tma = 0; by_tma <= 1; by_tma++)
                    test_rs(bf16, n, ksteps, by_tma, &rng, passed, failed);
        test_tma(bf16, 64, 0, &rng, passed, failed);
        test_tma(bf16, 128, 1, &rng, passed, failed);
    }
    test_turns(passed, failed);
}

static int mode_test(const tc_args *a, const tc_device_info *dev)
{
    int passed = 0, failed = 0;
    run_unit_tests(a, &passed, &failed);
    (void)dev;
    return tc_test_finish(PROGRAM, passed, failed, 0);
}

/* default mode: the unit tests (there is nothing to time) */
static int default_tests(const tc_args *a, const tc_device_info *dev)
{
    int passed = 0, failed = 0;
    printf("Unit tests of attn_wgmma.cuh (one warpgroup each, against the CPU):\n");
    run_unit_tests(a, &passed, &failed);
    (void)dev;
    return failed;
}

/* --bench: no rows (the program times nothing) */
static int mode_measure(const tc_args *a, const tc_device_info *dev, FILE *info, FILE *csv)
{
    if (csv) fprintf(info, "%s times nothing: it writes no bench rows\n", PROGRAM);
    (void)a, (void)dev;
    return TC_EXIT_PASS;
}

static void print_list(void)
{
    printf("%s - unit tests of chapter 10's wgmma and TMA wrappers (attn_wgmma.cuh)\n\n", PROGRAM);
    printf("variants (--variant): the input type, f32 accumulate\n");
    for (int t = 0; t < N_TYPES; t++)
        printf("  %-8s %s in, f32 accumulate\n", type_names[t], t ? "bf16" : "f16");
    printf("\nunit tests (--test; one warpgroup each, against the CPU):\n"
           "  rs_m64n{64,128}k16_<type>_k{16,32}_{tma,hand}   D = A B: A from registers\n"
           "      (attn_pack2), B MN-major with the 128-byte swizzle (attn_wgmma_desc_mn_sw128),\n"
           "      one or two k-steps; B by attn_tma_load_4d or by stores at the swizzle\n"
           "  tma_4d_bshd_<type>_{D64,D128_qkv}   attn_tma_map_bshd + attn_tma_load_4d of a\n"
           "      2x70x3xD tensor in boxes of %d rows: values in place, rows past S zero\n"
           "  turns_named_barriers   two warpgroups alternate 64 turns each through\n"
           "      named_bar_sync / named_bar_arrive, as v3_pingpong's consumers do\n",
           PROBE_TMA_ROWS);
}

int main(int argc, char **argv)
{
    static const tc_program program = {
        .cli = {.program = PROGRAM,
                .summary = "unit tests of attn_wgmma.cuh: register-A wgmma, MN-major "
                           "descriptor, 4-D TMA (sm_90a)",
                TC_VARIANT_TABLE(type_names),
                .default_reps = 1,
                .default_warmup = 0},
        .min_cc = 90,
        .target = "90a", /* every kernel is wgmma/TMA code */
        .list = print_list,
        .test = mode_test,
        .measure = mode_measure,
        .default_tests = default_tests,
    };
    return tc_program_main(argc, argv, &program);
}
