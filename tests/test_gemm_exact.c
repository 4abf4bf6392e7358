/* tests/test_gemm_exact.c - the GEMM driver's exact check (tc_gemm_exact_mismatches), on the CPU:
 * a C computed here, with its own indexing, as the tensor cores and the promotion would compute
 * it passes in every layout; C with the promotion every 256 products instead of 128, a skipped
 * k-step, one element one ulp off, or beta ignored fails; so does a word GEMM (bf16x9, 3xTF32)
 * with a word product dropped or replaced; an emulation that does not fit the variant's precision
 * is refused. What --test then adds on the GPU is only the kernel's C. */
#include "unit.h"

#include "gemm_driver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *precision, *model;
    int k_run;
    tc_layout a, b, c;
    int M, N, K, pad;
} exact_setup;

typedef struct {
    tc_gemm_variant v;
    tc_gemm_emulation em;
    tc_gemm_problem p;
    void *h_a, *h_b;
    float *c, *c0;
    tc_sample sample;
} exact_problem;

static long ld_of(tc_layout layout, long rows, long cols, int pad)
{
    return (layout == TC_ROW_MAJOR ? cols : rows) + pad;
}

static size_t at(tc_layout layout, long ld, long i, long j)
{
    return (size_t)(layout == TC_ROW_MAJOR ? i * ld + j : j * ld + i);
}

static void make(exact_problem *x, const exact_setup *s, uint64_t seed)
{
    memset(x, 0, sizeof *x);
    x->em = (tc_gemm_emulation){.model = s->model, .cc = 90, .k_run = s->k_run};
    x->v = (tc_gemm_variant){.name = "exact",
                             .precision = s->precision,
                             .a_layout = s->a,
                             .b_layout = s->b,
                             .c_layout = s->c,
                             .emulation = &x->em};
    tc_gemm_problem *p = &x->p;
    p->M = s->M, p->N = s->N, p->K = s->K;
    p->prec = tc_precision_get(s->precision);
    p->a_layout = s->a, p->b_layout = s->b, p->c_layout = s->c;
    p->lda = ld_of(s->a, s->M, s->K, s->pad);
    p->ldb = ld_of(s->b, s->K, s->N, s->pad + 1);
    p->ldc = ld_of(s->c, s->M, s->N, s->pad + 2);
    p->alpha = 1.0f, p->beta = 0.0f;
    const size_t es = tc_dtype_size(p->prec->in);
    const long na = (s->a == TC_ROW_MAJOR ? s->M : s->K) * p->lda,
               nb = (s->b == TC_ROW_MAJOR ? s->K : s->N) * p->ldb,
               nc = (s->c == TC_ROW_MAJOR ? s->M : s->N) * p->ldc;
    x->h_a = malloc((size_t)na * es), x->h_b = malloc((size_t)nb * es);
    x->c = calloc((size_t)nc, sizeof *x->c), x->c0 = calloc((size_t)nc, sizeof *x->c0);
    tc_rng rng;
    tc_rng_seed(&rng, seed);
    tc_gemm_fill_matrix(x->h_a, NULL, p->prec, TC_INPUTS_UNIFORM, s->M, s->K, s->a, p->lda, &rng);
    tc_gemm_fill_matrix(x->h_b, NULL, p->prec, TC_INPUTS_UNIFORM, s->K, s->N, s->b, p->ldb, &rng);
    for (long e = 0; e < nc; e++) x->c0[e] = tc_rng_uniform(&rng, -1.0f, 1.0f);
    x->sample = tc_sample_make(s->M, s->N, s->K, 1e12, 0, &rng); /* every element */
}

static void release(exact_problem *x)
{
    free(x->h_a), free(x->h_b), free(x->c), free(x->c0);
    tc_sample_free(&x->sample);
}

static uint32_t bits_at(const void *h, size_t es, size_t idx)
{
    return es == 1 ? ((const uint8_t *)h)[idx] : ((const uint16_t *)h)[idx];
}

/* C as the kernel would write it: runs of k_run (0: all of K) summed by the model, added in f32;
 * skip_k >= 0 leaves out the k-step of 32 products at skip_k; then alpha C + beta C0 */
