/* tests/test_verify.c - the CPU reference and the checker are tested before anything is checked
 * with them: the reference against naive triple loops, the checker with negative controls (a
 * corrupted element, a NaN, an unwritten element must each FAIL). */
#include "unit.h"

#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The naive loop: element (i,j) = sum over k in plain order, in long double. */
static long double naive(const tc_matrix *A, const tc_matrix *B, long i, long j)
{
    long double s = 0;
    for (long k = 0; k < A->cols; k++)
        s += (long double)tc_load(A->data, A->type, (size_t)(i * A->rs + k * A->cs)) *
             (long double)tc_load(B->data, B->type, (size_t)(k * B->rs + j * B->cs));
    return s;
}

static int unit_ref_gemm_matches_naive_loops(void)
{
    const tc_dtype types[] = {TC_F32, TC_F16, TC_BF16, TC_E4M3};
    tc_rng rng;
    tc_rng_seed(&rng, 7);
    for (int ti = 0; ti < 4; ti++)
        for (int la = 0; la < 2; la++)
            for (int lb = 0; lb < 2; lb++) {
                long M = 13 + ti, N = 7 + la, K = 37 + lb;
                tc_layout a_l = la ? TC_COL_MAJOR : TC_ROW_MAJOR,
                          b_l = lb ? TC_COL_MAJOR : TC_ROW_MAJOR;
                void *a = unit_random_values(types[ti], (size_t)(M) * (size_t)(K), &rng),
                     *b = unit_random_values(types[ti], (size_t)(K) * (size_t)(N), &rng);
                tc_matrix A = tc_matrix_make(a, types[ti], M, K, a_l, a_l == TC_ROW_MAJOR ? K : M);
                tc_matrix B = tc_matrix_make(b, types[ti], K, N, b_l, b_l == TC_ROW_MAJOR ? N : K);
                tc_sample s = tc_sample_make(M, N, K, 1e18, 0, &rng);
                double *ref = malloc((size_t)s.n * sizeof *ref);
                tc_ref_gemm(&A, &B, &s, ref);
                for (long e = 0; e < s.n; e++) {
                    long i = e / N, j = e % N;
                    long double want = naive(&A, &B, i, j);
                    UNIT_CHECK(fabsl((long double)ref[e] - want) <= 1e-13L * (1 + fabsl(want)),
                               "type %s layouts %d%d C(%ld,%ld): %.17g vs %.17Lg",
                               tc_dtype_name(types[ti]), la, lb, i, j, ref[e], want);
                }
                free(ref);
                free(a);
                free(b);
            }
    return 0;
}

static int unit_ref_gemm_int8_exact(void)
{
    /* Extreme int8 values: -128 * -128 * K = 16384 K must come out exact. */
    long M = 3, N = 2, K = 1000;
    int8_t *a = malloc((size_t)(M * K)), *b = malloc((size_t)(K * N));
    memset(a, 0x80, (size_t)(M * K)); /* -128 */
    memset(b, 0x80, (size_t)(K * N));
    a[5] = 127;
    tc_matrix A = tc_matrix_make(a, TC_I8, M, K, TC_ROW_MAJOR, K);
    tc_matrix B = tc_matrix_make(b, TC_I8, K, N, TC_COL_MAJOR, K);
    tc_rng rng;
    tc_rng_seed(&rng, 1);
    tc_sample s = tc_sample_make(M, N, K, 1e18, 0, &rng);
    double ref[6];
    tc_ref_gemm(&A, &B, &s, ref);
    /* row 0 has one 127 at k = 5: 999 * 16384 + 127 * -128 = 16367616 - 16256 = 16351360 */
    UNIT_CHECK(ref[0] == 16351360.0 && ref[1] == 16351360.0, "row 0: %.1f %.1f", ref[0], ref[1]);
    UNIT_CHECK(ref[2] == 16384000.0, "row 1: %.1f (want 1000 * 16384)", ref[2]);
    free(a);
    free(b);
    return 0;
}

static int unit_ref_gemm_f64_compensated(void)
{
    /* f64 data get a reference more accurate than f64: sums that plain double loses entirely.
     * Row 0: 2^60 + 1 - 2^60 = 1 (a plain double sum gives 0). Row 1: the products of two
     * 53-bit values whose low parts cancel: (1 + 2^-52)(1 - 2^-52) - 1 = -2^-104, exact only if
     * each product is kept whole (Dot2 splits it with an FMA). */
    const long M = 2, N = 1, K = 3;
    const double a[6] = {0x1p60, 1.0, -0x1p60, 1.0 + 0x1p-52, -1.0, 0.0};
    const double b[3] = {1.0, 1.0, 1.0};
    tc_matrix A = tc_matrix_make(a, TC_F64, M, K, TC_ROW_MAJOR, K);
    tc_matrix B = tc_matrix_make(b, TC_F64, K, N, TC_COL_MAJOR, K);
    tc_rng rng;
    tc_rng_seed(&rng, 1);
    tc_sample s = tc_sample_make(M, N, K, 1e18, 0, &rng);
    double ref[2];
    tc_ref_gemm(&A, &B, &s, ref);
    UNIT_CHECK(ref[0] == 1.0, "2^60 + 1 - 2^60: %.17g (want 1)", ref[0]);
    /* row 1 with b = (1 - 2^-52, 1, 0): (1 + 2^-52)(1 - 2^-52) - 1 = -2^-104 */
    const double bb[3] = {1.0 - 0x1p-52, 1.0, 0.0};
    tc_matrix B2 = tc_matrix_make(bb, TC_F64, K, N, TC_COL_MAJOR, K);
    tc_ref_gemm(&A, &B2, &s, ref);
    UNIT_CHECK(ref[1] == -0x1p-104, "(1 + 2^-52)(1 - 2^-52) - 1: %.17g (want -2^-104)", ref[1]);
    tc_sample_free(&s);
    return 0;
}

