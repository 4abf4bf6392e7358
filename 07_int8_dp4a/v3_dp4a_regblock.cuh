/* i8_v3_dp4a_regblock - __dp4a with register blocking: 8x8 outputs per thread, k-major tiles
 * read with 16-byte shared loads.
 *
 * Rung v3 of chapter 07's INT8 GEMM ladder (int8 in, int32 accumulate and out, exact).
 * Parent: v2_dp4a_smem (v2_dp4a_smem.cuh). What changes, and why it is faster: a thread owns 8x8
 * outputs (128x128 per block of 256). Per k-word it loads 8 words of A and 8 of B (four 16-byte
 * LDS.128) and does 64 __dp4a: 16 loads per 64 dp4a instead of 2 per 1. For that the tiles are
 * stored k-major in shared memory (the words of 128 rows at one k are contiguous), transposed on
 * the way in (i8_v3_store_transposed), rows padded by 4 words so that the transposing stores are
 * conflict-free; a thread's 8 rows are two runs of 4 (ty*4 and 64 + ty*4), so 16 threads read
 * 256 contiguous bytes of B. Global loads for k-tile t+1 are issued before the math of tile t
 * (double buffering through registers), one barrier per k-tile. Tiles move in 16-byte chunks
 * when the rows are 16-byte aligned (pointer, ld and K), byte by byte otherwise; C is stored in
 * 16-byte pieces when its rows allow it.
 *
 * Problem: C = alpha * A * B + beta * C with integer alpha, beta (beta == 0 never reads C); A
 * M x K row-major int8 (lda), B K x N column-major int8 (ldb: stored N x K, K-contiguous), C
 * M x N row-major int32 (ldc); the arithmetic wraps modulo 2^32. Any M, N, K >= 1, any leading
 * dimension and alignment: chunks outside the matrix are zero-filled, stores are guarded.
 *
 * Tile: 128 x 128 outputs per block of 256 threads (8 x 8 each), k-tiles of 32 values (8 words),
 * two shared buffers of 2 x 8 x 132 words.
 *
 * The plain launcher (no harness types; common/ headers and i8_gemm_parts.cuh only):
 *   i8_v3_dp4a_regblock_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or i8_v3_dp4a_regblock_prepare(&plan, ...) once (the checks, the vector paths, the grid) and
 * i8_v3_dp4a_regblock_run(&plan, alpha, beta, stream) per product. Both return cudaSuccess,
 * cudaErrorInvalidValue for sizes below 1, or the failed call's error.
 *
 * Requires sm_75 (the chapter's build floor; dp4a itself is sm_61), CUDA 12.x or 13.x. */
#ifndef I8_V3_DP4A_REGBLOCK_CUH
#define I8_V3_DP4A_REGBLOCK_CUH

#include "i8_gemm_parts.cuh"

constexpr int I8_V3_BM = 128, I8_V3_BN = 128; /* block tile */
constexpr int I8_V3_BK = 32;                  /* int8 values of k per tile */
constexpr int I8_V3_KW = I8_V3_BK / 4;        /* 32-bit words of k per tile */
constexpr int I8_V3_TM = 8, I8_V3_TN = 8;     /* outputs per thread */
constexpr int I8_V3_THREADS = (I8_V3_BM / I8_V3_TM) * (I8_V3_BN / I8_V3_TN);
constexpr int I8_V3_HALF = I8_V3_BM / 2; /* a thread's rows: ty*4 + i and HALF + ty*4 + i */
constexpr int I8_V3_SROW = I8_V3_BM + 4; /* words per k-row of a transposed tile (padded by 4) */
constexpr int I8_V3_TX = I8_V3_BN / I8_V3_TN; /* threads along n (16) */
static_assert(I8_V3_BM == I8_V3_BN, "A and B tiles share the copy and the layout");
static_assert(I8_V3_TM == 8 && I8_V3_TN == 8, "two runs of 4 rows (columns) per thread");
static_assert(I8_V3_THREADS == 256 && I8_V3_BM * I8_V3_BK / 16 == I8_V3_THREADS,
              "one 16-byte chunk of A and one of B per thread and k-tile");
static_assert(I8_V3_BK == 32, "a tile row is 2 chunks: thread i copies chunk i % 2 of row i / 2");
static_assert(I8_V3_SROW % 4 == 0, "16-byte aligned k-rows (LDS.128)");
static_assert(I8_V3_SROW % 32 == 4,
              "rows 4 banks apart: the 32 lanes of a transposing store hit 32 banks");

/* chunk c (words 4c .. 4c+3 of k) of tile row r, stored transposed: s[4c + i][r] = word i */
static __device__ __forceinline__ void i8_v3_store_transposed(uint32_t (*s)[I8_V3_SROW], int r,
                                                              int c, uint4 v)
{
    s[4 * c + 0][r] = v.x;
    s[4 * c + 1][r] = v.y;
    s[4 * c + 2][r] = v.z;
    s[4 * c + 3][r] = v.w;
}

