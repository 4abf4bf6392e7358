/* i8_v5_mma_s8 - raw mma.sync m16n8k32 .s8 with ldmatrix: swizzled K-major tiles, a 4-stage
 * cp.async ring, double-buffered fragments, stores straight from registers.
 *
 * Rung v5 of chapter 07's INT8 GEMM ladder (int8 in, int32 accumulate and out, exact).
 * Parent: v4_wmma_s8 (v4_wmma_s8.cuh). What changes, and why it is faster: no WMMA, so no
 * restrictions on the tile layout or the accumulator's lane map. The int8 fragments of
 * mma.m16n8k32 are byte for byte the f16 ones of chapter 05 (imma_ptx.cuh), so its K-major tiles,
 * XOR swizzle (instead of padding) and ldmatrix lane offsets serve unchanged
 * (common/kmajor_tile.cuh; a 64-byte row is 64 int8 values here). The structure of chapter 05's
 * v5_dbuf: a 128x256 block tile, 64x64 warp tiles (4 x 8 mma of 16x8x32: 32 mma per 8
 * ldmatrix.x4 a k-step), a 4-stage cp.async ring, one barrier per k-tile moved before the last
 * k-step, the next k-step's fragments loaded before this one's mma (double-buffered in
 * registers), blocks rasterised in groups of 8 block-rows, and the epilogue straight from
 * registers (lane (g, t): rows g, g+8, columns 2t, 2t+1; 8-byte stores when C's rows allow).
 * Tiles move by cp.async when the rows are 16-byte aligned (pointer, ld and K), byte by byte
 * otherwise.
 *
 * Problem: C = alpha * A * B + beta * C with integer alpha, beta (beta == 0 never reads C); A
 * M x K row-major int8 (lda), B K x N column-major int8 (ldb: stored N x K, K-contiguous), C
 * M x N row-major int32 (ldc); the arithmetic wraps modulo 2^32. Any M, N, K >= 1, any leading
 * dimension and alignment: chunks outside the matrix are zero-filled (cp.async with 0 source
 * bytes), stores are guarded.
 *
 * Tile: 128 x 256 per block of 256 threads (2 x 4 warps of 64 x 64), k-tiles of 64 values,
 * 4 stages of 24 KiB (96 KiB: needs the shared-memory opt-in).
 *
 * The plain launcher (no harness types; common/ headers, i8_gemm_parts.cuh and imma_ptx.cuh only):
 *   i8_v5_mma_s8_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or i8_v5_mma_s8_prepare(&plan, ...) once (the checks, the shared-memory opt-in, the vector
 * paths, the grid) and i8_v5_mma_s8_run(&plan, alpha, beta, stream) per product. Both return
 * cudaSuccess, cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a GPU it cannot
 * run on (i8_v5_mma_s8_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_80 (mma.m16n8k32 .s8, cp.async), CUDA 12.x or 13.x. */
#ifndef I8_V5_MMA_S8_CUH
#define I8_V5_MMA_S8_CUH

#include "i8_gemm_parts.cuh"
#include "imma_ptx.cuh"
#include "kmajor_tile.cuh"

constexpr int I8_V5_MMA_M = 16, I8_V5_MMA_N = 8, I8_V5_MMA_K = 32; /* k in int8 values */
constexpr int I8_V5_BM = 128, I8_V5_BN = 256, I8_V5_BK = 64, I8_V5_STAGES = 4;
constexpr int I8_V5_GROUP_M = 8;
constexpr int I8_V5_WARPS_M = 2, I8_V5_WARPS_N = 4;
constexpr int I8_V5_THREADS = 32 * I8_V5_WARPS_M * I8_V5_WARPS_N;
constexpr int I8_V5_WARP_M = I8_V5_BM / I8_V5_WARPS_M, I8_V5_WARP_N = I8_V5_BN / I8_V5_WARPS_N;
constexpr int I8_V5_MT = I8_V5_WARP_M / I8_V5_MMA_M, I8_V5_NT = I8_V5_WARP_N / I8_V5_MMA_N;
constexpr int I8_V5_KSTEPS = I8_V5_BK / I8_V5_MMA_K;
/* A row of BK int8 values is BK / 2 16-bit words: the unit of kmajor_tile (and of ldmatrix) */
typedef kmajor_tile<I8_V5_BK / 2, true> i8_v5_tile;
constexpr int I8_V5_A_BYTES = I8_V5_BM * i8_v5_tile::ROW_BYTES;
constexpr int I8_V5_B_BYTES = I8_V5_BN * i8_v5_tile::ROW_BYTES;
constexpr int I8_V5_STAGE_BYTES = I8_V5_A_BYTES + I8_V5_B_BYTES;
constexpr size_t I8_V5_SMEM_BYTES = (size_t)I8_V5_STAGES * I8_V5_STAGE_BYTES;
constexpr int I8_V5_PER_ROW = i8_v5_tile::ROW_BYTES / 16;          /* 16-byte chunks per row */
constexpr int I8_V5_ROWS_PER_PASS = I8_V5_THREADS / I8_V5_PER_ROW; /* rows one copy pass covers */
static_assert(i8_v5_tile::ROW_BYTES == I8_V5_BK, "one byte per int8 value");
static_assert(I8_V5_BM % I8_V5_WARPS_M == 0 && I8_V5_BN % I8_V5_WARPS_N == 0,
              "warps tile the block");
