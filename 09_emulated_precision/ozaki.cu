/* 09_emulated_precision/ozaki.cu - v2_ozaki_sN: an FP64 GEMM computed by int8 tensor cores (the
 * Ozaki scheme with s int8 slices per value; ozaki_model.h has the arithmetic and its bound), and
 * the GEMM driver's hooks of both Ozaki schemes. v5_ozaki2_nN's kernels and plain launcher are its
 * rung file, v5_ozaki2.cuh, which its hooks here call; what both schemes share (oz_exponents,
 * oz_finish) is in ozaki_parts.cuh.
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
#include "ozaki_parts.cuh"
#include "v5_ozaki2.cuh"

#include <stdint.h>
#include <stdlib.h>

const int oz_slices_6 = 6, oz_slices_7 = 7, oz_slices_8 = 8;

/* ---- device code ------------------------------------------------------------------------------ */

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

/* The chunk of K that --test forces (tc_gemm_variant.forced_names "kc64"): the largest chunk the
 * int32 sums allow is longer than every K of the test matrix, so without it the loop over chunks
 * and their f64 sum would run once only */
constexpr long OZ_FORCED_KC = 64;
static_assert(OZ_FORCED_KC % OZ_KC_ALIGN == 0, "a forced chunk is a whole number of slices");

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
    if (p->force == 1 && OZ_FORCED_KC < plan->kc) plan->kc = OZ_FORCED_KC; /* --test: chunks */
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
    oz_launch_finish(plan->sum, plan->ea, plan->eb, M, N, (double *)p->d_c, p->ldc, p->alpha,
                     p->beta, stream);
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

/* ---- v5_ozaki2_nN: the hooks of its plain launcher (v5_ozaki2.cuh) ---------------------------- */
const oz2_variant oz2_n14 = {.moduli = 14, .bits = 48}, oz2_n15 = {.moduli = 15, .bits = 51},
                  oz2_n16 = {.moduli = 16, .bits = 52};

typedef struct {
    oz_v5_ozaki2_plan plan;
    void *workspace;
} oz2_hook_plan;

extern "C" const char *oz2_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    if (!p->chapter_ctx) return "out of host memory";
    const oz2_variant *var = (const oz2_variant *)v->impl;
    const cublasHandle_t handle = ((const oz_ctx *)p->chapter_ctx)->handle;
    size_t bytes = 0;
    cudaError_t e = oz_v5_ozaki2_workspace_size(var->moduli, var->bits, p->M, p->N, p->K, &bytes);
    if (e == cudaErrorNotSupported) /* the driver has checked the GPU: a refusal is a bad row */
        return oz_v5_ozaki2_unsupported(var->moduli, var->bits, p->M, p->N, p->K);
    TC_CUDA_CHECK(e);
    oz2_hook_plan *h = (oz2_hook_plan *)calloc(1, sizeof *h);
    if (!h) return "out of host memory";
    p->plan = h;
    if (cudaMalloc(&h->workspace, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        oz2_release(v, p);
        return TC_GEMM_SKIP "not enough device memory for the residues";
    }
    /* the chunk of K: chosen by the launcher, forced by --test, or capped by TC_OZAKI_KC */
    const char *cap = getenv("TC_OZAKI_KC");
    long kc_cap = cap && atol(cap) >= OZ_KC_ALIGN && atol(cap) % OZ_KC_ALIGN == 0 ? atol(cap) : 0;
    if (p->force == 1) kc_cap = OZ_FORCED_KC;
    TC_CUDA_CHECK(oz_v5_ozaki2_prepare_chunk(
        &h->plan, kc_cap, var->moduli, var->bits, p->M, p->N, p->K, (const double *)p->d_a, p->lda,
        (const double *)p->d_b, p->ldb, (double *)p->d_c, p->ldc, h->workspace, bytes, handle));
    return NULL;
}

extern "C" void oz2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream)
{
    const oz2_hook_plan *h = (const oz2_hook_plan *)p->plan;
    TC_CUDA_CHECK(oz_v5_ozaki2_run(&h->plan, p->alpha, p->beta, stream));
}

extern "C" void oz2_release(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    oz2_hook_plan *h = (oz2_hook_plan *)p->plan;
    if (!h) return;
    cudaFree(h->workspace);
    free(h);
    p->plan = NULL;
}
