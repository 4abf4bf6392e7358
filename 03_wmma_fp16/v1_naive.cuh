/* wmma_v1_naive - the first WMMA rung: one warp per 16x16 tile of C, fragments loaded straight
 * from global memory.
 *
 * Rung v1 of chapter 03's WMMA ladder (f16 in, f32 accumulate and out).
 * Parent: none (the first rung; chapter 01 called the tensor cores through cuBLAS). What it
 * shows: WMMA (nvcuda::wmma, <mma.h>) is the C++ face of the tensor cores. A warp loads 16x16
 * tiles of A and B into opaque "fragments", mma_sync multiplies them into a 16x16 f32
 * accumulator fragment, and store_matrix_sync writes it out. The math is one line; the speed
 * comes from feeding it, and here nothing feeds it: every element of A is fetched N/16 times and
 * every element of B M/16 times; the L1 and L2 caches catch some of it, the rest is DRAM traffic,
 * and the tensor cores wait on it.
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N row-major (ldb), C M x N row-major f32 (ldc), A and B f16. M, N, K multiples of 16 (a
 * fragment is always a whole 16x16 tile, loaded from global memory), A, B, C 32-byte aligned,
 * lda and ldb multiples of 8, ldc of 4 (what load_matrix_sync and store_matrix_sync require of
 * every fragment pointer).
 *
 * Tiles: 8 warps (2 x 4) per block, one 16x16 tile of C each: a 32 x 64 patch of C per block.
 *
 * The plain launcher (no harness types; this folder's wmma_tiles.cuh and common/ headers only):
 *   wmma_v1_naive_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or wmma_v1_naive_prepare(&plan, ...) once (the checks, the grid) and
 * wmma_v1_naive_run(&plan, alpha, beta, stream) per product. Both return cudaSuccess,
 * cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a problem it cannot take
 * (wmma_v1_naive_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_70 (WMMA f16; CUDA 13 builds sm_75 and up), CUDA 12.x or 13.x. */
#ifndef WMMA_V1_NAIVE_CUH
#define WMMA_V1_NAIVE_CUH

#include "wmma_tiles.cuh"

#include <limits.h>

constexpr int WMMA_V1_WARPS_M = 2, WMMA_V1_WARPS_N = 4; /* 8 warps: a 32x64 patch of C per block */

static __global__ void __launch_bounds__(32 * WMMA_V1_WARPS_M * WMMA_V1_WARPS_N)
    wmma_v1_naive_kernel(int M, int N, int K, const half *__restrict__ A, int lda,
                         const half *__restrict__ B, int ldb, float *__restrict__ C, int ldc,
                         float alpha, float beta)
{
    const int warp = threadIdx.x / 32;
    const int tile_m = (blockIdx.y * WMMA_V1_WARPS_M + warp / WMMA_V1_WARPS_N) * WMMA_M;
    const int tile_n = (blockIdx.x * WMMA_V1_WARPS_N + warp % WMMA_V1_WARPS_N) * WMMA_N;
    if (tile_m >= M || tile_n >= N) return; /* whole warps leave: M, N are multiples of 16 */

    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += WMMA_K) {
        wmma::load_matrix_sync(a, A + (size_t)tile_m * lda + k, lda);
        wmma::load_matrix_sync(b, B + (size_t)k * ldb + tile_n, ldb);
        wmma::mma_sync(acc, a, b, acc);
    }
    /* C = alpha*acc + beta*C. Scaling every element of a fragment is legal although the
     * element-to-lane mapping is unspecified: the same operation is applied to all of them,
     * and c (loaded with the same layout) has the same mapping as acc. */
    float *c_tile = C + (size_t)tile_m * ldc + tile_n;
    if (beta != 0.0f) {
        wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> c;
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
    const half *A, *B;
    long lda, ldb;
    float *C;
    long ldc;
    dim3 grid;
} wmma_v1_naive_plan;

/* NULL when the kernel can take the problem, else why not. load_matrix_sync and store_matrix_sync
 * need 32-byte aligned fragment pointers and ldm a multiple of 8 halves or 4 floats. Fragments
 * start at multiples of 16 rows and 16 columns, so that holds when the matrices start 32-byte
 * aligned and lda, ldb are multiples of 8, ldc of 4. */
static inline const char *wmma_v1_naive_unsupported(int M, int N, int K, const half *A, long lda,
                                                    const half *B, long ldb, const float *C,
                                                    long ldc)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (M % 16 || N % 16 || K % 16) return "v1_naive needs M, N and K multiples of 16";
    if ((uintptr_t)A % 32 || (uintptr_t)B % 32 || (uintptr_t)C % 32 || lda % 8 || ldb % 8 ||
        ldc % 4)
        return "v1_naive needs A, B, C 32-byte aligned, lda and ldb multiples of 8, ldc of 4";
    if (lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX)
        return "v1_naive takes leading dimensions below 2^31";
    return NULL;
}

static inline cudaError_t wmma_v1_naive_prepare(wmma_v1_naive_plan *plan, int M, int N, int K,
                                                const half *A, long lda, const half *B, long ldb,
                                                float *C, long ldc)
{
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (wmma_v1_naive_unsupported(M, N, K, A, lda, B, ldb, C, ldc)) return cudaErrorNotSupported;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->grid = dim3((N + WMMA_N * WMMA_V1_WARPS_N - 1) / (WMMA_N * WMMA_V1_WARPS_N),
                      (M + WMMA_M * WMMA_V1_WARPS_M - 1) / (WMMA_M * WMMA_V1_WARPS_M));
    return cudaSuccess;
}

static inline cudaError_t wmma_v1_naive_run(const wmma_v1_naive_plan *p, float alpha, float beta,
                                            cudaStream_t stream)
{
    wmma_v1_naive_kernel<<<p->grid, 32 * WMMA_V1_WARPS_M * WMMA_V1_WARPS_N, 0, stream>>>(
        p->M, p->N, p->K, p->A, (int)p->lda, p->B, (int)p->ldb, p->C, (int)p->ldc, alpha, beta);
    return cudaGetLastError();
}

static inline cudaError_t wmma_v1_naive_gemm(int M, int N, int K, const half *A, long lda,
                                             const half *B, long ldb, float *C, long ldc,
                                             float alpha, float beta, cudaStream_t stream)
{
    wmma_v1_naive_plan plan;
    const cudaError_t e = wmma_v1_naive_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? wmma_v1_naive_run(&plan, alpha, beta, stream) : e;
}

#endif /* WMMA_V1_NAIVE_CUH */
