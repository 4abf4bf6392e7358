// clang-format off
/* 08_tc_numerics/main.c - the host driver of chapter 08: what a tensor core computes, bit for bit.
 *
 * For every instruction variant the GPU has (f16, bf16, tf32, e4m3, e5m2 inputs; f32 or f16
 * accumulator), the program
 *   1. runs the probes of tc_probe.c through mma.sync (tc_numerics.cu): crafted dot
 *      products that decide, one feature at a time, how the tensor core adds its products, and
 *      prints the feature table and the fitted parameters of the model (common/tc_model.c);
 *   2. compares the GPU with the fitted model on random dot products of six distributions
 *      (uniform, wide exponent ranges, mixed scales, cancelling pairs, near overflow, near
 *      underflow) and counts mismatches (the target is zero), and how often two naive models
 *      disagree with the GPU: a chain of f32 FMAs, and the exact sum rounded once;
 *   3. shows the consequences: results depend on the order of the products, on the parameters
 *      (what another GPU generation with one different feature would give), a dot product that
 *      goes down when its accumulator goes up, and the largest error over K against the
 *      tolerance the harness allows (common/verify.c).
 *
 * On sm_90 the FP8 rows do not measure an FP8 tensor core: in the SASS of a CUDA 13.0 build,
 * ptxas emulates FP8 mma.sync with f16 instructions (F2FP, two HMMA.16816, then FADD or HADD2 for
 * c; see README.md). The program says so next to those rows.
 *
 * Build and run
 *   make && build/bin/08_tc_numerics            # every variant: table, search of 10^6, consequences
 *   build/bin/08_tc_numerics --variant e4m3f32  # one variant
 *   build/bin/08_tc_numerics --search 10000000  # a longer search
 *   build/bin/08_tc_numerics --test             # probes, self-check, search of 2*10^4 each
 *   build/bin/08_tc_numerics --bench            # the search of 10^6 per variant (no CSV rows)
 * Exit: 0 every variant that ran fits, 1 one does not, 77 none could run here.
 * Minimum: sm_80 (FP8 variants: sm_89 and a binary built for it). */
// clang-format on
#include "tc_numerics.h"

#include "check.h"
#include "harness.h"
#include "program.h"
#include "tc_model.h"
#include "tc_probe.h"
#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "08_tc_numerics"

/* ---- the variant table --------------------------------------------------------------------- */
typedef struct {
    const char *name, *description;
    int kind;
    tc_fmt in, out;
    int min_cc;
    const char *target;        /* the code it needs: "89" (sm_89 or newer), "90a" (wgmma) */
    const char *tolerance_row; /* the row of common/verify.c's table, NULL when none */
} variant;