static void compute(exact_problem *x, int k_run, long skip_k, int ignore_beta)
{
    const tc_gemm_problem *p = &x->p;
    const tc_model_params *model = tc_model_recorded_sm90(x->em.model);
    const size_t es = tc_dtype_size(p->prec->in);
    uint32_t *a = malloc((size_t)p->K * sizeof *a), *b = malloc((size_t)p->K * sizeof *b);
    for (long i = 0; i < p->M; i++)
        for (long j = 0; j < p->N; j++) {
            for (long k = 0; k < p->K; k++) {
                a[k] = bits_at(x->h_a, es, at(p->a_layout, p->lda, i, k));
                b[k] = bits_at(x->h_b, es, at(p->b_layout, p->ldb, k, j));
                if (skip_k >= 0 && k >= skip_k && k < skip_k + 32) a[k] = 0;
            }
            float total = 0.0f;
            const int run = k_run ? k_run : p->K;
            for (int k0 = 0; k0 < p->K; k0 += run) {
                const uint32_t r =
                    tc_model_dot(model, a + k0, b + k0, p->K - k0 < run ? p->K - k0 : run, 0);
                float f;
                memcpy(&f, &r, sizeof f);
                total = k_run ? total + f : f;
            }
            const size_t ci = at(p->c_layout, p->ldc, i, j);
            const float scaled = p->alpha * total, kept = p->beta * x->c0[ci];
            x->c[ci] = ignore_beta || p->beta == 0.0f ? scaled : scaled + kept;
        }
    free(a), free(b);
}

static long mismatches(exact_problem *x, char *msg)
{
    return tc_gemm_exact_mismatches(&x->v, &x->p, x->h_a, x->h_b, x->c,
                                    x->p.beta != 0.0f ? x->c0 : NULL, &x->sample, NULL, msg, 256);
}

static int unit_gemm_exact_fp8_promotion(void)
{
    static const exact_setup setups[] = {
        {.precision = "e4m3f32",
         .model = "wg_e4m3f32",
         .k_run = 128,
         .a = TC_ROW_MAJOR,
         .b = TC_COL_MAJOR,
         .c = TC_ROW_MAJOR,
         .M = 6,
         .N = 5,
         .K = 300,
         .pad = 3},
        {.precision = "e5m2f32",
         .model = "wg_e5m2f32",
         .k_run = 128,
         .a = TC_COL_MAJOR,
         .b = TC_ROW_MAJOR,
         .c = TC_COL_MAJOR,
         .M = 9,
         .N = 4,
         .K = 512,
         .pad = 0},
    };
    char msg[256] = "";
    for (size_t s = 0; s < sizeof setups / sizeof setups[0]; s++) {
        exact_problem x;
        make(&x, &setups[s], 11 + s);
        const long n = (long)x.p.M * x.p.N;
        compute(&x, 128, -1, 0);
        UNIT_CHECK(mismatches(&x, msg) == 0, "%s: the schedule itself fails: %s", setups[s].model,
                   msg);
        /* one element one ulp off */
        const size_t ci = at(x.p.c_layout, x.p.ldc, x.p.M - 1, 1);
        x.c[ci] = nextafterf(x.c[ci], INFINITY);
        UNIT_CHECK(mismatches(&x, msg) == 1, "%s: one ulp off: %s", setups[s].model, msg);
        compute(&x, 256, -1, 0); /* promotion every 2 k-tiles */
        const long every2 = mismatches(&x, msg);
        UNIT_CHECK(every2 >= n / 2, "%s: promotion every 256 caught in %ld of %ld", setups[s].model,
                   every2, n);
        compute(&x, 128, 128, 0); /* k-tile 1's first k-step skipped */
        const long skipped = mismatches(&x, msg);
        UNIT_CHECK(skipped >= n * 3 / 4, "%s: a skipped k-step caught in %ld of %ld",
                   setups[s].model, skipped, n);
        /* alpha and beta: right, then beta ignored */
        x.p.alpha = 0.75f, x.p.beta = -1.25f;
        compute(&x, 128, -1, 0);
        UNIT_CHECK(mismatches(&x, msg) == 0, "%s: alpha and beta: %s", setups[s].model, msg);
        compute(&x, 128, -1, 1);
        UNIT_CHECK(mismatches(&x, msg) >= n * 3 / 4, "%s: beta ignored caught: %s", setups[s].model,
                   msg);
        printf("    %s, %dx%dx%d: every 256 %ld, a skipped k-step %ld of %ld elements\n",
               setups[s].model, x.p.M, x.p.N, x.p.K, every2, skipped, n);
        release(&x);
    }
    return 0;
}

