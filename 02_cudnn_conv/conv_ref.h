/* 02_cudnn_conv/conv_ref.h - 2D convolution shapes, tensor layouts and the FP64 CPU reference.
 *
 * The reference of chapter 02 (cuDNN convolution); no other chapter uses it. Convolution here
 * means what cuDNN calls CUDNN_CROSS_CORRELATION (no filter flip), the deep-learning convention:
 *
 *   y(n,k,p,q) = sum_{c,r,s} x(n, c, p*stride_h - pad_h + r*dil_h, q*stride_w - pad_w + s*dil_w)
 *                            * w(k, c, r, s)          (x outside the image counts as 0)
 *
 *   P = (H + 2 pad_h - ((R - 1) dil_h + 1)) / stride_h + 1, and Q likewise.
 */
#ifndef TC_CONV_REF_H
#define TC_CONV_REF_H

#include "harness.h"
#include "verify.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int n, c, h, w; /* input: batch, channels, height, width */
    int k, r, s;    /* filters: output channels, height, width */
    int pad_h, pad_w, stride_h, stride_w, dil_h, dil_w;
    int p, q; /* output height, width: filled by tc_conv_shape_check */
} tc_conv_shape;

/* Checks the shape and fills p, q (0 when invalid). Returns NULL if valid, else a message naming
 * the problem and the bad value: a size below 1, a negative padding, a stride or dilation below 1,
 * any of these above 2^20, a (dilated) filter larger than the padded input, or a tensor (x, w or
 * y) with 2^31 or more elements. The message is a per-thread static buffer, valid until the next
 * call in the same thread. */
const char *tc_conv_shape_check(tc_conv_shape *s);

/* 2 N K P Q C R S: the multiply-adds of the direct convolution, counted as two operations. */
double tc_conv_flops(const tc_conv_shape *s);

/* NCHW: x[n][c][h][w], filters w[k][c][r][s] ("KCRS").
 * NHWC: x[n][h][w][c], filters w[k][r][s][c] ("KRSC"): channels innermost, what tensor cores
 * want. */
typedef enum { TC_NCHW, TC_NHWC } tc_tensor_layout;
const char *tc_tensor_layout_name(tc_tensor_layout l);

/* Element index of (n, c, h, w) in a dense N x C x H x W tensor of layout l. Filters use the
 * same function with (k, c, r, s) for (n, c, h, w). */
size_t tc_tensor_index(tc_tensor_layout l, int C, int H, int W, int n, int c, int h, int w);

/* Copies a dense N x C x H x W tensor of element type t from layout `from` to NHWC, bit for bit
 * (so poison bytes stay poison). The checker views an NHWC output y as the row-major matrix
 * [N*P*Q rows] x [K cols]. */
void tc_tensor_to_nhwc(const void *src, void *dst, tc_dtype t, tc_tensor_layout from, int N, int C,
                       int H, int W);

/* ref[e] = y(n, k, p, q) in double for every element e of the sample, whose rows are output
 * pixels, row = (n*P + p)*Q + q, and columns output channels k (s->p, s->q must be filled). x and
 * w are as the GPU sees them: element type t, layout l. Multithreaded; products of two values
 * that convert to float exactly are exact in double, so only the double accumulation rounds. */
void tc_ref_conv(const tc_conv_shape *s, const void *x, const void *w, tc_dtype t,
                 tc_tensor_layout l, const tc_sample *sample, double *ref);

#ifdef __cplusplus
}
#endif
#endif
