/* 09_emulated_precision/ozaki.cu - v2_ozaki_sN: an FP64 GEMM computed by int8 tensor cores (the
 * Ozaki scheme with s int8 slices per value; ozaki_model.h has the arithmetic and its bound).
 *
 * The steps, all on the stream, all inside the timed launch:
 *   1. oz_exponents   one warp per row of A (per column of B): the exponent e with |x| < 2^e;
 *   2. oz_split       each value cut into s slices of 7 bits, written as int8 with the slices of a
 *                     row laid end to end along k: A as D_1 | D_2 | ... | D_s, B as E_s | ... | E_1
 *                     (both K-major, leading dimension s Kc), zeros past K;
 *   3. for each diagonal t = s+1 down to 2: ONE cuBLAS int8 GEMM (int32 out, exact) of A's first
 *      (t-1) Kc columns with B's last (t-1) Kc rows, i.e. sum_{p+q=t} D_p E_q; then
 *      oz_accumulate adds it, times 2^-7t, to an f64 sum (the smallest diagonal first);
 *   4. oz_finish      C = alpha 2^(e_i + f_j) sum + beta C.
 * K is cut into chunks of Kc <= oz_k_exact_int32(s) (rounded down to a multiple of 16), so that
 * every int32 sum is exact; each chunk runs steps 2 and 3, adding its diagonals to the same f64
 * sum (ozaki_model.c's oz_dot models one chunk). TC_OZAKI_KC (environment, a multiple of 16)
 * caps Kc, so that a test can run the chunk path at small K.
 * Not handled: NaN and infinite inputs (a slice of them is undefined; DGEMM would propagate
 * them).
 *
 * Problem and layout: C = alpha A B + beta C, A M x K row-major (lda), B K x N column-major (ldb),
 * C M x N row-major (ldc), all f64; any M, N, K and alignment. beta == 0 never reads C.
 *
 * Minimum: sm_75 for cuBLAS's int8 tensor cores (the chapter's floor is sm_80). */
#include <cublas_v2.h> /* before check.h (through ozaki.h): TC_CUBLAS_CHECK */

#include "ozaki.h"

#include "ozaki_model.h"

#include <stdint.h>
#include <stdlib.h>

const int oz_slices_6 = 6, oz_slices_7 = 7, oz_slices_8 = 8;

constexpr int OZ_KC_ALIGN = 16; /* chunk length and slice stride: cuBLAS int8 wants ld % 4 */

/* ---- device code ------------------------------------------------------------------------------ */

/* e[r] = the exponent of row r of x (rows x K, leading dimension ld): |x| < 2^e, 0 for a zero row.
 * One warp per row. */
__global__ void oz_exponents(const double *__restrict__ x, long ld, int rows, int K,
                             int *__restrict__ e)
{
    const int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (r >= rows) return;
    double m = 0;
    for (int k = lane; k < K; k += 32) m = fmax(m, fabs(x[(long)r * ld + k]));
    for (int o = 16; o > 0; o /= 2) m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
    if (lane == 0) {
        int ex = 0;
        if (m > 0) frexp(m, &ex);
        e[r] = ex;
    }
}

/* The slices of x(r, k0 .. k0+Kc-1) into cat (rows x s Kc, leading dimension s Kc): slice p
 * (1-based) at columns slot(p) Kc .. slot(p) Kc + Kc - 1, slot(p) = p - 1 (A) or s - p (B). */
__global__ void oz_split(const double *__restrict__ x, long ld, int rows, int K, int k0, int kc,
                         const int *__restrict__ e, int s, int reverse, int8_t *__restrict__ cat)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= kc) return;
    const long ldc = (long)s * kc;
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        double v = k0 + k < K ? ldexp(x[(long)r * ld + k0 + k], -e[r]) : 0.0; /* |v| < 1 */
        for (int p = 1; p <= s; p++) {
            const double y = ldexp(v, OZ_SLICE_BITS), t = trunc(y); /* exact */
            v = y - t;
            const int slot = reverse ? s - p : p - 1;
            cat[(long)r * ldc + (long)slot * kc + k] = (int8_t)t;
        }
    }
}