static int unit_ref_gemm_sampled_equals_full(void)
{
    long M = 40, N = 30, K = 20;
    tc_rng rng;
    tc_rng_seed(&rng, 3);
    void *a = unit_random_values(TC_F16, (size_t)(M) * (size_t)(K), &rng),
         *b = unit_random_values(TC_F16, (size_t)(K) * (size_t)(N), &rng);
    tc_matrix A = tc_matrix_make(a, TC_F16, M, K, TC_ROW_MAJOR, K);
    tc_matrix B = tc_matrix_make(b, TC_F16, K, N, TC_COL_MAJOR, K);
    tc_sample full = tc_sample_make(M, N, K, 1e18, 0, &rng);
    tc_sample part = tc_sample_make(M, N, K, 0, 100, &rng);
    UNIT_CHECK(full.full && full.n == M * N, "full sample has %ld elements", full.n);
    UNIT_CHECK(!part.full && part.n == 3 * N + 3 * M + 100, "sampled has %ld elements", part.n);
    double *rf = malloc((size_t)full.n * sizeof *rf), *rp = malloc((size_t)part.n * sizeof *rp);
    tc_ref_gemm(&A, &B, &full, rf);
    tc_ref_gemm(&A, &B, &part, rp);
    int rows_seen[3] = {0, 0, 0};
    for (long e = 0; e < part.n; e++) {
        long i, j;
        tc_sample_get(&part, e, &i, &j);
        UNIT_CHECK(i >= 0 && i < M && j >= 0 && j < N, "sample index (%ld,%ld) out of range", i, j);
        UNIT_CHECK(rp[e] == rf[i * N + j], "sampled C(%ld,%ld) differs", i, j);
        if (j == 0) rows_seen[0] += i == 0, rows_seen[1] += i == M / 2, rows_seen[2] += i == M - 1;
    }
    UNIT_CHECK(rows_seen[0] && rows_seen[1] && rows_seen[2], "first/middle/last rows not sampled");
    free(rf);
    free(rp);
    free(a);
    free(b);
    tc_sample_free(&part);
    return 0;
}

static int unit_tolerance_table_scales_with_k(void)
{
    double a1, r1, a2, r2;
    const tc_precision *p = tc_precision_get("f16f32");
    tc_tolerance(p, 1024, 1.0, &a1, &r1);
    tc_tolerance(p, 4096, 1.0, &a2, &r2);
    UNIT_CHECK(a2 > 3.9 * a1 && a2 < 4.1 * a1, "accumulator term must grow like K: %g -> %g", a1,
               a2);
    UNIT_CHECK(r1 == r2 && r1 == 2 * 0x1p-24, "rtol is 2 u_out: %g", r1);
    const tc_precision *t = tc_precision_get("f32_tf32");
    tc_tolerance(t, 4096, 1.0, &a2, &r2);
    UNIT_CHECK(a2 > 4 * 0x1p-11 * 64, "tf32 input rounding term missing: %g", a2);
    UNIT_CHECK(tc_precision_is_exact(tc_precision_get("i8i32")), "int8 must be exact");
    return 0;
}

/* The negative control behind the whole tolerance table: for every precision, a result that lost
 * the last 16-long k-slice (an off-by-one k-tile, a pipeline that does not drain) must FAIL at
 * K = 4096 and 8192, while the exact result rounded to the output type must PASS. A lost slice
 * has errors of rms 4/3 here (16 products of rms 1/3), independent of K. */
