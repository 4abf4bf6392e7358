/* i8_v4_wmma_s8 - the tensor cores through WMMA: 16x16x16 s8 fragments with int32 accumulators,
 * k-slab tiles, a 4-stage cp.async ring.
 *
 * Rung v4 of chapter 07's INT8 GEMM ladder (int8 in, int32 accumulate and out, exact).
 * Parent: v3_dp4a_regblock (v3_dp4a_regblock.cuh). What changes, and why it is faster: the
 * multiply-adds move from the CUDA cores (4 per __dp4a) to the tensor cores (4096 per warp
 * instruction, IMMA). A 128x128 block tile of 8 warps with 64x32 warp tiles (4x2 fragments of
 * 16x16x16), fed by a 4-stage cp.async ring (chapter 03's stage ring). WMMA wants fragment
 * pointers 32-byte aligned, and a k-step of int8 is only 16 bytes, so the tiles are stored as
 * "k-slabs": for each 16-byte k-step, the 16-byte pieces of all rows one after another
 * (ldm = 16); slabs are padded by 32 bytes so that the cp.async stores of 8 consecutive chunks
 * hit 8 different bank groups. The accumulator's lane map is unspecified, so the epilogue goes
 * through a 16x16 int32 scratch tile per warp. Tiles move by cp.async when the rows are 16-byte
 * aligned (pointer, ld and K), byte by byte otherwise.
 *
 * Problem: C = alpha * A * B + beta * C with integer alpha, beta (beta == 0 never reads C); A
 * M x K row-major int8 (lda), B K x N column-major int8 (ldb: stored N x K, K-contiguous), C
 * M x N row-major int32 (ldc); the arithmetic wraps modulo 2^32. Any M, N, K >= 1, any leading
 * dimension and alignment: chunks outside the matrix are zero-filled (cp.async with 0 source
 * bytes), stores are guarded.
 *
 * Tile: 128 x 128 per block of 256 threads (2 x 4 warps of 64 x 32), k-tiles of 64 values,
 * 4 stages of 16.25 KiB (65 KiB: needs the shared-memory opt-in).
 *
 * The plain launcher (no harness types; common/ headers and i8_gemm_parts.cuh only):
 *   i8_v4_wmma_s8_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or i8_v4_wmma_s8_prepare(&plan, ...) once (the checks, the shared-memory opt-in, the vector
 * paths, the grid) and i8_v4_wmma_s8_run(&plan, alpha, beta, stream) per product. Both return
 * cudaSuccess, cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a GPU it cannot
 * run on (i8_v4_wmma_s8_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_80 (cp.async; WMMA s8 itself is sm_72), CUDA 12.x or 13.x. */
#ifndef I8_V4_WMMA_S8_CUH
#define I8_V4_WMMA_S8_CUH

#include "i8_gemm_parts.cuh"

#include <mma.h>

constexpr int I8_V4_WMMA_M = 16, I8_V4_WMMA_N = 16, I8_V4_WMMA_K = 16;
constexpr int I8_V4_BM = 128, I8_V4_BN = 128, I8_V4_BK = 64, I8_V4_STAGES = 4;
constexpr int I8_V4_WARPS_M = 2, I8_V4_WARPS_N = 4;
constexpr int I8_V4_THREADS = 32 * I8_V4_WARPS_M * I8_V4_WARPS_N;
constexpr int I8_V4_WARP_M = I8_V4_BM / I8_V4_WARPS_M, I8_V4_WARP_N = I8_V4_BN / I8_V4_WARPS_N;
constexpr int I8_V4_FM = I8_V4_WARP_M / I8_V4_WMMA_M, I8_V4_FN = I8_V4_WARP_N / I8_V4_WMMA_N;
constexpr int I8_V4_SLABS = I8_V4_BK / I8_V4_WMMA_K; /* 16-byte k-steps per k-tile */
/* slab s of a tile: the 16 bytes k = 16 s .. 16 s + 15 of every row, rows 16 bytes apart, then
 * 32 bytes of padding */
constexpr int I8_V4_A_SLAB = (I8_V4_BM + 2) * 16, I8_V4_B_SLAB = (I8_V4_BN + 2) * 16;
constexpr int I8_V4_A_BYTES = I8_V4_SLABS * I8_V4_A_SLAB,
              I8_V4_B_BYTES = I8_V4_SLABS * I8_V4_B_SLAB;
constexpr int I8_V4_STAGE_BYTES = I8_V4_A_BYTES + I8_V4_B_BYTES;
constexpr size_t I8_V4_SMEM_BYTES = (size_t)I8_V4_STAGES * I8_V4_STAGE_BYTES;
static_assert(I8_V4_BM % I8_V4_WARPS_M == 0 && I8_V4_BN % I8_V4_WARPS_N == 0,
              "warps tile the block");
static_assert(I8_V4_WARP_M % I8_V4_WMMA_M == 0 && I8_V4_WARP_N % I8_V4_WMMA_N == 0,
              "fragments tile the warp");
