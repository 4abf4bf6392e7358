/* 02_cudnn_conv/conv_ref.c - see conv_ref.h. */
#define _POSIX_C_SOURCE 200809L
#include "conv_ref.h"

#include <stdlib.h>
#include <string.h>

/* ---- shapes -------------------------------------------------------------------------------- */
#define TC_CONV_MAX_DIM  (1 << 20) /* any single size, padding, stride or dilation */
#define TC_CONV_MAX_ELEM 0x1p31    /* every tensor has fewer elements than this */

/* The message of the last failed check, per thread (valid until the next call in that thread). */
static _Thread_local char conv_msg[192];

static const char *conv_fail(const char *fmt, long long a, long long b)
{
    snprintf(conv_msg, sizeof conv_msg, fmt, a, b);
    return conv_msg;
}

const char *tc_conv_shape_check(tc_conv_shape *s)
{
    s->p = s->q = 0;
    const struct {
        const char *name;
        int v, min;
    } f[] = {
        {"n", s->n, 1},
        {"c", s->c, 1},
        {"h", s->h, 1},
        {"w", s->w, 1},
        {"k", s->k, 1},
        {"r", s->r, 1},
        {"s", s->s, 1},
        {"pad_h", s->pad_h, 0},
        {"pad_w", s->pad_w, 0},
        {"stride_h", s->stride_h, 1},
        {"stride_w", s->stride_w, 1},
        {"dil_h", s->dil_h, 1},
        {"dil_w", s->dil_w, 1},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        if (f[i].v < f[i].min) {
            snprintf(conv_msg, sizeof conv_msg, "%s must be >= %d (got %d)", f[i].name, f[i].min,
                     f[i].v);
            return conv_msg;
        }
        if (f[i].v > TC_CONV_MAX_DIM) {
            snprintf(conv_msg, sizeof conv_msg, "%s must be <= %d (got %d)", f[i].name,
                     TC_CONV_MAX_DIM, f[i].v);
            return conv_msg;
        }
    }
    /* Everything is <= 2^20 now, so these fit easily in 64 bits. */
    long long eff_h = (long long)(s->r - 1) * s->dil_h + 1,
              eff_w = (long long)(s->s - 1) * s->dil_w + 1;
    long long in_h = (long long)s->h + 2LL * s->pad_h, in_w = (long long)s->w + 2LL * s->pad_w;
    if (eff_h > in_h)
        return conv_fail("the dilated filter ((r-1)*dil_h+1 = %lld rows) is larger than the padded "
                         "input (h+2*pad_h = %lld rows)",
                         eff_h, in_h);
    if (eff_w > in_w)
        return conv_fail("the dilated filter ((s-1)*dil_w+1 = %lld columns) is larger than the "
                         "padded input (w+2*pad_w = %lld columns)",
                         eff_w, in_w);
    long long p = (in_h - eff_h) / s->stride_h + 1, q = (in_w - eff_w) / s->stride_w + 1;
    /* Element counts in double: products of integers below 2^21 round monotonically, so the
     * comparison with 2^31 is right even where the product itself is not exact. */
    double nx = (double)s->n * s->c * s->h * s->w;
    double nw = (double)s->k * s->c * s->r * s->s;
    double ny = (double)s->n * s->k * (double)p * (double)q;
    if (nx >= TC_CONV_MAX_ELEM)
        return conv_fail("the input x has too many elements (n*c*h*w = %lld, the limit is < %lld)",
                         (long long)nx, 1LL << 31);
    if (nw >= TC_CONV_MAX_ELEM)
        return conv_fail("the filters w have too many elements (k*c*r*s = %lld, the limit is < "
                         "%lld)",
                         (long long)nw, 1LL << 31);
    if (ny >= TC_CONV_MAX_ELEM)
        return conv_fail("the output y has too many elements (n*k*p*q = %lld, the limit is < %lld)",
                         (long long)ny, 1LL << 31);
    s->p = (int)p;
    s->q = (int)q;
    return NULL;
}

double tc_conv_flops(const tc_conv_shape *s)
{
    return 2.0 * s->n * s->k * (double)s->p * s->q * s->c * s->r * s->s;
}

const char *tc_tensor_layout_name(tc_tensor_layout l) { return l == TC_NHWC ? "NHWC" : "NCHW"; }

size_t tc_tensor_index(tc_tensor_layout l, int C, int H, int W, int n, int c, int h, int w)
{
    if (l == TC_NHWC) return (((size_t)n * H + (size_t)h) * W + (size_t)w) * C + (size_t)c;
    return (((size_t)n * C + (size_t)c) * H + (size_t)h) * W + (size_t)w;
}

/* ---- layout conversion --------------------------------------------------------------------- */
/* Element-size copies through unsigned integers of that size: bit for bit. */
#define NCHW_TO_NHWC(T)                                                                            \
    do {                                                                                           \
        const T *in = (const T *)src;                                                              \
        T *out = (T *)dst;                                                                         \
        for (size_t n = 0; n < (size_t)N; n++)                                                     \
            for (size_t c = 0; c < (size_t)C; c++) {                                               \
                const T *plane = in + (n * C + c) * hw;                                            \
                T *o = out + n * hw * C + c;                                                       \
                for (size_t i = 0; i < hw; i++) o[i * C] = plane[i];                               \
            }                                                                                      \
    } while (0)

