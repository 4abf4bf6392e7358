/* 07_int8_dp4a/example.cu - chapter 07's best INT8 GEMM rung, v5_mma_s8, called from a plain
 * program: no harness, only the rung file (v5_mma_s8.cuh, with i8_gemm_parts.cuh and
 * imma_ptx.cuh) and common/ headers. Build and run it from this folder:
 *   nvcc -std=c++17 -O3 -arch=sm_80 -I../common -o example example.cu
 *   ./example [M N K]        C = A B, int8 in, int32 out (default 1000 x 1000 x 1024)
 * Exit 0 when the elements it checks equal the exact integer product, 1 when not, 2 for bad
 * arguments, 77 when there is no GPU or it is older than sm_80 (the rung's cudaErrorNotSupported). */
#include "v5_mma_s8.cuh"

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
    int M = 1000, N = 1000, K = 1024, gpus = 0;
    if (argc == 4) M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
    if (argc != 1 && argc != 4) return fprintf(stderr, "usage: %s [M N K]\n", argv[0]), 2;
    if (M < 1 || N < 1 || K < 1 || M > 16384 || N > 16384 || K > 16384)
        return fprintf(stderr, "M, N, K must be in 1..16384\n"), 2;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0)
        return printf("SKIP: no CUDA GPU visible\n"), 77;
    /* A row-major (lda = K), B column-major (ldb = K: column j is K contiguous values), C
     * row-major int32 (ldc = N) */
    int8_t *a = (int8_t *)malloc((size_t)M * K), *b = (int8_t *)malloc((size_t)N * K);
    int *c = (int *)malloc(sizeof(int) * M * N);
    srand(1);
    for (long i = 0; i < (long)M * K; i++) a[i] = (int8_t)(rand() % 256 - 128);
    for (long i = 0; i < (long)N * K; i++) b[i] = (int8_t)(rand() % 256 - 128);
    int8_t *d_a, *d_b;
    int *d_c;
    CHECK(cudaMalloc(&d_a, (size_t)M * K));
    CHECK(cudaMalloc(&d_b, (size_t)N * K));
    CHECK(cudaMalloc(&d_c, sizeof(int) * M * N));
    CHECK(cudaMemcpy(d_a, a, (size_t)M * K, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b, (size_t)N * K, cudaMemcpyHostToDevice));
    const cudaError_t e = i8_v5_mma_s8_gemm(M, N, K, d_a, K, d_b, K, d_c, N, 1, 0, 0);
    if (e == cudaErrorNotSupported) {
        const char *why = i8_v5_mma_s8_unsupported(M, N, K);
        return printf("SKIP: %s\n", why ? why : "not supported on this GPU"), 77;
    }
    CHECK(e);
    CHECK(cudaMemcpy(c, d_c, sizeof(int) * M * N, cudaMemcpyDeviceToHost));
    /* 256 elements against the exact product: K <= 16384 int8 products sum to at most 2^28 in
     * magnitude, so int32 holds the result and it must match to the last bit */
    int bad = 0;
    for (int s = 0; s < 256; s++) {
        const int i = rand() % M, j = rand() % N;
        long long ref = 0;
        for (int k = 0; k < K; k++) ref += (long long)a[(long)i * K + k] * b[(long)j * K + k];
        if (c[(long)i * N + j] != ref) {
            if (bad < 5) printf("C[%d][%d] = %d, expected %lld\n", i, j, c[(long)i * N + j], ref);
            bad++;
        }
    }
    printf("v5_mma_s8: C = A B, %d x %d x %d, int8 in, int32 out: 256 elements checked, %d wrong: "
           "%s\n",
           M, N, K, bad, bad ? "FAIL" : "PASS");
    cudaFree(d_a), cudaFree(d_b), cudaFree(d_c), free(a), free(b), free(c);
    return bad ? 1 : 0;
}
