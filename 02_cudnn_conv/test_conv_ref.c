/* 02_cudnn_conv/test_conv_ref.c - convolution shapes, tensor layouts and the FP64 convolution
 * reference. The reference is checked against an independent formulation (im2col + tc_ref_gemm,
 * itself tested against naive loops in test_verify.c) and against a hand-worked case. */
#include "unit.h"

#include "conv_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static tc_conv_shape shape(int n, int c, int h, int w, int k, int r, int s, int pad_h, int pad_w,
                           int stride_h, int stride_w, int dil_h, int dil_w)
{
    tc_conv_shape x = {n, c, h, w, k, r, s, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w, -1, -1};
    return x;
}

static int unit_conv_shape_check(void)
{
    /* P = (H + 2 pad - ((R-1) dil + 1)) / stride + 1 */
    static const struct {
        tc_conv_shape s;
        int p, q;
    } ok[] = {
        /* ResNet stem: (224 + 6 - 7) / 2 + 1 = 223 / 2 + 1 = 111 + 1 = 112 */
        {{1, 3, 224, 224, 64, 7, 7, 3, 3, 2, 2, 1, 1, 0, 0}, 112, 112},
        /* dilation 2 makes 3x3 cover 5x5: (5 + 0 - 5) / 1 + 1 = 1 */
        {{1, 1, 5, 5, 1, 3, 3, 0, 0, 1, 1, 2, 2, 0, 0}, 1, 1},
        /* (6 + 2 - 3) / 2 + 1 = 5 / 2 + 1 = 3 (the last window starts at row 4 of the padded 8) */
        {{1, 1, 6, 6, 1, 3, 3, 1, 1, 2, 2, 1, 1, 0, 0}, 3, 3},
        /* "same" 3x3: (56 + 2 - 3) / 1 + 1 = 56 */
        {{2, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0}, 56, 56},
        /* every parameter different per axis: rows (10 + 0 - (2*2+1)) / 1 + 1 = 6,
         * columns (7 + 4 - 5) / 3 + 1 = 6 / 3 + 1 = 3 */
        {{1, 2, 10, 7, 3, 3, 5, 0, 2, 1, 3, 2, 1, 0, 0}, 6, 3},
        /* filter exactly as large as the padded input: (1 + 2 - 3) / 1 + 1 = 1 */
        {{1, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0}, 1, 1},
        /* x with (2^11 - 1) * 2^10 * 2^10 = 2^31 - 2^20 elements: just under the limit */
        {{2047, 1024, 1024, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0}, 1024, 1},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        tc_conv_shape s = ok[i].s;
        const char *msg = tc_conv_shape_check(&s);
        UNIT_CHECK(msg == NULL, "case %zu rejected: %s", i, msg);
        UNIT_CHECK(s.p == ok[i].p && s.q == ok[i].q, "case %zu: P x Q = %d x %d, want %d x %d", i,
                   s.p, s.q, ok[i].p, ok[i].q);
    }
    tc_conv_shape rs = shape(2, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1);
    tc_conv_shape_check(&rs);
    /* 2 * 2*64*56*56 * 64*9 = 462422016 */
    UNIT_CHECK(tc_conv_flops(&rs) == 462422016.0, "flops %.17g", tc_conv_flops(&rs));

    /* Each invalid shape with a word its message must contain. */
    static const struct {
        tc_conv_shape s;
        const char *word;
    } bad[] = {
        {{0, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0}, "n must be >= 1 (got 0)"},
        {{1, 0, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0}, "c must be >= 1 (got 0)"},
        {{1, 3, 8, -2, 4, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0}, "w must be >= 1 (got -2)"},
        {{1, 3, 8, 8, 0, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0}, "k must be >= 1 (got 0)"},
        {{1, 3, 8, 8, 4, 3, 0, 1, 1, 1, 1, 1, 1, 0, 0}, "s must be >= 1 (got 0)"},
        {{1, 3, 8, 8, 4, 3, 3, -1, 1, 1, 1, 1, 1, 0, 0}, "pad_h must be >= 0 (got -1)"},
        {{1, 3, 8, 8, 4, 3, 3, 1, -3, 1, 1, 1, 1, 0, 0}, "pad_w must be >= 0 (got -3)"},
        {{1, 3, 8, 8, 4, 3, 3, 1, 1, 0, 1, 1, 1, 0, 0}, "stride_h must be >= 1 (got 0)"},
        {{1, 3, 8, 8, 4, 3, 3, 1, 1, 1, 0, 1, 1, 0, 0}, "stride_w"},
        {{1, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1, 0, 1, 0, 0}, "dil_h must be >= 1 (got 0)"},
        {{1, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 0, 0, 0}, "dil_w"},
        {{1, 3, (1 << 20) + 1, 1, 4, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0}, "h must be <= 1048576"},
        /* rows: (4 - 1) * 2 + 1 = 7 > 5 + 0 */
        {{1, 1, 5, 5, 1, 4, 1, 0, 0, 1, 1, 2, 1, 0, 0},
         "= 7 rows) is larger than the padded input"},
        /* one row over: 3 > 2 + 0 (the truncating division would still give P = 1) */
        {{1, 1, 2, 8, 1, 3, 1, 0, 0, 1, 1, 1, 1, 0, 0}, "= 3 rows) is larger"},
        /* columns: 5 > 2 + 2*1 = 4 */
        {{1, 1, 9, 2, 1, 1, 5, 0, 1, 1, 1, 1, 1, 0, 0}, "= 5 columns) is larger"},
        /* one column over: (2 - 1) * 5 + 1 = 6 > 3 + 2*1 = 5 */
        {{1, 1, 9, 3, 1, 1, 2, 0, 1, 1, 1, 1, 5, 0, 0}, "= 6 columns) is larger"},
        /* x: 2^11 * 2^10 * 2^10 = 2^31 elements, one plane more than the accepted case above */
        {{2048, 1024, 1024, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0}, "input x has too many elements"},
        /* x: 2^20 * 2^20 = 2^40 (would overflow 32-bit arithmetic to 0) */
        {{1, 1, 1 << 20, 1 << 20, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0}, "input x has too many"},
        /* w: 2^16 * 2^16 = 2^32 while x and y have 2^16 elements */
        {{1, 1 << 16, 1, 1, 1 << 16, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0}, "filters w have too many"},
        /* y: 2 * 40000 * 40000 = 3.2e9 while x has 1.6e9 elements and w 2 */
        {{1, 1, 40000, 40000, 2, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0}, "output y has too many"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tc_conv_shape s = bad[i].s;
        const char *msg = tc_conv_shape_check(&s);
        UNIT_CHECK(msg != NULL, "invalid case %zu accepted (P x Q = %d x %d)", i, s.p, s.q);
        UNIT_CHECK(strstr(msg, bad[i].word) != NULL, "case %zu: message '%s' lacks '%s'", i, msg,
                   bad[i].word);
    }
    UNIT_CHECK(strcmp(tc_tensor_layout_name(TC_NCHW), "NCHW") == 0 &&
                   strcmp(tc_tensor_layout_name(TC_NHWC), "NHWC") == 0,
               "layout names");
    return 0;
}

static int unit_conv_tensor_index_and_to_nhwc(void)
{
    /* C = 3, H = 4, W = 5 (N = 2: 120 elements). */
    static const struct {
        int n, c, h, w;
        size_t nchw, nhwc;
    } at[] = {
        {0, 0, 0, 1, 1, 3},     /* next w: 1 element / C elements */
        {0, 0, 1, 0, 5, 15},    /* next h: W / W*C */
        {0, 1, 0, 0, 20, 1},    /* next c: H*W / 1 */
        {1, 0, 0, 0, 60, 60},   /* next n: C*H*W either way */
        {0, 2, 1, 3, 48, 26},   /* (2*4+1)*5+3 = 48; (1*5+3)*3+2 = 26 */
        {1, 2, 3, 4, 119, 119}, /* the last element in both */
    };
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        size_t a = tc_tensor_index(TC_NCHW, 3, 4, 5, at[i].n, at[i].c, at[i].h, at[i].w);
        size_t b = tc_tensor_index(TC_NHWC, 3, 4, 5, at[i].n, at[i].c, at[i].h, at[i].w);
        UNIT_CHECK(a == at[i].nchw && b == at[i].nhwc, "(%d,%d,%d,%d): NCHW %zu NHWC %zu", at[i].n,
                   at[i].c, at[i].h, at[i].w, a, b);
    }
    /* Beyond 2^32: C = H = W = 1024, n = 5: 5 * 2^30 + ... must not wrap in int arithmetic.
     * NCHW (n=5, c=1, h=2, w=3): 5*2^30 + 1*2^20 + 2*2^10 + 3
     *   = 5368709120 + 1048576 + 2048 + 3 = 5369759747
     * NHWC: 5*2^30 + 2*2^20 + 3*2^10 + 1 = 5368709120 + 2097152 + 3072 + 1 = 5370809345 */
    UNIT_CHECK(tc_tensor_index(TC_NCHW, 1024, 1024, 1024, 5, 1, 2, 3) == 5369759747ull,
               "NCHW index past 2^32: %zu", tc_tensor_index(TC_NCHW, 1024, 1024, 1024, 5, 1, 2, 3));
    UNIT_CHECK(tc_tensor_index(TC_NHWC, 1024, 1024, 1024, 5, 1, 2, 3) == 5370809345ull,
               "NHWC index past 2^32: %zu", tc_tensor_index(TC_NHWC, 1024, 1024, 1024, 5, 1, 2, 3));

    /* Round trips: random tensors in both layouts to NHWC, element by element; some elements are
     * poison, and some are signalling NaNs that a copy through float or double would quieten. */
    const tc_dtype types[] = {TC_F16, TC_F32, TC_BF16, TC_I8};
    tc_rng rng;
    tc_rng_seed(&rng, 21);
    for (int ti = 0; ti < 4; ti++)
        for (int li = 0; li < 2; li++) {
            tc_dtype t = types[ti];
            tc_tensor_layout l = li ? TC_NHWC : TC_NCHW;
            int N = 3, C = 5 + ti, H = 7, W = 6 - li;
            size_t count = (size_t)N * C * H * W, es = tc_dtype_size(t);
            unsigned char *src = unit_random_values(t, count, &rng), *dst = malloc(count * es);
            memset(dst, 0x5A, count * es);
            for (size_t e = 0; e < count; e++) {
                if (e % 7 == 0) memset(src + e * es, tc_poison_byte(t), es);
                if (e % 7 != 3) continue;
                if (t == TC_F32) ((uint32_t *)src)[e] = 0x7F800001u; /* f32 sNaN */
                if (t == TC_F16) ((uint16_t *)src)[e] = 0x7C01u;     /* f16 sNaN */
                if (t == TC_BF16) ((uint16_t *)src)[e] = 0xFF81u;    /* bf16 sNaN, sign set */
            }
            tc_tensor_to_nhwc(src, dst, t, l, N, C, H, W);
            long poisoned = 0;
            for (int n = 0; n < N; n++)
                for (int c = 0; c < C; c++)
                    for (int h = 0; h < H; h++)
                        for (int w = 0; w < W; w++) {
                            size_t is = tc_tensor_index(l, C, H, W, n, c, h, w);
                            size_t id = tc_tensor_index(TC_NHWC, C, H, W, n, c, h, w);
                            UNIT_CHECK(memcmp(src + is * es, dst + id * es, es) == 0,
                                       "%s %s (%d,%d,%d,%d) differs after the copy",
                                       tc_dtype_name(t), tc_tensor_layout_name(l), n, c, h, w);
                            poisoned += tc_is_poison(dst, t, id);
                        }
            /* Elements 0, 7, 14, ...: ceil(count / 7) of them. Random float values are finite,
             * never the all-ones NaN, but int8 -128 (0x80, its poison) also occurs at random. */
            long want = (long)((count + 6) / 7);
            UNIT_CHECK(t == TC_I8 ? poisoned >= want : poisoned == want,
                       "%s %s: %ld poisoned elements, want %ld", tc_dtype_name(t),
                       tc_tensor_layout_name(l), poisoned, want);
            free(src);
            free(dst);
        }
    return 0;
}