/* hand-aligned table */
// clang-format off
static const variant variants[] = {
    {.name = "f16f32",  .kind = NK_F16F32,  .in = TC_FMT_F16,   .out = TC_FMT_F32, .min_cc = 80,
     .description = "mma.sync m16n8k16, f16 inputs, f32 accumulator", .tolerance_row = "f16f32"},
    {.name = "f16f16",  .kind = NK_F16F16,  .in = TC_FMT_F16,   .out = TC_FMT_F16, .min_cc = 80,
     .description = "mma.sync m16n8k16, f16 inputs, f16 accumulator", .tolerance_row = "f16f16"},
    {.name = "bf16f32", .kind = NK_BF16F32, .in = TC_FMT_BF16,  .out = TC_FMT_F32, .min_cc = 80,
     .description = "mma.sync m16n8k16, bf16 inputs, f32 accumulator", .tolerance_row = "bf16f32"},
    {.name = "tf32f32", .kind = NK_TF32F32, .in = TC_FMT_TF32,  .out = TC_FMT_F32, .min_cc = 80,
     .description = "mma.sync m16n8k8, tf32 inputs, f32 accumulator", .tolerance_row = "tf32"},
    {.name = "e4m3f32", .kind = NK_E4M3F32, .in = TC_FMT_E4M3,  .out = TC_FMT_F32, .min_cc = 89, .target = "89",
     .description = "mma.sync m16n8k32, e4m3 inputs, f32 accumulator", .tolerance_row = "e4m3f32"},
    {.name = "e5m2f32", .kind = NK_E5M2F32, .in = TC_FMT_E5M2,  .out = TC_FMT_F32, .min_cc = 89, .target = "89",
     .description = "mma.sync m16n8k32, e5m2 inputs, f32 accumulator"},
    {.name = "e4m3f16", .kind = NK_E4M3F16, .in = TC_FMT_E4M3,  .out = TC_FMT_F16, .min_cc = 89, .target = "89",
     .description = "mma.sync m16n8k32, e4m3 inputs, f16 accumulator"},
    {.name = "e5m2f16", .kind = NK_E5M2F16, .in = TC_FMT_E5M2,  .out = TC_FMT_F16, .min_cc = 89, .target = "89",
     .description = "mma.sync m16n8k32, e5m2 inputs, f16 accumulator"},
    /* the same through wgmma (sm_90a): the instruction cuBLAS drives on Hopper */
    {.name = "wg_f16f32",  .kind = NK_WG_F16F32,  .in = TC_FMT_F16,  .out = TC_FMT_F32, .min_cc = 90, .target = "90a",
     .description = "wgmma m64n8k16, f16 inputs, f32 accumulator", .tolerance_row = "f16f32"},
    {.name = "wg_f16f16",  .kind = NK_WG_F16F16,  .in = TC_FMT_F16,  .out = TC_FMT_F16, .min_cc = 90, .target = "90a",
     .description = "wgmma m64n8k16, f16 inputs, f16 accumulator", .tolerance_row = "f16f16"},
    {.name = "wg_bf16f32", .kind = NK_WG_BF16F32, .in = TC_FMT_BF16, .out = TC_FMT_F32, .min_cc = 90, .target = "90a",
     .description = "wgmma m64n8k16, bf16 inputs, f32 accumulator", .tolerance_row = "bf16f32"},
    {.name = "wg_tf32f32", .kind = NK_WG_TF32F32, .in = TC_FMT_TF32, .out = TC_FMT_F32, .min_cc = 90, .target = "90a",
     .description = "wgmma m64n8k8, tf32 inputs, f32 accumulator", .tolerance_row = "tf32_rz"},
    {.name = "wg_e4m3f32", .kind = NK_WG_E4M3F32, .in = TC_FMT_E4M3, .out = TC_FMT_F32, .min_cc = 90, .target = "90a",
     .description = "wgmma m64n8k32, e4m3 inputs, f32 accumulator", .tolerance_row = "e4m3f32"},
    {.name = "wg_e5m2f32", .kind = NK_WG_E5M2F32, .in = TC_FMT_E5M2, .out = TC_FMT_F32, .min_cc = 90, .target = "90a",
     .description = "wgmma m64n8k32, e5m2 inputs, f32 accumulator", .tolerance_row = "e5m2f32"},
    {.name = "wg_e4m3f16", .kind = NK_WG_E4M3F16, .in = TC_FMT_E4M3, .out = TC_FMT_F16, .min_cc = 90, .target = "90a",
     .description = "wgmma m64n8k32, e4m3 inputs, f16 accumulator"},
    {.name = "wg_e5m2f16", .kind = NK_WG_E5M2F16, .in = TC_FMT_E5M2, .out = TC_FMT_F16, .min_cc = 90, .target = "90a",
     .description = "wgmma m64n8k32, e5m2 inputs, f16 accumulator"},
};
// clang-format on
enum { N_VARIANTS = sizeof variants / sizeof variants[0] };

#define SEARCH_DEFAULT 1000000L
#define SEARCH_TEST    20000L
#define SEARCH_MAX     1000000000L

/* ---- the GPU as a box of dot products ------------------------------------------------------ */
enum { BOX_CAP = 1 << 16 };

typedef struct {
    int kind, k;
    uint32_t *d_a, *d_b, *d_c, *d_d;
    cudaStream_t stream;
    long unwritten; /* results still holding the poison: must stay 0 */
} gpu_box;