/* sum(i, j) += 2^-7t R(i, j): R row-major M x N int32, sum f64 */
__global__ void oz_accumulate(const int32_t *__restrict__ R, double *__restrict__ sum, long n,
                              int t)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
         i += (long)gridDim.x * blockDim.x)
        sum[i] += ldexp((double)R[i], -OZ_SLICE_BITS * t);
}

/* C = alpha 2^(ea_i + eb_j) sum + beta C */
__global__ void oz_finish(const double *__restrict__ sum, const int *__restrict__ ea,
                          const int *__restrict__ eb, int M, int N, double *__restrict__ C,
                          long ldc, double alpha, double beta)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < (long)M * N;
         i += (long)gridDim.x * blockDim.x) {
        const int r = (int)(i / N), c = (int)(i % N);
        const double v = alpha * ldexp(sum[i], ea[r] + eb[c]);
        double *out = C + (long)r * ldc + c;
        *out = beta == 0 ? v : v + beta * *out;
    }
}

/* ---- host side -------------------------------------------------------------------------------- */
typedef struct {
    cublasHandle_t handle;
} oz_ctx;

extern "C" void *oz_chapter_init(const tc_device_info *dev, FILE *info)
{
    (void)dev, (void)info;
    oz_ctx *c = (oz_ctx *)calloc(1, sizeof *c);
    if (!c) return NULL;
    TC_CUBLAS_CHECK(cublasCreate(&c->handle));
    return c;
}

extern "C" void *oz_cublas_handle(void *chapter_ctx)
{
    return chapter_ctx ? (void *)((oz_ctx *)chapter_ctx)->handle : NULL;
}

extern "C" void oz_chapter_fini(void *ctx)
{
    oz_ctx *c = (oz_ctx *)ctx;
    if (!c) return;
    cublasDestroy(c->handle);
    free(c);
}

typedef struct {
    int s;
    long kc, chunks;     /* chunk length (a multiple of OZ_KC_ALIGN) and count */
    int8_t *acat, *bcat; /* M x s kc and N x s kc */
    int32_t *r;          /* one diagonal: M x N */
    double *sum;         /* M x N */
    int *ea, *eb;        /* M and N exponents */
} oz_plan;

extern "C" const char *oz_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    if (!p->chapter_ctx) return "out of host memory";
    const int s = *(const int *)v->impl;
    oz_plan *plan = (oz_plan *)calloc(1, sizeof *plan);
    if (!plan) return "out of host memory";
    plan->s = s;
    const long k_round = (p->K + OZ_KC_ALIGN - 1) / OZ_KC_ALIGN * OZ_KC_ALIGN;
    const long k_max = oz_k_exact_int32(s) / OZ_KC_ALIGN * OZ_KC_ALIGN;
    plan->kc = k_round < k_max ? k_round : k_max;
    const char *cap = getenv("TC_OZAKI_KC"); /* a test's cap on the chunk (see the header) */
    if (cap && atol(cap) >= OZ_KC_ALIGN && atol(cap) % OZ_KC_ALIGN == 0 && atol(cap) < plan->kc)
        plan->kc = atol(cap);
    plan->chunks = (p->K + plan->kc - 1) / plan->kc;
    const size_t cat_a = (size_t)p->M * s * plan->kc, cat_b = (size_t)p->N * s * plan->kc;
    const size_t mn = (size_t)p->M * p->N;
    if (cudaMalloc(&plan->acat, cat_a) != cudaSuccess ||
        cudaMalloc(&plan->bcat, cat_b) != cudaSuccess ||
        cudaMalloc(&plan->r, mn * sizeof(int32_t)) != cudaSuccess ||
        cudaMalloc(&plan->sum, mn * sizeof(double)) != cudaSuccess ||
        cudaMalloc(&plan->ea, (size_t)p->M * sizeof(int)) != cudaSuccess ||
        cudaMalloc(&plan->eb, (size_t)p->N * sizeof(int)) != cudaSuccess) {
        (void)cudaGetLastError();
        p->plan = plan;
        oz_release(v, p);
        return TC_GEMM_SKIP "not enough device memory for the slices";
    }
    /* R is poisoned once (a large int32 in every element): a product cuBLAS did not write would
     * wreck the result. The fill also marks R initialised for compute-sanitizer's initcheck, which
     * does not see every store of cuBLAS's int8 kernels. */
    TC_CUDA_CHECK(cudaMemset(plan->r, 0x7f, mn * sizeof(int32_t)));
    p->plan = plan;
    return NULL;
}

