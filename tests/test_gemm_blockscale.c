/* tests/test_gemm_blockscale.c - block-scaled FP8 in the GEMM driver, on the CPU: the skewed inputs
 * (one exponent per 1 x 128 slice of A and per 128 x 128 block of B), the quantisation with
 * power-of-two scales, and the checks a block-scaled kernel answers to. A C made here as the
 * kernel makes it (each k-tile's tensor-core sum, times its two scales, fma'd into the total)
 * passes the exact check and the FP64 tolerance; C with one block's scale ignored, with the scales
 * of the neighbouring k-tile, with the B scale of the wrong block of columns, or with the scale
 * applied after the whole sum (per-tensor style) fails the exact check; whether the FP64
 * tolerance also sees each fault is printed beside it (it is one bound for the whole of C, set by
 * the largest block: the exact check is the one that must catch them all). */
#include "unit.h"

#include "gemm_driver.h"
#include "tc_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { M = 9, N = 260, K = 512, KB = K / 128, NB = (N + 127) / 128, LDB = (KB + 3) / 4 * 4 };

/* the skewed draws: the exponents come first, one per block (A's 1 x 128 slices row by row, then
 * B's 128 x 128 blocks), so drawing them again from the same seed says which block has which:
 * every value of a block below 2^e, and its largest above 2^(e-1) (128 or more uniform draws) */
static int unit_skewed_inputs_per_block(void)
{
    const tc_precision *f32 = tc_precision_get("f32");
    float *a = malloc((size_t)M * K * sizeof *a), *b = malloc((size_t)K * N * sizeof *b);
    tc_rng rng, again;
    tc_rng_seed(&rng, 5);
    tc_gemm_fill_matrix(a, NULL, f32, TC_INPUTS_SKEWED, M, K, TC_ROW_MAJOR, K, &rng);
    tc_rng_seed(&again, 5);
    int lo = 99, hi = -99;
    for (int i = 0; i < M; i++)
        for (int kb = 0; kb < KB; kb++) {
            const int e = tc_rng_int(&again, TC_WIDE_EXP_MIN, TC_WIDE_EXP_MAX);
            double amax = 0;
            for (int k = kb * 128; k < kb * 128 + 128; k++) amax = fmax(amax, fabs(a[i * K + k]));
            UNIT_CHECK(amax < ldexp(1.0, e) && amax >= ldexp(1.0, e - 1),
                       "slice (%d, %d) of A: max %g, its exponent %d", i, kb, amax, e);
            lo = e < lo ? e : lo, hi = e > hi ? e : hi;
        }
    UNIT_CHECK(hi - lo >= 8, "A's slices' exponents span %d .. %d only", lo, hi);
    /* B (column-major K x N): one exponent per 128 x 128 block, k-blocks along a row of blocks */
    tc_rng_seed(&rng, 6);
    tc_gemm_fill_matrix_b(b, NULL, f32, TC_INPUTS_SKEWED, K, N, TC_COL_MAJOR, K, &rng);
    tc_rng_seed(&again, 6);
    for (int kb = 0; kb < KB; kb++)
        for (int nb = 0; nb < NB; nb++) {
            const int e = tc_rng_int(&again, TC_WIDE_EXP_MIN, TC_WIDE_EXP_MAX);
            double amax = 0;
            for (int j = nb * 128; j < nb * 128 + 128 && j < N; j++)
                for (int k = kb * 128; k < kb * 128 + 128; k++)
                    amax = fmax(amax, fabs(b[(size_t)j * K + k]));
            UNIT_CHECK(amax < ldexp(1.0, e) && amax >= ldexp(1.0, e - 1),
                       "block (%d, %d) of B: max %g, its exponent %d", kb, nb, amax, e);
        }
    free(a), free(b);
    return 0;
}

/* skewed_rows: one exponent per whole row of A (drawn first, row by row), B drawn exactly as
 * uniform inputs are; then, on the CPU, what the worst-row error of the default table shows: e4m3
 * with one scale (1) against 1 x 128 block scales, A's rows from 2^-8 to 2^8, B quantised alike.
 * The Frobenius error over C is about the same for both (the large rows make it); the worst
 * row's is several times larger with one scale (a row of 2^-8 falls into the subnormals). */
