/* 06_sparse_stencil/stencil_cudnn.c - the cuDNN rung: a stencil step is a convolution with one
 * input channel, one output channel and the weights as a (2r+1) x (2r+1) filter:
 *
 *   y[i][j] = sum_{p,q} w[p][q] x[i + p - r][j + q - r]     (CUDNN_CROSS_CORRELATION, padding r)
 *
 * which is the stencil on the interior cells; at the frame cuDNN pads with zeros, so the caller
 * copies the frame back from the initial grid after every step (a small kernel over 4 r N cells,
 * counted in the rung's time). FP16 data in NCHW (packed: the pitch is NX), FP32 compute, the
 * tensor-op math type allowed, and cuDNN's fastest algorithm as measured by cudnnFind...Ex: the
 * strongest single-channel baseline cuDNN has.
 *
 * Built without cuDNN's headers (TC_HAVE_CUDNN not defined: the Makefile defines it when it finds
 * cudnn.h), the functions at the end of this file stand in: st_cudnn_init reports why, and the
 * rung is skipped while the other rungs run. */
#include "stencil_cudnn.h"

#if TC_HAVE_CUDNN
#include "cudnn_loader.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

struct st_cudnn {
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnConvolutionFwdAlgo_t algo;
    void *d_w, *d_ws;
    size_t ws_bytes;
    int transform;
    char used[96];
};

static cudnnHandle_t handle;

int st_cudnn_init(char *why, size_t why_size)
{
    if (handle) return 0;
    if (tc_cudnn_load(why, why_size) != 0) return -1;
    cudnnStatus_t st = cudnnCreate(&handle);
    if (st != CUDNN_STATUS_SUCCESS) {
        snprintf(why, why_size, "cudnnCreate failed: %s", cudnnGetErrorString(st));
        handle = NULL;
        return -1;
    }
    return 0;
}

void st_cudnn_print_version(FILE *f)
{
    size_t v = cudnnGetVersion();
    tc_info_line(f, "cuDNN", "%zu.%zu.%zu (built against %d.%d.%d)", v / 10000, v % 10000 / 100,
                 v % 100, CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL);
}

st_cudnn *st_cudnn_create(int NY, int NX, int r, const uint16_t *w, const void *x, void *y,
                          char *why, size_t why_size)
{
    const int d = 2 * r + 1;
    st_cudnn *c = (st_cudnn *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(why, why_size, "out of host memory");
        return NULL;
    }
    TC_CUDNN_CHECK(cudnnCreateTensorDescriptor(&c->xd));
    TC_CUDNN_CHECK(cudnnCreateTensorDescriptor(&c->yd));
    TC_CUDNN_CHECK(cudnnCreateFilterDescriptor(&c->wd));
    TC_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&c->cd));
    TC_CUDNN_CHECK(
        cudnnSetTensor4dDescriptor(c->xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 1, 1, NY, NX));
    TC_CUDNN_CHECK(
        cudnnSetTensor4dDescriptor(c->yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 1, 1, NY, NX));
    TC_CUDNN_CHECK(
        cudnnSetFilter4dDescriptor(c->wd, CUDNN_DATA_HALF, CUDNN_TENSOR_NCHW, 1, 1, d, d));
    TC_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(c->cd, r, r, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                                   CUDNN_DATA_FLOAT));
    TC_CUDNN_CHECK(cudnnSetConvolutionMathType(c->cd, CUDNN_TENSOR_OP_MATH));
    int n, k, p, q;
    TC_CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(c->cd, c->xd, c->wd, &n, &k, &p, &q));
    if (n != 1 || k != 1 || p != NY || q != NX) {
        snprintf(why, why_size, "cuDNN's output is %dx%dx%dx%d, not 1x1x%dx%d", n, k, p, q, NY, NX);
        st_cudnn_destroy(c);
        return NULL;
    }
    TC_CUDA_CHECK(cudaMalloc(&c->d_w, (size_t)d * d * 2));
    TC_CUDA_CHECK(cudaMemcpy(c->d_w, w, (size_t)d * d * 2, cudaMemcpyHostToDevice));

    /* measured search with a scratch workspace of up to 1 GiB (a quarter of the free memory at
     * most): algorithms that need more are not tried */
    size_t free_b = 0, total_b = 0;
    TC_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    size_t scratch_bytes = (size_t)1 << 30;
    if (scratch_bytes > free_b / 4) scratch_bytes = free_b / 4;
    void *scratch = NULL;
    TC_CUDA_CHECK(cudaMalloc(&scratch, scratch_bytes));
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int returned = 0, chosen = -1;
    TC_CUDNN_CHECK(cudnnSetStream(handle, NULL));
    TC_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
        handle, c->xd, x, c->wd, c->d_w, c->cd, c->yd, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
        &returned, perf, scratch, scratch_bytes));
    TC_CUDA_CHECK(cudaFree(scratch));
    for (int i = 0; i < returned && chosen < 0; i++)
        if (perf[i].status == CUDNN_STATUS_SUCCESS) chosen = i;
    if (chosen < 0) {
        snprintf(why, why_size, "cuDNN offered no algorithm for this convolution");
        st_cudnn_destroy(c);
        return NULL;
    }
    c->algo = perf[chosen].algo;
    TC_CUDNN_CHECK(cudnnSetConvolutionMathType(c->cd, perf[chosen].mathType));
    TC_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(handle, c->xd, c->wd, c->cd, c->yd,
                                                           c->algo, &c->ws_bytes));
    if (c->ws_bytes) TC_CUDA_CHECK(cudaMalloc(&c->d_ws, c->ws_bytes));
    c->transform = c->algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT ||
                   c->algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
                   c->algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
                   c->algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
    snprintf(c->used, sizeof c->used, "%s/%s, ws %.1f MiB", tc_cudnn_fwd_algo_name(c->algo),
             perf[chosen].mathType == CUDNN_TENSOR_OP_MATH ? "TENSOR_OP"
             : perf[chosen].mathType == CUDNN_FMA_MATH     ? "FMA"
                                                           : "DEFAULT",
             (double)c->ws_bytes / (1 << 20));
    return c;
}

