/* oz_v2_ozaki - an FP64 GEMM computed by int8 tensor cores: the Ozaki scheme, every value cut into
 * s int8 slices of 7 bits, one cuBLAS int8 GEMM per diagonal of slice products (the rows
 * v2_ozaki_s6, _s7, _s8; ozaki_model.h has the arithmetic and its bound).
 *
 * Rung v2 of chapter 09. Parent: v1_dmma (v1_dmma.cuh), the same FP64 GEMM on the FP64 tensor
 * cores. What changes, and why it can be faster: no FP64 multiplication at all. Each row of A
 * (column of B) is scaled by a power of two and cut into s slices of 7 bits; the products of two
 * slices are exact in int32, so the int8 tensor cores, many times faster than the FP64 ones
 * (chapter 01's rows), compute them with no rounding, and the only roundings are the slices'
 * truncation and a few f64 additions per element. All products of one diagonal t = p + q have the
 * scale 2^-7t: with A's slices laid end to end along k (D_1 | ... | D_s) and B's in the opposite
 * order (E_s | ... | E_1), diagonal t is ONE int8 GEMM of A's first t - 1 slices with B's last
 * t - 1, no copy: s GEMMs for s(s+1)/2 products. What it costs: those s(s+1)/2 int8 products of
 * length K, and s passes of f64 over M x N.
 *
 * The steps, all on the stream:
 *   1. oz_exponents   one warp per row of A (per column of B): the exponent e with |x| < 2^e
 *                     (ozaki_parts.cuh);
 *   2. oz_v2_split    each value cut into s slices of 7 bits, written as int8 with the slices of
 *                     a row laid end to end along k: A as D_1 | D_2 | ... | D_s, B as
 *                     E_s | ... | E_1 (both K-major, leading dimension s Kc), zeros past K;
 *   3. for each diagonal t = s+1 down to 2: ONE cuBLAS int8 GEMM (int32 out, exact) of A's first
 *      (t-1) Kc columns with B's last (t-1) Kc rows, i.e. sum_{p+q=t} D_p E_q; then
 *      oz_v2_accumulate adds it, times 2^-7t, to an f64 sum (the smallest diagonal first);
 *   4. oz_finish      C = alpha 2^(e_i + f_j) sum + beta C (ozaki_parts.cuh).
 * K is cut into chunks of Kc <= oz_k_exact_int32(s) (rounded down to a multiple of 16), so that
 * every int32 sum is exact; each chunk runs steps 2 and 3, adding its diagonals to the same f64
 * sum (ozaki_model.c's oz_dot models one chunk). Not handled: NaN and infinite inputs (a slice of
 * them is undefined; DGEMM would propagate them).
 *
 * Problem: C = alpha A B + beta C, A M x K row-major (lda), B K x N column-major (ldb: stored
 * N x K, K-contiguous), C M x N row-major (ldc), all f64; any M, N, K >= 1 and any alignment;
 * beta == 0 never reads C. s = 3 to OZ_MAX_SLICES slices per value; the chapter's rows are
 * s = 6, 7 and 8.
 *
 * Tile: none of its own; the int8 GEMMs are cuBLAS's (cublasGemmEx, CUDA_R_8I, COMPUTE_32I).
 *
 * The plain launcher (no harness types; ozaki_parts.cuh, cublas_status.cuh, ozaki_model.h and
 * cuBLAS: link ozaki_model.c and -lcublas):
 *   oz_v2_ozaki_workspace_size(s, M, N, K, &bytes): the device workspace a problem needs (the
 *   slices of a chunk, one int32 product, an f64 sum, the exponents); allocate it once, any
 *   contents;
 *   oz_v2_ozaki_gemm(s, M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, workspace, bytes, handle,
 *   stream), or oz_v2_ozaki_prepare(&plan, s, M, N, K, ..., workspace, bytes, handle) once and
 *   oz_v2_ozaki_run(&plan, alpha, beta, stream) per product (run sets the cuBLAS handle's stream;
 *   launches that share a workspace or a handle must not run at the same time). Both return
 *   cudaSuccess, cudaErrorInvalidValue for sizes below 1, a leading dimension below the row, no
 *   handle or a workspace too small, cudaErrorNotSupported for a slice count or GPU it cannot
 *   take (oz_v2_ozaki_unsupported says why; nothing is launched), or the failed call's error (a
 *   cuBLAS status as the nearest cudaError_t). oz_v2_ozaki_prepare_chunk is prepare with the
 *   chunk of K forced below its choice (a multiple of 16), so that a test runs the chunk path at
 *   small K.
 *
 * Minimum: sm_75 for cuBLAS's int8 tensor cores (the chapter's floor is sm_80). */
#ifndef OZ_V2_OZAKI_CUH
#define OZ_V2_OZAKI_CUH

#include "cublas_status.cuh"
#include "ozaki_model.h"
#include "ozaki_parts.cuh"

#include <stdint.h>

