/* i8_v2_dp4a_smem - v1's tiling with the tiles kept int8: a thread reads four k-values of A and
 * of B as one 32-bit word each, and one __dp4a does four multiply-adds.
 *
 * Rung v2 of chapter 07's INT8 GEMM ladder (int8 in, int32 accumulate and out, exact).
 * Parent: v1_int32 (v1_int32.cuh). What changes, and why it is faster: the tiles stay int8 in
 * shared memory, stored as 32-bit words of four k-values (little-endian: the lowest k in the low
 * byte, as a word loaded from memory). One __dp4a (IDP.4A) does 4 multiply-adds for the same two
 * shared loads that v1 spends on one IMAD. The k-tile grows to 64 bytes (16 words); rows are
 * padded by one word so that the 16 threads reading 16 rows of B at the same k hit 16 different
 * banks. Words come from global memory in one 4-byte load when the rows allow it (pointer 4-byte
 * aligned, ld and K multiples of 4), byte by byte otherwise.
 * What limits it: still one output per thread, so still two shared loads per instruction.
 *
 * Problem: C = alpha * A * B + beta * C with integer alpha, beta (beta == 0 never reads C); A
 * M x K row-major int8 (lda), B K x N column-major int8 (ldb: stored N x K, K-contiguous), C
 * M x N row-major int32 (ldc); the arithmetic wraps modulo 2^32. Any M, N, K >= 1, any leading
 * dimension and alignment: words outside the matrix are zero-filled, stores are guarded.
 *
 * Tile: 16 x 16 outputs per block of 256 threads (one each), k-tiles of 64 values (16 words).
 *
 * The plain launcher (no harness types; common/ headers and i8_gemm_parts.cuh only):
 *   i8_v2_dp4a_smem_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or i8_v2_dp4a_smem_prepare(&plan, ...) once (the checks, the vector paths, the grid) and
 * i8_v2_dp4a_smem_run(&plan, alpha, beta, stream) per product. Both return cudaSuccess,
 * cudaErrorInvalidValue for sizes below 1, or the failed call's error.
 *
 * Requires sm_75 (the chapter's build floor; dp4a itself is sm_61), CUDA 12.x or 13.x. */
#ifndef I8_V2_DP4A_SMEM_CUH
#define I8_V2_DP4A_SMEM_CUH

#include "i8_gemm_parts.cuh"

constexpr int I8_V2_TILE = 16; /* outputs per block side */
constexpr int I8_V2_KW = 16;   /* 32-bit words of k per tile: 64 int8 values */
constexpr int I8_V2_THREADS = I8_V2_TILE * I8_V2_TILE; /* one output each */
static_assert(I8_V2_KW == I8_V2_TILE, "thread (ty, tx) copies word tx of row ty of each tile");

/* The 4 bytes k .. k+3 of row `row` as one word, zeros outside the matrix. */
static __device__ __forceinline__ uint32_t i8_v2_load_word(const int8_t *__restrict__ g, long ld,
                                                           int row, int k, int rows, int K,
                                                           bool vec)
{
    if (row >= rows) return 0;
    const int8_t *p = g + (size_t)row * ld + k;
    if (vec) return k < K ? *(const uint32_t *)p : 0u; /* K % 4 == 0: all in or all out */
    uint32_t w = 0;
#pragma unroll
    for (int e = 0; e < 4; e++)
        if (k + e < K) w |= (uint32_t)(uint8_t)p[e] << (8 * e);
    return w;
}

static __global__ void __launch_bounds__(I8_V2_THREADS)
    i8_v2_dp4a_smem_kernel(int M, int N, int K, const int8_t *__restrict__ A, long lda,
                           const int8_t *__restrict__ B, long ldb, int *__restrict__ C, long ldc,
                           int alpha, int beta, i8_vec vec)
{
    /* row-major words: sA[m][w] holds A(m, 4w .. 4w+3), sB[n][w] holds B(4w .. 4w+3, n); one
     * word of padding, so that sB[tx][w] for tx = 0..15 falls into 16 different banks */
    __shared__ uint32_t sA[I8_V2_TILE][I8_V2_KW + 1];
    __shared__ uint32_t sB[I8_V2_TILE][I8_V2_KW + 1];
    const int tx = threadIdx.x % I8_V2_TILE, ty = threadIdx.x / I8_V2_TILE;
    int block_m, block_n;
    block_origin<I8_V2_TILE, I8_V2_TILE, 1>(M, N, &block_m, &block_n);
    int acc = 0;
    for (int k0 = 0; k0 < K; k0 += 4 * I8_V2_KW) {
        sA[ty][tx] = i8_v2_load_word(A, lda, block_m + ty, k0 + 4 * tx, M, K, vec.a4);
        sB[ty][tx] = i8_v2_load_word(B, ldb, block_n + ty, k0 + 4 * tx, N, K, vec.b4);
        __syncthreads();
#pragma unroll
        for (int w = 0; w < I8_V2_KW; w++) acc = __dp4a((int)sA[ty][w], (int)sB[tx][w], acc);
        __syncthreads();
    }
    store_one(C, ldc, block_m + ty, block_n + tx, M, N, acc, alpha, beta);
}

/* ---- the host side --------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
    const int8_t *A, *B;
    long lda, ldb;
    int *C;
    long ldc;
    i8_vec vec; /* which operands move in vectors (this rung: a4, b4) */
    unsigned grid;
} i8_v2_dp4a_smem_plan;

/* NULL when the kernel can take the problem, else why not */
static inline const char *i8_v2_dp4a_smem_unsupported(int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    return NULL;
}

static inline cudaError_t i8_v2_dp4a_smem_prepare(i8_v2_dp4a_smem_plan *plan, int M, int N, int K,
                                                  const int8_t *A, long lda, const int8_t *B,
                                                  long ldb, int *C, long ldc)
{
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->vec = i8_vector_paths(A, lda, B, ldb, C, ldc, K);
    plan->grid = tile_count(M, N, I8_V2_TILE, I8_V2_TILE);
    return cudaSuccess;
}

static inline cudaError_t i8_v2_dp4a_smem_run(const i8_v2_dp4a_smem_plan *p, int alpha, int beta,
                                              cudaStream_t stream)
{
    i8_v2_dp4a_smem_kernel<<<p->grid, I8_V2_THREADS, 0, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    return cudaGetLastError();
}

static inline cudaError_t i8_v2_dp4a_smem_gemm(int M, int N, int K, const int8_t *A, long lda,
                                               const int8_t *B, long ldb, int *C, long ldc,
                                               int alpha, int beta, cudaStream_t stream)
{
    i8_v2_dp4a_smem_plan plan;
    const cudaError_t e = i8_v2_dp4a_smem_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? i8_v2_dp4a_smem_run(&plan, alpha, beta, stream) : e;
}

#endif /* I8_V2_DP4A_SMEM_CUH */