static int unit_tolerance_catches_lost_k_slice(void)
{
    const long M = 64, N = 64, K_max = 8192, SLICE = 16;
    tc_rng rng;
    tc_rng_seed(&rng, 21);
    for (int pi = 0; pi < tc_precision_count(); pi++) {
        const tc_precision *p = tc_precision_at(pi);
        void *a = unit_random_values(p->in, (size_t)(M * K_max), &rng);
        void *b = unit_random_values(p->in, (size_t)(K_max * N), &rng);
        void *b_cut = malloc((size_t)(K_max * N) * tc_dtype_size(p->in));
        void *c = malloc((size_t)(M * N) * tc_dtype_size(p->out));
        double *ref = malloc((size_t)(M * N) * sizeof *ref),
               *cut = malloc((size_t)(M * N) * sizeof *cut);
        for (long K = 4096; K <= K_max; K *= 2) {
            /* A row-major M x K (ld K_max), B column-major K x N (ld K_max) */
            tc_matrix A = tc_matrix_make(a, p->in, M, K, TC_ROW_MAJOR, K_max);
            tc_matrix B = tc_matrix_make(b, p->in, K, N, TC_COL_MAJOR, K_max);
            memcpy(b_cut, b, (size_t)(K_max * N) * tc_dtype_size(p->in));
            for (long j = 0; j < N; j++) /* zero the last SLICE k of every column */
                memset((char *)b_cut + (size_t)(j * K_max + K - SLICE) * tc_dtype_size(p->in), 0,
                       (size_t)SLICE * tc_dtype_size(p->in));
            tc_matrix Bc = tc_matrix_make(b_cut, p->in, K, N, TC_COL_MAJOR, K_max);
            tc_sample s = tc_sample_make(M, N, K, 1e18, 0, &rng);
            tc_ref_gemm(&A, &B, &s, ref);
            tc_ref_gemm(&A, &Bc, &s, cut);
            double bound = tc_matrix_absmax(&A) * tc_matrix_absmax(&B);
            tc_matrix C = tc_matrix_make(c, p->out, M, N, TC_ROW_MAJOR, N);
            for (long e = 0; e < M * N; e++) tc_store(c, p->out, (size_t)e, ref[e]);
            tc_check_result good = tc_check(&C, &s, ref, p, K, bound);
            UNIT_CHECK(good.pass, "%s K=%ld: the correctly rounded result fails", p->name, K);
            for (long e = 0; e < M * N; e++) tc_store(c, p->out, (size_t)e, cut[e]);
            tc_check_result bad = tc_check(&C, &s, ref, p, K, bound);
            UNIT_CHECK(!bad.pass,
                       "%s K=%ld: a result missing one 16-slice passes (max err %.3g, "
                       "allowed %.3g)",
                       p->name, K, bad.max_abs_err, bad.atol);
        }
        free(a);
        free(b);
        free(b_cut);
        free(c);
        free(ref);
        free(cut);
    }
    return 0;
}

/* ---- every tolerance row against realistic results and the wrong results it must catch ----------
 * For each row, a simulation of what a correct GPU computes (the rounding the row's error model
 * stands for: the library's rounding of the inputs, the accumulator's rounding after each block of
 * products, the output format) must PASS, and five wrong results must FAIL: a lost product (one k
 * for every element), a lost 16-long k-slice, a transposed 16x16 tile, alpha ignored, beta ignored.
 * At every K of the GEMM test matrix and at K = 16384 and 65536, as far as the row can verify
 * (tc_precision_k_verifiable), and at that limit itself. */
typedef enum {
    ACC_F32_RN,
    ACC_F32_RZ,
    ACC_F16_RN,
    ACC_FP8,
    ACC_EXACT,
    ACC_F64_FMA,
    ACC_F64_SUM
} sim_acc;
typedef struct {
    const char *row;
    float (*in_round)(float x); /* the library's rounding of f32 inputs (NULL: none) */
    double product_noise;       /* transformed-domain products: relative error up to this */
    int block;                  /* products added exactly before the running sum rounds */
    sim_acc acc;
    int three_tf32; /* 3xTF32: big and small tf32 parts, small*small dropped */
    int flush;      /* products after which the running sum is added to an f32 total (0: never) */
} sim_model;

static float round_f16(float x) { return tc_f16_to_f32(tc_f32_to_f16(x)); }
static float round_bf16(float x) { return tc_bf16_to_f32(tc_f32_to_bf16(x)); }