static unsigned blocks_for(long n, int threads)
{
    const long b = (n + threads - 1) / threads;
    return (unsigned)(b < 65535 * 16 ? b : 65535 * 16);
}

extern "C" void oz_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream)
{
    const oz_plan *plan = (const oz_plan *)p->plan;
    const oz_ctx *ctx = (const oz_ctx *)p->chapter_ctx;
    const int s = plan->s, M = p->M, N = p->N, K = p->K;
    const long kc = plan->kc, ldcat = (long)s * kc, mn = (long)M * N;
    const double *A = (const double *)p->d_a, *B = (const double *)p->d_b;

    oz_exponents<<<(M + 7) / 8, 256, 0, stream>>>(A, p->lda, M, K, plan->ea);
    oz_exponents<<<(N + 7) / 8, 256, 0, stream>>>(B, p->ldb, N, K, plan->eb);
    TC_CUDA_CHECK(cudaMemsetAsync(plan->sum, 0, (size_t)mn * sizeof(double), stream));
    TC_CUBLAS_CHECK(cublasSetStream(ctx->handle, stream));
    const int32_t one = 1, zero = 0;
    for (long c = 0; c < plan->chunks; c++) {
        const int k0 = (int)(c * kc);
        const dim3 block(256), grid_a((unsigned)((kc + 255) / 256), M < 65535 ? M : 65535),
            grid_b((unsigned)((kc + 255) / 256), N < 65535 ? N : 65535);
        oz_split<<<grid_a, block, 0, stream>>>(A, p->lda, M, K, k0, (int)kc, plan->ea, s, 0,
                                               plan->acat);
        oz_split<<<grid_b, block, 0, stream>>>(B, p->ldb, N, K, k0, (int)kc, plan->eb, s, 1,
                                               plan->bcat);
        for (int t = s + 1; t >= 2; t--) {
            /* R (row-major M x N) = Acat[:, 0 : (t-1) kc] Bcat[(s-t+1) kc : s kc, :], computed
             * column-major as R^T = Bcat^T Acat^T: both operands K-contiguous ("TN") */
            int a_slot, b_slot, count;
            oz_diagonal(s, t, &a_slot, &b_slot, &count); /* here a_slot = 0, count = t - 1 */
            const int kd = (int)(count * kc);
            TC_CUBLAS_CHECK(cublasGemmEx(ctx->handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, kd, &one,
                                         plan->bcat + (long)b_slot * kc, CUDA_R_8I, (int)ldcat,
                                         plan->acat + (long)a_slot * kc, CUDA_R_8I, (int)ldcat,
                                         &zero, plan->r, CUDA_R_32I, N, CUBLAS_COMPUTE_32I,
                                         CUBLAS_GEMM_DEFAULT));
            oz_accumulate<<<blocks_for(mn, 256), 256, 0, stream>>>(plan->r, plan->sum, mn, t);
        }
    }
    oz_finish<<<blocks_for(mn, 256), 256, 0, stream>>>(plan->sum, plan->ea, plan->eb, M, N,
                                                       (double *)p->d_c, p->ldc, p->alpha, p->beta);
}