/* Independent index of the test (not tc_tensor_index): element (a, b, y, x) of a dense
 * tensor with dimensions (., B, Y, X) in layout l. */
static size_t idx(tc_tensor_layout l, int B, int Y, int X, int a, int b, int y, int x)
{
    return l == TC_NCHW ? (((size_t)a * B + b) * Y + y) * X + x
                        : (((size_t)a * Y + y) * X + x) * B + b;
}

/* The convolution as a GEMM: A [N*P*Q x C*R*S] (im2col, column (c*R + r)*S + s, zero for taps
 * outside the image), B [C*R*S x K] from the filters, both f32 copies (exact) of the inputs. With
 * absolute values (absval = 1) it gives sum |products|, the scale of the rounding error. */
static void im2col(const tc_conv_shape *s, const void *x, const void *w, tc_dtype t,
                   tc_tensor_layout l, int absval, float *A, float *B)
{
    long crs = (long)s->c * s->r * s->s;
    for (int n = 0; n < s->n; n++)
        for (int p = 0; p < s->p; p++)
            for (int q = 0; q < s->q; q++) {
                float *row = A + (((long)n * s->p + p) * s->q + q) * crs;
                for (int c = 0; c < s->c; c++)
                    for (int r = 0; r < s->r; r++)
                        for (int u = 0; u < s->s; u++) {
                            int ih = p * s->stride_h - s->pad_h + r * s->dil_h;
                            int iw = q * s->stride_w - s->pad_w + u * s->dil_w;
                            float v = 0;
                            if (ih >= 0 && ih < s->h && iw >= 0 && iw < s->w)
                                v = (float)tc_load(x, t, idx(l, s->c, s->h, s->w, n, c, ih, iw));
                            row[(c * s->r + r) * s->s + u] = absval ? fabsf(v) : v;
                        }
            }
    for (int k = 0; k < s->k; k++)
        for (int c = 0; c < s->c; c++)
            for (int r = 0; r < s->r; r++)
                for (int u = 0; u < s->s; u++) {
                    float v = (float)tc_load(w, t, idx(l, s->c, s->r, s->s, k, c, r, u));
                    B[((long)(c * s->r + r) * s->s + u) * s->k + k] = absval ? fabsf(v) : v;
                }
}