static void gpu_box_fn(void *vctx, long n, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                       uint32_t *d)
{
    gpu_box *g = (gpu_box *)vctx;
    const size_t k = (size_t)g->k;
    for (long i0 = 0; i0 < n; i0 += BOX_CAP) {
        const long m = n - i0 < BOX_CAP ? n - i0 : BOX_CAP;
        TC_CUDA_CHECK(cudaMemcpyAsync(g->d_a, a + i0 * k, (size_t)m * k * 4, cudaMemcpyHostToDevice,
                                      g->stream));
        TC_CUDA_CHECK(cudaMemcpyAsync(g->d_b, b + i0 * k, (size_t)m * k * 4, cudaMemcpyHostToDevice,
                                      g->stream));
        TC_CUDA_CHECK(
            cudaMemcpyAsync(g->d_c, c + i0, (size_t)m * 4, cudaMemcpyHostToDevice, g->stream));
        TC_CUDA_CHECK(cudaMemsetAsync(g->d_d, 0xFF, (size_t)m * 4, g->stream)); /* poison */
        numerics_dots_launch(g->kind, m, g->d_a, g->d_b, g->d_c, g->d_d, g->stream);
        TC_LAUNCH_CHECK();
        TC_CUDA_CHECK(
            cudaMemcpyAsync(d + i0, g->d_d, (size_t)m * 4, cudaMemcpyDeviceToHost, g->stream));
        TC_CUDA_CHECK(cudaStreamSynchronize(g->stream));
        for (long i = 0; i < m; i++) g->unwritten += d[i0 + i] == 0xFFFFFFFFu;
    }
}

static void gpu_box_open(gpu_box *g, tc_box *box, const variant *v)
{
    memset(g, 0, sizeof *g);
    g->kind = v->kind;
    g->k = numerics_kind_k(v->kind);
    const size_t elems = (size_t)BOX_CAP * (size_t)g->k;
    TC_CUDA_CHECK(cudaMalloc((void **)&g->d_a, elems * 4));
    TC_CUDA_CHECK(cudaMalloc((void **)&g->d_b, elems * 4));
    TC_CUDA_CHECK(cudaMalloc((void **)&g->d_c, (size_t)BOX_CAP * 4));
    TC_CUDA_CHECK(cudaMalloc((void **)&g->d_d, (size_t)BOX_CAP * 4));
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&g->stream, cudaStreamDefault));
    memset(box, 0, sizeof *box);
    box->in = v->in;
    box->out = v->out;
    box->k = g->k;
    box->fn = gpu_box_fn;
    box->ctx = g;
}

static void gpu_box_close(gpu_box *g)
{
    TC_CUDA_CHECK(cudaFree(g->d_a));
    TC_CUDA_CHECK(cudaFree(g->d_b));
    TC_CUDA_CHECK(cudaFree(g->d_c));
    TC_CUDA_CHECK(cudaFree(g->d_d));
    TC_CUDA_CHECK(cudaStreamDestroy(g->stream));
}

/* Can this GPU and this binary run the variant? 0 with the reason otherwise. */
static int runnable(const variant *v, const tc_device_info *dev, char *why, size_t size)
{
    if (dev->cc < v->min_cc) {
        snprintf(why, size, "needs compute capability %d.%d (this GPU: %d.%d)", v->min_cc / 10,
                 v->min_cc % 10, dev->cc / 10, dev->cc % 10);
        return 0;
    }
    const char *target_why = tc_target_unsupported(v->target, dev->cc, TC_BUILD_TARGETS);
    if (target_why) {
        snprintf(why, size, "%s", target_why);
        return 0;
    }
    return numerics_kind_runnable(v->kind, why, size);
}

/* ---- long dot products: a chain of instructions, each one's d the next one's c ------------- */
static void box_long_dots(tc_box *box, long n, int K, const uint32_t *a, const uint32_t *b,
                          const uint32_t *c0, uint32_t *d)
{
    const int k = box->k;
    uint32_t *sa = (uint32_t *)tc_xmalloc((size_t)n * k * 4);
    uint32_t *sb = (uint32_t *)tc_xmalloc((size_t)n * k * 4);
    uint32_t *cc = (uint32_t *)tc_xmalloc((size_t)n * 4);
    memcpy(cc, c0, (size_t)n * 4);
    for (int s = 0; s < K / k; s++) {
        for (long i = 0; i < n; i++) {
            memcpy(sa + i * k, a + i * (long)K + (long)s * k, (size_t)k * 4);
            memcpy(sb + i * k, b + i * (long)K + (long)s * k, (size_t)k * 4);
        }
        tc_box_run(box, n, sa, sb, cc, d);
        memcpy(cc, d, (size_t)n * 4);
    }
    free(sa);
    free(sb);
    free(cc);
}

