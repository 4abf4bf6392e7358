/* i8_v1_int32 - the textbook shared-memory GEMM on int8 data: 16x16 threads, one output each,
 * int32 multiply-add (IMAD).
 *
 * Rung v1 of chapter 07's INT8 GEMM ladder (int8 in, int32 accumulate and out, exact).
 * Parent: none (the first rung, the starting point every later one is measured against).
 * 16x16 tiles of A and B are copied to shared memory as int32 and each thread does 16
 * multiply-adds (IMAD) per tile: one int8 multiply-add per instruction. What limits it: two
 * shared loads per multiply-add.
 *
 * Problem: C = alpha * A * B + beta * C with integer alpha, beta (beta == 0 never reads C); A
 * M x K row-major int8 (lda), B K x N column-major int8 (ldb: stored N x K, K-contiguous), C
 * M x N row-major int32 (ldc); the arithmetic wraps modulo 2^32. Any M, N, K >= 1, any leading
 * dimension and alignment: loads outside the matrix read 0, stores are guarded.
 *
 * Tile: 16 x 16 outputs per block of 256 threads, k-tiles of 16 values.
 *
 * The plain launcher (no harness types; common/ headers and i8_gemm_parts.cuh only):
 *   i8_v1_int32_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or i8_v1_int32_prepare(&plan, ...) once (the checks, the vector paths, the grid) and
 * i8_v1_int32_run(&plan, alpha, beta, stream) per product. Both return cudaSuccess,
 * cudaErrorInvalidValue for sizes below 1, or the failed call's error.
 *
 * Requires sm_75 (the chapter's build floor; nothing here needs more), CUDA 12.x or 13.x. */
#ifndef I8_V1_INT32_CUH
#define I8_V1_INT32_CUH

#include "i8_gemm_parts.cuh"

constexpr int I8_V1_TILE = 16;
constexpr int I8_V1_THREADS = I8_V1_TILE * I8_V1_TILE;

static __global__ void __launch_bounds__(I8_V1_THREADS)
    i8_v1_int32_kernel(int M, int N, int K, const int8_t *__restrict__ A, long lda,
                       const int8_t *__restrict__ B, long ldb, int *__restrict__ C, long ldc,
                       int alpha, int beta, i8_vec vec)
{
    __shared__ int sA[I8_V1_TILE][I8_V1_TILE];     /* sA[m][k] */
    __shared__ int sB[I8_V1_TILE][I8_V1_TILE + 1]; /* sB[k][n], written transposed: padded */
    const int tx = threadIdx.x % I8_V1_TILE, ty = threadIdx.x / I8_V1_TILE;
    int block_m, block_n;
    block_origin<I8_V1_TILE, I8_V1_TILE, 1>(M, N, &block_m, &block_n);
    const int row = block_m + ty, col = block_n + tx;
    const int b_col = block_n + ty; /* the column of B this thread copies */
    unsigned acc = 0;               /* wraps like the int32 result */
    for (int k0 = 0; k0 < K; k0 += I8_V1_TILE) {
        const int k = k0 + tx; /* consecutive threads read consecutive k: coalesced, A and B */
        sA[ty][tx] = row < M && k < K ? A[(size_t)row * lda + k] : 0;
        sB[tx][ty] = b_col < N && k < K ? B[(size_t)b_col * ldb + k] : 0;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < I8_V1_TILE; kk++) acc += (unsigned)(sA[ty][kk] * sB[kk][tx]);
        __syncthreads();
    }
    store_one(C, ldc, row, col, M, N, (int)acc, alpha, beta);
}

/* ---- the host side --------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
    const int8_t *A, *B;
    long lda, ldb;
    int *C;
    long ldc;
    i8_vec vec; /* which operands move in vectors (this rung reads none) */
    unsigned grid;
} i8_v1_int32_plan;

/* NULL when the kernel can take the problem, else why not */
static inline const char *i8_v1_int32_unsupported(int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    return NULL;
}

static inline cudaError_t i8_v1_int32_prepare(i8_v1_int32_plan *plan, int M, int N, int K,
                                              const int8_t *A, long lda, const int8_t *B, long ldb,
                                              int *C, long ldc)
{
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->vec = i8_vector_paths(A, lda, B, ldb, C, ldc, K);
    plan->grid = tile_count(M, N, I8_V1_TILE, I8_V1_TILE);
    return cudaSuccess;
}

static inline cudaError_t i8_v1_int32_run(const i8_v1_int32_plan *p, int alpha, int beta,
                                          cudaStream_t stream)
{
    i8_v1_int32_kernel<<<p->grid, I8_V1_THREADS, 0, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    return cudaGetLastError();
}

static inline cudaError_t i8_v1_int32_gemm(int M, int N, int K, const int8_t *A, long lda,
                                           const int8_t *B, long ldb, int *C, long ldc, int alpha,
                                           int beta, cudaStream_t stream)
{
    i8_v1_int32_plan plan;
    const cudaError_t e = i8_v1_int32_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? i8_v1_int32_run(&plan, alpha, beta, stream) : e;
}

#endif /* I8_V1_INT32_CUH */