static int unit_gemm_exact_f16_chain(void)
{
    const exact_setup setup = {.precision = "f16f32",
                               .model = "wg_f16f32",
                               .k_run = 0,
                               .a = TC_COL_MAJOR,
                               .b = TC_COL_MAJOR,
                               .c = TC_COL_MAJOR,
                               .M = 7,
                               .N = 6,
                               .K = 200,
                               .pad = 1};
    exact_problem x;
    char msg[256] = "";
    make(&x, &setup, 3);
    const long n = (long)x.p.M * x.p.N;
    compute(&x, 0, -1, 0);
    UNIT_CHECK(mismatches(&x, msg) == 0, "the f16 chain fails: %s", msg);
    compute(&x, 64, -1, 0); /* a kernel that added k-tiles of 64 in f32 instead */
    const long runs = mismatches(&x, msg);
    compute(&x, 0, 96, 0);
    const long skipped = mismatches(&x, msg);
    printf("    wg_f16f32, 7x6x200: runs of 64 added in f32 %ld, a skipped k-step %ld of %ld\n",
           runs, skipped, n);
    UNIT_CHECK(runs >= n / 4, "runs of 64 caught in %ld of %ld", runs, n);
    UNIT_CHECK(skipped >= n * 3 / 4, "a skipped k-step caught in %ld of %ld", skipped, n);
    /* an emulation that does not fit: an FP8 model on an f16 row */
    x.em.model = "wg_e4m3f32";
    UNIT_CHECK(mismatches(&x, msg) == -1 && strstr(msg, "does not fit"), "misfit: %s", msg);
    release(&x);
    return 0;
}

/* The words and their products as chapter 09's v4_bf16x9_fast and 04's v8_3xtf32_fast issue
 * them, computed here one instruction at a time (each one's result the next one's c) */
static void compute_words(exact_problem *x, int n_words, const int *pairs, int n_pairs, int k_tile)
{
    const tc_gemm_problem *p = &x->p;
    const tc_model_params *model = tc_model_recorded_sm90(x->em.model);
    const int ks = model->k;
    uint32_t *aw[3], *bw[3];
    for (int w = 0; w < n_words; w++) {
        aw[w] = calloc((size_t)p->K + k_tile, sizeof **aw); /* zeros past K */
        bw[w] = calloc((size_t)p->K + k_tile, sizeof **bw);
    }
    for (long i = 0; i < p->M; i++)
        for (long j = 0; j < p->N; j++) {
            for (long k = 0; k < p->K; k++) {
                float ra = ((const float *)x->h_a)[at(p->a_layout, p->lda, i, k)];
                float rb = ((const float *)x->h_b)[at(p->b_layout, p->ldb, k, j)];
                for (int w = 0; w < n_words; w++) {
                    float va, vb;
                    if (n_words == 2) { /* tf32 to nearest, ties away; then the remainder */
                        va = tc_f32_to_tf32_rna(ra), vb = tc_f32_to_tf32_rna(rb);
                    } else { /* bf16 to nearest even */
                        va = tc_bf16_to_f32(tc_f32_to_bf16(ra));
                        vb = tc_bf16_to_f32(tc_f32_to_bf16(rb));
                    }
                    ra -= va, rb -= vb;
                    if (n_words == 2) {
                        memcpy(&aw[w][k], &va, sizeof va);
                        memcpy(&bw[w][k], &vb, sizeof vb);
                    } else {
                        aw[w][k] = tc_f32_to_bf16(va), bw[w][k] = tc_f32_to_bf16(vb);
                    }
                }
            }
            float total = 0.0f;
            for (int k0 = 0; k0 < p->K; k0 += k_tile) {
                uint32_t c = 0;
                for (int s = k0; s < k0 + k_tile && s < p->K; s += ks)
                    for (int q = 0; q < n_pairs; q++)
                        c = tc_model_dot(model, aw[pairs[2 * q]] + s, bw[pairs[2 * q + 1]] + s, ks,
                                         c);
                float f;
                memcpy(&f, &c, sizeof f);
                total += f;
            }
            x->c[at(p->c_layout, p->ldc, i, j)] = total;
        }
    for (int w = 0; w < n_words; w++) free(aw[w]), free(bw[w]);
}