extern "C" void oz_release(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    oz_plan *plan = (oz_plan *)p->plan;
    if (!plan) return;
    cudaFree(plan->acat);
    cudaFree(plan->bcat);
    cudaFree(plan->r);
    cudaFree(plan->sum);
    cudaFree(plan->ea);
    cudaFree(plan->eb);
    free(plan);
    p->plan = NULL;
}

/* ================================================================================================
 * v5_ozaki2_nN: scheme II (ozaki_model.h): k-bit integers, their residues modulo n moduli, one
 * int8 GEMM per modulus, the Chinese remainder theorem in double-double.
 * The steps per chunk of K (Kc from oz2_k_chunk: C' of a chunk stays within (-P/2, P/2)):
 *   1. oz2_residues  A' = trunc(A 2^(k - e)) and its n residues, int8, one K-major matrix per
 *                    modulus (leading dimension Kc rounded up to 16, zeros past K); B likewise;
 *   2. per modulus l: ONE cuBLAS int8 GEMM (int32, exact), then oz2_reduce: t_l = (R mod m_l)
 *                    inv_l mod m_l, one byte per element;
 *   3. oz2_combine   C' = P frac(sum_l t_l / m_l) in double-double, times 2^-2k, added to the f64
 *                    sum of the chunks;
 * then oz_finish as in scheme I. Not handled, as in scheme I: NaN and infinite inputs.
 * ============================================================================================== */
const oz2_variant oz2_n14 = {.moduli = 14, .bits = 48}, oz2_n15 = {.moduli = 15, .bits = 51},
                  oz2_n16 = {.moduli = 16, .bits = 52};

/* x mod m in [0, m) for an integer-valued x with |x| < 2^53 (rm ~ 1/m): floor's estimate is off
 * by at most one, and x - q m is an exact small integer */
static __device__ __forceinline__ double mod_exact(double x, double m, double rm)
{
    const double q = floor(x * rm);
    double r = fma(-q, m, x);
    if (r < 0) r += m;
    if (r >= m) r -= m;
    return r;
}

/* residues of the k-bit integers of x(r, k0 .. k0+kc-1): res[l] (rows x kcp, K-major). N = c.n,
 * a template parameter so that the loops over the moduli unroll (constant indices into c). */
template <int N>
__global__ void oz2_residues(const double *__restrict__ x, long ld, int rows, int K, int k0, int kc,
                             int kcp, const int *__restrict__ e, int bits, oz2_consts c,
                             int8_t *__restrict__ res)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= kcp) return;
    const long plane = (long)rows * kcp;
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const double v =
            k < kc && k0 + k < K ? trunc(ldexp(x[(long)r * ld + k0 + k], bits - e[r])) : 0.0;
#pragma unroll
        for (int l = 0; l < N; l++) {
            const int m = c.m[l];
            const int t = (int)mod_exact(v, (double)m, c.rm_hi[l]);
            res[l * plane + (long)r * kcp + k] = (int8_t)(t >= (m + 1) / 2 ? t - m : t);
        }
    }
}

/* t = (R mod m) inv mod m, one byte per element */
__global__ void oz2_reduce(const int32_t *__restrict__ R, long n, int m, int inv, double rm,
                           uint8_t *__restrict__ t)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
         i += (long)gridDim.x * blockDim.x) {
        const double r = mod_exact((double)R[i], (double)m, rm);
        t[i] = (uint8_t)mod_exact(r * inv, (double)m, rm); /* r inv < 2^16: exact */
    }
}

static __device__ __forceinline__ void two_sum_d(double a, double b, double &s, double &e)
{
    s = a + b;
    const double v = s - a;
    e = (a - (s - v)) + (b - v);
}

