/* common/verify.c - see verify.h. */
#define _POSIX_C_SOURCE 200809L
#include "verify.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tolerance table ------------------------------------------------------------------- */
#define U_F64    0x1p-53 /* unit roundoff of f64 (round to nearest) */
#define U_F32    0x1p-24 /* unit roundoff of f32 (round to nearest) */
#define U_F32_TC 0x1p-23 /* f32 accumulation in a tensor core: truncation, one ulp per step */
#define U_TF32   0x1p-11 /* tf32 and f16 keep 11 significant bits */
#define U_F16    0x1p-11
/* f16 accumulation (COMPUTE_16F, HMMA with an f16 C): the running sum is rounded to nearest once
 * per k-step of the instruction (16 products added before rounding), not truncated, so its errors
 * do not drift: modelled as u_f16 / 4 in the linear term. Measured on the H200 (cuBLAS f16_f16,
 * K = 1 .. 8192): the largest error is a quarter to a third of the resulting atol. */
#define U_F16_ACC 0x1p-13
#define U_BF16    0x1p-8 /* bf16 keeps 8 */
/* The FP8 tensor-core path keeps only about 14 significant bits in its running sum (reported for
 * Hopper in the DeepSeek-V3 technical report, sec. 3.3.2) and truncates it at every k = 32 step;
 * cuBLAS promotes that sum to f32 every few steps. We model four truncations of up to 2^-13 of the
 * sum per promotion interval, biased (truncation), so 4 * 2^-13 = 2^-11 per interval; intervals
 * are independent, so they add like the input-rounding term (sqrt(K)). Measured on an H200 with
 * cuBLAS 13.1: relative Frobenius error growing with K up to K = 128 and flat at 1.05e-4 beyond;
 * with one truncation per interval (u = 2^-13) the largest single error of 131072 reached 0.94 of
 * the bound (heavy tails, as biased truncation predicts), too close; with four it is about 0.25. */
#define U_FP8_BLOCK 0x1p-11
/* FFT and Winograd convolutions multiply transformed inputs and filters, rounded to the working
 * precision (f32; f16 for f16 data), and the inverse transform amplifies those rounding errors
 * (by ~2^2 for Winograd F(2x2, 3x3), more for larger tiles). Modelled as input rounding of
 * u * 2^4. Seen on the H200: cuDNN's FFT for FP32 data (relative error 3e-7, far inside); no f16
 * configuration there chose FFT or Winograd. */
#define U_TRANSFORM_F32 0x1p-20
#define U_TRANSFORM_F16 0x1p-7

/* 3xTF32 (chapter 04) multiplies f32 values split as x = big + small + r, big = tf32(x),
 * small = tf32(x - big): |small| <= 2^-11 |x| and the rest |r| <= 2^-23 |x|. The GEMM drops
 * small_a*small_b (<= 2^-22 |a b|) and never sees r_a, r_b (<= 2^-23 |a b| each), so every product
 * is off by at most 2^-21 |a b|: an input-rounding term the reference (f32 inputs) does not model.
 * Each product's error is independent, so it grows like sqrt(K) (u_in). The running sum stays in
 * f32; inside the tensor core it is truncated (U_F32_TC). */
#define U_3XTF32 0x1p-21
/* WMMA's TF32 shape m16n16k8 compiles to HMMA.1684 on sm_80 and sm_90 (chapter 04's SASS): a
 * tensor-core instruction of k = 4, so the f32 running sum is truncated after every 4 products,
 * four times as often per product as with an f16 instruction of k = 16, and the truncation errors
 * (biased, one ulp of a sum of size ~ s*sqrt(K)) add up four times as fast. Modelled as four
 * U_F32_TC. Measured on the H200 (chapter 04 v1..v4 against host-rounded TF32 inputs, uniform
 * data): largest error 1.65e-3 at K = 4096 and 5.1e-3 at K = 8192, a fifth and a third of the
 * resulting atol (with U_F32_TC they were 0.84 and 1.3 of it: the 8192^3 bench failed). */
#define U_F32_TC_K4 0x1p-21
/* The same argument for an instruction of k = 8 (mma.sync m16n8k8 tf32, wgmma tf32): twice the
 * truncations per product of k = 16. (With U_F32_TC, test_verify's simulation of a correct
 * result failed at K = 65536, 1.58 of atol.) */
