/* tf32_v1_naive - the first WMMA TF32 rung: one warp per 16x16 tile of C, fragments loaded
 * straight from global memory and rounded to TF32 in registers.
 *
 * Rung v1 of chapter 04's WMMA TF32 ladder (f32 in memory, multiplied as TF32, f32 accumulate
 * and out).
 * Parent: none in this chapter; it is chapter 03's v1_naive with TF32 fragments. What changes
 * from f16: the shape is m16n16k8 (an A fragment is 16x8, a B fragment 8x16: half chapter 03's
 * k per step, because each element is twice the bytes), and load_matrix_sync of a TF32 fragment
 * loads the f32 bits as they are. The tensor core would ignore (truncate) the 13 low mantissa
 * bits; rounding every element first (wmma::__float_to_tf32, cvt.rna.tf32.f32: to nearest, ties
 * away from zero) makes the input error a proper rounding, at most half a TF32 ulp (2^-11
 * relative), instead of a truncation biased toward zero. Nothing feeds the tensor cores: TF32
 * elements are 4 bytes, so per flop the operands are twice chapter 03's bytes, and every element
 * of A is fetched N/16 times, of B M/16 times.
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N row-major (ldb), C M x N row-major (ldc), all f32. M and N multiples of 16, K a multiple
 * of 8 (a fragment is always a whole 16x8 or 8x16 tile, loaded from global memory), A, B, C
 * 32-byte aligned, lda, ldb and ldc multiples of 4 and below 2^31 (what load_matrix_sync and
 * store_matrix_sync require of every fragment pointer, and the kernel's int leading dimensions).
 *
 * Tiles: 8 warps (2 x 4) per block, one 16x16 tile of C each: a 32 x 64 patch of C per block.
 *
 * The plain launcher (no harness types; this folder's wmma_tf32_tiles.cuh and common/ headers
 * only):
 *   tf32_v1_naive_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or tf32_v1_naive_prepare(&plan, ...) once (the checks, the grid) and
 * tf32_v1_naive_run(&plan, alpha, beta, stream) per product. Both return cudaSuccess,
 * cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a problem it cannot take
 * (tf32_v1_naive_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_80 (TF32 WMMA), CUDA 12.x or 13.x. */
#ifndef TF32_V1_NAIVE_CUH
#define TF32_V1_NAIVE_CUH

#include "wmma_tf32_tiles.cuh"

#include <limits.h>

constexpr int TF32_V1_WARPS_M = 2, TF32_V1_WARPS_N = 4; /* 8 warps: a 32x64 patch of C per block */

/* Every element of a fragment loaded from global memory, rounded to TF32 in place. */
template <class Frag> static __device__ __forceinline__ void tf32_v1_round_fragment(Frag &f)
{
#pragma unroll
    for (int i = 0; i < f.num_elements; i++) f.x[i] = wmma::__float_to_tf32(f.x[i]);
}

static __global__ void __launch_bounds__(32 * TF32_V1_WARPS_M * TF32_V1_WARPS_N)
    tf32_v1_naive_kernel(int M, int N, int K, const float *__restrict__ A, int lda,
                         const float *__restrict__ B, int ldb, float *__restrict__ C, int ldc,
                         float alpha, float beta)
{
    const int warp = threadIdx.x / 32;
    const int tile_m = (blockIdx.y * TF32_V1_WARPS_M + warp / TF32_V1_WARPS_N) * WMMA_M;
    const int tile_n = (blockIdx.x * TF32_V1_WARPS_N + warp % TF32_V1_WARPS_N) * WMMA_N;
    if (tile_m >= M || tile_n >= N) return; /* whole warps leave: M, N are multiples of 16 */

    a_fragment a;
    b_fragment b;
    acc_fragment acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += WMMA_K) {
        wmma::load_matrix_sync(a, A + (size_t)tile_m * lda + k, lda);
        wmma::load_matrix_sync(b, B + (size_t)k * ldb + tile_n, ldb);
        tf32_v1_round_fragment(a);
        tf32_v1_round_fragment(b);
        wmma::mma_sync(acc, a, b, acc);
    }
    /* C = alpha*acc + beta*C. Scaling every element of a fragment is legal although the
     * element-to-lane mapping is unspecified: the same operation is applied to all of them,
     * and c (loaded with the same layout) has the same mapping as acc. */
    float *c_tile = C + (size_t)tile_m * ldc + tile_n;
    if (beta != 0.0f) {
        acc_fragment c;
        wmma::load_matrix_sync(c, c_tile, ldc, wmma::mem_row_major);
        for (int i = 0; i < acc.num_elements; i++) acc.x[i] = alpha * acc.x[i] + beta * c.x[i];
    } else {
        for (int i = 0; i < acc.num_elements; i++) acc.x[i] *= alpha;
    }
    wmma::store_matrix_sync(c_tile, acc, ldc, wmma::mem_row_major);
}

