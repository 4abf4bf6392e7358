/* 06_sparse_stencil/example.cu - chapter 06's fastest stencil, sparse_f16 (2:4 bands on mma.sp,
 * f16 accumulators), called from a plain program: no harness, only the kernel file stencil_tc.cuh
 * (with stencil_bands.h, sparse_ptx.cuh) and common/ headers. Build and run it from this folder:
 *   nvcc -std=c++17 -O3 -arch=sm_80 -I../common -o example example.cu
 *   ./example [NY NX STEPS]   Box-2D49P (r = 3) on an NY x NX f16 grid (default 300 x 250, 4 steps)
 * Exit 0 when every cell is within its bound of a double-precision reference, 1 when not, 2 for bad
 * arguments, 77 when there is no GPU or it cannot run the kernel (cudaErrorNotSupported). */
#include "stencil_tc.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        if (const cudaError_t e_ = (call))                                                         \
            return fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_)), 1;                  \
    } while (0)

int main(int argc, char **argv)
{
    int NY = 300, NX = 250, T = 4, gpus = 0;
    const int r = 3, d = 2 * r + 1; /* Box-2D49P: every tap of the 7 x 7 square */
    if (argc == 4) NY = atoi(argv[1]), NX = atoi(argv[2]), T = atoi(argv[3]);
    if (argc != 1 && argc != 4) return fprintf(stderr, "usage: %s [NY NX STEPS]\n", argv[0]), 2;
    if (NY < 1 || NX < 1 || NY > 2048 || NX > 2048 || T < 1 || T > 20)
        return fprintf(stderr, "NY and NX must be in 1..2048, STEPS in 1..20\n"), 2;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0)
        return printf("SKIP: no CUDA GPU visible\n"), 77;
    /* weights random, positive, sum 1, rounded to f16; grid uniform in [-1, 1] rounded to f16,
     * rows padded with zeros to ld = a multiple of 8 halves (16 bytes) */
    const int ld = (NX + 7) / 8 * 8;
    size_t n = (size_t)NY * ld, bytes = 0;
    __half w[49], *g = (__half *)calloc(n, sizeof(__half)), *got = (__half *)malloc(n * 2);
    double wd[49], sum = 0;
    srand(1);
    for (int i = 0; i < d * d; i++) sum += wd[i] = 1.0 + rand() % 1000;
    for (int i = 0; i < d * d; i++) w[i] = __double2half(wd[i] / sum), wd[i] = __half2float(w[i]);
    for (size_t i = 0; i < n; i++)
        if ((long)(i % ld) < NX) g[i] = __float2half(2.0f * rand() / ((float)RAND_MAX + 1) - 1.0f);
    __half *d_p, *d_q, *ws; /* p and q both hold the frame, which is never written */
    CHECK(cudaMalloc(&d_p, n * 2));
    CHECK(cudaMalloc(&d_q, n * 2));
    CHECK(cudaMemcpy(d_p, g, n * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_q, g, n * 2, cudaMemcpyHostToDevice));
    CHECK(stencil_tc_workspace_size<true>(r, &bytes));
    CHECK(cudaMalloc(&ws, bytes));
    /* <SPARSE, F16ACC> = sparse_f16; in = q: steps q -> p -> q ..., the result in p when T is odd */
    const cudaError_t e =
        stencil_tc_stencil<true, true>(r, w, d_q, d_p, d_q, NY, NX, ld, T, ws, bytes, 0);
    if (e == cudaErrorNotSupported) {
        const char *why = stencil_tc_unsupported<true, true>(r, NY, NX, ld, d_q, d_p, d_q);
        return printf("SKIP: %s\n", why ? why : "not supported on this GPU"), 77;
    }
    CHECK(e);
    CHECK(cudaMemcpy(got, T % 2 ? d_p : d_q, n * 2, cudaMemcpyDeviceToHost));
    /* The reference: each step in double from the previous step's f16 values, rounded to f16 once.
     * Each cell's bound E is carried through the steps (the chapter's model, stencil_bands.h): with
     * x_j, E_j the previous step's values and bounds at the taps, the GPU's sum before rounding is
     * within D = sum |w_j| E_j + gamma sum |w_j| (|x_j| + E_j) of the exact sum a: gamma = 2 (2r + 1)
     * u16, as each of the 2r + 1 mma.sp rounds its f16 sum (u16 = 2^-11) and aligns its addends.
     * Both then round to f16, maybe to neighbours: E = D + u16 (2 |a| + D) + 2^-24. Frame: E = 0. */
    const double u16 = 0x1p-11, gamma = 2.0 * d * u16;
    double *buf = (double *)calloc(4 * n, 8), *x = buf, *E = x + n, *x1 = E + n, *E1 = x1 + n, *t;
    for (size_t i = 0; i < n; i++) x[i] = __half2float(g[i]);
    for (int s = 0; s < T; s++) {
        for (long i = 0; i < (long)n; i++) {
            const long y = i / ld, c = i % ld;
            x1[i] = x[i], E1[i] = E[i];
            if (y < r || y >= NY - r || c < r || c >= NX - r) continue; /* frame, padding */
            double a = 0, se = 0, sa = 0;
            for (int dy = -r; dy <= r; dy++)
                for (int dx = -r; dx <= r; dx++) {
                    const long j = i + dy * ld + dx;
                    const double wj = wd[(dy + r) * d + dx + r]; /* > 0: |w_j| = w_j */
                    a += wj * x[j], se += wj * E[j], sa += wj * (fabs(x[j]) + E[j]);
                }
            const double D = se + gamma * sa;
            x1[i] = __half2float(__double2half(a)), E1[i] = D + u16 * (2 * fabs(a) + D) + 0x1p-24;
        }
        t = x, x = x1, x1 = t, t = E, E = E1, E1 = t;
    }
    long bad = 0;
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        const double err = fabs((double)__half2float(got[i]) - x[i]);
        bad += !(err <= E[i]); /* written so that a NaN fails (padding: 0 = 0) */
        if (E[i] > 0 && err / E[i] > worst) worst = err / E[i];
    }
    printf("sparse_f16: Box-2D49P, %d x %d, %d steps, f16 in and out, f16 accumulate: %d cells "
           "checked, %ld outside their bound, largest error %.2f of the bound: %s\n",
           NY, NX, T, NY * NX, bad, worst, bad ? "FAIL" : "PASS");
    cudaFree(ws), cudaFree(d_p), cudaFree(d_q), free(g), free(got), free(buf);
    return bad ? 1 : 0;
}