static const sim_model sim_models[] = {
    {.row = "f64", .block = 1, .acc = ACC_F64_FMA},
    {.row = "f64_oz6", .product_noise = 8 * 0x1p-42, .block = 1, .acc = ACC_F64_SUM},
    {.row = "f64_oz7", .product_noise = 9 * 0x1p-49, .block = 1, .acc = ACC_F64_SUM},
    {.row = "f64_oz8", .product_noise = 10 * 0x1p-56, .block = 1, .acc = ACC_F64_SUM},
    {.row = "f64_oz2n14", .product_noise = 0x1p-47, .block = 1, .acc = ACC_F64_SUM},
    {.row = "f64_oz2n15", .product_noise = 0x1p-50, .block = 1, .acc = ACC_F64_SUM},
    {.row = "f64_oz2n16", .product_noise = 0x1p-51, .block = 1, .acc = ACC_F64_SUM},
    {.row = "f32", .block = 1, .acc = ACC_F32_RN},
    {.row = "f32_tf32", .in_round = tc_f32_to_tf32_rz, .block = 8, .acc = ACC_F32_RZ},
    {.row = "f32_f16", .in_round = round_f16, .block = 16, .acc = ACC_F32_RZ},
    {.row = "f32_bf16", .in_round = round_bf16, .block = 16, .acc = ACC_F32_RZ},
    {.row = "tf32", .block = 4, .acc = ACC_F32_RZ},
    {.row = "tf32_rz", .block = 8, .acc = ACC_F32_RZ},
    {.row = "bf16x3", .product_noise = 2.5 * 0x1p-17, .block = 16, .acc = ACC_F32_RZ},
    {.row = "bf16x6", .product_noise = 0x1p-25, .block = 16, .acc = ACC_F32_RZ},
    {.row = "bf16x9", .block = 16, .acc = ACC_F32_RZ},
    {.row = "3xtf32", .block = 4, .acc = ACC_F32_RZ, .three_tf32 = 1, .flush = 16},
    {.row = "f16f32", .block = 16, .acc = ACC_F32_RZ},
    {.row = "f16f16", .block = 16, .acc = ACC_F16_RN},
    {.row = "bf16f32", .block = 16, .acc = ACC_F32_RZ},
    {.row = "i8i32", .block = 1, .acc = ACC_EXACT},
    {.row = "i8f32", .block = 1, .acc = ACC_F32_RN},
    {.row = "e4m3f32", .block = 32, .acc = ACC_FP8},
    {.row = "e5m2f32", .block = 32, .acc = ACC_FP8},
    {.row = "e4m3f32_b128", .block = 32, .acc = ACC_FP8}, /* the scales: powers of two, exact */
    {.row = "e4m3bf16_b128", .block = 32, .acc = ACC_FP8},
    {.row = "f16f32h", .block = 16, .acc = ACC_F32_RZ},
    {.row = "bf16f32b", .block = 16, .acc = ACC_F32_RZ},
    {.row = "f32_transform", .product_noise = 0x1p-20, .block = 1, .acc = ACC_F32_RN},
    {.row = "f16_transform", .product_noise = 0x1p-7, .block = 16, .acc = ACC_F32_RZ},
};

/* x rounded toward zero to `bits` significant bits */
static double trunc_bits(double x, int bits)
{
    int e;
    const double m = frexp(x, &e);
    return ldexp(trunc(ldexp(m, bits)), e - bits);
}

static double sim_product(const sim_model *sm, double a, double b, tc_rng *rng)
{
    if (sm->in_round) a = sm->in_round((float)a), b = sm->in_round((float)b);
    if (sm->three_tf32) {
        const float ab = tc_f32_to_tf32_rne(a), as = tc_f32_to_tf32_rne(a - ab);
        const float bb = tc_f32_to_tf32_rne(b), bs = tc_f32_to_tf32_rne(b - bb);
        return (double)ab * bb + (double)ab * bs + (double)as * bb;
    }
    double p = a * b; /* exact for every format but f64 (ACC_F64_FMA does not call this) */
    if (sm->product_noise > 0) p *= 1.0 + sm->product_noise * tc_rng_uniform(rng, -1.0f, 1.0f);
    return p;
}

/* one element: a (K values), b (K values) -> what the simulated GPU accumulates */
static double sim_dot(const sim_model *sm, const double *a, const double *b, long K, tc_rng *rng)
{
    double acc = 0, fp8_part = 0, total = 0;
    int fp8_blocks = 0;
    if (sm->acc == ACC_F64_FMA) { /* an FP64 GEMM: one fused multiply-add per product */
        for (long k = 0; k < K; k++) acc = fma(a[k], b[k], acc);
        return acc;
    }
    for (long k0 = 0; k0 < K; k0 += sm->block) {
        if (sm->flush && k0 % sm->flush == 0) total = (float)(total + acc), acc = 0;
        double blk = 0;
        for (long k = k0; k < k0 + sm->block && k < K; k++) blk += sim_product(sm, a[k], b[k], rng);
        switch (sm->acc) {
        case ACC_F32_RN: acc = (float)(acc + blk); break;
        case ACC_F32_RZ: acc = trunc_bits(acc + blk, 24); break;
        case ACC_F16_RN: acc = tc_f16_to_f32(tc_f64_to_f16(acc + blk)); break;
        case ACC_EXACT: acc += blk; break;
        case ACC_F64_FMA: break; /* handled above */
        case ACC_F64_SUM: acc += blk; break;
        case ACC_FP8: /* ~14 bits kept between promotions of every 4 blocks to f32 */
            fp8_part = trunc_bits(fp8_part + blk, 14);
            if (++fp8_blocks == 4) acc = (float)(acc + fp8_part), fp8_part = 0, fp8_blocks = 0;
            break;
        }
    }
    if (sm->flush) return (float)(total + acc);
    return sm->acc == ACC_FP8 ? (float)(acc + fp8_part) : acc;
}

/* one input value of a row: int8 integers; f64 with 53 random bits in [-1, 1); otherwise f32
 * uniform in [-1, 1) rounded as the row's library rounds it */
static double sim_input(const tc_precision *p, int integer, tc_rng *rng)
{
    if (integer) return (double)tc_rng_int(rng, -127, 127);
    if (p->in == TC_F64) return ldexp((double)(tc_rng_next_u64(rng) >> 11), -52) - 1.0;
    float x = tc_rng_uniform(rng, -1.0f, 1.0f);
    return p->in_round ? p->in_round(x) : x;
}