/* sum(i) += 2^-2k C'(i), C' = P frac(sum_l t_l / m_l) (ozaki_model.c's oz2_reconstruct); N = c.n */
template <int N>
__global__ void oz2_combine(const uint8_t *__restrict__ t, long n, int bits, oz2_consts c,
                            double *__restrict__ sum)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
         i += (long)gridDim.x * blockDim.x) {
        double hi = 0, lo = 0;
#pragma unroll
        for (int l = 0; l < N; l++) {
            const double tl = t[l * n + i];
            const double p = tl * c.rm_hi[l], e = fma(tl, c.rm_hi[l], -p);
            double s, f;
            two_sum_d(hi, p, s, f);
            f += lo + fma(tl, c.rm_lo[l], e); /* as ozaki_model.c, fma for fma */
            two_sum_d(s, f, hi, lo);
        }
        double f_hi = hi - rint(hi), f_lo;
        two_sum_d(f_hi, lo, f_hi, f_lo);
        if (f_hi > 0.5 || (f_hi == 0.5 && f_lo > 0)) f_hi -= 1.0; /* into (-1/2, 1/2] */
        if (f_hi < -0.5 || (f_hi == -0.5 && f_lo <= 0)) f_hi += 1.0;
        const double p = f_hi * c.p_hi, e = fma(f_hi, c.p_hi, -p);
        sum[i] += ldexp(p + fma(f_lo, c.p_hi, fma(f_hi, c.p_lo, e)), -2 * bits);
    }
}

typedef struct {
    int bits;
    oz2_consts c;
    long kc, kcp, chunks; /* chunk length, its padded length (a multiple of 16) and count */
    int8_t *ares, *bres;  /* n x M x kcp and n x N x kcp */
    int32_t *r;           /* one modulus: M x N */
    uint8_t *t;           /* n x M x N */
    double *sum;          /* M x N */
    int *ea, *eb;
} oz2_plan;

extern "C" const char *oz2_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    if (!p->chapter_ctx) return "out of host memory";
    const oz2_variant *var = (const oz2_variant *)v->impl;
    if (var->moduli < 14 || var->moduli > 16) return "v5_ozaki2: 14, 15 or 16 moduli (oz2_launch)";
    oz2_plan *plan = (oz2_plan *)calloc(1, sizeof *plan);
    if (!plan) return "out of host memory";
    p->plan = plan;
    plan->bits = var->bits;
    oz2_consts_init(&plan->c, var->moduli);
    const long k_max = oz2_k_chunk(&plan->c, var->bits, OZ_KC_ALIGN);
    if (k_max < OZ_KC_ALIGN) {
        oz2_release(v, p);
        return "v5_ozaki2: no chunk of K fits the moduli (a bad variant row)";
    }
    const long k_round = (p->K + OZ_KC_ALIGN - 1) / OZ_KC_ALIGN * OZ_KC_ALIGN;
    plan->kc = k_round < k_max ? p->K : k_max;
    const char *cap = getenv("TC_OZAKI_KC"); /* a test's cap on the chunk, as in scheme I */
    if (cap && atol(cap) >= OZ_KC_ALIGN && atol(cap) % OZ_KC_ALIGN == 0 && atol(cap) < plan->kc)
        plan->kc = atol(cap);
    plan->kcp = (plan->kc + OZ_KC_ALIGN - 1) / OZ_KC_ALIGN * OZ_KC_ALIGN;
    plan->chunks = (p->K + plan->kc - 1) / plan->kc;
    const size_t n = (size_t)var->moduli, mn = (size_t)p->M * p->N;
    if (cudaMalloc(&plan->ares, n * p->M * plan->kcp) != cudaSuccess ||
        cudaMalloc(&plan->bres, n * p->N * plan->kcp) != cudaSuccess ||
        cudaMalloc(&plan->r, mn * sizeof(int32_t)) != cudaSuccess ||
        cudaMalloc(&plan->t, n * mn) != cudaSuccess ||
        cudaMalloc(&plan->sum, mn * sizeof(double)) != cudaSuccess ||
        cudaMalloc(&plan->ea, (size_t)p->M * sizeof(int)) != cudaSuccess ||
        cudaMalloc(&plan->eb, (size_t)p->N * sizeof(int)) != cudaSuccess) {
        (void)cudaGetLastError();
        oz2_release(v, p);
        return TC_GEMM_SKIP "not enough device memory for the residues";
    }
    TC_CUDA_CHECK(cudaMemset(plan->r, 0x7f, mn * sizeof(int32_t))); /* as in scheme I */
    return NULL;
}