/* ---- the consequences ---------------------------------------------------------------------- */
/* Reversed order: the same products, k .. 0, in one instruction and over four. */
static void show_order(tc_box *box, uint64_t seed)
{
    enum { N = 4096 };
    const int k = box->k;
    for (int instr = 1; instr <= 4; instr *= 4) {
        const int K = k * instr;
        uint32_t *a = (uint32_t *)tc_xmalloc((size_t)N * K * 4);
        uint32_t *b = (uint32_t *)tc_xmalloc((size_t)N * K * 4);
        uint32_t *ra = (uint32_t *)tc_xmalloc((size_t)N * K * 4);
        uint32_t *rb = (uint32_t *)tc_xmalloc((size_t)N * K * 4);
        uint32_t c[N], d[N], dr[N];
        tc_rng rng;
        tc_rng_seed(&rng, seed + (uint64_t)instr);
        for (long i = 0; i < N; i++) {
            uint32_t c1;
            for (int s = 0; s < instr; s++)
                tc_random_dot(box->in, box->out, k, TC_DIST_UNIFORM, &rng, a + i * K + s * k,
                              b + i * K + s * k, &c1);
            c[i] = 0;
            for (int j = 0; j < K; j++) {
                ra[i * K + j] = a[i * K + K - 1 - j];
                rb[i * K + j] = b[i * K + K - 1 - j];
            }
        }
        box_long_dots(box, N, K, a, b, c, d);
        box_long_dots(box, N, K, ra, rb, c, dr);
        long diff = 0;
        double worst = 0; /* |change| / sum |a_i b_i|: the scale of a dot product's error */
        for (long i = 0; i < N; i++) {
            diff += d[i] != dr[i];
            double s = 0;
            for (int j = 0; j < K; j++)
                s += fabs(tc_fmt_to_double(box->in, a[i * K + j]) *
                          tc_fmt_to_double(box->in, b[i * K + j]));
            const double ch =
                fabs(tc_fmt_to_double(box->out, d[i]) - tc_fmt_to_double(box->out, dr[i]));
            if (s > 0 && ch / s > worst) worst = ch / s;
        }
        printf("  reversed order, K = %-4d (%d instruction%s): %6.2f%% of %d results change, by "
               "up to %.1e of sum|a b|\n",
               K, instr, instr > 1 ? "s" : "", 100.0 * diff / N, N, worst);
        free(a), free(b), free(ra), free(rb);
    }
}

/* The fitted model with one feature changed: how many uniform dot products change. */
static void show_variations(const tc_model_params *fit, uint64_t seed)
{
    enum { N = 20000 };
    tc_model_params alt[10];
    const char *what[10];
    int n = 0;
    if (fit->block > 1 && fit->k % (fit->block / 2) == 0)
        alt[n] = *fit, alt[n].block = fit->block / 2, what[n++] = "half the block";
    if (fit->block * 2 <= fit->k)
        alt[n] = *fit, alt[n].block = fit->block * 2, what[n++] = "twice the block";
    if (fit->frac_bits < TC_FRAC_EXACT && fit->frac_bits >= 3)
        alt[n] = *fit, alt[n].frac_bits = fit->frac_bits - 3, what[n++] = "3 bits fewer (F - 3)";
    if (fit->frac_bits < TC_FRAC_EXACT)
        alt[n] = *fit, alt[n].frac_bits = fit->frac_bits + 3, what[n++] = "3 bits more (F + 3)";
    alt[n] = *fit;
    alt[n].out_round = alt[n].chain_round = fit->out_round == TC_RNE ? TC_RZ : TC_RNE;
    what[n++] = fit->out_round == TC_RNE ? "truncated result" : "result rounded to nearest";
    if (fit->c_after) { /* c after the blocks: put it back into block 0's alignment */
        alt[n] = *fit, alt[n].c_after = 0, what[n++] = "c in block 0's alignment";
    } else {
        alt[n] = *fit;
        alt[n].chain = fit->chain == TC_CHAIN_FUSED ? TC_CHAIN_ADD : TC_CHAIN_FUSED;
        what[n++] = fit->chain == TC_CHAIN_FUSED ? "c added after the block" : "c inside the block";
    }
    if (fit->interleave) alt[n] = *fit, alt[n].interleave = 0, what[n++] = "contiguous blocks";
    if (fit->result_bits) /* at most 10 alternatives with this one */
        alt[n] = *fit, alt[n].result_bits = 0, what[n++] = "block results not cut";
    tc_model_params_fma_chain(&alt[n], fit->in, fit->out, fit->k), what[n++] = "f32 FMA chain";
    tc_model_params_exact(&alt[n], fit->in, fit->out, fit->k), what[n++] = "exact, rounded once";
    int kept = 0; /* a change that leaves the family (interleave with one block, ...) is dropped */
    for (int j = 0; j < n; j++)
        if (!tc_model_params_check(&alt[j])) alt[kept] = alt[j], what[kept++] = what[j];
    n = kept;
    long diff[10] = {0};
    tc_rng rng;
    tc_rng_seed(&rng, seed);
    for (long i = 0; i < N; i++) {
        uint32_t a[4 * 64], b[4 * 64], c; /* four instructions of k <= 64 */
        tc_random_dot(fit->in, fit->out, 4 * fit->k, TC_DIST_UNIFORM, &rng, a, b, &c);
        const uint32_t d = tc_model_dot(fit, a, b, 4 * fit->k, 0);
        for (int j = 0; j < n; j++) diff[j] += tc_model_dot(&alt[j], a, b, 4 * fit->k, 0) != d;
    }
    printf("  the fitted model with one feature changed (a model, not a measurement of another "
           "GPU),\n  K = %d uniform products, share of %d results that differ:\n",
           4 * fit->k, N);
    for (int j = 0; j < n; j++) printf("    %-28s %6.2f%%\n", what[j], 100.0 * diff[j] / N);
}