static int unit_tolerance_rows_catch_lost_work(void)
{
    enum { M = 32, N = 32, TILE = 16, SLICE = 16 };
    const long ks[] = {1, 40, 64, 65, 72, 128, 136, 513, 520, 1000, 2053, 8195, 16384, 65536};
    const int n_ks = (int)(sizeof ks / sizeof ks[0]);
    const char *control_names[] = {"a lost product", "a lost 16-slice", "a transposed tile",
                                   "alpha ignored", "beta ignored"};
    tc_rng rng;
    tc_rng_seed(&rng, 2024);
    for (int pi = 0; pi < tc_precision_count(); pi++) {
        const tc_precision *p = tc_precision_at(pi);
        const sim_model *sm = NULL;
        for (size_t i = 0; i < sizeof sim_models / sizeof sim_models[0]; i++)
            if (strcmp(sim_models[i].row, p->name) == 0) sm = &sim_models[i];
        UNIT_CHECK(sm != NULL, "row %s has no simulation of a correct result", p->name);
        const long kv = tc_precision_k_verifiable(p);
        const int integer = tc_dtype_is_integer(p->out);
        const double alpha = integer ? 2.0 : 0.75, beta = integer ? -1.0 : -1.25;
        for (int ki = 0; ki <= n_ks; ki++) {
            const long K = ki < n_ks ? ks[ki] : kv;
            if (K > kv || (ki == n_ks && kv > ks[n_ks - 1])) continue;
            /* inputs as the GPU gets them (A row-major M x K, B column-major K x N) */
            double *a = (double *)tc_xmalloc((size_t)(M * K) * sizeof(double));
            double *b = (double *)tc_xmalloc((size_t)(K * N) * sizeof(double));
            void *ha = tc_xmalloc((size_t)(M * K) * tc_dtype_size(p->in));
            void *hb = tc_xmalloc((size_t)(K * N) * tc_dtype_size(p->in));
            for (long i = 0; i < M * K; i++) {
                tc_store(ha, p->in, (size_t)i, sim_input(p, integer, &rng));
                a[i] = tc_load(ha, p->in, (size_t)i);
            }
            for (long i = 0; i < K * N; i++) {
                tc_store(hb, p->in, (size_t)i, sim_input(p, integer, &rng));
                b[i] = tc_load(hb, p->in, (size_t)i);
            }
            const tc_matrix A = tc_matrix_make(ha, p->in, M, K, TC_ROW_MAJOR, K);
            const tc_matrix B = tc_matrix_make(hb, p->in, K, N, TC_COL_MAJOR, K);
            const double s = tc_matrix_absmax(&A) * tc_matrix_absmax(&B);
            tc_sample smp = tc_sample_make(M, N, K, 1e18, 0, &rng);
            double *exact = (double *)tc_xmalloc(M * N * sizeof(double));
            double *ref = (double *)tc_xmalloc(M * N * sizeof(double));
            double *acc = (double *)tc_xmalloc(M * N * sizeof(double));
            double *c0 = (double *)tc_xmalloc(M * N * sizeof(double));
            tc_ref_gemm(&A, &B, &smp, exact);
            const long k0 = (long)(tc_rng_next_u64(&rng) % (uint64_t)K);
            const long s0 = K > SLICE ? (long)(tc_rng_next_u64(&rng) % (uint64_t)(K - SLICE)) : 0;
            void *hc = tc_xmalloc(M * N * tc_dtype_size(p->out));
            for (long e = 0; e < M * N; e++) {
                const long i = e / N, j = e % N;
                acc[e] = sim_dot(sm, a + i * K, b + j * K, K, &rng);
                /* C's starting values are of the size of a product, as the GEMM driver makes them */
                tc_store(hc, p->out, (size_t)e,
                         integer ? (double)tc_rng_int(&rng, -1000, 1000)
                                 : s * tc_rng_uniform(&rng, -1.0f, 1.0f));
                c0[e] = tc_load(hc, p->out, (size_t)e);
                ref[e] = alpha * exact[e] + beta * c0[e];
            }
            const tc_matrix C = tc_matrix_make(hc, p->out, M, N, TC_ROW_MAJOR, N);
            const double s_check = s * fmax(1.0, fabs(alpha)); /* as the GEMM driver does */
            for (int control = -1; control < 5; control++) {
                for (long e = 0; e < M * N; e++) {
                    const long i = e / N, j = e % N;
                    long ee = e; /* the transposed tile reads its mirror element */
                    if (control == 2 && i < TILE && j < TILE) ee = j * N + i;
                    double got = acc[ee];
                    if (control == 0) got -= a[i * K + k0] * b[j * K + k0];
                    if (control == 1)
                        for (long k = s0; k < s0 + SLICE && k < K; k++)
                            got -= a[i * K + k] * b[j * K + k];
                    const double al = control == 3 ? 1.0 : alpha, be = control == 4 ? 0.0 : beta;
                    const double y = al * got + be * c0[ee];
                    const double out = integer || p->out == TC_F64 ? y : (double)(float)y;
                    tc_store(hc, p->out, (size_t)e, out);
                }
                const tc_check_result r = tc_check(&C, &smp, ref, p, K, s_check);
                UNIT_CHECK(r.coarse == (K > kv), "%s K=%ld: coarse is %d, the limit %ld", p->name,
                           K, r.coarse, kv);
                if (control < 0)
                    UNIT_CHECK(r.pass, "%s K=%ld: a simulated correct result fails (%.3g of atol)",
                               p->name, K, r.max_abs_err / r.atol);
                else
                    UNIT_CHECK(!r.pass, "%s K=%ld: %s passes (max err %.3g, atol %.3g)", p->name, K,
                               control_names[control], r.max_abs_err, r.atol);
            }
            tc_sample_free(&smp);
            free(a), free(b), free(ha), free(hb), free(hc);
            free(exact), free(ref), free(acc), free(c0);
        }
    }
    return 0;
}