/* ---- the host side --------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
    const float *A, *B;
    long lda, ldb;
    float *C;
    long ldc;
    dim3 grid;
} tf32_v1_naive_plan;

/* NULL when the kernel can take the problem, else why not. load_matrix_sync and store_matrix_sync
 * need 32-byte aligned fragment pointers and ldm a multiple of 4 floats. Fragments start at
 * multiples of 16 rows and of 8 (A) or 16 (B, C) columns, so that holds when the matrices start
 * 32-byte aligned and lda, ldb, ldc are multiples of 4. */
static inline const char *tf32_v1_naive_unsupported(int M, int N, int K, const float *A, long lda,
                                                    const float *B, long ldb, const float *C,
                                                    long ldc)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (M % WMMA_M || N % WMMA_N || K % WMMA_K)
        return "v1_naive needs M and N multiples of 16 and K a multiple of 8";
    if ((uintptr_t)A % 32 || (uintptr_t)B % 32 || (uintptr_t)C % 32 || lda % 4 || ldb % 4 ||
        ldc % 4)
        return "v1_naive needs A, B, C 32-byte aligned and lda, ldb, ldc multiples of 4";
    if (lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX)
        return "v1_naive takes leading dimensions below 2^31";
    return NULL;
}

static inline cudaError_t tf32_v1_naive_prepare(tf32_v1_naive_plan *plan, int M, int N, int K,
                                                const float *A, long lda, const float *B, long ldb,
                                                float *C, long ldc)
{
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (tf32_v1_naive_unsupported(M, N, K, A, lda, B, ldb, C, ldc)) return cudaErrorNotSupported;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->grid = dim3((N + WMMA_N * TF32_V1_WARPS_N - 1) / (WMMA_N * TF32_V1_WARPS_N),
                      (M + WMMA_M * TF32_V1_WARPS_M - 1) / (WMMA_M * TF32_V1_WARPS_M));
    return cudaSuccess;
}

static inline cudaError_t tf32_v1_naive_run(const tf32_v1_naive_plan *p, float alpha, float beta,
                                            cudaStream_t stream)
{
    tf32_v1_naive_kernel<<<p->grid, 32 * TF32_V1_WARPS_M * TF32_V1_WARPS_N, 0, stream>>>(
        p->M, p->N, p->K, p->A, (int)p->lda, p->B, (int)p->ldb, p->C, (int)p->ldc, alpha, beta);
    return cudaGetLastError();
}

static inline cudaError_t tf32_v1_naive_gemm(int M, int N, int K, const float *A, long lda,
                                             const float *B, long ldb, float *C, long ldc,
                                             float alpha, float beta, cudaStream_t stream)
{
    tf32_v1_naive_plan plan;
    const cudaError_t e = tf32_v1_naive_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? tf32_v1_naive_run(&plan, alpha, beta, stream) : e;
}

#endif /* TF32_V1_NAIVE_CUH */
