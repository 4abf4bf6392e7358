/* bf_v3_bf16x - an FP32 GEMM from bf16 tensor-core products: every f32 value as three bf16 words,
 * 3, 6 or 9 word products, one cuBLAS bf16 GEMM per diagonal (the rows v3_bf16x3, _x6, _x9).
 *
 * Rung v3 of chapter 09. Parent: v2_ozaki_sN (v2_ozaki.cuh): the same split and the same
 * diagonals, for f32 on bf16 tensor cores; the bf16 relative of chapter 04's 3xTF32 and of
 * cuBLAS's COMPUTE_32F_EMULATED_16BFX9. What changes: the slices are bf16 words, each rounded to
 * nearest from what the words before it left:
 *
 *     w1 = bf16(x),  w2 = bf16(x - w1),  w3 = bf16(x - w1 - w2) = x - w1 - w2  (exactly)
 *
 * x has 24 significant bits and each word 8, so for every normal x the three words hold x exactly
 * (x - w1 and x - w1 - w2 are exact in f32). A product a b is then the 9 products of the words,
 * each exact in f32 (8 + 8 bits), which the bf16 tensor cores sum in f32. The products of
 * "diagonal" t = p + q are of size 2^(-8 (t - 2)) |a b|; keeping the diagonals up to T:
 *     T = 3: 3 products, error up to ~2^-15.5 |a b|      (v3_bf16x3: about bf16x2's 16 bits)
 *     T = 4: 6 products, error up to ~2^-25 |a b|        (v3_bf16x6: f32 accuracy)
 *     T = 6: all 9 products, none dropped                 (v3_bf16x9)
 * How: a split pass (bf_v3_split) writes the words of A as row-major M x 3K' (w1 | w2 | w3 along
 * k) and those of B as K-major N x 3K' in the opposite order (w3 | w2 | w1), K' = K rounded up to
 * 8 (zeros after K), into the caller's workspace. The products of one diagonal t are then ONE
 * bf16 GEMM (f32 accumulate, cuBLAS) over a contiguous range of A's words and the matching, also
 * contiguous, range of B's, as v2's slices. The diagonals are added into C by cuBLAS itself
 * (beta = 1 after the first), the smallest first; the first one applies the caller's beta, every
 * one the caller's alpha. What it costs, and what it cannot fix: cuBLAS sums all of K in the
 * tensor core's accumulator, which truncates (chapter 08): that, not the words, sets the error
 * (v4 is the fix).
 *
 * Problem: C = alpha A B + beta C, A M x K row-major (lda), B K x N column-major (ldb: stored
 * N x K, K-contiguous), C M x N row-major (ldc), all f32; any M, N, K >= 1 and any alignment;
 * beta == 0 never reads C. 3, 6 or 9 word products.
 *
 * Tile: none of its own; the bf16 GEMMs are cuBLAS's (cublasGemmEx, CUDA_R_16BF, COMPUTE_32F).
 *
 * The plain launcher (no harness types; cublas_status.cuh, ozaki_model.h and cuBLAS: link
 * ozaki_model.c, for oz_diagonal, and -lcublas):
 *   bf_v3_bf16x_workspace_size(M, N, K, &bytes): the device workspace a problem needs (the
 *   words of A and B); allocate it once, any contents;
 *   bf_v3_bf16x_gemm(products, M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, workspace, bytes,
 *   handle, stream), or bf_v3_bf16x_prepare(&plan, products, M, N, K, ..., workspace, bytes,
 *   handle) once and bf_v3_bf16x_run(&plan, alpha, beta, stream) per product (run sets the cuBLAS
 *   handle's stream and default math mode; launches that share a workspace or a handle must not
 *   run at the same time). Both return cudaSuccess, cudaErrorInvalidValue for sizes below 1, a
 *   leading dimension below the row, no handle or a workspace too small, cudaErrorNotSupported
 *   for a product count or GPU it cannot take (bf_v3_bf16x_unsupported says why; nothing is
 *   launched), or the failed call's error (a cuBLAS status as the nearest cudaError_t).
 *
 * Minimum: sm_80 (cuBLAS's bf16 tensor-core GEMM). */