static __global__ void __launch_bounds__(I8_V3_THREADS, 2)
    i8_v3_dp4a_regblock_kernel(int M, int N, int K, const int8_t *__restrict__ A, long lda,
                               const int8_t *__restrict__ B, long ldb, int *__restrict__ C,
                               long ldc, int alpha, int beta, i8_vec vec)
{
    /* k-major, double-buffered: s[buf][w][r] = word w (k = 4w .. 4w+3) of tile row r */
    __shared__ __align__(16) uint32_t sA[2][I8_V3_KW][I8_V3_SROW];
    __shared__ __align__(16) uint32_t sB[2][I8_V3_KW][I8_V3_SROW];
    const int tx = threadIdx.x % I8_V3_TX, ty = threadIdx.x / I8_V3_TX;
    const int cr = threadIdx.x / 2, cc = threadIdx.x % 2; /* the chunk this thread copies */
    int block_m, block_n;
    block_origin<I8_V3_BM, I8_V3_BN, 1>(M, N, &block_m, &block_n);
    const int k_tiles = (K + I8_V3_BK - 1) / I8_V3_BK;

    uint4 pa = load_chunk(A, lda, block_m + cr, 16 * cc, M, K, vec.a16);
    uint4 pb = load_chunk(B, ldb, block_n + cr, 16 * cc, N, K, vec.b16);
    i8_v3_store_transposed(sA[0], cr, cc, pa);
    i8_v3_store_transposed(sB[0], cr, cc, pb);
    __syncthreads();

    int acc[I8_V3_TM][I8_V3_TN] = {};
    for (int t = 0; t < k_tiles; t++) {
        const int cur = t % 2;
        if (t + 1 < k_tiles) { /* in flight during the math below */
            pa = load_chunk(A, lda, block_m + cr, (t + 1) * I8_V3_BK + 16 * cc, M, K, vec.a16);
            pb = load_chunk(B, ldb, block_n + cr, (t + 1) * I8_V3_BK + 16 * cc, N, K, vec.b16);
        }
#pragma unroll
        for (int w = 0; w < I8_V3_KW; w++) {
            const uint4 a0 = *(const uint4 *)&sA[cur][w][ty * 4];
            const uint4 a1 = *(const uint4 *)&sA[cur][w][I8_V3_HALF + ty * 4];
            const uint4 b0 = *(const uint4 *)&sB[cur][w][tx * 4];
            const uint4 b1 = *(const uint4 *)&sB[cur][w][I8_V3_HALF + tx * 4];
            const int a[I8_V3_TM] = {(int)a0.x, (int)a0.y, (int)a0.z, (int)a0.w,
                                     (int)a1.x, (int)a1.y, (int)a1.z, (int)a1.w};
            const int b[I8_V3_TN] = {(int)b0.x, (int)b0.y, (int)b0.z, (int)b0.w,
                                     (int)b1.x, (int)b1.y, (int)b1.z, (int)b1.w};
#pragma unroll
            for (int i = 0; i < I8_V3_TM; i++)
#pragma unroll
                for (int j = 0; j < I8_V3_TN; j++) acc[i][j] = __dp4a(a[i], b[j], acc[i][j]);
        }
        if (t + 1 < k_tiles) { /* the other buffer: last read before the previous barrier */
            i8_v3_store_transposed(sA[cur ^ 1], cr, cc, pa);
            i8_v3_store_transposed(sB[cur ^ 1], cr, cc, pb);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < I8_V3_TM; i++) {
        const int r = block_m + (i < 4 ? ty * 4 + i : I8_V3_HALF + ty * 4 + i - 4);
#pragma unroll
        for (int h = 0; h < 2; h++)
            store_quad(
                C, ldc, r, block_n + h * I8_V3_HALF + tx * 4, M, N,
                make_int4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]),
                alpha, beta, vec.c4);
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
} i8_v3_dp4a_regblock_plan;

/* NULL when the kernel can take the problem, else why not */
static inline const char *i8_v3_dp4a_regblock_unsupported(int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    return NULL;
}

static inline cudaError_t i8_v3_dp4a_regblock_prepare(i8_v3_dp4a_regblock_plan *plan, int M, int N,
                                                      int K, const int8_t *A, long lda,
                                                      const int8_t *B, long ldb, int *C, long ldc)
{
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->vec = i8_vector_paths(A, lda, B, ldb, C, ldc, K);
    plan->grid = tile_count(M, N, I8_V3_BM, I8_V3_BN);
    return cudaSuccess;
}

static inline cudaError_t i8_v3_dp4a_regblock_run(const i8_v3_dp4a_regblock_plan *p, int alpha,
                                                  int beta, cudaStream_t stream)
{
    i8_v3_dp4a_regblock_kernel<<<p->grid, I8_V3_THREADS, 0, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    return cudaGetLastError();
}

static inline cudaError_t i8_v3_dp4a_regblock_gemm(int M, int N, int K, const int8_t *A, long lda,
                                                   const int8_t *B, long ldb, int *C, long ldc,
                                                   int alpha, int beta, cudaStream_t stream)
{
    i8_v3_dp4a_regblock_plan plan;
    const cudaError_t e = i8_v3_dp4a_regblock_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? i8_v3_dp4a_regblock_run(&plan, alpha, beta, stream) : e;
}

#endif /* I8_V3_DP4A_REGBLOCK_CUH */