static int unit_skewed_rows_worst_row(void)
{
    enum { MR = 64, KR = 256, NR = 48, KBR = KR / 128 };
    const tc_precision *f32 = tc_precision_get("f32");
    float *a = malloc(sizeof(float) * MR * KR), *b = malloc(sizeof(float) * KR * NR),
          *b_uniform = malloc(sizeof(float) * KR * NR);
    tc_rng rng, again;
    tc_rng_seed(&rng, 7);
    tc_gemm_fill_matrix(a, NULL, f32, TC_INPUTS_SKEWED_ROWS, MR, KR, TC_ROW_MAJOR, KR, &rng);
    tc_rng_seed(&again, 7);
    int lo = 99, hi = -99;
    for (int i = 0; i < MR; i++) {
        const int e = tc_rng_int(&again, TC_WIDE_EXP_MIN, TC_WIDE_EXP_MAX);
        double amax = 0;
        for (int k = 0; k < KR; k++) amax = fmax(amax, fabs(a[i * KR + k]));
        UNIT_CHECK(amax < ldexp(1.0, e) && amax >= ldexp(1.0, e - 1),
                   "row %d of A: max %g, its exponent %d", i, amax, e);
        lo = e < lo ? e : lo, hi = e > hi ? e : hi;
    }
    UNIT_CHECK(lo <= -6 && hi >= 6, "A's rows' exponents span %d .. %d only", lo, hi);
    tc_rng_seed(&rng, 8);
    tc_gemm_fill_matrix_b(b, NULL, f32, TC_INPUTS_SKEWED_ROWS, KR, NR, TC_COL_MAJOR, KR, &rng);
    tc_rng_seed(&rng, 8);
    tc_gemm_fill_matrix_b(b_uniform, NULL, f32, TC_INPUTS_UNIFORM, KR, NR, TC_COL_MAJOR, KR, &rng);
    UNIT_CHECK(memcmp(b, b_uniform, sizeof(float) * KR * NR) == 0, "B is not drawn uniform");

    /* A per tensor (scale 1: every value below 256) and per 1 x 128 slice; B per tensor */
    float *a_tensor = malloc(sizeof(float) * MR * KR), *a_block = malloc(sizeof(float) * MR * KR),
          *bq = malloc(sizeof(float) * KR * NR), scales[KBR * MR];
    uint8_t *q = malloc(MR * KR);
    for (int x = 0; x < MR * KR; x++) a_tensor[x] = tc_e4m3_to_f32(tc_f32_to_e4m3(a[x]));
    tc_gemm_block_quantize(q, a_block, scales, a, TC_E4M3, MR, KR, TC_ROW_MAJOR, KR, 1, 128, 1, MR);
    for (int x = 0; x < KR * NR; x++) bq[x] = tc_e4m3_to_f32(tc_f32_to_e4m3(b[x]));
    tc_matrix A32 = tc_matrix_make(a, TC_F32, MR, KR, TC_ROW_MAJOR, KR),
              B32 = tc_matrix_make(b, TC_F32, KR, NR, TC_COL_MAJOR, KR),
              BQ = tc_matrix_make(bq, TC_F32, KR, NR, TC_COL_MAJOR, KR);
    tc_sample rows = tc_sample_full_rows(MR, NR, 64);
    double *ref = malloc(sizeof(double) * rows.n), *c_tensor = malloc(sizeof(double) * rows.n),
           *c_block = malloc(sizeof(double) * rows.n);
    tc_ref_gemm(&A32, &B32, &rows, ref);
    tc_matrix AT = tc_matrix_make(a_tensor, TC_F32, MR, KR, TC_ROW_MAJOR, KR),
              AB = tc_matrix_make(a_block, TC_F32, MR, KR, TC_ROW_MAJOR, KR);
    tc_ref_gemm(&AT, &BQ, &rows, c_tensor);
    tc_ref_gemm(&AB, &BQ, &rows, c_block);
    tc_matrix CT = tc_matrix_make(c_tensor, TC_F64, MR, NR, TC_ROW_MAJOR, NR),
              CB = tc_matrix_make(c_block, TC_F64, MR, NR, TC_ROW_MAJOR, NR);
    long row_tensor, row_block;
    const double worst_tensor = tc_worst_row_error(&CT, &rows, ref, 1.0, &row_tensor),
                 worst_block = tc_worst_row_error(&CB, &rows, ref, 1.0, &row_block),
                 fro_tensor = tc_rel_fro_error(&CT, &rows, ref, 1.0),
                 fro_block = tc_rel_fro_error(&CB, &rows, ref, 1.0);
    UNIT_CHECK(worst_tensor > 4 * worst_block,
               "worst row: one scale %.3g (row %ld), block scales %.3g (row %ld)", worst_tensor,
               row_tensor, worst_block, row_block);
    UNIT_CHECK(fabs(fro_tensor / fro_block - 1) < 0.2, "Frobenius: one scale %.3g, blocks %.3g",
               fro_tensor, fro_block);
    printf("note: worst row %.3g with one scale, %.3g with block scales; Frobenius %.3g, %.3g\n",
           worst_tensor, worst_block, fro_tensor, fro_block);
    tc_sample_free(&rows);
    free(a), free(b), free(b_uniform), free(a_tensor), free(a_block), free(bq), free(q);
    free(ref), free(c_tensor), free(c_block);
    return 0;
}