static_assert(OZ_KC_ALIGN % 4 == 0, "slices and chunks a multiple of 4 bytes long (cuBLAS int8)");

/* The slices of x(r, k0 .. k0+Kc-1) into cat (rows x s Kc, leading dimension s Kc): slice p
 * (1-based) at columns slot(p) Kc .. slot(p) Kc + Kc - 1, slot(p) = p - 1 (A) or s - p (B). */
__global__ void oz_v2_split(const double *__restrict__ x, long ld, int rows, int K, int k0, int kc,
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
__global__ void oz_v2_accumulate(const int32_t *__restrict__ R, double *__restrict__ sum, long n,
                                 int t)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
         i += (long)gridDim.x * blockDim.x)
        sum[i] += ldexp((double)R[i], -OZ_SLICE_BITS * t);
}

/* ---- the host side --------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
    const double *A, *B;
    long lda, ldb;
    double *C;
    long ldc;
    cublasHandle_t handle;
    int s;
    long kc, chunks;     /* chunk length (a multiple of OZ_KC_ALIGN) and count */
    int8_t *acat, *bcat; /* M x s kc and N x s kc */
    int32_t *r;          /* one diagonal: M x N */
    double *sum;         /* M x N */
    int *ea, *eb;        /* M and N exponents */
} oz_v2_ozaki_plan;

/* NULL when the rung can take s slices and the problem on this GPU, else why not */
static inline const char *oz_v2_ozaki_unsupported(int s, int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (s < 3 || s > OZ_MAX_SLICES) return "v2_ozaki: 3 to 10 slices per value (OZ_MAX_SLICES)";
    cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, (const void *)oz_v2_split) != cudaSuccess) {
        (void)cudaGetLastError();
        return "no code for this GPU in this build (or no GPU)";
    }
    return NULL;
}

/* the chunk of K (at most kc_cap when that is not 0) and the workspace's buffers at base (sizes
 * only when base is NULL); returns the workspace's bytes */
static inline size_t oz_v2_ozaki_layout(oz_v2_ozaki_plan *p, int s, int M, int N, int K,
                                        long kc_cap, char *base)
{
    p->s = s;
    const long k_round = ((long)K + OZ_KC_ALIGN - 1) / OZ_KC_ALIGN * OZ_KC_ALIGN;
    const long k_max = oz_k_exact_int32(s) / OZ_KC_ALIGN * OZ_KC_ALIGN;
    p->kc = k_round < k_max ? k_round : k_max;
    if (kc_cap > 0 && kc_cap < p->kc) p->kc = kc_cap;
    p->chunks = (K + p->kc - 1) / p->kc;
    const size_t mn = (size_t)M * N;
    size_t off = 0;
    p->acat = (int8_t *)oz_take(base, &off, (size_t)M * s * p->kc);
    p->bcat = (int8_t *)oz_take(base, &off, (size_t)N * s * p->kc);
    p->r = (int32_t *)oz_take(base, &off, mn * sizeof(int32_t));
    p->sum = (double *)oz_take(base, &off, mn * sizeof(double));
    p->ea = (int *)oz_take(base, &off, (size_t)M * sizeof(int));
    p->eb = (int *)oz_take(base, &off, (size_t)N * sizeof(int));
    return off;
}

static inline cudaError_t oz_v2_ozaki_workspace_size(int s, int M, int N, int K, size_t *bytes)
{
    *bytes = 0;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (oz_v2_ozaki_unsupported(s, M, N, K)) return cudaErrorNotSupported;
    oz_v2_ozaki_plan plan;
    *bytes = oz_v2_ozaki_layout(&plan, s, M, N, K, 0, NULL);
    return cudaSuccess;
}

/* prepare() with the chunk of K at most kc_cap (a multiple of 16; 0: the rung's choice) */
static inline cudaError_t oz_v2_ozaki_prepare_chunk(oz_v2_ozaki_plan *plan, long kc_cap, int s,
                                                    int M, int N, int K, const double *A, long lda,
                                                    const double *B, long ldb, double *C, long ldc,
                                                    void *workspace, size_t workspace_bytes,
                                                    cublasHandle_t handle)
{
    if (M < 1 || N < 1 || K < 1 || lda < K || ldb < K || ldc < N || !handle)
        return cudaErrorInvalidValue;
    if (kc_cap < 0 || kc_cap % OZ_KC_ALIGN != 0) return cudaErrorInvalidValue;
    if (oz_v2_ozaki_unsupported(s, M, N, K)) return cudaErrorNotSupported;
    if (!workspace || workspace_bytes < oz_v2_ozaki_layout(plan, s, M, N, K, kc_cap, NULL))
        return cudaErrorInvalidValue;
    oz_v2_ozaki_layout(plan, s, M, N, K, kc_cap, (char *)workspace);
    plan->M = M, plan->N = N, plan->K = K, plan->A = A, plan->lda = lda, plan->B = B;
    plan->ldb = ldb, plan->C = C, plan->ldc = ldc, plan->handle = handle;
    /* R is poisoned once (a large int32 in every element): a product cuBLAS did not write would
     * wreck the result. The fill also marks R initialised for compute-sanitizer's initcheck, which
     * does not see every store of cuBLAS's int8 kernels. */
    return cudaMemset(plan->r, 0x7f, (size_t)M * N * sizeof(int32_t));
}