#define U_F32_TC_K8 0x1p-22
/* The Ozaki scheme with s int8 slices (chapter 09, v2_ozaki): each product a b is off by at most
 * (s + 2) 2^-7s 2^(ea + eb), where 2^ea <= 2 max|row of A| and 2^eb <= 2 max|column of B|: the
 * truncated slices and the diagonals left out (09_emulated_precision/ozaki_model.h). Relative to
 * s = amax bmax that is 4 (s + 2) 2^-7s, an input-rounding term (independent per product: the
 * truncation errors take the sign of their products, random for the symmetric data of the tests;
 * for data of one sign they add up linearly in K, which this row does not model). The diagonals
 * are summed in f64. */
#define U_OZ6 (32 * 0x1p-42)
#define U_OZ7 (36 * 0x1p-49)
#define U_OZ8 (40 * 0x1p-56)
/* The Ozaki scheme II with n moduli (chapter 09, v5_ozaki2): each value rounded toward zero to a
 * k-bit integer of its row's (column's) scale, the integer product then exact (Chinese remainder
 * theorem), so each product is off by at most 2^(1-k) 2^(ea + eb) <= 8 2^-k amax bmax; the same
 * input-rounding term as U_OZ, random signs assumed likewise. k = 48, 51, 52 for n = 14, 15, 16. */
#define U_OZ2_48 0x1p-45
#define U_OZ2_51 0x1p-48
#define U_OZ2_52 0x1p-49
/* FP32 from three bf16 words per value (chapter 09, v3_bf16xN): x = w1 + w2 + w3 exactly, every
 * word product exact, summed by bf16 tensor cores in f32 (U_F32_TC, as f32_bf16). Keeping the
 * products up to diagonal T = p + q drops at most, per product: T = 3: (1,3), (3,1), (2,2) and
 * smaller, under 2.5 2^-17 |a b|; T = 4: (2,3), (3,2), (3,3), under 2^-24.9 |a b|; T = 6: none. */
#define U_BF16X3 0x1p-15
#define U_BF16X6 0x1p-24
/* the tf32 row's host rounding: ties away from zero, like wmma::__float_to_tf32 (cvt.rna) */
#define TF32_RNA tc_f32_to_tf32_rna
/* The tf32_rz row: mma.sync m16n8k8 and wgmma read f32 bits as tf32 and ignore the 13 low bits
 * (chapter 08 measured it for mma.sync on the H200), so a kernel that feeds raw f32 data
 * multiplies the truncated values; the host truncates the same way. One truncation of the
 * running sum per k = 8 instruction: U_F32_TC_K8. */
#define TF32_RZ tc_f32_to_tf32_rz

/* i8f32 (chapter 07's "why integers" row: cuBLAS SGEMM on int8 data converted to f32): every
 * int8 value and every product (|ab| <= 2^14) is exact in f32, and so is every partial sum below
 * 2^24 in magnitude; beyond that the f32 running sum rounds like any f32 accumulation (u_acc =
 * U_F32). The output is the f32 sum itself (u_out = U_F32). */
