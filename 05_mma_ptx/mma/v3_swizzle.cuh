/* mma_v3_swizzle - v2 on an XOR-swizzled shared-memory tile: no bank conflicts, no padding.
 *
 * Rung v3 of chapter 05's mma.sync ladder (part 1; f16 and bf16 in, f32 accumulate and out).
 * Parent: v2_ldmatrix (v2_ldmatrix.cuh). What changes: one template argument, the tile layout
 * (kmajor_tile<32, true>, common/kmajor_tile.cuh and common/swizzle.h). Chunk c of row r is
 * stored at c ^ ((r / 2) % 4), so the 8 rows of every ldmatrix matrix land in 8 different bank
 * groups: one wavefront per 8x8 matrix instead of 4. The tile keeps its 64-byte rows, and the
 * 16-byte stores of the tile loads stay conflict-free too (tests/test_swizzle.c checks both).
 * The lane offsets of ldmatrix repeat every 8 rows, so they are still computed once per k-step.
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N column-major (ldb), C M x N row-major f32 (ldc); T = __half or __nv_bfloat16. Any
 * M, N, K >= 1, any leading dimension and alignment: tile loads outside the matrix are
 * zero-filled, stores are guarded; rows move as 16-byte vectors when they are 16-byte aligned
 * (pointer aligned, ld and K multiples of 8), value by value otherwise (correct, slow). The
 * kernel sees A and B as 16-bit words (common/mma_parts.cuh).
 *
 * Tiles: 128 x 128 per block, k-tiles of BK = 32 (one in shared memory, swizzled, 64-byte rows),
 * 8 warps of 64 x 32 (4 x 4 mma tiles of 16 x 8); a 2-D grid, one block per tile of C, two
 * blocks per SM. C straight from the accumulators (epilogue_direct, mma_tile.cuh).
 *
 * The plain launcher (no harness types; common/ headers and mma_tile.cuh only):
 *   mma_v3_swizzle_gemm<T>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or mma_v3_swizzle_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc) once (the vector paths,
 * the grid) and mma_v3_swizzle_run<T>(&plan, alpha, beta, stream) per product. Both return
 * cudaSuccess, cudaErrorInvalidValue for sizes below 1 (mma_v3_swizzle_unsupported says why), or
 * the error of the launch.
 *
 * Requires sm_80 (bf16 mma), CUDA 12.x or 13.x. */
#ifndef MMA_V3_SWIZZLE_CUH
#define MMA_V3_SWIZZLE_CUH

#include "mma_tile.cuh"

/*                      BM   BN  BK  WARPS_M WARPS_N STAGES SWIZZLE */
typedef gemm_config<128, 128, 32, 2, 4, 1, true> mma_v3_config;
static_assert(mma_v3_config::SMEM_BYTES <= 48 * 1024, "static shared memory");