static_assert(I8_V5_WARP_M % I8_V5_MMA_M == 0, "16-row A fragments tile the warp");
static_assert(I8_V5_WARP_N % (2 * I8_V5_MMA_N) == 0,
              "B fragments are loaded in pairs (16 columns)");
static_assert(I8_V5_BK % I8_V5_MMA_K == 0, "the k-tile is whole mma k-steps");
static_assert(I8_V5_KSTEPS % 2 == 0, "fragment sets alternate within and across k-tiles");
static_assert(I8_V5_STAGES >= 3, "loading k-tile t+1 while t is multiplied needs 3 stages");
static_assert(I8_V5_THREADS % I8_V5_PER_ROW == 0 && I8_V5_BM % I8_V5_ROWS_PER_PASS == 0 &&
                  I8_V5_BN % I8_V5_ROWS_PER_PASS == 0,
              "the threads cover whole rows, and whole passes cover each tile");
static_assert(I8_V5_ROWS_PER_PASS % 8 == 0, "a thread's rows share the swizzle (period 8)");
static_assert(I8_V5_A_BYTES % 128 == 0 && I8_V5_STAGE_BYTES % 128 == 0,
              "every tile starts 128-byte aligned (the swizzle's bank arithmetic)");

/* A thread's part in copying a tile: chunk column `col / 16` of rows row, row + ROWS_PER_PASS,
 * ...; those rows are a multiple of 8 apart, so they share one swizzled offset (dst) and one
 * global pointer (src) plus constant strides. */
struct i8_v5_copy {
    const int8_t *src; /* the thread's first chunk at k = 0 (the row may be outside the matrix) */
    uint32_t dst;      /* its byte offset in the tile */
    int row, col;      /* its first row in the matrix, its first k in the tile */
};

static __device__ __forceinline__ i8_v5_copy i8_v5_copy_role(const int8_t *__restrict__ g, long ld,
                                                             int row0)
{
    const int r = threadIdx.x / I8_V5_PER_ROW, c = threadIdx.x % I8_V5_PER_ROW;
    i8_v5_copy cp;
    cp.row = row0 + r, cp.col = 16 * c;
    cp.src = g + (size_t)cp.row * ld + cp.col;
    cp.dst = i8_v5_tile::chunk_offset(r, c);
    return cp;
}

/* The ROWS x BK tile at k0 into a swizzled K-major tile: cp.async 16 bytes per chunk, zero-filled
 * outside the matrix (src_bytes = 0); rows that are not 16-byte aligned take the byte path (the
 * ring's barriers order both). */
template <int ROWS>
static __device__ __forceinline__ void i8_v5_copy_tile(unsigned char *tile, const i8_v5_copy &cp,
                                                       const int8_t *__restrict__ g, long ld,
                                                       int k0, int rows, int K, bool vec)
{
    constexpr int PASSES = ROWS / I8_V5_ROWS_PER_PASS;
    constexpr int PASS_BYTES = I8_V5_ROWS_PER_PASS * i8_v5_tile::ROW_BYTES;
    if (!vec) {
#pragma unroll
        for (int p = 0; p < PASSES; p++)
            *(uint4 *)(tile + cp.dst + p * PASS_BYTES) =
                load_chunk_bytes(g, ld, cp.row + p * I8_V5_ROWS_PER_PASS, k0 + cp.col, rows, K);
        return;
    }
    const uint32_t base = smem_u32(tile) + cp.dst;
    const bool k_inside = k0 + cp.col < K;
#pragma unroll
    for (int p = 0; p < PASSES; p++) {
        const bool inside = k_inside && cp.row + p * I8_V5_ROWS_PER_PASS < rows;
        const int8_t *src = cp.src + (size_t)p * I8_V5_ROWS_PER_PASS * ld + k0;
        cp_async_16(base + p * PASS_BYTES, inside ? (const void *)src : (const void *)g,
                    inside ? 16 : 0);
    }
}

