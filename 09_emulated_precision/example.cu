/* 09_emulated_precision/example.cu - chapter 09's headline kernel, v5_ozaki2_n15 (FP64 GEMM from
 * int8 tensor cores: 51-bit integers, 15 moduli, the Chinese remainder theorem), called from a
 * plain program: no harness, only the rung file (v5_ozaki2.cuh, with ozaki_parts.cuh), the CRT
 * constants of ozaki_model.c (compiled into this file) and cuBLAS. Build and run it from here:
 *   nvcc -std=c++17 -O3 -arch=sm_80 -I../common -o example example.cu -lcublas
 *   ./example [M N K]        C = A B, f64 in and out (default 1000 x 1000 x 1000)
 * Exit 0 when the elements it checks are within the chapter's tolerance of a compensated product,
 * 1 when not, 2 for bad arguments, 77 when there is no GPU or the launcher cannot take the problem
 * (its cudaErrorNotSupported). */
#include "v5_ozaki2.cuh"

#include "ozaki_model.c" /* oz2_consts_init, oz2_k_chunk: the host side of the constants */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long long rng = 1; /* splitmix64: uniform in [-1, 1) on a grid of 2^-52 */
static double uniform(void)
{
    unsigned long long z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull, z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1p-52 - 1.0;
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
    /* A row-major (lda = K), B column-major (ldb = K: column j is K contiguous values), C
     * row-major (ldc = N) */
    const size_t na = (size_t)M * K, nb = (size_t)N * K, nc = (size_t)M * N;
    double *a = (double *)malloc(8 * na), *b = (double *)malloc(8 * nb);
    double *c = (double *)malloc(8 * nc), amax = 0, bmax = 0, *d_a, *d_b, *d_c;
    for (size_t i = 0; i < na; i++) a[i] = uniform(), amax = fmax(amax, fabs(a[i]));
    for (size_t i = 0; i < nb; i++) b[i] = uniform(), bmax = fmax(bmax, fabs(b[i]));
    void *ws = NULL;
    size_t ws_bytes = 0;
    cublasHandle_t handle; /* the int8 GEMMs are cuBLAS's */
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return fprintf(stderr, "no cuBLAS\n"), 1;
    cudaError_t e = cudaMalloc(&d_a, 8 * na);
    if (e == cudaSuccess) e = cudaMalloc(&d_b, 8 * nb);
    if (e == cudaSuccess) e = cudaMalloc(&d_c, 8 * nc);
    if (e == cudaSuccess) e = cudaMemcpy(d_a, a, 8 * na, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(d_b, b, 8 * nb, cudaMemcpyHostToDevice);
    /* v5_ozaki2_n15: 15 moduli, 51-bit integers; the workspace (residues, products, sums) */
    if (e == cudaSuccess) e = oz_v5_ozaki2_workspace_size(15, 51, M, N, K, &ws_bytes);
    if (e == cudaSuccess) e = cudaMalloc(&ws, ws_bytes);
    if (e == cudaSuccess)
        e = oz_v5_ozaki2_gemm(15, 51, M, N, K, d_a, K, d_b, K, d_c, N, 1.0, 0.0, ws, ws_bytes,
                              handle, 0);
    const char *why = e == cudaErrorNotSupported ? oz_v5_ozaki2_unsupported(15, 51, M, N, K) : NULL;
    if (why) return printf("SKIP: %s\n", why), 77;
    if (e == cudaSuccess) e = cudaMemcpy(c, d_c, 8 * nc, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) return fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e)), 1;
    /* 300 elements against Dot2 (each product split exactly by an FMA, each addition's error
     * kept: as good as twice f64), within the row f64_oz2n15's tolerance (common/verify.c): a
     * product is off by at most 2^(1-51) 2^(ea+eb) <= 2^-48 s (the truncation to 51 bits,
     * ozaki_model.h; s = max|A| max|B|), signs random: 2^-48 sqrt(K); the f64 sums 2^-53 K;
     * times 4 for the tail; plus 2 ulps of the result. */
    const double atol = 4 * amax * bmax * (0x1p-48 * sqrt((double)K) + 0x1p-53 * K), rtol = 0x1p-52;
    int bad = 0;
    for (int s = 0; s < 300; s++) {
        const int i = (int)((uniform() + 1) / 2 * M), j = (int)((uniform() + 1) / 2 * N);
        double sum = 0, err = 0;
        for (int k = 0; k < K; k++) {
            const double x = a[(size_t)i * K + k], y = b[(size_t)j * K + k];
            const double p = x * y, pe = fma(x, y, -p), t = sum + p, z = t - sum;
            err += ((sum - (t - z)) + (p - z)) + pe, sum = t;
        }
        const double ref = sum + err, got = c[(size_t)i * N + j];
        if (!(fabs(got - ref) <= atol + rtol * fabs(ref))) { /* a NaN fails */
            if (bad < 5) printf("C[%d][%d] = %.17g, expected %.17g\n", i, j, got, ref);
            bad++;
        }
    }
    printf("v5_ozaki2_n15: C = A B, %d x %d x %d, f64: 300 elements checked, %d wrong: %s\n", M, N,
           K, bad, bad ? "FAIL" : "PASS");
    cublasDestroy(handle), cudaFree(ws), cudaFree(d_a), cudaFree(d_b), cudaFree(d_c);
    free(a), free(b), free(c);
    return bad ? 1 : 0;
}