const char *st_cudnn_used(const st_cudnn *c) { return c->used; }
int st_cudnn_transform(const st_cudnn *c) { return c->transform; }

void st_cudnn_step(st_cudnn *c, const void *x, void *y, cudaStream_t stream)
{
    const float alpha = 1.0f, beta = 0.0f;
    TC_CUDNN_CHECK(cudnnSetStream(handle, stream));
    TC_CUDNN_CHECK(cudnnConvolutionForward(handle, &alpha, c->xd, x, c->wd, c->d_w, c->cd, c->algo,
                                           c->d_ws, c->ws_bytes, &beta, c->yd, y));
}

void st_cudnn_destroy(st_cudnn *c)
{
    if (!c) return;
    if (c->xd) cudnnDestroyTensorDescriptor(c->xd);
    if (c->yd) cudnnDestroyTensorDescriptor(c->yd);
    if (c->wd) cudnnDestroyFilterDescriptor(c->wd);
    if (c->cd) cudnnDestroyConvolutionDescriptor(c->cd);
    if (c->d_w) TC_CUDA_CHECK(cudaFree(c->d_w));
    if (c->d_ws) TC_CUDA_CHECK(cudaFree(c->d_ws));
    free(c);
}

void st_cudnn_shutdown(void)
{
    if (handle) cudnnDestroy(handle);
    handle = NULL;
}

#else /* built without cuDNN: the rung reports skipped */

int st_cudnn_init(char *why, size_t why_size)
{
    snprintf(why, why_size,
             "built without cuDNN (cudnn.h not found at build time; set CUDNN_PATH)");
    return -1;
}
void st_cudnn_print_version(FILE *f) { (void)f; }
st_cudnn *st_cudnn_create(int NY, int NX, int r, const uint16_t *w, const void *x, void *y,
                          char *why, size_t why_size)
{
    snprintf(why, why_size, "built without cuDNN");
    return NULL;
}
const char *st_cudnn_used(const st_cudnn *c) { return ""; }
int st_cudnn_transform(const st_cudnn *c) { return 0; }
void st_cudnn_step(st_cudnn *c, const void *x, void *y, cudaStream_t stream) {}
void st_cudnn_destroy(st_cudnn *c) {}
void st_cudnn_shutdown(void) {}
#endif