static_assert(I8_V4_BK % I8_V4_WMMA_K == 0, "the k-tile is whole WMMA steps");
static_assert(I8_V4_A_SLAB % 32 == 0 && I8_V4_B_SLAB % 32 == 0 && I8_V4_A_BYTES % 32 == 0 &&
                  I8_V4_STAGE_BYTES % 32 == 0,
              "every fragment pointer 32-byte aligned (load_matrix_sync)");
static_assert(I8_V4_SLABS == 4 && I8_V4_A_SLAB / 16 % 8 == 2 && I8_V4_B_SLAB / 16 % 8 == 2,
              "8 consecutive chunks (2 rows x 4 slabs) land in 8 different bank groups");
static_assert((I8_V4_BM * I8_V4_SLABS) % I8_V4_THREADS == 0 &&
                  (I8_V4_BN * I8_V4_SLABS) % I8_V4_THREADS == 0,
              "the chunks of a tile are shared evenly by the threads");
static_assert(I8_V4_STAGES >= 2, "a ring needs two stages");
static_assert((size_t)(I8_V4_THREADS / 32) * I8_V4_WMMA_M * I8_V4_WMMA_N * 4 <= I8_V4_SMEM_BYTES,
              "the epilogue's per-warp scratch fits in the operand buffers");

typedef nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, I8_V4_WMMA_M, I8_V4_WMMA_N, I8_V4_WMMA_K,
                               signed char, nvcuda::wmma::row_major>
    i8_v4_a_frag;
typedef nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, I8_V4_WMMA_M, I8_V4_WMMA_N, I8_V4_WMMA_K,
                               signed char, nvcuda::wmma::col_major>
    i8_v4_b_frag;
typedef nvcuda::wmma::fragment<nvcuda::wmma::accumulator, I8_V4_WMMA_M, I8_V4_WMMA_N, I8_V4_WMMA_K,
                               int>
    i8_v4_acc_frag;

/* The ROWS x BK tile at (row0, k0) of a K-contiguous matrix into k-slabs: chunk c of row r goes
 * to c * SLAB + 16 r. Thread i takes chunks i, i + THREADS, ...: chunk id = 4 r + c, so 4
 * consecutive threads read one row's 64 bytes (coalesced). */
template <int ROWS, int SLAB>
static __device__ __forceinline__ void i8_v4_copy_tile(unsigned char *s,
                                                       const int8_t *__restrict__ g, long ld,
                                                       int row0, int k0, int rows, int K, bool vec)
{
#pragma unroll
    for (int p = 0; p < ROWS * I8_V4_SLABS / I8_V4_THREADS; p++) {
        const int id = threadIdx.x + p * I8_V4_THREADS, r = id / I8_V4_SLABS, c = id % I8_V4_SLABS;
        const int gr = row0 + r, gk = k0 + 16 * c;
        unsigned char *dst = s + c * SLAB + 16 * r;
        if (vec) {
            const bool inside = gr < rows && gk < K;
            cp_async_16(dst, inside ? (const void *)(g + (size_t)gr * ld + gk) : (const void *)g,
                        inside ? 16 : 0);
        } else {
            *(uint4 *)dst = load_chunk_bytes(g, ld, gr, gk, rows, K);
        }
    }
}