/* A 20 x 30 f32 "GPU result" equal to the reference rounded to f32, column-major. */
typedef struct {
    float *c;
    double *ref;
    tc_sample s;
    tc_matrix C;
} fixture;

static fixture make_fixture(tc_dtype out)
{
    fixture f;
    long M = 20, N = 30;
    tc_rng rng;
    tc_rng_seed(&rng, 11);
    f.s = tc_sample_make(M, N, 64, 1e18, 0, &rng);
    f.ref = malloc((size_t)(M * N) * sizeof *f.ref);
    f.c = malloc((size_t)(M * N) * sizeof *f.c);
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            double v = out == TC_I32 ? (double)tc_rng_int(&rng, -100000, 100000)
                                     : 8.0 * tc_rng_uniform(&rng, -1.0f, 1.0f) + 1e-9;
            f.ref[i * N + j] = v;
            if (out == TC_I32)
                ((int32_t *)f.c)[i + j * M] = (int32_t)v;
            else
                f.c[i + j * M] = (float)v;
        }
    f.C = tc_matrix_make(f.c, out, M, N, TC_COL_MAJOR, M);
    return f;
}

static void free_fixture(fixture *f)
{
    free(f->c);
    free(f->ref);
}

static int unit_checker_accepts_correct_result(void)
{
    fixture f = make_fixture(TC_F32);
    tc_check_result r = tc_check(&f.C, &f.s, f.ref, tc_precision_get("f16f32"), 64, 1.0);
    UNIT_CHECK(r.pass && r.bad == 0 && r.checked == 600, "correct result rejected (%ld bad)",
               r.bad);
    UNIT_CHECK(r.max_abs_err < 1e-6 && r.rel_fro_err < 1e-7, "errors %g %g", r.max_abs_err,
               r.rel_fro_err);
    free_fixture(&f);
    return 0;
}

static int unit_checker_rejects_corrupted_element(void)
{
    fixture f = make_fixture(TC_F32);
    const tc_precision *p = tc_precision_get("f16f32");
    double atol, rtol;
    tc_tolerance(p, 64, 1.0, &atol, &rtol);
    /* just outside the allowed error at C(7, 11) */
    long i = 7, j = 11;
    double want = f.ref[i * 30 + j];
    f.c[i + j * 20] = (float)(want + 1.5 * (atol + rtol * fabs(want)) + 1e-6);
    tc_check_result r = tc_check(&f.C, &f.s, f.ref, p, 64, 1.0);
    UNIT_CHECK(!r.pass && r.bad == 1, "corrupted element not caught (bad = %ld)", r.bad);
    UNIT_CHECK(r.worst_i == i && r.worst_j == j, "worst element reported at (%ld,%ld)", r.worst_i,
               r.worst_j);
    free_fixture(&f);
    return 0;
}

static int unit_checker_rejects_nan(void)
{
    fixture f = make_fixture(TC_F32);
    f.c[3 + 4 * 20] = NAN; /* a NaN that is not the poison pattern */
    tc_check_result r = tc_check(&f.C, &f.s, f.ref, tc_precision_get("f16f32"), 64, 1.0);
    UNIT_CHECK(!r.pass && r.nans == 1 && r.unwritten == 0, "NaN: pass %d nans %ld", r.pass, r.nans);
    UNIT_CHECK(r.worst_i == 3 && r.worst_j == 4, "worst at (%ld,%ld)", r.worst_i, r.worst_j);
    free_fixture(&f);
    /* also a NaN in the reference must fail, not compare "equal" */
    f = make_fixture(TC_F32);
    f.ref[0] = NAN;
    r = tc_check(&f.C, &f.s, f.ref, tc_precision_get("f16f32"), 64, 1.0);
    UNIT_CHECK(!r.pass, "NaN reference passed");
    free_fixture(&f);
    return 0;
}