/* the quantisation: a power-of-two scale per block that puts its largest value in e4m3's top
 * binade, the stored value the nearest e4m3 of x / s, the scaled value exact */
static int unit_block_quantize_power_of_two_scales(void)
{
    const tc_precision *f32 = tc_precision_get("f32");
    float *x = malloc((size_t)M * K * sizeof *x), *deq = malloc((size_t)M * K * sizeof *deq);
    uint8_t *q = malloc((size_t)M * K);
    float sa[KB * M]; /* sa(i, kb) at kb * M + i */
    tc_rng rng;
    tc_rng_seed(&rng, 6);
    tc_gemm_fill_matrix(x, NULL, f32, TC_INPUTS_SKEWED, M, K, TC_ROW_MAJOR, K, &rng);
    for (int k = 0; k < 128; k++) x[k] = 0.0f; /* an all-zero slice: scale 1 */
    tc_gemm_block_quantize(q, deq, sa, x, TC_E4M3, M, K, TC_ROW_MAJOR, K, 1, 128, 1, M);
    UNIT_CHECK(sa[0] == 1.0f, "an all-zero slice's scale is %g", sa[0]);
    for (int i = 0; i < M; i++)
        for (int kb = 0; kb < KB; kb++) {
            const float s = sa[kb * M + i];
            int e;
            UNIT_CHECK(frexpf(s, &e) == 0.5f, "scale (%d, %d) = %g is not a power of two", i, kb,
                       s);
            double qmax = 0;
            for (int k = kb * 128; k < kb * 128 + 128; k++) {
                const size_t idx = (size_t)i * K + k;
                const float v = tc_e4m3_to_f32(q[idx]);
                UNIT_CHECK(v == tc_e4m3_to_f32(tc_f32_to_e4m3(x[idx] / s)),
                           "(%d, %d): stored %g, not e4m3(x / s)", i, k, v);
                UNIT_CHECK(deq[idx] == v * s, "(%d, %d): scaled %g != %g x %g", i, k, deq[idx], v,
                           s);
                qmax = fmax(qmax, fabs(v));
            }
            if (i > 0 || kb > 0)
                UNIT_CHECK(qmax > 224.0 && qmax <= 448.0,
                           "slice (%d, %d): largest stored %g, not in e4m3's top binade", i, kb,
                           qmax);
        }
    free(x), free(deq), free(q);
    return 0;
}

/* a block-scaled problem: skewed f32 data quantised as the driver does, its scales and the FP64
 * product of the scaled values */