static __device__ __forceinline__ void
i8_v5_load_k_tile(unsigned char *smem, const i8_v5_copy &copy_a, const i8_v5_copy &copy_b,
                  const int8_t *__restrict__ A, long lda, const int8_t *__restrict__ B, long ldb,
                  int M, int N, int K, i8_vec vec, int t)
{
    unsigned char *stage = smem + (t % I8_V5_STAGES) * I8_V5_STAGE_BYTES;
    i8_v5_copy_tile<I8_V5_BM>(stage, copy_a, A, lda, t * I8_V5_BK, M, K, vec.a16);
    i8_v5_copy_tile<I8_V5_BN>(stage + I8_V5_A_BYTES, copy_b, B, ldb, t * I8_V5_BK, N, K, vec.b16);
}

/* The warp's MT A fragments and NT B fragments of one k-step (lane offsets a_off, b_off from
 * common/kmajor_tile.cuh, computed once per k-step). */
static __device__ __forceinline__ void i8_v5_load_frags(uint32_t (&a)[I8_V5_MT][4],
                                                        uint32_t (&b)[I8_V5_NT][2], uint32_t sA,
                                                        uint32_t sB, int warp_m0, int warp_n0,
                                                        uint32_t a_off, uint32_t b_off)
{
#pragma unroll
    for (int i = 0; i < I8_V5_MT; i++)
        load_a_frag_ldmatrix<i8_v5_tile>(a[i], sA, warp_m0 + i * I8_V5_MMA_M, a_off);
#pragma unroll
    for (int j = 0; j < I8_V5_NT / 2; j++)
        load_b_frags_ldmatrix<i8_v5_tile>(b[2 * j], b[2 * j + 1], sB, warp_n0 + 2 * j * I8_V5_MMA_N,
                                          b_off);
}

static __device__ __forceinline__ void i8_v5_mma_step(int (&acc)[I8_V5_MT][I8_V5_NT][4],
                                                      const uint32_t (&a)[I8_V5_MT][4],
                                                      const uint32_t (&b)[I8_V5_NT][2])
{
#pragma unroll
    for (int i = 0; i < I8_V5_MT; i++)
#pragma unroll
        for (int j = 0; j < I8_V5_NT; j++) mma_m16n8k32_s8(acc[i][j], a[i], b[j]);
}