static __global__ void __launch_bounds__(I8_V4_THREADS)
    i8_v4_wmma_s8_kernel(int M, int N, int K, const int8_t *__restrict__ A, long lda,
                         const int8_t *__restrict__ B, long ldb, int *__restrict__ C, long ldc,
                         int alpha, int beta, i8_vec vec)
{
    namespace wmma = nvcuda::wmma;
    extern __shared__ __align__(128) unsigned char smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_m0 = warp / I8_V4_WARPS_N * I8_V4_WARP_M;
    const int warp_n0 = warp % I8_V4_WARPS_N * I8_V4_WARP_N;
    int block_m, block_n;
    block_origin<I8_V4_BM, I8_V4_BN, 1>(M, N, &block_m, &block_n);
    const int k_tiles = (K + I8_V4_BK - 1) / I8_V4_BK;

    i8_v4_acc_frag acc[I8_V4_FM][I8_V4_FN];
#pragma unroll
    for (int i = 0; i < I8_V4_FM; i++)
#pragma unroll
        for (int j = 0; j < I8_V4_FN; j++) wmma::fill_fragment(acc[i][j], 0);

    auto load_stage = [&](int t) {
        unsigned char *stage = smem + (t % I8_V4_STAGES) * I8_V4_STAGE_BYTES;
        i8_v4_copy_tile<I8_V4_BM, I8_V4_A_SLAB>(stage, A, lda, block_m, t * I8_V4_BK, M, K,
                                                vec.a16);
        i8_v4_copy_tile<I8_V4_BN, I8_V4_B_SLAB>(stage + I8_V4_A_BYTES, B, ldb, block_n,
                                                t * I8_V4_BK, N, K, vec.b16);
    };
    /* prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each (empty groups past the
     * end keep the count that wait_group relies on) */
#pragma unroll
    for (int t = 0; t < I8_V4_STAGES - 1; t++) {
        if (t < k_tiles) load_stage(t);
        cp_async_commit_group();
    }
    for (int t = 0; t < k_tiles; t++) {
        /* k-tile t has landed; the barrier also says every warp is done with k-tile t-1, whose
         * stage is refilled next */
        cp_async_wait_group<I8_V4_STAGES - 2>();
        __syncthreads();
        if (t + I8_V4_STAGES - 1 < k_tiles) load_stage(t + I8_V4_STAGES - 1);
        cp_async_commit_group();
        const unsigned char *sA = smem + (t % I8_V4_STAGES) * I8_V4_STAGE_BYTES,
                            *sB = sA + I8_V4_A_BYTES;
#pragma unroll
        for (int s = 0; s < I8_V4_SLABS; s++) {
            i8_v4_a_frag a[I8_V4_FM];
            i8_v4_b_frag b[I8_V4_FN];
#pragma unroll
            for (int i = 0; i < I8_V4_FM; i++)
                wmma::load_matrix_sync(a[i],
                                       (const signed char *)(sA + s * I8_V4_A_SLAB +
                                                             (warp_m0 + i * I8_V4_WMMA_M) * 16),
                                       16);
#pragma unroll
            for (int j = 0; j < I8_V4_FN; j++) /* col_major: column n of B is a row of the slab */
                wmma::load_matrix_sync(b[j],
                                       (const signed char *)(sB + s * I8_V4_B_SLAB +
                                                             (warp_n0 + j * I8_V4_WMMA_N) * 16),
                                       16);
#pragma unroll
            for (int i = 0; i < I8_V4_FM; i++)
#pragma unroll
                for (int j = 0; j < I8_V4_FN; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
    }
    cp_async_wait_group<0>();
    __syncthreads(); /* the operand buffers become the epilogue's scratch */

    /* The accumulator's element-to-lane map is unspecified: through a 16x16 int32 scratch tile
     * per warp. Lane l then owns 4 consecutive elements of rows l / 4 and l / 4 + 8. */
    int *scratch = (int *)smem + warp * I8_V4_WMMA_M * I8_V4_WMMA_N;
#pragma unroll
    for (int i = 0; i < I8_V4_FM; i++)
#pragma unroll
        for (int j = 0; j < I8_V4_FN; j++) {
            wmma::store_matrix_sync(scratch, acc[i][j], I8_V4_WMMA_N, wmma::mem_row_major);
            __syncwarp();
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int r = lane / 4 + 8 * h, c = 4 * (lane % 4);
                store_quad(C, ldc, block_m + warp_m0 + i * I8_V4_WMMA_M + r,
                           block_n + warp_n0 + j * I8_V4_WMMA_N + c, M, N,
                           *(const int4 *)(scratch + r * I8_V4_WMMA_N + c), alpha, beta, vec.c4);
            }
            __syncwarp(); /* the scratch is rewritten for the next fragment */
        }
}

/* ---- the host side --------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
    const int8_t *A, *B;
    long lda, ldb;
    int *C;
    long ldc;
    i8_vec vec; /* which operands move in vectors (this rung: a16, b16, c4) */
    unsigned grid;
} i8_v4_wmma_s8_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
static inline const char *i8_v4_wmma_s8_unsupported(int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    return i8_sm80_unsupported((const void *)i8_v4_wmma_s8_kernel, I8_V4_SMEM_BYTES);
}

static inline cudaError_t i8_v4_wmma_s8_prepare(i8_v4_wmma_s8_plan *plan, int M, int N, int K,
                                                const int8_t *A, long lda, const int8_t *B,
                                                long ldb, int *C, long ldc)
{
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (i8_v4_wmma_s8_unsupported(M, N, K)) return cudaErrorNotSupported;
    const cudaError_t e = smem_optin((const void *)i8_v4_wmma_s8_kernel, I8_V4_SMEM_BYTES);
    if (e != cudaSuccess) return e;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->vec = i8_vector_paths(A, lda, B, ldb, C, ldc, K);
    plan->grid = tile_count(M, N, I8_V4_BM, I8_V4_BN);
    return cudaSuccess;
}

static inline cudaError_t i8_v4_wmma_s8_run(const i8_v4_wmma_s8_plan *p, int alpha, int beta,
                                            cudaStream_t stream)
{
    i8_v4_wmma_s8_kernel<<<p->grid, I8_V4_THREADS, I8_V4_SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    return cudaGetLastError();
}

static inline cudaError_t i8_v4_wmma_s8_gemm(int M, int N, int K, const int8_t *A, long lda,
                                             const int8_t *B, long ldb, int *C, long ldc, int alpha,
                                             int beta, cudaStream_t stream)
{
    i8_v4_wmma_s8_plan plan;
    const cudaError_t e = i8_v4_wmma_s8_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? i8_v4_wmma_s8_run(&plan, alpha, beta, stream) : e;
}

#endif /* I8_V4_WMMA_S8_CUH */