void tc_tensor_to_nhwc(const void *src, void *dst, tc_dtype t, tc_tensor_layout from, int N, int C,
                       int H, int W)
{
    size_t es = tc_dtype_size(t), hw = (size_t)H * (size_t)W;
    if (from == TC_NHWC) {
        memcpy(dst, src, (size_t)N * C * hw * es);
        return;
    }
    switch (es) {
    case 1: NCHW_TO_NHWC(uint8_t); break;
    case 2: NCHW_TO_NHWC(uint16_t); break;
    case 4: NCHW_TO_NHWC(uint32_t); break;
    default:
        fprintf(stderr, "internal error: tc_tensor_to_nhwc: element size %zu\n", es);
        exit(TC_EXIT_WRONG);
    }
}
#undef NCHW_TO_NHWC

/* ---- the reference --------------------------------------------------------------------------
 * Like tc_ref_gemm: x is converted once to float NHWC (xf) and w to float KRSC (wf), both exact;
 * then every sample element is a sum over (r, s, c), c innermost and contiguous in both arrays,
 * of exact float*float products in double with four partial sums carried across the taps (the
 * order depends only on the shape, so the result is deterministic whatever the thread count).
 * Taps that fall outside the image are skipped (x there is 0). */
typedef struct {
    const tc_conv_shape *s;
    const void *x, *w;
    tc_dtype t;
    tc_tensor_layout l;
    const tc_sample *sample;
    float *xf, *wf;
    double *ref;
    int phase; /* 0: convert, 1: sums */
} conv_job;

static void conv_worker(void *ctx, int tid, int nthreads)
{
    conv_job *j = (conv_job *)ctx;
    const tc_conv_shape *s = j->s;
    const int C = s->c, H = s->h, W = s->w, R = s->r, S = s->s, P = s->p, Q = s->q;
    if (j->phase == 0) {
        /* units: the N*H input rows (n, h) of W*C elements, then the K filters of R*S*C */
        long rows = (long)s->n * H, total = rows + s->k;
        long lo = total * tid / nthreads, hi = total * (tid + 1) / nthreads;
        for (long u = lo; u < hi; u++) {
            if (u < rows) {
                int n = (int)(u / H), h = (int)(u % H);
                float *o = j->xf + (size_t)u * W * C;
                for (int x = 0; x < W; x++)
                    for (int c = 0; c < C; c++)
                        *o++ =
                            (float)tc_load(j->x, j->t, tc_tensor_index(j->l, C, H, W, n, c, h, x));
            } else {
                int k = (int)(u - rows);
                float *o = j->wf + (size_t)k * R * S * C;
                for (int r = 0; r < R; r++)
                    for (int ss = 0; ss < S; ss++)
                        for (int c = 0; c < C; c++)
                            *o++ = (float)tc_load(j->w, j->t,
                                                  tc_tensor_index(j->l, C, R, S, k, c, r, ss));
            }
        }
        return;
    }
    long ne = j->sample->n;
    long lo = ne * tid / nthreads, hi = ne * (tid + 1) / nthreads;
    for (long e = lo; e < hi; e++) {
        long row, k;
        tc_sample_get(j->sample, e, &row, &k);
        int q = (int)(row % Q), p = (int)(row / Q % P), n = (int)(row / ((long)P * Q));
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int r = 0; r < R; r++) {
            int ih = p * s->stride_h - s->pad_h + r * s->dil_h;
            if (ih < 0 || ih >= H) continue;
            for (int ss = 0; ss < S; ss++) {
                int iw = q * s->stride_w - s->pad_w + ss * s->dil_w;
                if (iw < 0 || iw >= W) continue;
                const float *a = j->xf + (((size_t)n * H + (size_t)ih) * W + (size_t)iw) * C;
                const float *b = j->wf + (((size_t)k * R + (size_t)r) * S + (size_t)ss) * C;
                int c = 0;
                for (; c + 4 <= C; c += 4) {
                    s0 += (double)a[c] * (double)b[c];
                    s1 += (double)a[c + 1] * (double)b[c + 1];
                    s2 += (double)a[c + 2] * (double)b[c + 2];
                    s3 += (double)a[c + 3] * (double)b[c + 3];
                }
                for (; c < C; c++) s0 += (double)a[c] * (double)b[c];
            }
        }
        j->ref[e] = (s0 + s1) + (s2 + s3);
    }
}

void tc_ref_conv(const tc_conv_shape *s, const void *x, const void *w, tc_dtype t,
                 tc_tensor_layout l, const tc_sample *sample, double *ref)
{
    tc_conv_shape chk = *s;
    const char *bad = tc_conv_shape_check(&chk);
    if (bad || chk.p != s->p || chk.q != s->q || sample->rows != (long)s->n * s->p * s->q ||
        sample->cols != s->k) {
        fprintf(stderr, "internal error: tc_ref_conv: %s\n",
                bad ? bad : "p, q or the sample's rows and columns disagree with the shape");
        exit(TC_EXIT_WRONG);
    }
    conv_job job;
    memset(&job, 0, sizeof job);
    job.s = s;
    job.x = x;
    job.w = w;
    job.t = t;
    job.l = l;
    job.sample = sample;
    job.ref = ref;
    job.xf = (float *)tc_xmalloc((size_t)s->n * s->h * s->w * s->c * sizeof(float));
    job.wf = (float *)tc_xmalloc((size_t)s->k * s->r * s->s * s->c * sizeof(float));
    job.phase = 0;
    tc_parallel(conv_worker, &job);
    job.phase = 1;
    tc_parallel(conv_worker, &job);
    free(job.xf);
    free(job.wf);
}
