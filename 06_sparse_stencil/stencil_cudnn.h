/* 06_sparse_stencil/stencil_cudnn.h - the cuDNN rung (a): one stencil step as a single-channel
 * FP16 convolution, the way published stencil work measures its baseline. */
#ifndef STENCIL_CUDNN_H
#define STENCIL_CUDNN_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct st_cudnn st_cudnn;

/* Loads cuDNN (dlopen, common/cudnn_loader.h) and creates the handle once. 0, or -1 with a
 * one-line reason in why (the rung is then skipped). */
int st_cudnn_init(char *why, size_t why_size);
/* "cuDNN : 9.x.y" line for the device block */
void st_cudnn_print_version(FILE *f);
/* The convolution for an NY x NX grid with pitch ld = NX (cuDNN's packed NCHW, N = C = K = 1), a
 * (2r+1)^2 filter of f16 bits w (cross-correlation, padding r, FP32 compute, tensor-op math
 * allowed), and cuDNN's fastest algorithm for it, measured by
 * cudnnFindConvolutionForwardAlgorithmEx on x -> y (which it overwrites). NULL with the reason in
 * why when cuDNN offers none. */
st_cudnn *st_cudnn_create(int NY, int NX, int r, const uint16_t *w, const void *x, void *y,
                          char *why, size_t why_size);
/* "IMPLICIT_PRECOMP_GEMM / TENSOR_OP, ws 0.0 MiB" */
const char *st_cudnn_used(const st_cudnn *c);
/* 1 when the algorithm multiplies in a transformed domain (FFT, Winograd): its products are not the
 * stencil's, and stencil.c's error bound adds an input term for it */
int st_cudnn_transform(const st_cudnn *c);
/* y = conv(x) on every cell, enqueued on stream (the frame is restored by the caller) */
void st_cudnn_step(st_cudnn *c, const void *x, void *y, cudaStream_t stream);
void st_cudnn_destroy(st_cudnn *c);
void st_cudnn_shutdown(void);

#endif
