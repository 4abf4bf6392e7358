/* tf32_v2_smem - the textbook shared-memory kernel: a 128x64 block tile staged in padded shared
 * memory, rounded to TF32 there once, 32x32 warp tiles.
 *
 * Rung v2 of chapter 04's WMMA TF32 ladder (f32 in memory, multiplied as TF32, f32 accumulate
 * and out).
 * Parent: v1_naive (v1_naive.cuh). What changes: a block of 8 warps copies a 128x32 tile of A
 * and a 32x64 tile of B into shared memory, and every warp computes a 32x32 tile of C (2x2
 * accumulator fragments) from it: an A fragment feeds 2 mmas, a B fragment 2, and global traffic
 * drops by the block tile's reuse. Shared rows are padded so that fragment loads do not collide
 * in a bank: TF32 fragments are loaded element by element (4-byte loads, no ldmatrix), an A
 * fragment reads 8 rows x 4 columns at once (rows 4 banks apart: 36 floats a row), a B fragment
 * 4 rows x 8 columns (rows 8 banks apart: 72 floats a row); tile_config (wmma_tf32_tiles.cuh)
 * asserts both. The rounding to TF32 moves from v1's fragments into shared memory: loads are
 * synchronous (global -> registers -> shared), each thread then rounds the chunks it stored in
 * place (round_stage), and the barrier publishes the rounded tile, so each element is rounded
 * once per block instead of once per warp that loads it. Two barriers per k-tile, and the loads
 * stall the mmas.
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N row-major (ldb), C M x N row-major (ldc), all f32. Any M, N, K >= 1, any leading
 * dimension and alignment: loads outside the matrix are zero-filled in shared memory and the
 * epilogue (store_tile, wmma_tf32_tiles.cuh) stores only elements inside C. When a matrix's rows
 * are 16-byte aligned (pointer 16-byte aligned, leading dimension and row length multiples of 4
 * floats) tiles move as 16-byte vectors; otherwise element by element (correct, slower).
 *
 * Tiles: 128 x 64 per block, k-tiles of 32, 8 warps (4 x 2) of 32 x 32 (2 x 2 fragments), one
 * stage: 27 KiB of dynamic shared memory (no opt-in needed), at most 128 registers a thread (two
 * blocks per SM asked of the compiler).
 *
 * The plain launcher (no harness types; this folder's wmma_tf32_tiles.cuh and common/ headers
 * only):
 *   tf32_v2_smem_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or tf32_v2_smem_prepare(&plan, ...) once (the vector paths, the grid) and
 * tf32_v2_smem_run(&plan, alpha, beta, stream) per product. Both return cudaSuccess,
 * cudaErrorInvalidValue for sizes below 1 (tf32_v2_smem_unsupported says why), or the failed
 * call's error.
 *
 * Requires sm_80 (TF32 WMMA), CUDA 12.x or 13.x. */
#ifndef TF32_V2_SMEM_CUH
#define TF32_V2_SMEM_CUH

#include "wmma_tf32_tiles.cuh"

/*      tile_config<BLOCK_M, BLOCK_N, BLOCK_K, WARPS_M, WARPS_N, STAGES, MIN_BLOCKS> */
typedef tile_config<128, 64, 32, 4, 2, 1, 2> tf32_v2_config; /* 27 KiB of shared memory */
static_assert(tf32_v2_config::SMEM_BYTES <= 48 * 1024, "v2 needs no shared-memory opt-in");

static __global__ void __launch_bounds__(tf32_v2_config::THREADS, tf32_v2_config::MIN_BLOCKS)
    tf32_v2_smem_kernel(int M, int N, int K, const float *__restrict__ A, long lda,
                        const float *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                        float alpha, float beta, vec_flags vec)
{
    typedef tf32_v2_config Cfg;
    extern __shared__ __align__(128) unsigned char smem[];
    float *sA = (float *)smem, *sB = sA + Cfg::A_STAGE;
    const int warp = threadIdx.x / 32;
    const int warp_m = warp / Cfg::WARPS_N, warp_n = warp % Cfg::WARPS_N;
    const int block_m = blockIdx.y * Cfg::BLOCK_M, block_n = blockIdx.x * Cfg::BLOCK_N;

    acc_fragment acc[Cfg::FRAG_M][Cfg::FRAG_N];
    zero_accumulators<Cfg>(acc);
    for (int k0 = 0; k0 < K; k0 += Cfg::BLOCK_K) {
        load_tile_sync<float, Cfg::BLOCK_M, Cfg::BLOCK_K, Cfg::THREADS, Cfg::A_ROW>(
            sA, A, lda, block_m, k0, M, K, vec.a);
        load_tile_sync<float, Cfg::BLOCK_K, Cfg::BLOCK_N, Cfg::THREADS, Cfg::B_ROW>(
            sB, B, ldb, k0, block_n, K, N, vec.b);
        round_stage<Cfg>(sA, sB);
        __syncthreads(); /* the tiles are complete (and TF32) */
        warp_tile_mma<Cfg>(acc, sA, sB, warp_m, warp_n);
        __syncthreads(); /* every warp is done with the tiles before they are overwritten */
    }
    warp_tile_store<Cfg>(acc, smem, C, ldc, block_m + warp_m * Cfg::WARP_M,
                         block_n + warp_n * Cfg::WARP_N, M, N, alpha, beta, vec.c);
}

/* ---- the host side --------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
    const float *A, *B;
    long lda, ldb;
    float *C;
    long ldc;
    vec_flags vec; /* which operands may move in 16-byte vectors */
    dim3 grid;
} tf32_v2_smem_plan;

/* NULL when the kernel can take the problem, else why not (it takes every problem) */
static inline const char *tf32_v2_smem_unsupported(int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    return NULL;
}

static inline cudaError_t tf32_v2_smem_prepare(tf32_v2_smem_plan *plan, int M, int N, int K,
                                               const float *A, long lda, const float *B, long ldb,
                                               float *C, long ldc)
{
    typedef tf32_v2_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->vec = f32_vec_flags(N, K, A, lda, B, ldb, C, ldc);
    plan->grid = dim3((N + Cfg::BLOCK_N - 1) / Cfg::BLOCK_N, (M + Cfg::BLOCK_M - 1) / Cfg::BLOCK_M);
    return cudaSuccess;
}

static inline cudaError_t tf32_v2_smem_run(const tf32_v2_smem_plan *p, float alpha, float beta,
                                           cudaStream_t stream)
{
    typedef tf32_v2_config Cfg;
    tf32_v2_smem_kernel<<<p->grid, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    return cudaGetLastError();
}

static inline cudaError_t tf32_v2_smem_gemm(int M, int N, int K, const float *A, long lda,
                                            const float *B, long ldb, float *C, long ldc,
                                            float alpha, float beta, cudaStream_t stream)
{
    tf32_v2_smem_plan plan;
    const cudaError_t e = tf32_v2_smem_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? tf32_v2_smem_run(&plan, alpha, beta, stream) : e;
}

#endif /* TF32_V2_SMEM_CUH */