/* Largest error over K against the harness's tolerance, the GPU and the f32 FMA chain. */
static void show_tolerance(tc_box *box, const variant *v, uint64_t seed)
{
    if (!v->tolerance_row) {
        printf("  (no row of common/verify.c's tolerance table uses %s)\n", v->name);
        return;
    }
    const tc_precision *prec = tc_precision_get(v->tolerance_row);
    enum { N = 1024 };
    static const int Ks[] = {0, 256, 4096}; /* 0: one instruction */
    tc_model_params fma;
    tc_model_params_fma_chain(&fma, v->in, v->out, box->k);
    printf("  error against the exact sum, inputs uniform in [-1, 1) (the harness's), c = 0;\n"
           "  verify.c row '%s': pass if |err| <= atol + rtol |ref|\n"
           "    %-6s %-12s %-12s %-14s %-14s\n",
           v->tolerance_row, "K", "max |err|", "atol", "GPU/allowed", "FMA/allowed");
    for (size_t t = 0; t < sizeof Ks / sizeof Ks[0]; t++) {
        const int K = Ks[t] ? Ks[t] : box->k;
        uint32_t *a = (uint32_t *)tc_xmalloc((size_t)N * K * 4);
        uint32_t *b = (uint32_t *)tc_xmalloc((size_t)N * K * 4);
        uint32_t c[N], d[N];
        tc_rng rng;
        tc_rng_seed(&rng, seed + (uint64_t)K);
        for (long i = 0; i < N; i++) {
            uint32_t c1;
            for (int s = 0; s < K / box->k; s++)
                tc_random_dot(box->in, box->out, box->k, TC_DIST_UNIFORM, &rng,
                              a + i * K + s * box->k, b + i * K + s * box->k, &c1);
            c[i] = 0;
        }
        box_long_dots(box, N, K, a, b, c, d);
        double atol, rtol, worst = 0, worst_fma = 0, max_err = 0;
        tc_tolerance(prec, K, 1.0, &atol, &rtol);
        for (long i = 0; i < N; i++) {
            const double ref = tc_exact_dot(v->in, v->out, a + i * K, b + i * K, K, 0);
            const double err = fabs(tc_fmt_to_double(v->out, d[i]) - ref);
            const double allowed = atol + rtol * fabs(ref);
            const uint32_t f = tc_model_dot(&fma, a + i * K, b + i * K, K, 0);
            const double err_fma = fabs(tc_fmt_to_double(v->out, f) - ref);
            if (err > max_err) max_err = err;
            if (err / allowed > worst) worst = err / allowed;
            if (err_fma / allowed > worst_fma) worst_fma = err_fma / allowed;
        }
        printf("    %-6d %-12.3e %-12.3e %-14.3f %-14.3f\n", K, max_err, atol, worst, worst_fma);
        free(a), free(b);
    }
}