/* One k-tile at a time: synchronous loads, two barriers per k-tile. K, lda, ldb in 16-bit words. */
template <class T>
__global__ void __launch_bounds__(mma_v3_config::THREADS, 2)
    mma_v3_swizzle_kernel(int M, int N, int K, const uint16_t *__restrict__ A, long lda,
                          const uint16_t *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                          float alpha, float beta, mma_vec_flags vec)
{
    typedef mma_v3_config Cfg;
    static_assert(Cfg::STAGES == 1, "one k-tile in shared memory");
    __shared__ __align__(128) unsigned char smem[Cfg::STAGE_BYTES];
    unsigned char *sA = smem, *sB = smem + Cfg::A_BYTES;
    const int warp = threadIdx.x / 32;
    const int warp_m0 = warp / Cfg::WARPS_N * Cfg::WARP_M,
              warp_n0 = warp % Cfg::WARPS_N * Cfg::WARP_N;
    const int block_m = blockIdx.y * Cfg::BM, block_n = blockIdx.x * Cfg::BN;
    uint32_t a_off[Cfg::KSTEPS], b_off[Cfg::KSTEPS];
#pragma unroll
    for (int ks = 0; ks < Cfg::KSTEPS; ks++) {
        a_off[ks] = a_frag_lane_offset<typename Cfg::Tile>(ks);
        b_off[ks] = b_frag_lane_offset<typename Cfg::Tile>(ks);
    }

    const tile_copy<Cfg, Cfg::BM> copy_a(A, lda, block_m);
    const tile_copy<Cfg, Cfg::BN> copy_b(B, ldb, block_n);

    float acc[Cfg::MT][Cfg::NT][4] = {};
    for (int k0 = 0; k0 < K; k0 += Cfg::BK) {
        copy_tile_sync<Cfg, Cfg::BM>(sA, copy_a, A, lda, k0, M, K, vec.a);
        copy_tile_sync<Cfg, Cfg::BN>(sB, copy_b, B, ldb, k0, N, K, vec.b);
        __syncthreads(); /* the tiles are complete */
#pragma unroll
        for (int ks = 0; ks < Cfg::KSTEPS; ks++) {
            uint32_t a[Cfg::MT][4], b[Cfg::NT][2];
            load_frags_ldmatrix<Cfg>(a, b, smem_u32(sA), smem_u32(sB), warp_m0, warp_n0, a_off[ks],
                                     b_off[ks]);
            mma_step<T, Cfg>(acc, a, b);
        }
        __syncthreads(); /* every warp is done with the tiles before they are overwritten */
    }
    epilogue_direct<Cfg>(acc, C, ldc, block_m + warp_m0, block_n + warp_n0, M, N, alpha, beta,
                         vec.c2);
}

/* ---- the host side ---------------------------------------------------------------------------- */
/* What prepare() works out once: the problem in 16-bit words, the vector paths, the grid */
typedef struct {
    int M, N, K; /* K in 16-bit words */
    const uint16_t *A, *B;
    long lda, ldb; /* in 16-bit words */
    float *C;
    long ldc;
    mma_vec_flags vec; /* which operands move as vectors (mma_vector_paths) */
    dim3 grid;
} mma_v3_swizzle_plan;

/* NULL when the kernel can take the problem, else why not */
template <class T>
static const char *mma_v3_swizzle_unsupported(int M, int N, int K, const T *A, long lda, const T *B,
                                              long ldb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    return NULL;
}

template <class T>
static cudaError_t mma_v3_swizzle_prepare(mma_v3_swizzle_plan *plan, int M, int N, int K,
                                          const T *A, long lda, const T *B, long ldb, float *C,
                                          long ldc)
{
    typedef mma_v3_config Cfg;
    constexpr int W = words_per_elem<T>(); /* 1: a half is one 16-bit word */
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    plan->M = M, plan->N = N, plan->K = W * K;
    plan->A = (const uint16_t *)A, plan->lda = W * lda;
    plan->B = (const uint16_t *)B, plan->ldb = W * ldb;
    plan->C = C, plan->ldc = ldc;
    plan->vec = mma_vector_paths(A, lda, B, ldb, K, sizeof(T), C, ldc);
    plan->grid = dim3((N + Cfg::BN - 1) / Cfg::BN, (M + Cfg::BM - 1) / Cfg::BM);
    return cudaSuccess;
}

template <class T>
static cudaError_t mma_v3_swizzle_run(const mma_v3_swizzle_plan *p, float alpha, float beta,
                                      cudaStream_t stream)
{
    typedef mma_v3_config Cfg;
    mma_v3_swizzle_kernel<T><<<p->grid, Cfg::THREADS, 0, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    return cudaGetLastError();
}

template <class T>
static cudaError_t mma_v3_swizzle_gemm(int M, int N, int K, const T *A, long lda, const T *B,
                                       long ldb, float *C, long ldc, float alpha, float beta,
                                       cudaStream_t stream)
{
    mma_v3_swizzle_plan plan;
    const cudaError_t e = mma_v3_swizzle_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? mma_v3_swizzle_run<T>(&plan, alpha, beta, stream) : e;
}

#endif /* MMA_V3_SWIZZLE_CUH */
