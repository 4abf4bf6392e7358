/* 10_flash_attention/example.cu - chapter 10's FlashAttention rung, v1_mma, called from a plain
 * program: no harness, only the rung file (v1_mma.cuh, with attn_tile.cuh and attn_layout.h) and
 * common/ headers. Build and run it from this folder:
 *   nvcc -std=c++17 -O3 -arch=sm_80 -I../common -o example example.cu
 *   ./example [B H SQ SK D CAUSAL]   attention forward, bf16 in, BSHD (default 2 4 300 500 128 1)
 * Exit 0 when the rows it checks (the first, the last and 6 random rows of every head, every
 * element of O and L) match a double-precision reference, 1 when not, 2 for bad arguments, 77 when
 * there is no GPU or it is older than sm_80. */
#include "v1_mma.cuh"

#include <cuda_bf16.h>
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
    int B = 2, H = 4, Sq = 300, Sk = 500, D = 128, causal = 1, gpus = 0, dev = 0, major = 0;
    if (argc == 7) {
        B = atoi(argv[1]), H = atoi(argv[2]), Sq = atoi(argv[3]), Sk = atoi(argv[4]);
        D = atoi(argv[5]), causal = atoi(argv[6]);
    }
    if (argc != 1 && argc != 7)
        return fprintf(stderr, "usage: %s [B H SQ SK D CAUSAL]\n", argv[0]), 2;
    if (B < 1 || H < 1 || Sq < 1 || Sk < 1 || B > 64 || H > 64 || Sq > 8192 || Sk > 8192 ||
        (causal != 0 && causal != 1))
        return fprintf(stderr, "B, H in 1..64, SQ, SK in 1..8192, CAUSAL 0 or 1\n"), 2;
    if (D != 64 && D != 128) return fprintf(stderr, "D must be 64 or 128\n"), 2;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0)
        return printf("SKIP: no CUDA GPU visible\n"), 77;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    if (major < 8) return printf("SKIP: the kernel needs sm_80 or newer\n"), 77;

    /* BSHD, packed: element (b, s, h, d) at ((b S + s) H + h) D + d */
    const attn_strides qs = attn_strides_bshd(Sq, H, D), ks = attn_strides_bshd(Sk, H, D);
    const size_t nq = (size_t)B * Sq * H * D, nk = (size_t)B * Sk * H * D;
    __nv_bfloat16 *q = (__nv_bfloat16 *)malloc(nq * 2), *k = (__nv_bfloat16 *)malloc(nk * 2),
                  *v = (__nv_bfloat16 *)malloc(nk * 2), *o = (__nv_bfloat16 *)malloc(nq * 2);
    float *L = (float *)malloc(sizeof(float) * B * H * Sq);
    srand(1);
    for (size_t i = 0; i < nq; i++) q[i] = __float2bfloat16(2.0f * rand() / RAND_MAX - 1.0f);
    for (size_t i = 0; i < nk; i++) k[i] = __float2bfloat16(2.0f * rand() / RAND_MAX - 1.0f);
    for (size_t i = 0; i < nk; i++) v[i] = __float2bfloat16(2.0f * rand() / RAND_MAX - 1.0f);
    __nv_bfloat16 *d_q, *d_k, *d_v, *d_o;
    float *d_l;
    CHECK(cudaMalloc(&d_q, nq * 2));
    CHECK(cudaMalloc(&d_k, nk * 2));
    CHECK(cudaMalloc(&d_v, nk * 2));
    CHECK(cudaMalloc(&d_o, nq * 2));
    CHECK(cudaMalloc(&d_l, sizeof(float) * B * H * Sq));
    CHECK(cudaMemcpy(d_q, q, nq * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_k, k, nk * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_v, v, nk * 2, cudaMemcpyHostToDevice));
    const float scale = 1.0f / sqrtf((float)D);
    const cudaError_t e = attn_v1_mma_forward<__nv_bfloat16>(B, H, Sq, Sk, D, d_q, qs, d_k, ks, d_v,
                                                             ks, d_o, qs, d_l, causal, scale, 0);
    if (e == cudaErrorNotSupported) {
        const char *why = attn_v1_mma_unsupported<__nv_bfloat16>(B, H, Sq, Sk, D, d_q, qs, d_k, ks,
                                                                 d_v, ks, d_o, qs);
        return printf("SKIP: %s\n", why ? why : "not supported on this GPU"), 77;
    }
    CHECK(e);
    CHECK(cudaMemcpy(o, d_o, nq * 2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(L, d_l, sizeof(float) * B * H * Sq, cudaMemcpyDeviceToHost));

    /* The reference in double; the bound is the two terms of attn_ref.h that matter here: P
     * rounded to bf16 (2^-8 per term, adding like a random walk: vmax sqrt(sum p^2)) and O rounded
     * to bf16 (2^-8 |O|), with the margin 4. A row that sees no key must hold O = 0, L = -inf. */
    int bad = 0, rows = 0;
    double worst = 0, *s = (double *)malloc(sizeof(double) * Sk);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int n = 0; n < 8; n++) {
                const long i = n == 0 ? 0 : n == 1 ? Sq - 1 : rand() % Sq;
                const long keys = attn_key_end(Sq, Sk, causal, i);
                const size_t qrow = (size_t)b * qs.batch + i * qs.seq + h * qs.head;
                const float Li = L[((size_t)b * H + h) * Sq + i];
                rows++;
                if (keys == 0) {
                    for (int d = 0; d < D; d++) bad += __bfloat162float(o[qrow + d]) != 0.0f;
                    bad += !(isinf(Li) && Li < 0);
                    continue;
                }
                double m = -INFINITY, Z = 0, sp2 = 0;
                for (long j = 0; j < keys; j++) {
                    double dot = 0;
                    for (int d = 0; d < D; d++)
                        dot += (double)__bfloat162float(q[qrow + d]) *
                               __bfloat162float(
                                   k[(size_t)b * ks.batch + j * ks.seq + h * ks.head + d]);
                    s[j] = dot * scale;
                    m = fmax(m, s[j]);
                }
                for (long j = 0; j < keys; j++) s[j] = exp(s[j] - m), Z += s[j];
                for (long j = 0; j < keys; j++) sp2 += (s[j] / Z) * (s[j] / Z);
                for (int d = 0; d < D; d++) {
                    double ref = 0;
                    for (long j = 0; j < keys; j++)
                        ref += s[j] / Z *
                               __bfloat162float(
                                   v[(size_t)b * ks.batch + j * ks.seq + h * ks.head + d]);
                    const double err = fabs(__bfloat162float(o[qrow + d]) - ref);
                    const double tol = 4 * ldexp(sqrt(sp2), -8) + ldexp(fabs(ref), -7) + 1e-6;
                    bad += !(err <= tol); /* written so that a NaN fails */
                    worst = fmax(worst, err / tol);
                }
                const double lerr = fabs(Li - (m + log(Z)));
                bad += !(lerr <= 1e-4);
                worst = fmax(worst, lerr / 1e-4);
            }
    printf("v1_mma: attention forward, B %d, H %d, Sq %d, Sk %d, D %d, %s, bf16: %d rows checked, "
           "largest error %.2f of the bound: %s\n",
           B, H, Sq, Sk, D, causal ? "causal" : "no mask", rows, worst, bad ? "FAIL" : "PASS");
    cudaFree(d_q), cudaFree(d_k), cudaFree(d_v), cudaFree(d_o), cudaFree(d_l);
    free(q), free(k), free(v), free(o), free(L), free(s);
    return bad ? 1 : 0;
}