/* ---- one variant --------------------------------------------------------------------------- */
/* What the SASS of this program showed for FP8 mma.sync built for sm_90 (CUDA 13.0): no FP8
 * tensor-core instruction, but an emulation with the f16 datapath. Said next to those rows. */
static void print_hopper_fp8_note(const variant *v, const tc_device_info *dev, const char *indent)
{
    if (dev->cc != 90 || (v->in != TC_FMT_E4M3 && v->in != TC_FMT_E5M2) || v->kind >= NK_WG_F16F32)
        return; /* the wg_ rows run Hopper's FP8 tensor cores */
    const int f32 = v->out == TC_FMT_F32;
    printf("%snote: on sm_90 the compiler emulates FP8 mma.sync: no FP8 tensor core runs here. In "
           "the SASS\n"
           "%s      (CUDA 13.0, sm_90): F2FP makes f16 of the FP8 operands, one HMMA.16816.%s adds "
           "the products\n"
           "%s      of k = 0, 1 (mod 4) from zero, a second one those of k = 2, 3 (mod 4) onto it, "
           "and %s adds c.\n"
           "%s      These rows describe the f16 datapath plus that emulation; Hopper's FP8 tensor "
           "cores are\n"
           "%s      reached through wgmma (chapter 05 part 2). Check a build:\n"
           "%s      cuobjdump -sass build/bin/08_tc_numerics | grep -E 'F2FP|HMMA|QMMA'\n",
           indent, indent, f32 ? "F32" : "F16", indent, f32 ? "FADD" : "HADD2", indent, indent,
           indent);
}

typedef struct {
    int ran, problems;
    long searched, bad, fma_bad, exact_bad;
} outcome;

static void print_search(const tc_search_result *s, tc_fmt in, tc_fmt out, int k)
{
    printf("  random search: %ld dot products of one instruction each\n"
           "    %-10s %10s %12s %14s %14s\n",
           s->n, "inputs", "dots", "fitted model", "f32 FMA chain", "exact+round");
    for (int d = 0; d < TC_DIST_COUNT; d++)
        printf("    %-10s %10ld %12ld %13.2f%% %13.2f%%\n", tc_dist_name((tc_dist)d),
               s->per_dist[d], s->fit_bad[d], 100.0 * s->fma_bad[d] / (double)s->per_dist[d],
               100.0 * s->exact_bad[d] / (double)s->per_dist[d]);
    printf("    %-10s %10ld %12ld %13.2f%% %13.2f%%   (mismatches: target 0)\n", "all", s->n,
           tc_search_total(s->fit_bad), 100.0 * tc_search_total(s->fma_bad) / (double)s->n,
           100.0 * tc_search_total(s->exact_bad) / (double)s->n);
    if (s->have_example) {
        printf("    first mismatch (%s): c = %.9g, GPU %.9g (0x%08x), model %.9g (0x%08x)\n    a =",
               tc_dist_name((tc_dist)s->ex_dist), tc_fmt_to_double(out, s->ex_c),
               tc_fmt_to_double(out, s->ex_box), s->ex_box, tc_fmt_to_double(out, s->ex_model),
               s->ex_model);
        for (int i = 0; i < k; i++) printf(" %08x", s->ex_a[i]);
        printf("\n    b =");
        for (int i = 0; i < k; i++) printf(" %08x", s->ex_b[i]);
        printf("\n");
    }
    (void)in;
}

static outcome run_variant(const variant *v, const tc_device_info *dev, long n_search,
                           uint64_t seed, int verbose)
{
    outcome o;
    memset(&o, 0, sizeof o);
    gpu_box g;
    tc_box box;
    gpu_box_open(&g, &box, v);
    tc_probe_report r;
    tc_probe_run(&box, &r);
    o.ran = 1;
    if (verbose) {
        printf("== %s: %s\n", v->name, v->description);
        print_hopper_fp8_note(v, dev, "  ");
        tc_probe_print(&r, stdout);
        char name[64];
        snprintf(name, sizeof name, "fitted_%s", v->name);
        tc_model_params_print_c(&r.fit, name, stdout);
    }
    if (r.sane) {
        tc_search_result s;
        tc_search(&box, &r.fit, n_search, seed, tc_cpu_threads(), &s);
        o.searched = s.n;
        o.bad = tc_search_total(s.fit_bad);
        o.fma_bad = tc_search_total(s.fma_bad);
        o.exact_bad = tc_search_total(s.exact_bad);
        if (verbose) print_search(&s, v->in, v->out, box.k);
        if (verbose) {
            printf("  consequences\n");
            show_order(&box, seed);
            show_variations(&r.fit, seed);
            show_tolerance(&box, v, seed);
        }
    }
    o.problems = !r.ok || g.unwritten; /* the search and the consequences ran the GPU too */
    if (g.unwritten) printf("  ERROR: %ld results were never written\n", g.unwritten);
    gpu_box_close(&g);
    return o;
}