static int unit_conv_ref_matches_im2col_gemm(void)
{
    /* Hand-worked: a 3x3 image of ones, one 3x3 filter of ones, pad 1: each output counts the
     * taps inside the image: corners 2*2 = 4, edges 2*3 = 6, centre 9. */
    {
        tc_conv_shape s = shape(1, 1, 3, 3, 1, 3, 3, 1, 1, 1, 1, 1, 1);
        UNIT_CHECK(tc_conv_shape_check(&s) == NULL && s.p == 3 && s.q == 3, "3x3 'same' shape");
        float x[9], w[9];
        for (int i = 0; i < 9; i++) x[i] = w[i] = 1.0f;
        tc_rng rng;
        tc_rng_seed(&rng, 1);
        tc_sample smp = tc_sample_make(9, 1, 9, 1e18, 0, &rng);
        double ref[9];
        const double want[9] = {4, 6, 4, 6, 9, 6, 4, 6, 4};
        tc_ref_conv(&s, x, w, TC_F32, TC_NCHW, &smp, ref);
        for (int i = 0; i < 9; i++)
            UNIT_CHECK(ref[i] == want[i], "ones: y(%d,%d) = %g, want %g", i / 3, i % 3, ref[i],
                       want[i]);
    }
    /* Random cases: padding, stride 2, dilation 2, non-square filters and images, C = 3, K = 5,
     * asymmetric padding, a 1x1 filter, a filter as large as the padded input. */
    const tc_conv_shape shapes[] = {
        shape(2, 3, 9, 9, 5, 3, 3, 1, 1, 1, 1, 1, 1),   /* "same" 3x3 */
        shape(2, 4, 11, 10, 6, 3, 3, 1, 1, 2, 2, 1, 1), /* stride 2 */
        shape(1, 5, 12, 9, 4, 3, 3, 2, 2, 1, 1, 2, 2),  /* dilation 2 with padding */
        shape(2, 3, 8, 13, 5, 2, 5, 0, 2, 1, 2, 1, 1),  /* 2x5 filter, pad 0 x 2, stride 1 x 2 */
        shape(1, 6, 10, 10, 3, 5, 1, 2, 0, 3, 1, 1, 3), /* 5x1, stride 3 x 1, dilation 1 x 3 */
        shape(3, 9, 7, 7, 5, 1, 1, 0, 0, 2, 2, 1, 1),   /* 1x1, stride 2 */
        shape(1, 3, 5, 4, 2, 7, 6, 1, 1, 1, 1, 1, 1),   /* filter = padded input: 1x1 output */
        shape(2, 16, 6, 6, 7, 3, 3, 3, 3, 1, 1, 1, 1),  /* pad 3 > R - 1: border outputs see 0 */
    };
    const tc_dtype types[] = {TC_F16, TC_BF16, TC_F32};
    tc_rng rng;
    tc_rng_seed(&rng, 33);
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int ti = 0; ti < 3; ti++)
            for (int li = 0; li < 2; li++) {
                tc_conv_shape s = shapes[si];
                const char *msg = tc_conv_shape_check(&s);
                UNIT_CHECK(msg == NULL, "shape %zu: %s", si, msg);
                tc_dtype t = types[ti];
                tc_tensor_layout l = li ? TC_NHWC : TC_NCHW;
                long rows = (long)s.n * s.p * s.q, crs = (long)s.c * s.r * s.s;
                void *x = unit_random_values(t, (size_t)s.n * s.c * s.h * s.w, &rng);
                void *w = unit_random_values(t, (size_t)s.k * crs, &rng);
                float *a = malloc((size_t)(rows * crs) * sizeof *a);
                float *b = malloc((size_t)(crs * s.k) * sizeof *b);
                float *aa = malloc((size_t)(rows * crs) * sizeof *aa);
                float *ba = malloc((size_t)(crs * s.k) * sizeof *ba);
                im2col(&s, x, w, t, l, 0, a, b);
                im2col(&s, x, w, t, l, 1, aa, ba);
                tc_matrix A = tc_matrix_make(a, TC_F32, rows, crs, TC_ROW_MAJOR, crs);
                tc_matrix B = tc_matrix_make(b, TC_F32, crs, s.k, TC_ROW_MAJOR, s.k);
                tc_matrix AA = tc_matrix_make(aa, TC_F32, rows, crs, TC_ROW_MAJOR, crs);
                tc_matrix BA = tc_matrix_make(ba, TC_F32, crs, s.k, TC_ROW_MAJOR, s.k);
                tc_sample smp = tc_sample_make(rows, s.k, crs, 1e18, 0, &rng);
                double *got = malloc((size_t)smp.n * sizeof *got);
                double *want = malloc((size_t)smp.n * sizeof *want);
                double *scale = malloc((size_t)smp.n * sizeof *scale);
                tc_ref_conv(&s, x, w, t, l, &smp, got);
                tc_ref_gemm(&A, &B, &smp, want);
                tc_ref_gemm(&AA, &BA, &smp, scale);
                double worst = 0;
                for (long e = 0; e < smp.n; e++) {
                    /* Both sum the same exact products in double in different orders: each
                     * differs from the exact sum by at most about crs * 2^-53 * sum |products|
                     * (< 1e-14 of it here); 1e-12 leaves room, while a wrong tap or index gives
                     * errors of the order of the products themselves. */
                    double err = fabs(got[e] - want[e]);
                    UNIT_CHECK(err <= 1e-12 * scale[e],
                               "shape %zu %s %s: y(row %ld, k %ld) = %.17g, im2col GEMM %.17g", si,
                               tc_dtype_name(t), tc_tensor_layout_name(l), e / s.k, e % s.k, got[e],
                               want[e]);
                    if (scale[e] > 0 && err / scale[e] > worst) worst = err / scale[e];
                }
                UNIT_CHECK(worst < 1e-12, "worst relative difference %g", worst);
                free(got);
                free(want);
                free(scale);
                free(a);
                free(b);
                free(aa);
                free(ba);
                free(x);
                free(w);
            }
    return 0;
}