static int unit_checker_rejects_unwritten_element(void)
{
    fixture f = make_fixture(TC_F32);
    memset(&f.c[19 + 29 * 20], tc_poison_byte(TC_F32), sizeof(float)); /* last element */
    tc_check_result r = tc_check(&f.C, &f.s, f.ref, tc_precision_get("f16f32"), 64, 1.0);
    UNIT_CHECK(!r.pass && r.unwritten == 1, "unwritten element: pass %d unwritten %ld", r.pass,
               r.unwritten);
    free_fixture(&f);
    f = make_fixture(TC_I32);
    memset(&((int32_t *)f.c)[0], tc_poison_byte(TC_I32), sizeof(int32_t));
    r = tc_check(&f.C, &f.s, f.ref, tc_precision_get("i8i32"), 64, 1.0);
    UNIT_CHECK(!r.pass && r.unwritten == 1, "unwritten int element: pass %d", r.pass);
    free_fixture(&f);
    return 0;
}

static int unit_checker_integers_exact(void)
{
    fixture f = make_fixture(TC_I32);
    tc_check_result r = tc_check(&f.C, &f.s, f.ref, tc_precision_get("i8i32"), 64, 1.0);
    UNIT_CHECK(r.pass, "exact integers rejected");
    ((int32_t *)f.c)[42] += 1; /* off by one must fail */
    r = tc_check(&f.C, &f.s, f.ref, tc_precision_get("i8i32"), 64, 1.0);
    UNIT_CHECK(!r.pass && r.bad == 1, "off-by-one integer passed");
    free_fixture(&f);
    return 0;
}

static int unit_checker_sampled_catches_bad_row(void)
{
    /* A kernel that gets the last row wrong (a classic edge bug) must be caught by sampling. */
    long M = 300, N = 200, K = 50;
    tc_rng rng;
    tc_rng_seed(&rng, 5);
    tc_sample s = tc_sample_make(M, N, K, 0, 1024, &rng);
    double *ref = calloc((size_t)s.n, sizeof *ref);
    float *c = calloc((size_t)(M * N), sizeof *c);
    for (long i = 0; i < M; i++) c[i + (N - 1) * M] = 0;    /* all zero, ref zero */
    for (long j = 0; j < N; j++) c[(M - 1) + j * M] = 1.0f; /* last row wrong */
    tc_matrix C = tc_matrix_make(c, TC_F32, M, N, TC_COL_MAJOR, M);
    tc_check_result r = tc_check(&C, &s, ref, tc_precision_get("f32"), K, 1.0);
    UNIT_CHECK(!r.pass && r.bad >= N, "bad last row: pass %d bad %ld", r.pass, r.bad);
    free(ref);
    free(c);
    tc_sample_free(&s);
    return 0;
}

static int unit_rel_fro_error_known_values(void)
{
    /* C = [3, 4] scaled by 0.5 against ref [1, 2]: error [0.5, 0], ||err|| = 0.5,
     * ||ref|| = sqrt(5), ratio 0.5 / sqrt(5) = 0.2236... */
    float c[2] = {3.0f, 4.0f};
    double ref[2] = {1.0, 2.0};
    tc_rng rng;
    tc_rng_seed(&rng, 1);
    tc_sample s = tc_sample_make(1, 2, 1, 1e18, 0, &rng);
    tc_matrix C = tc_matrix_make(c, TC_F32, 1, 2, TC_ROW_MAJOR, 2);
    double e = tc_rel_fro_error(&C, &s, ref, 0.5);
    UNIT_CHECK(fabs(e - 0.5 / sqrt(5.0)) < 1e-15, "got %.17g", e);
    c[1] = NAN;
    UNIT_CHECK(isnan(tc_rel_fro_error(&C, &s, ref, 0.5)), "NaN in C must give NaN");
    return 0;
}

/* the rows a per-row error reads: evenly spaced, whole, never repeated */
static int unit_sample_full_rows(void)
{
    tc_sample s = tc_sample_full_rows(10, 4, 3);
    UNIT_CHECK(!s.full && s.n == 12, "3 rows of 4: %ld elements", s.n);
    const long want[3] = {0, 3, 6};
    for (long e = 0; e < s.n; e++) {
        long i, j;
        tc_sample_get(&s, e, &i, &j);
        UNIT_CHECK(i == want[e / 4] && j == e % 4, "element %ld is (%ld, %ld)", e, i, j);
    }
    tc_sample_free(&s);
    s = tc_sample_full_rows(10, 4, 4); /* k * rows / n, not k * (rows / n): 0, 2, 5, 7 */
    UNIT_CHECK(s.n == 16 && s.ii[4] == 2 && s.ii[8] == 5 && s.ii[12] == 7,
               "4 rows of 10: %ld %ld %ld", s.ii[4], s.ii[8], s.ii[12]);
    tc_sample_free(&s);
    s = tc_sample_full_rows(200, 3, 64);
    UNIT_CHECK(s.n == 192 && s.ii[3 * 3] == 9 && s.ii[191] == 196, "64 of 200 rows: %ld, last %ld",
               s.ii[9], s.ii[191]);
    tc_sample_free(&s);
    s = tc_sample_full_rows(2, 5, 64); /* fewer rows than asked: each once */
    UNIT_CHECK(s.n == 10 && s.ii[0] == 0 && s.ii[5] == 1, "2 rows of 5: %ld elements", s.n);
    tc_sample_free(&s);
    return 0;
}