static int unit_gemm_exact_words(void)
{
    /* 09's nine bf16 word products, smallest first, and the list without (0, 2) (mutant 073) */
    static const int x9[] = {2, 2, 2, 1, 1, 2, 2, 0, 0, 2, 1, 1, 1, 0, 0, 1, 0, 0};
    static const int x9_no02[] = {2, 2, 2, 1, 1, 2, 2, 0, 1, 1, 1, 0, 0, 1, 0, 0};
    static const int x9_order[] = {2, 2, 2, 1, 1, 2, 2, 0, 0, 2, 1, 1, 1, 0, 0, 0, 0, 1};
    /* 04's 3xTF32: small x big, big x small, big x big */
    static const int tf3[] = {1, 0, 0, 1, 0, 0};
    static const int tf3_small_small[] = {1, 1, 0, 1, 0, 0}; /* mutant 010 */
    const exact_setup bf = {.precision = "bf16x9",
                            .model = "wg_bf16f32",
                            .k_run = 64,
                            .a = TC_ROW_MAJOR,
                            .b = TC_COL_MAJOR,
                            .c = TC_ROW_MAJOR,
                            .M = 6,
                            .N = 7,
                            .K = 150,
                            .pad = 2};
    const exact_setup tf = {.precision = "3xtf32",
                            .model = "wg_tf32f32",
                            .k_run = 32,
                            .a = TC_ROW_MAJOR,
                            .b = TC_COL_MAJOR,
                            .c = TC_ROW_MAJOR,
                            .M = 5,
                            .N = 9,
                            .K = 100,
                            .pad = 1};
    char msg[256] = "";
    exact_problem x;
    make(&x, &bf, 5);
    x.em.words = TC_GEMM_WORDS_BF16X3, x.em.pairs = x9, x.em.n_pairs = 9;
    const long n_bf = (long)x.p.M * x.p.N;
    compute_words(&x, 3, x9, 9, 64);
    UNIT_CHECK(mismatches(&x, msg) == 0, "bf16x9 fails its own schedule: %s", msg);
    compute_words(&x, 3, x9_no02, 8, 64);
    const long dropped = mismatches(&x, msg);
    compute_words(&x, 3, x9_order, 9, 64);
    const long reordered = mismatches(&x, msg);
    release(&x);
    make(&x, &tf, 6);
    x.em.words = TC_GEMM_WORDS_TF32X2, x.em.pairs = tf3, x.em.n_pairs = 3;
    const long n_tf = (long)x.p.M * x.p.N;
    compute_words(&x, 2, tf3, 3, 32);
    UNIT_CHECK(mismatches(&x, msg) == 0, "3xtf32 fails its own schedule: %s", msg);
    compute_words(&x, 2, tf3_small_small, 3, 32);
    const long small_small = mismatches(&x, msg);
    release(&x);
    printf("    bf16x9 6x7x150: (0,2) dropped %ld, two products swapped %ld of %ld; 3xtf32 "
           "5x9x100: small x small for big x small %ld of %ld\n",
           dropped, reordered, n_bf, small_small, n_tf);
    UNIT_CHECK(dropped >= n_bf * 3 / 4, "a dropped word product caught in %ld of %ld", dropped,
               n_bf);
    UNIT_CHECK(small_small >= n_tf * 3 / 4, "a wrong word product caught in %ld of %ld",
               small_small, n_tf);
    return 0;
}

static const tc_unit tests[] = {
    {.name = "gemm_exact_words", .fn = unit_gemm_exact_words},
    {.name = "gemm_exact_fp8_promotion", .fn = unit_gemm_exact_fp8_promotion},
    {.name = "gemm_exact_f16_chain", .fn = unit_gemm_exact_f16_chain},
};

int main(int argc, char **argv) { return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests)); }