static int unit_conv_ref_sampled_equals_full(void)
{
    tc_conv_shape s = shape(2, 8, 11, 11, 6, 3, 3, 1, 1, 2, 2, 1, 1);
    UNIT_CHECK(tc_conv_shape_check(&s) == NULL && s.p == 6 && s.q == 6, "P x Q = %d x %d", s.p,
               s.q); /* (11 + 2 - 3) / 2 + 1 = 6 */
    long rows = (long)s.n * s.p * s.q, crs = (long)s.c * s.r * s.s;
    tc_rng rng;
    tc_rng_seed(&rng, 44);
    void *x = unit_random_values(TC_F16, (size_t)s.n * s.c * s.h * s.w, &rng);
    void *w = unit_random_values(TC_F16, (size_t)(s.k * crs), &rng);
    for (int li = 0; li < 2; li++) {
        tc_tensor_layout l = li ? TC_NHWC : TC_NCHW;
        tc_sample full = tc_sample_make(rows, s.k, crs, 1e18, 0, &rng);
        tc_sample part = tc_sample_make(rows, s.k, crs, 0, 300, &rng);
        UNIT_CHECK(full.full && full.n == rows * s.k, "full sample has %ld elements", full.n);
        UNIT_CHECK(!part.full && part.n == 3 * s.k + 3 * rows + 300, "sampled has %ld elements",
                   part.n);
        double *rf = malloc((size_t)full.n * sizeof *rf), *rp = malloc((size_t)part.n * sizeof *rp);
        tc_ref_conv(&s, x, w, TC_F16, l, &full, rf);
        tc_ref_conv(&s, x, w, TC_F16, l, &part, rp);
        int seen_last = 0;
        for (long e = 0; e < part.n; e++) {
            long i, j;
            tc_sample_get(&part, e, &i, &j);
            UNIT_CHECK(i >= 0 && i < rows && j >= 0 && j < s.k, "sample (%ld,%ld) out of range", i,
                       j);
            UNIT_CHECK(memcmp(&rp[e], &rf[i * s.k + j], sizeof(double)) == 0,
                       "%s: sampled y(row %ld, k %ld) = %.17g, full %.17g",
                       tc_tensor_layout_name(l), i, j, rp[e], rf[i * s.k + j]);
            seen_last |= i == rows - 1 && j == s.k - 1;
        }
        UNIT_CHECK(seen_last, "the last output element was not sampled");
        free(rf);
        free(rp);
        tc_sample_free(&part);
    }
    free(x);
    free(w);
    return 0;
}

static const tc_unit tests[] = {
    {.name = "conv_shape_check", .fn = unit_conv_shape_check},
    {.name = "conv_tensor_index_and_to_nhwc", .fn = unit_conv_tensor_index_and_to_nhwc},
    {.name = "conv_ref_matches_im2col_gemm", .fn = unit_conv_ref_matches_im2col_gemm},
    {.name = "conv_ref_sampled_equals_full", .fn = unit_conv_ref_sampled_equals_full},
};

int main(int argc, char **argv) { return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests)); }
