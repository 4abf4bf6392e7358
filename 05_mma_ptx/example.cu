/* 05_mma_ptx/example.cu - chapter 05's best kernel, v6_streamk, called from a plain program: no
 * harness, only the rung file (wgmma/v6_streamk.cuh) and common/ headers. Build and run it from
 * this folder:
 *   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I../common -o example example.cu
 *   ./example [M N K]        C = A B, f16 in, f32 out (default 1000 x 1000 x 1000; K % 8 == 0)
 * Exit 0 when the elements it checks match a double-precision product, 1 when not, 2 for bad
 * arguments, 77 when there is no GPU or it is not a Hopper (the kernel's cudaErrorNotSupported). */
#include "wgmma/v6_streamk.cuh"

#include <cuda_fp16.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                            \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    int M = 1000, N = 1000, K = 1000, gpus = 0;
    if (argc == 4) M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
    if (argc != 1 && argc != 4) return fprintf(stderr, "usage: %s [M N K]\n", argv[0]), 2;
    if (M < 1 || N < 1 || K < 1 || M > 16384 || N > 16384 || K > 16384)
        return fprintf(stderr, "M, N, K must be in 1..16384\n"), 2;
    if (K % 8 != 0) /* TMA: A's and B's rows (K halves) must start on 16-byte boundaries */
        return fprintf(stderr, "K must be a multiple of 8 (rows of 16 bytes for TMA)\n"), 2;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0)
        return printf("SKIP: no CUDA GPU visible\n"), 77;
    /* A row-major (lda = K), B column-major (ldb = K: column j is K contiguous values), C row-major */
    __half *a = (__half *)malloc(sizeof(__half) * M * K),
           *b = (__half *)malloc(sizeof(__half) * N * K);
    float *c = (float *)malloc(sizeof(float) * M * N);
    srand(1);
    for (long i = 0; i < (long)M * K; i++) a[i] = __float2half(2.0f * rand() / RAND_MAX - 1.0f);
    for (long i = 0; i < (long)N * K; i++) b[i] = __float2half(2.0f * rand() / RAND_MAX - 1.0f);
    __half *d_a, *d_b;
    float *d_c;
    void *ws = NULL;
    size_t ws_bytes = 0;
    CHECK(cudaMalloc(&d_a, sizeof(__half) * M * K));
    CHECK(cudaMalloc(&d_b, sizeof(__half) * N * K));
    CHECK(cudaMalloc(&d_c, sizeof(float) * M * N));
    CHECK(cudaMemcpy(d_a, a, sizeof(__half) * M * K, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b, sizeof(__half) * N * K, cudaMemcpyHostToDevice));
    /* the workspace (partial sums and flags of stream-K): allocated and zeroed once */
    cudaError_t e = wgmma_v6_streamk_workspace_size<__half>(M, N, &ws_bytes);
    if (e == cudaSuccess) e = cudaMalloc(&ws, ws_bytes);
    if (e == cudaSuccess) e = cudaMemset(ws, 0, ws_bytes);
    if (e == cudaSuccess)
        e = wgmma_v6_streamk_gemm<__half>(M, N, K, d_a, K, d_b, K, d_c, N, 1.0f, 0.0f, ws, ws_bytes,
                                          0);
    if (e == cudaErrorNotSupported) {
        const char *why = wgmma_v6_streamk_unsupported<__half>(M, N, K, d_a, K, d_b, K);
        return printf("SKIP: %s\n", why ? why : "not supported on this GPU"), 77;
    }
    CHECK(e);
    CHECK(cudaMemcpy(c, d_c, sizeof(float) * M * N, cudaMemcpyDeviceToHost));
    /* 256 elements against a double product; f32 accumulation of K exact products errs by at most
     * about K * 2^-24 * sum |a b| (the tensor cores' sum is no worse, chapter 08) */
    int bad = 0;
    double worst = 0;
    for (int s = 0; s < 256; s++) {
        const int i = rand() % M, j = rand() % N;
        double ref = 0, mag = 0;
        for (int k = 0; k < K; k++) {
            const double p =
                (double)__half2float(a[(long)i * K + k]) * __half2float(b[(long)j * K + k]);
            ref += p, mag += fabs(p);
        }
        const double err = fabs(c[(long)i * N + j] - ref), tol = 2.0 * K * ldexp(mag, -24) + 1e-30;
        bad += !(err <= tol); /* written so that a NaN fails */
        if (err / tol > worst) worst = err / tol;
    }
    printf("v6_streamk: C = A B, %d x %d x %d, f16 in, f32 out: 256 elements checked, largest "
           "error %.2f of the bound: %s\n",
           M, N, K, worst, bad ? "FAIL" : "PASS");
    cudaFree(ws), cudaFree(d_a), cudaFree(d_b), cudaFree(d_c), free(a), free(b), free(c);
    return bad ? 1 : 0;
}