static __global__ void __launch_bounds__(I8_V5_THREADS, 1)
    i8_v5_mma_s8_kernel(int M, int N, int K, const int8_t *__restrict__ A, long lda,
                        const int8_t *__restrict__ B, long ldb, int *__restrict__ C, long ldc,
                        int alpha, int beta, i8_vec vec)
{
    extern __shared__ __align__(128) unsigned char smem[];
    const uint32_t smem_base = smem_u32(smem);
    const int warp = threadIdx.x / 32;
    const int warp_m0 = warp / I8_V5_WARPS_N * I8_V5_WARP_M;
    const int warp_n0 = warp % I8_V5_WARPS_N * I8_V5_WARP_N;
    int block_m, block_n;
    block_origin<I8_V5_BM, I8_V5_BN, I8_V5_GROUP_M>(M, N, &block_m, &block_n);
    const i8_v5_copy copy_a = i8_v5_copy_role(A, lda, block_m);
    const i8_v5_copy copy_b = i8_v5_copy_role(B, ldb, block_n);
    const int k_tiles = (K + I8_V5_BK - 1) / I8_V5_BK;
    uint32_t a_off[I8_V5_KSTEPS], b_off[I8_V5_KSTEPS];
#pragma unroll
    for (int ks = 0; ks < I8_V5_KSTEPS; ks++) {
        a_off[ks] = a_frag_lane_offset<i8_v5_tile>(ks);
        b_off[ks] = b_frag_lane_offset<i8_v5_tile>(ks);
    }
    int acc[I8_V5_MT][I8_V5_NT][4] = {};
    uint32_t a[2][I8_V5_MT][4], b[2][I8_V5_NT][2]; /* two fragment sets: multiplied, loaded */

    /* prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each */
#pragma unroll
    for (int t = 0; t < I8_V5_STAGES - 1; t++) {
        if (t < k_tiles) i8_v5_load_k_tile(smem, copy_a, copy_b, A, lda, B, ldb, M, N, K, vec, t);
        cp_async_commit_group();
    }
    cp_async_wait_group<I8_V5_STAGES - 2>(); /* k-tile 0 */
    __syncthreads();
    i8_v5_load_frags(a[0], b[0], smem_base, smem_base + I8_V5_A_BYTES, warp_m0, warp_n0, a_off[0],
                     b_off[0]);

    for (int t = 0; t < k_tiles; t++) {
        const uint32_t sA = smem_base + (t % I8_V5_STAGES) * I8_V5_STAGE_BYTES,
                       sB = sA + I8_V5_A_BYTES;
#pragma unroll
        for (int ks = 0; ks < I8_V5_KSTEPS; ks++) {
            const int cur = ks % 2, nxt = cur ^ 1;
            if (ks == I8_V5_KSTEPS - 1) {
                /* groups committed so far: STAGES-1 + t; k-tile t+1 is group t+1. After the
                 * barrier every warp is past its reads of k-tile t-1, whose stage is refilled. */
                cp_async_wait_group<I8_V5_STAGES - 3>();
                __syncthreads();
                if (t + I8_V5_STAGES - 1 < k_tiles)
                    i8_v5_load_k_tile(smem, copy_a, copy_b, A, lda, B, ldb, M, N, K, vec,
                                      t + I8_V5_STAGES - 1);
                cp_async_commit_group();
                if (t + 1 < k_tiles) {
                    const uint32_t nA = smem_base + ((t + 1) % I8_V5_STAGES) * I8_V5_STAGE_BYTES;
                    i8_v5_load_frags(a[nxt], b[nxt], nA, nA + I8_V5_A_BYTES, warp_m0, warp_n0,
                                     a_off[0], b_off[0]);
                }
            } else {
                i8_v5_load_frags(a[nxt], b[nxt], sA, sB, warp_m0, warp_n0, a_off[ks + 1],
                                 b_off[ks + 1]);
            }
            i8_v5_mma_step(acc, a[cur], b[cur]);
        }
    }
    cp_async_wait_group<0>(); /* only empty groups are left; leave none behind */

    /* straight from registers: accumulator (i, j) of lane (g, t) holds rows g and g + 8, columns
     * 2t and 2t + 1 of its 16x8 tile (imma_ptx.cuh): two 8-byte stores */
    const int lane = threadIdx.x % 32, g = lane / 4, tq = lane % 4;
#pragma unroll
    for (int i = 0; i < I8_V5_MT; i++)
#pragma unroll
        for (int j = 0; j < I8_V5_NT; j++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                store_pair(C, ldc, block_m + warp_m0 + i * I8_V5_MMA_M + g + 8 * h,
                           block_n + warp_n0 + j * I8_V5_MMA_N + 2 * tq, M, N, acc[i][j][2 * h],
                           acc[i][j][2 * h + 1], alpha, beta, vec.c2);
}

/* ---- the host side --------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
    const int8_t *A, *B;
    long lda, ldb;
    int *C;
    long ldc;
    i8_vec vec; /* which operands move in vectors (this rung: a16, b16, c2) */
    unsigned grid;
} i8_v5_mma_s8_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
static inline const char *i8_v5_mma_s8_unsupported(int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    return i8_sm80_unsupported((const void *)i8_v5_mma_s8_kernel, I8_V5_SMEM_BYTES);
}

static inline cudaError_t i8_v5_mma_s8_prepare(i8_v5_mma_s8_plan *plan, int M, int N, int K,
                                               const int8_t *A, long lda, const int8_t *B, long ldb,
                                               int *C, long ldc)
{
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (i8_v5_mma_s8_unsupported(M, N, K)) return cudaErrorNotSupported;
    const cudaError_t e = smem_optin((const void *)i8_v5_mma_s8_kernel, I8_V5_SMEM_BYTES);
    if (e != cudaSuccess) return e;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->vec = i8_vector_paths(A, lda, B, ldb, C, ldc, K);
    plan->grid = tile_count(M, N, I8_V5_BM, I8_V5_BN);
    return cudaSuccess;
}

static inline cudaError_t i8_v5_mma_s8_run(const i8_v5_mma_s8_plan *p, int alpha, int beta,
                                           cudaStream_t stream)
{
    i8_v5_mma_s8_kernel<<<p->grid, I8_V5_THREADS, I8_V5_SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    return cudaGetLastError();
}

static inline cudaError_t i8_v5_mma_s8_gemm(int M, int N, int K, const int8_t *A, long lda,
                                            const int8_t *B, long ldb, int *C, long ldc, int alpha,
                                            int beta, cudaStream_t stream)
{
    i8_v5_mma_s8_plan plan;
    const cudaError_t e = i8_v5_mma_s8_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? i8_v5_mma_s8_run(&plan, alpha, beta, stream) : e;
}

#endif /* I8_V5_MMA_S8_CUH */