/* a hand-aligned table */
// clang-format off
static const tc_precision tc_precisions[] = {
    /* name           in       out      u_in             u_acc      u_out   in_round  what */
    {"f64",           TC_F64,  TC_F64,  0,               U_F64,     U_F64,  NULL,     "f64 in, f64 FMA accumulate (CUDA cores or DMMA), f64 out"},
    {"f64_oz6",       TC_F64,  TC_F64,  U_OZ6,           U_F64,     U_F64,  NULL,     "f64 from 6 int8 slices per value (Ozaki), f64 sums"},
    {"f64_oz7",       TC_F64,  TC_F64,  U_OZ7,           U_F64,     U_F64,  NULL,     "f64 from 7 int8 slices per value (Ozaki), f64 sums"},
    {"f64_oz8",       TC_F64,  TC_F64,  U_OZ8,           U_F64,     U_F64,  NULL,     "f64 from 8 int8 slices per value (Ozaki), f64 sums"},
    {"f64_oz2n14",    TC_F64,  TC_F64,  U_OZ2_48,        U_F64,     U_F64,  NULL,     "f64 from 48-bit integers, 14 int8 moduli (Ozaki II), f64 sums"},
    {"f64_oz2n15",    TC_F64,  TC_F64,  U_OZ2_51,        U_F64,     U_F64,  NULL,     "f64 from 51-bit integers, 15 int8 moduli (Ozaki II), f64 sums"},
    {"f64_oz2n16",    TC_F64,  TC_F64,  U_OZ2_52,        U_F64,     U_F64,  NULL,     "f64 from 52-bit integers, 16 int8 moduli (Ozaki II), f64 sums"},
    {"f32",           TC_F32,  TC_F32,  0,               U_F32,     U_F32,  NULL,     "f32 in, f32 FMA accumulate (CUDA cores)"},
    {"f32_tf32",      TC_F32,  TC_F32,  U_TF32,          U_F32_TC,  U_F32,  NULL,     "f32 in memory, converted to tf32 inside the library, f32 accumulate"},
    {"f32_f16",       TC_F32,  TC_F32,  U_F16,           U_F32_TC,  U_F32,  NULL,     "f32 in memory, converted to f16 inside the library, f32 accumulate"},
    {"f32_bf16",      TC_F32,  TC_F32,  U_BF16,          U_F32_TC,  U_F32,  NULL,     "f32 in memory, converted to bf16 inside the library, f32 accumulate"},
    {"tf32",          TC_F32,  TC_F32,  0,               U_F32_TC_K4, U_F32, TF32_RNA, "tf32 values (f32 data rounded by the host, ties away), f32 accumulate"},
    {"tf32_rz",       TC_F32,  TC_F32,  0,               U_F32_TC_K8, U_F32, TF32_RZ,  "f32 data read by k = 8 tf32 instructions, which ignore the 13 low bits (truncation), f32 accumulate"},
    {"bf16x3",        TC_F32,  TC_F32,  U_BF16X3,        U_F32_TC,  U_F32,  NULL,     "f32 as 3 bf16 words, the 3 largest word products, f32 accumulate"},
    {"bf16x6",        TC_F32,  TC_F32,  U_BF16X6,        U_F32_TC,  U_F32,  NULL,     "f32 as 3 bf16 words, the 6 largest word products, f32 accumulate"},
    {"bf16x9",        TC_F32,  TC_F32,  0,               U_F32_TC,  U_F32,  NULL,     "f32 as 3 bf16 words, all 9 word products, f32 accumulate"},
    {"3xtf32",        TC_F32,  TC_F32,  U_3XTF32,        U_F32_TC,  U_F32,  NULL,     "f32 in, each split into two tf32 terms, three tensor-core products, f32 accumulate"},
    {"f16f32",        TC_F16,  TC_F32,  0,               U_F32_TC,  U_F32,  NULL,     "f16 in, f32 accumulate"},
    {"f16f16",        TC_F16,  TC_F16,  0,               U_F16_ACC, U_F16,  NULL,     "f16 in, f16 accumulate and output"},
    {"bf16f32",       TC_BF16, TC_F32,  0,               U_F32_TC,  U_F32,  NULL,     "bf16 in, f32 accumulate"},
    {"i8i32",         TC_I8,   TC_I32,  0,               0,         0,      NULL,     "int8 in, int32 accumulate (exact)"},
    {"i8f32",         TC_I8,   TC_F32,  0,               U_F32,     U_F32,  NULL,     "int8 values as f32 (exact), f32 FMA accumulate (chapter 07's SGEMM comparison)"},
    {"e4m3f32",       TC_E4M3, TC_F32,  U_FP8_BLOCK,     U_F32_TC,  U_F32,  NULL,     "fp8 e4m3 in, f32 accumulate (running sum of ~14 bits between promotions)"},
    {"e5m2f32",       TC_E5M2, TC_F32,  U_FP8_BLOCK,     U_F32_TC,  U_F32,  NULL,     "fp8 e5m2 in, f32 accumulate (running sum of ~14 bits between promotions)"},
    {"e4m3f32_b128",  TC_E4M3, TC_F32,  U_FP8_BLOCK,     U_F32_TC,  U_F32,  NULL,     "fp8 e4m3 in, f32 scales per 1x128 slice of A and 128x128 block of B, f32 accumulate (promoted every 128)"},
    {"e4m3bf16_b128", TC_E4M3, TC_BF16, U_FP8_BLOCK,     U_F32_TC,  U_BF16, NULL,     "the same with C in bf16 (the f32 result rounded once more)"},
    {"f16f32h",       TC_F16,  TC_F16,  0,               U_F32_TC,  U_F16,  NULL,     "f16 in, f32 accumulate, f16 out (cuDNN's pseudo-half)"},
    {"bf16f32b",      TC_BF16, TC_BF16, 0,               U_F32_TC,  U_BF16, NULL,     "bf16 in, f32 accumulate, bf16 out"},
    {"f32_transform", TC_F32,  TC_F32,  U_TRANSFORM_F32, U_F32,     U_F32,  NULL,     "f32, FFT or Winograd convolution (transformed-domain products)"},
    {"f16_transform", TC_F16,  TC_F16,  U_TRANSFORM_F16, U_F32_TC,  U_F16,  NULL,     "f16, FFT or Winograd convolution (transformed-domain products)"},
};
// clang-format on

