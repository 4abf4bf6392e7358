/* wmma_v2_smem - tiles of A and B staged in shared memory, one 16x16 accumulator per warp.
 *
 * Rung v2 of chapter 03's WMMA ladder (f16 in, f32 accumulate and out).
 * Parent: v1_naive (v1_naive.cuh). What changes: a block of 16 warps computes a 64x64 tile of C.
 * The block copies a 64x32 tile of A and a 32x64 tile of B into shared memory once and all warps
 * load their fragments from there: global traffic drops 4x. What limits it: each warp still owns
 * a single 16x16 accumulator, so every fragment it loads feeds only one mma, and the rows of the
 * tiles are 64 or 128 bytes apart, so the 8 rows a fragment load touches fall into the same banks
 * (bank conflicts). Two barriers per k-tile.
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N row-major (ldb), C M x N row-major f32 (ldc), A and B f16. Any M, N, K >= 1, any leading
 * dimension and alignment: loads outside the matrix are zero-filled in shared memory and the
 * epilogue (store_tile, wmma_tiles.cuh) stores only elements inside C. When a matrix's rows are
 * 16-byte aligned (pointer 16-byte aligned, leading dimension and row length multiples of 8
 * halves, or 4 floats for C) tiles move in 16-byte vectors; otherwise element by element
 * (correct, slower).
 *
 * Tiles: 64 x 64 per block, k-tiles of 32 (BK), 16 warps (4 x 4) of one 16x16 fragment each;
 * 24 KiB of static shared memory (the unpadded tiles and a 1 KiB epilogue scratch per warp).
 *
 * The plain launcher (no harness types; this folder's wmma_tiles.cuh and common/ headers only):
 *   wmma_v2_smem_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or wmma_v2_smem_prepare(&plan, ...) once (the vector paths, the grid) and
 * wmma_v2_smem_run(&plan, alpha, beta, stream) per product. Both return cudaSuccess,
 * cudaErrorInvalidValue for sizes below 1, or the failed call's error.
 *
 * Requires sm_70 (WMMA f16; CUDA 13 builds sm_75 and up), CUDA 12.x or 13.x. */
#ifndef WMMA_V2_SMEM_CUH
#define WMMA_V2_SMEM_CUH

#include "wmma_tiles.cuh"

constexpr int WMMA_V2_BLOCK_M = 64, WMMA_V2_BLOCK_N = 64, WMMA_V2_BLOCK_K = 32;
constexpr int WMMA_V2_WARPS_M = WMMA_V2_BLOCK_M / WMMA_M,
              WMMA_V2_WARPS_N = WMMA_V2_BLOCK_N / WMMA_N;               /* 4 x 4 */
constexpr int WMMA_V2_THREADS = 32 * WMMA_V2_WARPS_M * WMMA_V2_WARPS_N; /* 512 */
static_assert(WMMA_V2_BLOCK_K % WMMA_K == 0, "the k-tile is whole WMMA steps");

static __global__ void __launch_bounds__(WMMA_V2_THREADS)
    wmma_v2_smem_kernel(int M, int N, int K, const half *__restrict__ A, long lda,
                        const half *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                        float alpha, float beta, vec_flags vec)
{
    /* Unpadded: a row of the A tile is 64 bytes, of the B tile 128 bytes. 32-byte alignment is
     * what load_matrix_sync requires of every fragment pointer. */
    __shared__ __align__(32) half sA[WMMA_V2_BLOCK_M * WMMA_V2_BLOCK_K];
    __shared__ __align__(32) half sB[WMMA_V2_BLOCK_K * WMMA_V2_BLOCK_N];
    __shared__ __align__(32) float scratch[WMMA_V2_WARPS_M * WMMA_V2_WARPS_N][WMMA_M * WMMA_N];

    const int warp = threadIdx.x / 32;
    const int warp_m = warp / WMMA_V2_WARPS_N, warp_n = warp % WMMA_V2_WARPS_N;
    const int block_m = blockIdx.y * WMMA_V2_BLOCK_M, block_n = blockIdx.x * WMMA_V2_BLOCK_N;

    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> b;
    acc_fragment acc;
    wmma::fill_fragment(acc, 0.0f);

    for (int k0 = 0; k0 < K; k0 += WMMA_V2_BLOCK_K) {
        load_tile_sync<half, WMMA_V2_BLOCK_M, WMMA_V2_BLOCK_K, WMMA_V2_THREADS, WMMA_V2_BLOCK_K>(
            sA, A, lda, block_m, k0, M, K, vec.a);
        load_tile_sync<half, WMMA_V2_BLOCK_K, WMMA_V2_BLOCK_N, WMMA_V2_THREADS, WMMA_V2_BLOCK_N>(
            sB, B, ldb, k0, block_n, K, N, vec.b);
        __syncthreads(); /* the tiles are complete */
#pragma unroll
        for (int kk = 0; kk < WMMA_V2_BLOCK_K; kk += WMMA_K) {
            wmma::load_matrix_sync(a, sA + warp_m * WMMA_M * WMMA_V2_BLOCK_K + kk, WMMA_V2_BLOCK_K);
            wmma::load_matrix_sync(b, sB + kk * WMMA_V2_BLOCK_N + warp_n * WMMA_N, WMMA_V2_BLOCK_N);
            wmma::mma_sync(acc, a, b, acc);
        }
        __syncthreads(); /* every warp is done with the tiles before they are overwritten */
    }
    store_tile(acc, scratch[warp], C, ldc, block_m + warp_m * WMMA_M, block_n + warp_n * WMMA_N, M,
               N, alpha, beta, vec.c);
}

/* ---- the host side --------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
    const half *A, *B;
    long lda, ldb;
    float *C;
    long ldc;
    vec_flags vec; /* which operands may move in 16-byte vectors */
    dim3 grid;
} wmma_v2_smem_plan;

/* NULL when the kernel can take the problem, else why not (it takes every problem) */
static inline const char *wmma_v2_smem_unsupported(int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    return NULL;
}

static inline cudaError_t wmma_v2_smem_prepare(wmma_v2_smem_plan *plan, int M, int N, int K,
                                               const half *A, long lda, const half *B, long ldb,
                                               float *C, long ldc)
{
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->vec = wmma_vec_flags(N, K, A, lda, B, ldb, C, ldc);
    plan->grid = dim3((N + WMMA_V2_BLOCK_N - 1) / WMMA_V2_BLOCK_N,
                      (M + WMMA_V2_BLOCK_M - 1) / WMMA_V2_BLOCK_M);
    return cudaSuccess;
}

static inline cudaError_t wmma_v2_smem_run(const wmma_v2_smem_plan *p, float alpha, float beta,
                                           cudaStream_t stream)
{
    wmma_v2_smem_kernel<<<p->grid, WMMA_V2_THREADS, 0, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    return cudaGetLastError();
}

static inline cudaError_t wmma_v2_smem_gemm(int M, int N, int K, const half *A, long lda,
                                            const half *B, long ldb, float *C, long ldc,
                                            float alpha, float beta, cudaStream_t stream)
{
    wmma_v2_smem_plan plan;
    const cudaError_t e = wmma_v2_smem_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? wmma_v2_smem_run(&plan, alpha, beta, stream) : e;
}

#endif /* WMMA_V2_SMEM_CUH */