/* --test searches seed + TEST_SEED_OFFSET: never the data the model was fitted on */
#define TEST_SEED_OFFSET 1000003u

/* --test: the lines of one variant */
static void test_variant(const variant *v, const tc_device_info *dev, uint64_t seed, int *passed,
                         int *failed)
{
    gpu_box g;
    tc_box box;
    print_hopper_fp8_note(v, dev, "");
    gpu_box_open(&g, &box, v);
    tc_probe_report r;
    tc_probe_run(&box, &r);
    int ok = r.sane && !g.unwritten;
    printf("%s %-8s plumbing: zeros, ones, unit vectors, c passes (%ld dots)%s\n",
           ok ? "PASS" : "FAIL", v->name, r.dots, g.unwritten ? ": UNWRITTEN RESULTS" : "");
    *passed += ok, *failed += !ok;
    if (!r.sane) {
        gpu_box_close(&g);
        return;
    }
    char line[320];
    tc_model_params_format(&r.fit, line, sizeof line);
    printf("%s %-8s probes fit the model: %s\n", r.ok ? "PASS" : "FAIL", v->name, line);
    if (!r.ok) printf("     %s\n", r.problem);
    *passed += r.ok, *failed += !r.ok;
    /* the black box self-check: the probes, run on the fitted model, find the same model */
    tc_box mbox;
    tc_box_model(&mbox, &r.fit);
    tc_probe_report rm;
    tc_probe_run(&mbox, &rm);
    ok = rm.ok && tc_model_params_equal(&rm.fit, &r.fit);
    printf("%s %-8s probes on the fitted model find it again\n", ok ? "PASS" : "FAIL", v->name);
    *passed += ok, *failed += !ok;
    /* The model's family was fitted and extended on the default mode's searches (seed 1): the
     * test searches other data, so that a passing test is a prediction, not a replay. */
    const uint64_t search_seed = seed + TEST_SEED_OFFSET;
    const long n = getenv("TC_TEST_SMALL") ? 2000 : SEARCH_TEST;
    tc_search_result s;
    tc_search(&box, &r.fit, n, search_seed, tc_cpu_threads(), &s);
    ok = tc_search_total(s.fit_bad) == 0 && !g.unwritten;
    printf("%s %-8s random search (seed %llu): %ld of %ld dots differ from the model (f32 FMA "
           "chain: %ld, exact: %ld)\n",
           ok ? "PASS" : "FAIL", v->name, (unsigned long long)search_seed,
           tc_search_total(s.fit_bad), s.n, tc_search_total(s.fma_bad),
           tc_search_total(s.exact_bad));
    if (!ok) print_search(&s, v->in, v->out, box.k);
    *passed += ok, *failed += !ok;
    gpu_box_close(&g);
}

/* ---- command line -------------------------------------------------------------------------- */
static const tc_cli_flag flags[] = {
    {.name = "--search",
     .metavar = "N",
     .help = "random dot products per variant, 1..10^9 (default 10^6)"},
};
static long n_search = SEARCH_DEFAULT; /* --search (--test runs its own, SEARCH_TEST) */

static void print_list(void)
{
    printf("%s - what a tensor core computes, bit for bit\n\n%-10s %-7s %s\n", PROGRAM, "variant",
           "min SM", "instruction");
    for (int v = 0; v < N_VARIANTS; v++) {
        char sm[16]; /* the minimum, or the arch-specific code the variant needs (sm_90a) */
        if (variants[v].target && strchr(variants[v].target, 'a'))
            snprintf(sm, sizeof sm, "sm_%s", variants[v].target);
        else
            snprintf(sm, sizeof sm, "sm_%d", variants[v].min_cc);
        printf("%-10s %-7s %s\n", variants[v].name, sm, variants[v].description);
    }
    printf("\nThe probes and the model: tc_probe.h, common/tc_model.h; the lesson: "
           "08_tc_numerics/README.md\n");
}