typedef struct {
    tc_gemm_variant v;
    tc_gemm_emulation em;
    tc_gemm_problem p;
    uint8_t *a, *b;                 /* e4m3, A row-major M x K, B column-major K x N */
    float *a_deq, *b_deq;           /* the values the product is of */
    float sa[KB * M], sb[NB * LDB]; /* the driver's layouts: sa M fastest, sb K blocks fastest */
    float *c;                       /* row-major */
    double *ref;
    tc_sample sample;
} scaled_problem;

static void make(scaled_problem *x, uint64_t seed)
{
    memset(x, 0, sizeof *x);
    const tc_precision *f32 = tc_precision_get("f32");
    x->em = (tc_gemm_emulation){.model = "wg_e4m3f32", .cc = 90, .k_run = 128};
    x->v = (tc_gemm_variant){.name = "scaled",
                             .precision = "e4m3f32_b128",
                             .mult_k = 128,
                             .a_layout = TC_ROW_MAJOR,
                             .b_layout = TC_COL_MAJOR,
                             .c_layout = TC_ROW_MAJOR,
                             .emulation = &x->em,
                             .scaling = TC_GEMM_SCALING_BLOCK128};
    tc_gemm_problem *p = &x->p;
    p->M = M, p->N = N, p->K = K, p->prec = tc_precision_get("e4m3f32_b128");
    p->a_layout = TC_ROW_MAJOR, p->b_layout = TC_COL_MAJOR, p->c_layout = TC_ROW_MAJOR;
    p->lda = K, p->ldb = K, p->ldc = N, p->alpha = 1.0f, p->beta = 0.0f;
    p->ld_scale_a = M, p->ld_scale_b = LDB;
    float *a32 = malloc((size_t)M * K * sizeof *a32), *b32 = malloc((size_t)K * N * sizeof *b32);
    x->a = malloc((size_t)M * K), x->b = malloc((size_t)K * N);
    x->a_deq = malloc((size_t)M * K * sizeof(float)),
    x->b_deq = malloc((size_t)K * N * sizeof(float));
    x->c = malloc((size_t)M * N * sizeof *x->c);
    tc_rng rng;
    tc_rng_seed(&rng, seed);
    tc_gemm_fill_matrix(a32, NULL, f32, TC_INPUTS_SKEWED, M, K, TC_ROW_MAJOR, K, &rng);
    tc_gemm_fill_matrix_b(b32, NULL, f32, TC_INPUTS_SKEWED, K, N, TC_COL_MAJOR, K, &rng);
    tc_gemm_block_quantize(x->a, x->a_deq, x->sa, a32, TC_E4M3, M, K, TC_ROW_MAJOR, K, 1, 128, 1,
                           M);
    tc_gemm_block_quantize(x->b, x->b_deq, x->sb, b32, TC_E4M3, K, N, TC_COL_MAJOR, K, 128, 128, 1,
                           LDB);
    x->sample = tc_sample_make(M, N, K, 1e12, 0, &rng); /* every element */
    x->ref = malloc((size_t)x->sample.n * sizeof *x->ref);
    const tc_matrix A = tc_matrix_make(x->a_deq, TC_F32, M, K, TC_ROW_MAJOR, K);
    const tc_matrix B = tc_matrix_make(x->b_deq, TC_F32, K, N, TC_COL_MAJOR, K);
    tc_ref_gemm(&A, &B, &x->sample, x->ref);
    free(a32), free(b32);
}

static void release(scaled_problem *x)
{
    free(x->a), free(x->b), free(x->a_deq), free(x->b_deq), free(x->c), free(x->ref);
    tc_sample_free(&x->sample);
}

/* how a kernel can get the scales wrong */
typedef enum {
    RIGHT,
    IGNORE_ONE_A_SCALE, /* row bad_i's slice bad_kb taken as scale 1 */
    NEIGHBOUR_K_TILE,   /* k-tile kb's sum with the scales of kb - 1 (a pipeline off by one) */
    WRONG_B_BLOCK,      /* every column with block 0's B scales */
    SCALE_AT_THE_END    /* the sums added unscaled, the scales of the last k-tile applied once */
} scale_fault;

/* C as the kernel computes it: each k-tile's sum from a zero accumulator (chapter 08's model),
 * then total = fma(sum, sa sb, total) */