#ifndef BF_V3_BF16X_CUH
#define BF_V3_BF16X_CUH

#include "cublas_status.cuh"
#include "ozaki_model.h" /* oz_diagonal */

#include <cuda_bf16.h>
#include <stdint.h>

constexpr int BF_V3_WORDS = 3;
constexpr int BF_V3_K_ALIGN = 8; /* 16-byte rows of bf16 for cuBLAS's tensor-core paths */
static_assert(BF_V3_K_ALIGN * 2 % 16 == 0, "every word's columns start on a 16-byte boundary");

/* the words of x(r, 0 .. K-1) into cat (rows x 3 kp, leading dimension 3 kp): word p (1-based)
 * at columns slot(p) kp .., slot(p) = p - 1 (A) or 3 - p (B) */
__global__ void bf_v3_split(const float *__restrict__ x, long ld, int rows, int K, int kp,
                            int reverse, __nv_bfloat16 *__restrict__ cat)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= kp) return;
    const long ldc = (long)BF_V3_WORDS * kp;
    for (long r = blockIdx.y; r < rows; r += gridDim.y) {
        float rest = k < K ? x[r * ld + k] : 0.0f;
        for (int p = 1; p <= BF_V3_WORDS; p++) {
            const __nv_bfloat16 w = __float2bfloat16_rn(rest);
            rest -= __bfloat162float(w); /* exact */
            const int slot = reverse ? BF_V3_WORDS - p : p - 1;
            cat[r * ldc + (long)slot * kp + k] = w;
        }
    }
}

/* ---- the host side --------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
    const float *A, *B;
    long lda, ldb;
    float *C;
    long ldc;
    cublasHandle_t handle;
    int t_max;                  /* the largest diagonal kept: 3, 4 or 6 (3, 6 or 9 products) */
    long kp;                    /* K rounded up to BF_V3_K_ALIGN: the length of one word's row */
    __nv_bfloat16 *acat, *bcat; /* the words: M x 3 kp and N x 3 kp, in the workspace */
} bf_v3_bf16x_plan;

/* the largest diagonal t = p + q whose products are kept, for 3, 6 or 9 word products; 0: none */
static inline int bf_v3_bf16x_t_max(int products)
{
    return products == 3 ? 3 : products == 6 ? 4 : products == 9 ? 6 : 0;
}

/* NULL when the rung can take the product count and the problem on this GPU, else why not */
static inline const char *bf_v3_bf16x_unsupported(int products, int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (!bf_v3_bf16x_t_max(products)) return "v3_bf16x: 3, 6 or 9 word products";
    cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, (const void *)bf_v3_split) != cudaSuccess) {
        (void)cudaGetLastError();
        return "no code for this GPU in this build (or no GPU)";
    }
    return NULL;
}

/* the words' buffers at base (sizes only when base is NULL; 256-byte aligned, as cudaMalloc's);
 * returns the workspace's bytes */
static inline size_t bf_v3_bf16x_layout(bf_v3_bf16x_plan *p, int M, int N, int K, char *base)
{
    p->kp = ((long)K + BF_V3_K_ALIGN - 1) / BF_V3_K_ALIGN * BF_V3_K_ALIGN;
    const size_t a_bytes = (size_t)M * BF_V3_WORDS * p->kp * sizeof(__nv_bfloat16);
    const size_t b_bytes = (size_t)N * BF_V3_WORDS * p->kp * sizeof(__nv_bfloat16);
    const size_t b_off = (a_bytes + 255) / 256 * 256;
    p->acat = base ? (__nv_bfloat16 *)base : NULL;
    p->bcat = base ? (__nv_bfloat16 *)(base + b_off) : NULL;
    return b_off + (b_bytes + 255) / 256 * 256;
}

static inline cudaError_t bf_v3_bf16x_workspace_size(int M, int N, int K, size_t *bytes)
{
    *bytes = 0;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    bf_v3_bf16x_plan plan;
    *bytes = bf_v3_bf16x_layout(&plan, M, N, K, NULL);
    return cudaSuccess;
}