static void check_args(const tc_args *a)
{
    if (a->flag_values[0]) {
        if (a->mode == TC_MODE_TEST)
            tc_usage_error(PROGRAM, "--test runs its own search of %ld per variant; drop --search",
                           SEARCH_TEST);
        n_search = tc_parse_long(PROGRAM, "--search", a->flag_values[0], 1, SEARCH_MAX);
    }
}

/* Every mode: each selected variant that can run here; --test its PASS/FAIL lines, --bench one
 * line of the search each (08 times nothing: the CSV has the header only), the default mode the
 * probes, the model, the search and the consequences, a block per variant. */
static int run_variants(const tc_args *a, const tc_device_info *dev, FILE *info)
{
    int passed = 0, failed = 0, skipped = 0, bad = 0, ran = 0;
    if (a->mode == TC_MODE_BENCH)
        fprintf(info, "%-9s %12s %12s %14s %14s\n", "variant", "dots", "mismatches",
                "f32 FMA chain", "exact+round");
    for (int i = 0; i < N_VARIANTS; i++) {
        const variant *v = &variants[i];
        if (a->variant && strcmp(a->variant, "all") != 0 && strcmp(a->variant, v->name) != 0)
            continue;
        /* the default mode's blocks: a blank line between two */
        if (a->mode == TC_MODE_DEFAULT && ran + skipped > 0) printf("\n");
        char why[256];
        if (!runnable(v, dev, why, sizeof why)) {
            fprintf(info, "%s%-8s skipped: %s\n",
                    a->mode == TC_MODE_TEST    ? "SKIP "
                    : a->mode == TC_MODE_BENCH ? "\n== "
                                               : "== ",
                    v->name, why);
            skipped++;
            continue;
        }
        ran++;
        if (a->mode == TC_MODE_TEST) {
            test_variant(v, dev, a->seed, &passed, &failed);
        } else if (a->mode == TC_MODE_BENCH) {
            outcome o = run_variant(v, dev, n_search, a->seed, 0);
            fprintf(info, "%-9s %12ld %12ld %13.2f%% %13.2f%%%s\n", v->name, o.searched, o.bad,
                    100.0 * o.fma_bad / (double)(o.searched ? o.searched : 1),
                    100.0 * o.exact_bad / (double)(o.searched ? o.searched : 1),
                    o.problems ? "  (probes: problems, see the default mode)" : "");
            bad += o.bad > 0 || o.problems;
        } else {
            outcome o = run_variant(v, dev, n_search, a->seed, 1);
            bad += o.bad > 0 || o.problems;
        }
    }
    if (a->mode == TC_MODE_TEST) return tc_test_finish(PROGRAM, passed, failed, skipped);
    if (!ran) { /* every selected variant was skipped: the run says nothing (exit 77) */
        fprintf(info,
                "\nSKIP: %s: no selected variant can run on this GPU (%d skipped, see above)\n",
                PROGRAM, skipped);
        return TC_EXIT_SKIP;
    }
    if (a->mode == TC_MODE_BENCH)
        fprintf(info, "\n(08 times nothing: its --bench is the search; no rows for the ladder)\n");
    if (bad)
        fprintf(info, "\n%d variant%s did not fit the model exactly (see above)\n", bad,
                bad > 1 ? "s" : "");
    return bad ? TC_EXIT_WRONG : TC_EXIT_PASS;
}

static int mode_test(const tc_args *a, const tc_device_info *dev)
{
    return run_variants(a, dev, stdout);
}

static int measure(const tc_args *a, const tc_device_info *dev, FILE *info, FILE *csv)
{
    return run_variants(a, dev, info);
}

int main(int argc, char **argv)
{
    static const tc_program program = {
        .cli = {.program = PROGRAM,
                .summary = "what a tensor core computes, bit for bit: probes, a bit-accurate "
                           "model, a random search",
                TC_VARIANT_TABLE(variants),
                .default_reps = 1,
                .default_warmup = 0,
                .flags = flags,
                .n_flags = TC_COUNT(flags)},
        .min_cc = 80,
        .list = print_list,
        .check_args = check_args,
        .test = mode_test,
        .measure = measure,
    };
    return tc_program_main(argc, argv, &program);
}