int tc_precision_count(void) { return (int)(sizeof tc_precisions / sizeof tc_precisions[0]); }

const tc_precision *tc_precision_at(int i) { return &tc_precisions[i]; }

const tc_precision *tc_precision_get(const char *name)
{
    for (size_t i = 0; i < sizeof tc_precisions / sizeof tc_precisions[0]; i++)
        if (strcmp(tc_precisions[i].name, name) == 0) return &tc_precisions[i];
    fprintf(stderr, "internal error: no precision '%s' in the tolerance table\n", name);
    exit(TC_EXIT_WRONG);
}

int tc_precision_is_exact(const tc_precision *p)
{
    return p->u_in == 0 && p->u_acc == 0 && p->u_out == 0;
}

void tc_tolerance(const tc_precision *p, long K, double s, double *atol, double *rtol)
{
    *rtol = 2.0 * p->u_out;
    *atol = TC_TOL_LAMBDA * s * (p->u_in * sqrt((double)K) + p->u_acc * (double)K);
}

long tc_precision_k_verifiable(const tc_precision *p)
{
    if (tc_precision_is_exact(p)) return LONG_MAX;
    const long k_limit = 1L << 40;
    long k = 1;
    for (;;) { /* the bound grows with K: the largest power of two that holds, then bisection */
        double atol, rtol;
        tc_tolerance(p, 2 * k, 1.0, &atol, &rtol);
        if (atol + rtol * sqrt(2.0 * k) / 3.0 > 0.5 || 2 * k > k_limit) break;
        k *= 2;
    }
    long lo = k, hi = 2 * k; /* lo holds, hi does not (or is past the limit) */
    while (hi - lo > 1) {
        const long mid = lo + (hi - lo) / 2;
        double atol, rtol;
        tc_tolerance(p, mid, 1.0, &atol, &rtol);
        if (atol + rtol * sqrt((double)mid) / 3.0 <= 0.5)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ---- matrices and samples ------------------------------------------------------------------ */
tc_matrix tc_matrix_make(const void *data, tc_dtype type, long rows, long cols, tc_layout layout,
                         long ld)
{
    tc_matrix m;
    m.data = data;
    m.type = type;
    m.rows = rows;
    m.cols = cols;
    m.rs = layout == TC_ROW_MAJOR ? ld : 1;
    m.cs = layout == TC_ROW_MAJOR ? 1 : ld;
    return m;
}

static double elem(const tc_matrix *m, long i, long j)
{
    return tc_load(m->data, m->type, (size_t)(i * m->rs + j * m->cs));
}

double tc_matrix_absmax(const tc_matrix *X)
{
    double mx = 0;
    for (long i = 0; i < X->rows; i++)
        for (long j = 0; j < X->cols; j++) {
            double v = fabs(elem(X, i, j));
            if (v > mx) mx = v;
        }
    return mx;
}

tc_sample tc_sample_make(long rows, long cols, long K, double full_limit, int random, tc_rng *rng)
{
    tc_sample s;
    memset(&s, 0, sizeof s);
    s.rows = rows;
    s.cols = cols;
    if ((double)rows * (double)cols * (double)K <= full_limit) {
        s.full = 1;
        s.n = rows * cols;
        return s;
    }
    long pick_r[3] = {0, rows / 2, rows - 1}, pick_c[3] = {0, cols / 2, cols - 1};
    long cap = 3 * cols + 3 * rows + random;
    s.ii = (long *)tc_xmalloc((size_t)cap * sizeof(long));
    s.jj = (long *)tc_xmalloc((size_t)cap * sizeof(long));
    for (int r = 0; r < 3; r++) {
        if (r && pick_r[r] == pick_r[r - 1]) continue;
        for (long j = 0; j < cols; j++, s.n++) s.ii[s.n] = pick_r[r], s.jj[s.n] = j;
    }
    for (int c = 0; c < 3; c++) {
        if (c && pick_c[c] == pick_c[c - 1]) continue;
        for (long i = 0; i < rows; i++, s.n++) s.ii[s.n] = i, s.jj[s.n] = pick_c[c];
    }
    for (int e = 0; e < random; e++, s.n++) {
        s.ii[s.n] = (long)(tc_rng_next_u64(rng) % (uint64_t)rows);
        s.jj[s.n] = (long)(tc_rng_next_u64(rng) % (uint64_t)cols);
    }
    return s;
}

tc_sample tc_sample_full_rows(long rows, long cols, int n)
{
    tc_sample s;
    memset(&s, 0, sizeof s);
    s.rows = rows;
    s.cols = cols;
    const long n_rows = rows < n ? rows : n;
    s.ii = (long *)tc_xmalloc((size_t)(n_rows * cols) * sizeof(long));
    s.jj = (long *)tc_xmalloc((size_t)(n_rows * cols) * sizeof(long));
    for (long k = 0; k < n_rows; k++)
        for (long j = 0; j < cols; j++, s.n++) s.ii[s.n] = k * rows / n_rows, s.jj[s.n] = j;
    return s;
}

void tc_sample_free(tc_sample *s)
{
    free(s->ii);
    free(s->jj);
    s->ii = s->jj = NULL;
}

void tc_sample_get(const tc_sample *s, long e, long *i, long *j)
{
    if (s->full) {
        *i = e / s->cols;
        *j = e % s->cols;
    } else {
        *i = s->ii[e];
        *j = s->jj[e];
    }
}

/* ---- the reference --------------------------------------------------------------------------
 * A is converted once to float, row-major rows x K (af), and B to float, column-major: cols rows
 * of K (bf). Every format the chapters use converts to float exactly, the product of two floats
 * is exact in double (24 + 24 significant bits < 53), and the sum is accumulated in double with
 * four independent partial sums (for speed; the order is fixed, so the result is deterministic).
 *
 * f64 data (an FP64 GEMM is judged against something more accurate than FP64): A and B are kept
 * as double (ad, bd) and each dot product is the compensated Dot2 of Ogita, Rump and Oishi
 * (2005): every product split exactly into p + e with an FMA, every addition into its sum and its
 * rounding error (TwoSum), the errors summed apart. The result is as accurate as a dot product
 * computed in twice the working precision and then rounded once to double: within one unit of
 * double's rounding of the exact sum, plus K^2 2^-106 sum|a_k b_k|. It needs the compiler to
 * leave its additions alone: no contraction into FMAs (the Makefile's -ffp-contract=off). */
typedef struct {
    const tc_matrix *A, *B;
    const tc_sample *s;
    float *af, *bf;
    double *ad, *bd; /* f64 data instead of af, bf */
    long K;
    double *ref;
    int phase; /* 0: convert, 1: dot products */
} ref_job;

/* sum_k a[k] b[k], compensated (Dot2) */
static double dot2(const double *a, const double *b, long K)
{
    double s = 0, c = 0;
    for (long k = 0; k < K; k++) {
        const double p = a[k] * b[k], pe = fma(a[k], b[k], -p);          /* a b = p + pe exactly */
        const double t = s + p, z = t - s, se = (s - (t - z)) + (p - z); /* s + p = t + se */
        s = t;
        c += pe + se;
    }
    return s + c;
}

static void ref_worker(void *ctx, int tid, int nthreads)
{
    ref_job *j = (ref_job *)ctx;
    long K = j->K;
    if (j->phase == 0) {
        long rows = j->A->rows, cols = j->B->cols, total = rows + cols;
        long lo = total * tid / nthreads, hi = total * (tid + 1) / nthreads;
        for (long r = lo; r < hi; r++) {
            if (j->ad) {
                if (r < rows)
                    for (long k = 0; k < K; k++) j->ad[r * K + k] = elem(j->A, r, k);
                else
                    for (long k = 0; k < K; k++)
                        j->bd[(r - rows) * K + k] = elem(j->B, k, r - rows);
            } else if (r < rows) {
                for (long k = 0; k < K; k++) j->af[r * K + k] = (float)elem(j->A, r, k);
            } else {
                for (long k = 0; k < K; k++)
                    j->bf[(r - rows) * K + k] = (float)elem(j->B, k, r - rows);
            }
        }
        return;
    }
    long n = j->s->n;
    long lo = n * tid / nthreads, hi = n * (tid + 1) / nthreads;
    for (long e = lo; e < hi; e++) {
        long i, c;
        tc_sample_get(j->s, e, &i, &c);
        if (j->ad) {
            j->ref[e] = dot2(j->ad + i * K, j->bd + c * K, K);
            continue;
        }
        const float *a = j->af + i * K, *b = j->bf + c * K;
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        long k = 0;
        for (; k + 4 <= K; k += 4) {
            s0 += (double)a[k] * (double)b[k];
            s1 += (double)a[k + 1] * (double)b[k + 1];
            s2 += (double)a[k + 2] * (double)b[k + 2];
            s3 += (double)a[k + 3] * (double)b[k + 3];
        }
        for (; k < K; k++) s0 += (double)a[k] * (double)b[k];
        j->ref[e] = (s0 + s1) + (s2 + s3);
    }
}

void tc_ref_gemm(const tc_matrix *A, const tc_matrix *B, const tc_sample *s, double *ref)
{
    if (A->cols != B->rows || A->rows != s->rows || B->cols != s->cols) {
        fprintf(stderr, "internal error: tc_ref_gemm shapes disagree\n");
        exit(TC_EXIT_WRONG);
    }
    ref_job job;
    memset(&job, 0, sizeof job);
    job.A = A;
    job.B = B;
    job.s = s;
    job.K = A->cols;
    job.ref = ref;
    if (A->type == TC_F64 || B->type == TC_F64) {
        job.ad = (double *)tc_xmalloc((size_t)A->rows * (size_t)job.K * sizeof(double));
        job.bd = (double *)tc_xmalloc((size_t)B->cols * (size_t)job.K * sizeof(double));
    } else {
        job.af = (float *)tc_xmalloc((size_t)A->rows * (size_t)job.K * sizeof(float));
        job.bf = (float *)tc_xmalloc((size_t)B->cols * (size_t)job.K * sizeof(float));
    }
    job.phase = 0;
    tc_parallel(ref_worker, &job);
    job.phase = 1;
    tc_parallel(ref_worker, &job);
    free(job.af);
    free(job.bf);
    free(job.ad);
    free(job.bd);
}

/* ---- the checker --------------------------------------------------------------------------- */
tc_check_result tc_check(const tc_matrix *C, const tc_sample *s, const double *ref,
                         const tc_precision *p, long K, double s_bound)
{
    tc_check_result r;
    memset(&r, 0, sizeof r);
    r.exact = tc_precision_is_exact(p);
    tc_tolerance(p, K, s_bound, &r.atol, &r.rtol);
    r.worst_i = r.worst_j = -1;
    r.worst_ratio = -1;
    double err2 = 0, ref2 = 0;
    for (long e = 0; e < s->n; e++) {
        long i, j;
        tc_sample_get(s, e, &i, &j);
        size_t idx = (size_t)(i * C->rs + j * C->cs);
        double got = tc_load(C->data, C->type, idx);
        double want = ref[e];
        double err = fabs(got - want);
        int unwritten = tc_is_poison(C->data, C->type, idx);
        double allowed = r.exact ? 0.0 : r.atol + r.rtol * fabs(want);
        /* Written so that a NaN anywhere makes `ok` false. */
        int ok = !unwritten && (r.exact ? got == want : err <= allowed);
        double ratio = isnan(err) || unwritten ? INFINITY : allowed > 0 ? err / allowed : err;
        r.checked++;
        if (!ok) r.bad++;
        if (unwritten)
            r.unwritten++;
        else if (isnan(got))
            r.nans++;
        if (!unwritten && !isnan(err)) {
            if (err > r.max_abs_err) r.max_abs_err = err;
            if (want != 0 && err / fabs(want) > r.max_rel_err) r.max_rel_err = err / fabs(want);
            err2 += err * err;
        }
        ref2 += want * want;
        if (ratio > r.worst_ratio || r.worst_i < 0) {
            r.worst_ratio = ratio;
            r.worst_i = i;
            r.worst_j = j;
            r.worst_got = got;
            r.worst_ref = want;
        }
    }
    r.rel_fro_err = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
    if (r.nans || r.unwritten) r.rel_fro_err = NAN;
    r.pass = r.bad == 0 && r.checked > 0;
    r.coarse = K > tc_precision_k_verifiable(p);
    return r;
}

double tc_rel_fro_error(const tc_matrix *C, const tc_sample *s, const double *ref, double scale)
{
    double err2 = 0, ref2 = 0;
    for (long e = 0; e < s->n; e++) {
        long i, j;
        tc_sample_get(s, e, &i, &j);
        double d = scale * tc_load(C->data, C->type, (size_t)(i * C->rs + j * C->cs)) - ref[e];
        err2 += d * d;
        ref2 += ref[e] * ref[e];
    }
    return ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
}

double tc_worst_row_error(const tc_matrix *C, const tc_sample *rows, const double *ref,
                          double scale, long *worst_row)
{
    double worst = -1;
    *worst_row = -1;
    for (long e0 = 0; e0 < rows->n; e0 += rows->cols) { /* one whole row per cols elements */
        double err2 = 0, ref2 = 0;
        long i = 0, j;
        for (long e = e0; e < e0 + rows->cols; e++) {
            tc_sample_get(rows, e, &i, &j);
            const double d =
                scale * tc_load(C->data, C->type, (size_t)(i * C->rs + j * C->cs)) - ref[e];
            if (isnan(d)) {
                *worst_row = i; /* the row that holds the NaN */
                return NAN;
            }
            err2 += d * d;
            ref2 += ref[e] * ref[e];
        }
        const double row_err = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
        if (row_err > worst) worst = row_err, *worst_row = i;
    }
    return worst;
}

void tc_check_print(const tc_check_result *r, FILE *f)
{
    fprintf(f,
            "%s: %ld elements checked, %ld bad (%ld NaN, %ld unwritten); max abs err %.3g, "
            "max rel err %.3g, rel Frobenius err %.3g; ",
            r->pass ? "PASS" : "FAIL", r->checked, r->bad, r->nans, r->unwritten, r->max_abs_err,
            r->max_rel_err, r->rel_fro_err);
    if (r->exact)
        fprintf(f, "exact match required");
    else
        fprintf(f, "allowed %.3g + %.3g*|ref|", r->atol, r->rtol);
    if (r->worst_i >= 0)
        fprintf(f, "; worst C(%ld,%ld) = %.9g, ref %.9g", r->worst_i, r->worst_j, r->worst_got,
                r->worst_ref);
    fputc('\n', f);
}

void tc_test_line_end(int ran, int pass, const tc_check_result *r, const char *why, int *passed,
                      int *failed)
{
    if (ran)
        tc_check_print(r, stdout);
    else
        printf("%s\n", why);
    fflush(stdout);
    if (pass)
        (*passed)++;
    else
        (*failed)++;
}

void tc_test_report(int ok, const char *name, const char *detail, int *passed, int *failed)
{
    printf("%s %-44s %s\n", ok ? "PASS" : "FAIL", name, detail);
    fflush(stdout);
    *passed += ok;
    *failed += !ok;
}

int tc_test_finish(const char *program, int passed, int failed, int skipped)
{
    printf("%s --test: %d passed, %d failed, %d skipped\n", program, passed, failed, skipped);
    if (failed) return TC_EXIT_WRONG;
    const char *require = getenv("TC_REQUIRE_GPU");
    if (skipped && require && strcmp(require, "1") == 0) {
        printf("FAIL: %d case%s skipped, and TC_REQUIRE_GPU=1 asks for every case to run\n",
               skipped, skipped > 1 ? "s" : "");
        return TC_EXIT_WRONG;
    }
    if (!passed) tc_skip(program, "no variant can run on this GPU");
    return TC_EXIT_PASS;
}