static inline cudaError_t bf_v3_bf16x_prepare(bf_v3_bf16x_plan *plan, int products, int M, int N,
                                              int K, const float *A, long lda, const float *B,
                                              long ldb, float *C, long ldc, void *workspace,
                                              size_t workspace_bytes, cublasHandle_t handle)
{
    if (M < 1 || N < 1 || K < 1 || lda < K || ldb < K || ldc < N || !handle)
        return cudaErrorInvalidValue;
    if (bf_v3_bf16x_unsupported(products, M, N, K)) return cudaErrorNotSupported;
    if (!workspace || workspace_bytes < bf_v3_bf16x_layout(plan, M, N, K, NULL))
        return cudaErrorInvalidValue;
    bf_v3_bf16x_layout(plan, M, N, K, (char *)workspace);
    plan->M = M, plan->N = N, plan->K = K, plan->A = A, plan->lda = lda, plan->B = B;
    plan->ldb = ldb, plan->C = C, plan->ldc = ldc, plan->handle = handle;
    plan->t_max = bf_v3_bf16x_t_max(products);
    return cudaSuccess;
}

static inline cudaError_t bf_v3_bf16x_run(const bf_v3_bf16x_plan *plan, float alpha, float beta,
                                          cudaStream_t stream)
{
    const int M = plan->M, N = plan->N, K = plan->K;
    const long kp = plan->kp, ldcat = (long)BF_V3_WORDS * kp;
    /* the words of A (slots w1 w2 w3) and of B (slots w3 w2 w1) into the workspace */
    const dim3 block(256), grid_a((unsigned)((kp + 255) / 256), M < 65535 ? M : 65535),
        grid_b((unsigned)((kp + 255) / 256), N < 65535 ? N : 65535);
    bf_v3_split<<<grid_a, block, 0, stream>>>(plan->A, plan->lda, M, K, (int)kp, 0, plan->acat);
    bf_v3_split<<<grid_b, block, 0, stream>>>(plan->B, plan->ldb, N, K, (int)kp, 1, plan->bcat);
    cublasStatus_t st = cublasSetStream(plan->handle, stream);
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasSetMathMode(plan->handle, CUBLAS_DEFAULT_MATH);
    const float one = 1.0f;
    for (int t = plan->t_max; t >= 2 && st == CUBLAS_STATUS_SUCCESS; t--) {
        /* the word pairs p + q = t: contiguous slots of A and of B (ozaki_model.h) */
        int a_slot, b_slot, count;
        oz_diagonal(BF_V3_WORDS, t, &a_slot, &b_slot, &count);
        const int kd = (int)(count * kp);
        const long a_off = (long)a_slot * kp, b_off = (long)b_slot * kp;
        const float *b = t == plan->t_max ? &beta : &one;
        /* C (row-major M x N) = alpha Acat[:, range] Bcat[range, :] + beta C, as the
         * column-major C^T = Bcat^T Acat^T: both operands K-contiguous ("TN") */
        st = cublasGemmEx(plan->handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, kd, &alpha,
                          plan->bcat + b_off, CUDA_R_16BF, (int)ldcat, plan->acat + a_off,
                          CUDA_R_16BF, (int)ldcat, b, plan->C, CUDA_R_32F, (int)plan->ldc,
                          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    }
    if (st != CUBLAS_STATUS_SUCCESS) return cublas_status_error(st);
    return cudaGetLastError();
}

static inline cudaError_t bf_v3_bf16x_gemm(int products, int M, int N, int K, const float *A,
                                           long lda, const float *B, long ldb, float *C, long ldc,
                                           float alpha, float beta, void *workspace,
                                           size_t workspace_bytes, cublasHandle_t handle,
                                           cudaStream_t stream)
{
    bf_v3_bf16x_plan plan;
    const cudaError_t e = bf_v3_bf16x_prepare(&plan, products, M, N, K, A, lda, B, ldb, C, ldc,
                                              workspace, workspace_bytes, handle);
    return e == cudaSuccess ? bf_v3_bf16x_run(&plan, alpha, beta, stream) : e;
}

#endif /* BF_V3_BF16X_CUH */