static inline cudaError_t oz_v2_ozaki_prepare(oz_v2_ozaki_plan *plan, int s, int M, int N, int K,
                                              const double *A, long lda, const double *B, long ldb,
                                              double *C, long ldc, void *workspace,
                                              size_t workspace_bytes, cublasHandle_t handle)
{
    return oz_v2_ozaki_prepare_chunk(plan, 0, s, M, N, K, A, lda, B, ldb, C, ldc, workspace,
                                     workspace_bytes, handle);
}

/* blocks of `threads` for n elements, capped (the kernel strides over the rest) */
static inline unsigned oz_v2_blocks_for(long n, int threads)
{
    const long b = (n + threads - 1) / threads;
    return (unsigned)(b < 65535 * 16 ? b : 65535 * 16);
}

static inline cudaError_t oz_v2_ozaki_run(const oz_v2_ozaki_plan *plan, double alpha, double beta,
                                          cudaStream_t stream)
{
    const int s = plan->s, M = plan->M, N = plan->N, K = plan->K;
    const long kc = plan->kc, ldcat = (long)s * kc, mn = (long)M * N;
    const double *A = plan->A, *B = plan->B;

    oz_exponents<<<(M + 7) / 8, 256, 0, stream>>>(A, plan->lda, M, K, plan->ea);
    oz_exponents<<<(N + 7) / 8, 256, 0, stream>>>(B, plan->ldb, N, K, plan->eb);
    const cudaError_t e = cudaMemsetAsync(plan->sum, 0, (size_t)mn * sizeof(double), stream);
    if (e != cudaSuccess) return e;
    cublasStatus_t st = cublasSetStream(plan->handle, stream);
    const int32_t one = 1, zero = 0;
    for (long c = 0; c < plan->chunks && st == CUBLAS_STATUS_SUCCESS; c++) {
        const int k0 = (int)(c * kc);
        const dim3 block(256), grid_a((unsigned)((kc + 255) / 256), M < 65535 ? M : 65535),
            grid_b((unsigned)((kc + 255) / 256), N < 65535 ? N : 65535);
        oz_v2_split<<<grid_a, block, 0, stream>>>(A, plan->lda, M, K, k0, (int)kc, plan->ea, s, 0,
                                                  plan->acat);
        oz_v2_split<<<grid_b, block, 0, stream>>>(B, plan->ldb, N, K, k0, (int)kc, plan->eb, s, 1,
                                                  plan->bcat);
        for (int t = s + 1; t >= 2 && st == CUBLAS_STATUS_SUCCESS; t--) {
            /* R (row-major M x N) = Acat[:, 0 : (t-1) kc] Bcat[(s-t+1) kc : s kc, :], computed
             * column-major as R^T = Bcat^T Acat^T: both operands K-contiguous ("TN") */
            int a_slot, b_slot, count;
            oz_diagonal(s, t, &a_slot, &b_slot, &count); /* here a_slot = 0, count = t - 1 */
            const int kd = (int)(count * kc);
            st = cublasGemmEx(plan->handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, kd, &one,
                              plan->bcat + (long)b_slot * kc, CUDA_R_8I, (int)ldcat,
                              plan->acat + (long)a_slot * kc, CUDA_R_8I, (int)ldcat, &zero, plan->r,
                              CUDA_R_32I, N, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
            if (st == CUBLAS_STATUS_SUCCESS)
                oz_v2_accumulate<<<oz_v2_blocks_for(mn, 256), 256, 0, stream>>>(plan->r, plan->sum,
                                                                                mn, t);
        }
    }
    if (st != CUBLAS_STATUS_SUCCESS) return cublas_status_error(st);
    oz_launch_finish(plan->sum, plan->ea, plan->eb, M, N, plan->C, plan->ldc, alpha, beta, stream);
    return cudaGetLastError();
}

static inline cudaError_t oz_v2_ozaki_gemm(int s, int M, int N, int K, const double *A, long lda,
                                           const double *B, long ldb, double *C, long ldc,
                                           double alpha, double beta, void *workspace,
                                           size_t workspace_bytes, cublasHandle_t handle,
                                           cudaStream_t stream)
{
    oz_v2_ozaki_plan plan;
    const cudaError_t e = oz_v2_ozaki_prepare(&plan, s, M, N, K, A, lda, B, ldb, C, ldc, workspace,
                                              workspace_bytes, handle);
    return e == cudaSuccess ? oz_v2_ozaki_run(&plan, alpha, beta, stream) : e;
}

#endif /* OZ_V2_OZAKI_CUH */