static void compute(scaled_problem *x, scale_fault fault, int bad_i, int bad_kb)
{
    const tc_model_params *model = tc_model_recorded_sm90("wg_e4m3f32");
    uint32_t a[K], b[K];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            for (int k = 0; k < K; k++) a[k] = x->a[i * K + k], b[k] = x->b[(size_t)j * K + k];
            float total = 0.0f, unscaled = 0.0f;
            for (int kb = 0; kb < KB; kb++) {
                const uint32_t bits = tc_model_gemm_dot(model, a + kb * 128, b + kb * 128, 128, 0);
                float sum;
                memcpy(&sum, &bits, sizeof sum);
                int ka = kb, jb = j / 128;
                if (fault == NEIGHBOUR_K_TILE && kb > 0) ka = kb - 1;
                if (fault == WRONG_B_BLOCK) jb = 0;
                float sa = x->sa[ka * M + i], sb = x->sb[jb * LDB + ka];
                if (fault == IGNORE_ONE_A_SCALE && i == bad_i && kb == bad_kb) sa = 1.0f;
                total = fmaf(sum, sa * sb, total);
                unscaled += sum;
            }
            if (fault == SCALE_AT_THE_END)
                total = unscaled * x->sa[(KB - 1) * M + i] * x->sb[(j / 128) * LDB + KB - 1];
            x->c[i * N + j] = total;
        }
}

static long exact_mismatches(scaled_problem *x, char *msg)
{
    const tc_gemm_host_scales scales = {.a = x->sa, .b = x->sb, .ld_a = M, .ld_b = LDB};
    return tc_gemm_exact_mismatches(&x->v, &x->p, x->a, x->b, x->c, NULL, &x->sample, &scales, msg,
                                    256);
}

static int tolerance_passes(scaled_problem *x)
{
    const tc_matrix A = tc_matrix_make(x->a_deq, TC_F32, M, K, TC_ROW_MAJOR, K);
    const tc_matrix B = tc_matrix_make(x->b_deq, TC_F32, K, N, TC_COL_MAJOR, K);
    const tc_matrix C = tc_matrix_make(x->c, TC_F32, M, N, TC_ROW_MAJOR, N);
    const double s = tc_matrix_absmax(&A) * tc_matrix_absmax(&B);
    return tc_check(&C, &x->sample, x->ref, x->p.prec, K, s).pass;
}

static int unit_block_scaled_checks(void)
{
    char msg[256] = "";
    scaled_problem x;
    make(&x, 17);
    compute(&x, RIGHT, 0, 0);
    UNIT_CHECK(exact_mismatches(&x, msg) == 0, "the kernel's arithmetic fails: %s", msg);
    UNIT_CHECK(tolerance_passes(&x), "the kernel's arithmetic fails the FP64 tolerance");
    /* the emulation refuses a check without the scales */
    const long no_scales =
        tc_gemm_exact_mismatches(&x.v, &x.p, x.a, x.b, x.c, NULL, &x.sample, NULL, msg, sizeof msg);
    UNIT_CHECK(no_scales == -1, "a block-scaled row checked without its scales: %ld", no_scales);
    /* the slices of A with the smallest and the largest scale other than 1 (ignoring a scale of
     * 1 changes nothing), each with its scale ignored */
    int small = -1, big = -1;
    for (int e = 0; e < KB * M; e++) {
        if (x.sa[e] == 1.0f) continue;
        if (small < 0 || x.sa[e] < x.sa[small]) small = e;
        if (big < 0 || x.sa[e] > x.sa[big]) big = e;
    }
    UNIT_CHECK(small >= 0 && x.sa[big] / x.sa[small] >= 256.0f, "the scales span %g only",
               x.sa[big] / x.sa[small]);
    const int small_i = small % M, small_kb = small / M, big_i = big % M, big_kb = big / M;
    /* the exact check reads TC_GEMM_EXACT_ELEMENTS of the sample, spread evenly: a fault in one
     * row shows in about n / M of them */
    const long n = TC_GEMM_EXACT_ELEMENTS < M * N ? TC_GEMM_EXACT_ELEMENTS : M * N;
    const struct {
        scale_fault fault;
        int i, kb;
        const char *what;
        long at_least; /* elements the exact check must catch */
    } faults[] = {
        {IGNORE_ONE_A_SCALE, small_i, small_kb, "the smallest slice's scale ignored",
         n / M * 3 / 4},
        {IGNORE_ONE_A_SCALE, big_i, big_kb, "the largest slice's scale ignored", n / M * 3 / 4},
        {NEIGHBOUR_K_TILE, 0, 0, "each k-tile with the previous one's scales", n * 9 / 10},
        {WRONG_B_BLOCK, 0, 0, "B's first block's scales for every column",
         n * (N - 128) / N * 9 / 10},
        {SCALE_AT_THE_END, 0, 0, "one scale applied after the sums", n * 9 / 10},
    };
    for (size_t f = 0; f < sizeof faults / sizeof faults[0]; f++) {
        compute(&x, faults[f].fault, faults[f].i, faults[f].kb);
        const long caught = exact_mismatches(&x, msg);
        const int tol = tolerance_passes(&x);
        printf("    %-43s exact check: %3ld of %ld elements differ; FP64 tolerance: %s\n",
               faults[f].what, caught, n, tol ? "passes (blind to it)" : "fails");
        UNIT_CHECK(caught >= faults[f].at_least, "%s: the exact check caught %ld of %ld",
                   faults[f].what, caught, n);
        /* with this seed the FP64 tolerance sees each fault too (the exact check is the one
         * that must see every fault, whatever the data) */
        UNIT_CHECK(!tol, "%s: passes the FP64 tolerance", faults[f].what);
    }
    release(&x);
    return 0;
}

