/* wmma_v3_regblock - register blocking: each warp owns a 64x32 tile of C as 4x2 accumulator
 * fragments, in a 128x128 block tile with padded shared rows.
 *
 * Rung v3 of chapter 03's WMMA ladder (f16 in, f32 accumulate and out).
 * Parent: v2_smem (v2_smem.cuh). What changes: 8 warps, each owning a 64x32 warp tile (4x2
 * accumulator fragments), in a 128x128 block tile (the constants and their checks: tile_config,
 * wmma_tiles.cuh). An A fragment now feeds 2 mmas and a B fragment 4, so shared-memory traffic
 * per mma falls about 3x. Rows of the shared tiles are padded by 8 halves (16 bytes), which moves
 * consecutive rows to different banks. What limits it: tiles still travel global -> registers ->
 * shared, and the warps wait at a barrier for every tile (two per k-tile).
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N row-major (ldb), C M x N row-major f32 (ldc), A and B f16. Any M, N, K >= 1, any leading
 * dimension and alignment: loads outside the matrix are zero-filled in shared memory and the
 * epilogue stores only elements inside C; rows that are 16-byte aligned move in 16-byte vectors,
 * others element by element.
 *
 * Tiles: 128 x 128 per block, k-tiles of 32, 8 warps (2 x 4) of 64 x 32 (4 x 2 fragments); one
 * stage of 18.5 KiB of dynamic shared memory, reused by the epilogue's per-warp scratch tiles.
 *
 * The plain launcher (no harness types; this folder's wmma_tiles.cuh and common/ headers only):
 *   wmma_v3_regblock_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or wmma_v3_regblock_prepare(&plan, ...) once (the shared-memory opt-in, the vector paths, the
 * grid) and wmma_v3_regblock_run(&plan, alpha, beta, stream) per product. Both return
 * cudaSuccess, cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a GPU it cannot
 * run on (wmma_v3_regblock_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_70 (WMMA f16; CUDA 13 builds sm_75 and up), CUDA 12.x or 13.x. */
#ifndef WMMA_V3_REGBLOCK_CUH
#define WMMA_V3_REGBLOCK_CUH

#include "wmma_tiles.cuh"

/*      tile_config<BLOCK_M, BLOCK_N, BLOCK_K, WARPS_M, WARPS_N, STAGES> */
typedef tile_config<128, 128, 32, 2, 4, 1> wmma_v3_config;

static __global__ void __launch_bounds__(wmma_v3_config::THREADS)
    wmma_v3_regblock_kernel(int M, int N, int K, const half *__restrict__ A, long lda,
                            const half *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                            float alpha, float beta, vec_flags vec)
{
    typedef wmma_v3_config Cfg;
    extern __shared__ __align__(128) unsigned char smem[];
    half *sA = (half *)smem, *sB = sA + Cfg::A_STAGE;
    const int warp = threadIdx.x / 32;
    const int warp_m = warp / Cfg::WARPS_N, warp_n = warp % Cfg::WARPS_N;
    const int block_m = blockIdx.y * Cfg::BLOCK_M, block_n = blockIdx.x * Cfg::BLOCK_N;

    acc_fragment acc[Cfg::FRAG_M][Cfg::FRAG_N];
    zero_accumulators<Cfg>(acc);

    for (int k0 = 0; k0 < K; k0 += Cfg::BLOCK_K) {
        load_tile_sync<half, Cfg::BLOCK_M, Cfg::BLOCK_K, Cfg::THREADS, Cfg::A_ROW>(
            sA, A, lda, block_m, k0, M, K, vec.a);
        load_tile_sync<half, Cfg::BLOCK_K, Cfg::BLOCK_N, Cfg::THREADS, Cfg::B_ROW>(
            sB, B, ldb, k0, block_n, K, N, vec.b);
        __syncthreads();
        warp_tile_mma<Cfg>(acc, sA, sB, warp_m, warp_n);
        __syncthreads();
    }
    warp_tile_store<Cfg>(acc, smem, C, ldc, block_m + warp_m * Cfg::WARP_M,
                         block_n + warp_n * Cfg::WARP_N, M, N, alpha, beta, vec.c);
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
} wmma_v3_regblock_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
static inline const char *wmma_v3_regblock_unsupported(int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (!smem_fits(wmma_v3_config::SMEM_BYTES))
        return "the block tile needs more shared memory than this GPU has";
    return NULL;
}

static inline cudaError_t wmma_v3_regblock_prepare(wmma_v3_regblock_plan *plan, int M, int N, int K,
                                                   const half *A, long lda, const half *B, long ldb,
                                                   float *C, long ldc)
{
    typedef wmma_v3_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    const cudaError_t e = smem_optin((const void *)wmma_v3_regblock_kernel, Cfg::SMEM_BYTES);
    if (e != cudaSuccess) return e;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->vec = wmma_vec_flags(N, K, A, lda, B, ldb, C, ldc);
    plan->grid = dim3((N + Cfg::BLOCK_N - 1) / Cfg::BLOCK_N, (M + Cfg::BLOCK_M - 1) / Cfg::BLOCK_M);
    return cudaSuccess;
}

static inline cudaError_t wmma_v3_regblock_run(const wmma_v3_regblock_plan *p, float alpha,
                                               float beta, cudaStream_t stream)
{
    typedef wmma_v3_config Cfg;
    wmma_v3_regblock_kernel<<<p->grid, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    return cudaGetLastError();
}

static inline cudaError_t wmma_v3_regblock_gemm(int M, int N, int K, const half *A, long lda,
                                                const half *B, long ldb, float *C, long ldc,
                                                float alpha, float beta, cudaStream_t stream)
{
    wmma_v3_regblock_plan plan;
    const cudaError_t e = wmma_v3_regblock_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? wmma_v3_regblock_run(&plan, alpha, beta, stream) : e;
}

#endif /* WMMA_V3_REGBLOCK_CUH */
