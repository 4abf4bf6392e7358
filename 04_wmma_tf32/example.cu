/* 04_wmma_tf32/example.cu - chapter 04's fastest TF32 kernel, v7_wgmma_tf32 (chapter 05's
 * v4_cluster rung run on float data: common/wgmma_v4_cluster.cuh), called from a plain program: no
 * harness, only common/ headers. Build and run it from this folder:
 *   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I../common -o example example.cu
 *   ./example [M N K]        C = A B, f32 in (read as tf32), f32 out (default 1000 x 1000 x 1000)
 * The tensor cores read a tf32 operand from the f32 bits and ignore the 13 low ones (the inputs
 * are truncated, not rounded), so the check truncates the host's copies the same way. Exit 0 when
 * the elements it checks match a double-precision product, 1 when not, 2 for bad arguments, 77
 * when there is no GPU or it is not a Hopper (the kernel's cudaErrorNotSupported). */
#include "wgmma_v4_cluster.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                            \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* the value the tensor cores multiply: the f32 bits with the 13 low mantissa bits cleared */
static double tf32_rz(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    u &= 0xffffe000u;
    memcpy(&x, &u, 4);
    return x;
}

int main(int argc, char **argv)
{
    int M = 1000, N = 1000, K = 1000, gpus = 0;
    if (argc == 4) M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
    if (argc != 1 && argc != 4) return fprintf(stderr, "usage: %s [M N K]\n", argv[0]), 2;
    if (M < 1 || N < 1 || K < 1 || M > 16384 || N > 16384 || K > 16384)
        return fprintf(stderr, "M, N, K must be in 1..16384\n"), 2;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0)
        return printf("SKIP: no CUDA GPU visible\n"), 77;
    /* A row-major (lda = K), B column-major (ldb = K), C row-major (ldc = N); K % 4 == 0 keeps
     * every row 16 bytes apart, as the TMA needs */
    const long lda = (K + 3) / 4 * 4;
    float *a = (float *)calloc((size_t)M * lda, 4), *b = (float *)calloc((size_t)N * lda, 4);
    float *c = (float *)malloc(sizeof(float) * M * N);
    srand(1);
    for (long i = 0; i < (long)M * lda; i++) a[i] = i % lda < K ? 2.0f * rand() / RAND_MAX - 1 : 0;
    for (long i = 0; i < (long)N * lda; i++) b[i] = i % lda < K ? 2.0f * rand() / RAND_MAX - 1 : 0;
    float *d_a, *d_b, *d_c;
    CHECK(cudaMalloc(&d_a, sizeof(float) * M * lda));
    CHECK(cudaMalloc(&d_b, sizeof(float) * N * lda));
    CHECK(cudaMalloc(&d_c, sizeof(float) * M * N));
    CHECK(cudaMemcpy(d_a, a, sizeof(float) * M * lda, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b, sizeof(float) * N * lda, cudaMemcpyHostToDevice));
    const cudaError_t e =
        wgmma_v4_cluster_gemm<float>(M, N, K, d_a, lda, d_b, lda, d_c, N, 1.0f, 0.0f, 0);
    if (e == cudaErrorNotSupported) {
        const char *why = wgmma_v4_cluster_unsupported<float>(M, N, K, d_a, lda, d_b, lda);
        return printf("SKIP: %s\n", why ? why : "not supported on this GPU"), 77;
    }
    CHECK(e);
    CHECK(cudaMemcpy(c, d_c, sizeof(float) * M * N, cudaMemcpyDeviceToHost));
    /* 256 elements against a double product of the truncated values; f32 accumulation of K
     * exact products errs by at most about K * 2^-24 * sum |a b| */
    int bad = 0;
    double worst = 0;
    for (int s = 0; s < 256; s++) {
        const int i = rand() % M, j = rand() % N;
        double ref = 0, mag = 0;
        for (int k = 0; k < K; k++) {
            const double p = tf32_rz(a[(long)i * lda + k]) * tf32_rz(b[(long)j * lda + k]);
            ref += p, mag += fabs(p);
        }
        const double err = fabs(c[(long)i * N + j] - ref), tol = 2.0 * K * ldexp(mag, -24) + 1e-30;
        bad += !(err <= tol); /* written so that a NaN fails */
        if (err / tol > worst) worst = err / tol;
    }
    printf("v7_wgmma_tf32: C = A B, %d x %d x %d, f32 in (tf32), f32 out: 256 elements checked, "
           "largest error %.2f of the bound: %s\n",
           M, N, K, worst, bad ? "FAIL" : "PASS");
    cudaFree(d_a), cudaFree(d_b), cudaFree(d_c), free(a), free(b), free(c);
    return bad ? 1 : 0;
}