template <int N>
static void oz2_run(const oz2_plan *plan, const tc_gemm_problem *p, cudaStream_t stream)
{
    const oz_ctx *ctx = (const oz_ctx *)p->chapter_ctx;
    const int M = p->M, Ncols = p->N, K = p->K;
    const long kcp = plan->kcp, mn = (long)M * Ncols;
    const double *A = (const double *)p->d_a, *B = (const double *)p->d_b;

    oz_exponents<<<(M + 7) / 8, 256, 0, stream>>>(A, p->lda, M, K, plan->ea);
    oz_exponents<<<(Ncols + 7) / 8, 256, 0, stream>>>(B, p->ldb, Ncols, K, plan->eb);
    TC_CUDA_CHECK(cudaMemsetAsync(plan->sum, 0, (size_t)mn * sizeof(double), stream));
    TC_CUBLAS_CHECK(cublasSetStream(ctx->handle, stream));
    const int32_t one = 1, zero = 0;
    for (long ch = 0; ch < plan->chunks; ch++) {
        const int k0 = (int)(ch * plan->kc);
        const dim3 block(256), grid_a((unsigned)((kcp + 255) / 256), M < 65535 ? M : 65535),
            grid_b((unsigned)((kcp + 255) / 256), Ncols < 65535 ? Ncols : 65535);
        oz2_residues<N><<<grid_a, block, 0, stream>>>(A, p->lda, M, K, k0, (int)plan->kc, (int)kcp,
                                                      plan->ea, plan->bits, plan->c, plan->ares);
        oz2_residues<N><<<grid_b, block, 0, stream>>>(B, p->ldb, Ncols, K, k0, (int)plan->kc,
                                                      (int)kcp, plan->eb, plan->bits, plan->c,
                                                      plan->bres);
        for (int l = 0; l < N; l++) {
            /* R (row-major M x N) = A_l B_l, computed column-major as R^T = B_l^T A_l^T ("TN") */
            TC_CUBLAS_CHECK(cublasGemmEx(ctx->handle, CUBLAS_OP_T, CUBLAS_OP_N, Ncols, M, (int)kcp,
                                         &one, plan->bres + l * (long)Ncols * kcp, CUDA_R_8I,
                                         (int)kcp, plan->ares + l * (long)M * kcp, CUDA_R_8I,
                                         (int)kcp, &zero, plan->r, CUDA_R_32I, Ncols,
                                         CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
            oz2_reduce<<<blocks_for(mn, 256), 256, 0, stream>>>(
                plan->r, mn, plan->c.m[l], plan->c.inv[l], plan->c.rm_hi[l], plan->t + l * mn);
        }
        oz2_combine<N>
            <<<blocks_for(mn, 256), 256, 0, stream>>>(plan->t, mn, plan->bits, plan->c, plan->sum);
    }
    oz_finish<<<blocks_for(mn, 256), 256, 0, stream>>>(plan->sum, plan->ea, plan->eb, M, Ncols,
                                                       (double *)p->d_c, p->ldc, p->alpha, p->beta);
}

extern "C" void oz2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream)
{
    const oz2_plan *plan = (const oz2_plan *)p->plan;
    switch (plan->c.n) { /* the variants' moduli counts */
    case 14: oz2_run<14>(plan, p, stream); break;
    case 15: oz2_run<15>(plan, p, stream); break;
    default: oz2_run<16>(plan, p, stream); break;
    }
}

extern "C" void oz2_release(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    oz2_plan *plan = (oz2_plan *)p->plan;
    if (!plan) return;
    cudaFree(plan->ares);
    cudaFree(plan->bres);
    cudaFree(plan->r);
    cudaFree(plan->t);
    cudaFree(plan->sum);
    cudaFree(plan->ea);
    cudaFree(plan->eb);
    free(plan);
    p->plan = NULL;
}