/* C in bf16: the kernel's f32 result rounded once more, to nearest even, passes; rounded toward
 * zero (a truncating store) fails where the two differ */
static int unit_block_scaled_bf16_out(void)
{
    char msg[256] = "";
    scaled_problem x;
    make(&x, 19);
    x.v.precision = "e4m3bf16_b128";
    x.p.prec = tc_precision_get("e4m3bf16_b128");
    compute(&x, RIGHT, 0, 0);
    uint16_t *c16 = malloc((size_t)M * N * sizeof *c16);
    const tc_gemm_host_scales scales = {.a = x.sa, .b = x.sb, .ld_a = M, .ld_b = LDB};
    for (int e = 0; e < M * N; e++) c16[e] = tc_f32_to_bf16(x.c[e]);
    long bad = tc_gemm_exact_mismatches(&x.v, &x.p, x.a, x.b, c16, NULL, &x.sample, &scales, msg,
                                        sizeof msg);
    UNIT_CHECK(bad == 0, "bf16(C) to nearest fails: %s", msg);
    long differ = 0; /* elements whose truncation differs from the nearest */
    for (int e = 0; e < M * N; e++) {
        uint32_t bits;
        memcpy(&bits, &x.c[e], sizeof bits);
        const uint16_t rz = (uint16_t)(bits >> 16);
        differ += rz != c16[e];
        c16[e] = rz;
    }
    bad = tc_gemm_exact_mismatches(&x.v, &x.p, x.a, x.b, c16, NULL, &x.sample, &scales, msg,
                                   sizeof msg);
    printf("    bf16 C truncated instead of rounded: %ld of the checked elements differ (%ld of %d "
           "in all)\n",
           bad, differ, M * N);
    UNIT_CHECK(differ > M * N / 4 && bad > TC_GEMM_EXACT_ELEMENTS / 4,
               "truncation caught in %ld elements only", bad);
    free(c16);
    release(&x);
    return 0;
}

static const tc_unit tests[] = {
    {.name = "block_scaled_bf16_out", .fn = unit_block_scaled_bf16_out},
    {.name = "skewed_inputs_per_block", .fn = unit_skewed_inputs_per_block},
    {.name = "skewed_rows_worst_row", .fn = unit_skewed_rows_worst_row},
    {.name = "block_quantize_power_of_two_scales", .fn = unit_block_quantize_power_of_two_scales},
    {.name = "block_scaled_checks", .fn = unit_block_scaled_checks},
};

int main(int argc, char **argv) { return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests)); }