/* A small row with a 10% error among large rows with 1%: the Frobenius error over C is near 1%,
 * the worst row's 10%, at that row */
static int unit_worst_row_error_finds_small_row(void)
{
    enum { M = 6, N = 5 };
    float c[M * N];
    double ref[M * N];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            const double r = (i == 4 ? 1e-3 : 1.0) * (1 + j);
            ref[i * N + j] = r;
            c[i * N + j] = (float)(r * (i == 4 ? 1.1 : 1.01));
        }
    tc_matrix C = tc_matrix_make(c, TC_F32, M, N, TC_ROW_MAJOR, N);
    tc_sample s = tc_sample_full_rows(M, N, 64);
    long worst_row;
    const double w = tc_worst_row_error(&C, &s, ref, 1.0, &worst_row);
    UNIT_CHECK(worst_row == 4 && fabs(w - 0.1) < 1e-6, "worst row %ld, error %.9g", worst_row, w);
    const double fro = tc_rel_fro_error(&C, &s, ref, 1.0);
    UNIT_CHECK(fabs(fro - 0.01) < 1e-6, "the Frobenius error %.9g, not the large rows' 1%%", fro);
    c[2 * N + 3] = NAN;
    UNIT_CHECK(isnan(tc_worst_row_error(&C, &s, ref, 1.0, &worst_row)) && worst_row == 2,
               "NaN in row 2 of C must give NaN at row 2, not row %ld", worst_row);
    tc_sample_free(&s);
    return 0;
}

/* The row reported is C's row, not its place in the sample: 64 rows of 200, a bad one at sample
 * place 3 (row 9); and a row whose reference is all zeros counts with its absolute error */
static int unit_worst_row_error_names_c_row(void)
{
    enum { M = 200, N = 3 };
    float c[M * N];
    for (int x = 0; x < M * N; x++) c[x] = 1.0f;
    tc_matrix C = tc_matrix_make(c, TC_F32, M, N, TC_ROW_MAJOR, N);
    tc_sample s = tc_sample_full_rows(M, N, 64);
    double *ref = malloc((size_t)s.n * sizeof *ref);
    for (long e = 0; e < s.n; e++) ref[e] = 1.0;
    ref[3 * N + 1] = 2.0; /* row 9: error sqrt(1 / 6) */
    long worst_row;
    double w = tc_worst_row_error(&C, &s, ref, 1.0, &worst_row);
    UNIT_CHECK(worst_row == 9 && fabs(w - sqrt(1.0 / 6.0)) < 1e-12, "worst row %ld, error %.9g",
               worst_row, w);
    for (int j = 0; j < N; j++) ref[10 * N + j] = 0.0, c[31 * N + j] = 0.5f; /* row 31: zeros */
    w = tc_worst_row_error(&C, &s, ref, 1.0, &worst_row);
    UNIT_CHECK(worst_row == 31 && fabs(w - 0.5 * sqrt(3.0)) < 1e-7, "zero row: %ld, %.9g",
               worst_row, w);
    free(ref);
    tc_sample_free(&s);
    return 0;
}

static const tc_unit tests[] = {
    {.name = "ref_gemm_matches_naive_loops", .fn = unit_ref_gemm_matches_naive_loops},
    {.name = "ref_gemm_int8_exact", .fn = unit_ref_gemm_int8_exact},
    {.name = "ref_gemm_f64_compensated", .fn = unit_ref_gemm_f64_compensated},
    {.name = "ref_gemm_sampled_equals_full", .fn = unit_ref_gemm_sampled_equals_full},
    {.name = "tolerance_table_scales_with_k", .fn = unit_tolerance_table_scales_with_k},
    {.name = "tolerance_catches_lost_k_slice", .fn = unit_tolerance_catches_lost_k_slice},
    {.name = "checker_accepts_correct_result", .fn = unit_checker_accepts_correct_result},
    {.name = "checker_rejects_corrupted_element", .fn = unit_checker_rejects_corrupted_element},
    {.name = "checker_rejects_nan", .fn = unit_checker_rejects_nan},
    {.name = "checker_rejects_unwritten_element", .fn = unit_checker_rejects_unwritten_element},
    {.name = "checker_integers_exact", .fn = unit_checker_integers_exact},
    {.name = "checker_sampled_catches_bad_row", .fn = unit_checker_sampled_catches_bad_row},
    {.name = "rel_fro_error_known_values", .fn = unit_rel_fro_error_known_values},
    {.name = "sample_full_rows", .fn = unit_sample_full_rows},
    {.name = "worst_row_error_finds_small_row", .fn = unit_worst_row_error_finds_small_row},
    {.name = "worst_row_error_names_c_row", .fn = unit_worst_row_error_names_c_row},
    {.name = "tolerance_rows_catch_lost_work", .fn = unit_tolerance_rows_catch_lost_work},
};

int main(int argc, char **argv) { return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests)); }
