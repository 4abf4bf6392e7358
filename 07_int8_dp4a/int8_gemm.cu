/* 07_int8_dp4a/int8_gemm.cu - the INT8 GEMM ladder: int8 inputs, int32 accumulate and output,
 * first on the CUDA cores (plain multiply-add, then __dp4a), then on the tensor cores (WMMA, then
 * raw mma.sync).
 *
 * What it teaches
 *   An int8 product lies in [-16256, 16384], so int32 holds any sum of up to 2^17 - 1 = 131071
 *   of them (2^17 products of -128 * -128 make 2^31, one past INT32_MAX). Integer GEMMs are
 *   therefore exact: the result must equal the CPU's to the last bit, in any order of summation
 *   (the driver accepts K up to 2^20; past 131071 an extreme input wraps modulo 2^32). What changes
 *   along the ladder is how many int8 multiply-adds one instruction does: 1 (IMAD), 4 (IDP.4A,
 *   __dp4a), 4096 per warp (IMMA.16832, mma.sync m16n8k32). 07_dp4a_basics measures the ceiling of
 *   each instruction on the running GPU; each rung is judged against the ceiling of its own.
 *
 * Problem and layout (every variant)
 *   C = alpha * A * B + beta * C. A is M x K row-major int8 (lda), B is K x N column-major int8
 *   (ldb: the distance between columns; i.e. B stored N x K, K-contiguous), C is M x N row-major
 *   int32 (ldc). alpha and beta are integers; C's arithmetic wraps modulo 2^32 (done in unsigned
 *   arithmetic, so it is defined). beta == 0 never reads C. Both operands K-contiguous is "TN",
 *   the layout the int8 tensor cores want (mma .row.col reads k-contiguous rows of A and columns
 *   of B), and the one cuBLAS is fastest with; it also lets dp4a read four consecutive k of A and
 *   of B as one 32-bit word each. Every variant takes any M, N, K >= 1: tile loads outside the
 *   matrix are zero-filled (zeros add nothing to a dot product, so a K that is not a multiple of
 *   4, 16 or 32 needs no special case), stores are guarded. Rows move in 16-byte vectors (cp.async
 *   in v4, v5) only when they are 16-byte aligned (pointer aligned, ld a multiple of 16, K a
 *   multiple of 16, so that a vector is all inside the matrix or all outside); otherwise byte by
 *   byte (correct, slow). v2 has a 4-byte path with the same rule for words.
 *
 * Minimum: sm_75 for v1..v3 (the chapter's build floor; dp4a is sm_61), sm_80 for v4 (cp.async;
 * WMMA s8 itself is sm_72) and v5 (mma.m16n8k32). CUDA 12.x or 13.x.
 *
 * Build and run
 *   make                                           # build/bin/07_int8_gemm (and 07_dp4a_basics)
 *   build/bin/07_int8_gemm                         # the ladder at 4096^3, cuBLAS beside it
 *   build/bin/07_int8_gemm --variant v3_dp4a_regblock --size 8192x8192x8192
 *   build/bin/07_int8_gemm --test                  # every rung: odd sizes, alpha/beta, ld, ptr+1
 *
 * The rungs
 *   v1_int32          The textbook shared-memory GEMM: 16x16 threads, one output each; 16x16
 *                     tiles of A and B are copied to shared memory as int32 and each thread does
 *                     16 multiply-adds (IMAD) per tile. Two shared loads per multiply-add.
 *   v2_dp4a_smem      The same tiling, but the tiles stay int8 and a thread reads four k-values
 *                     of A and of B as one 32-bit word each: one __dp4a does 4 multiply-adds for
 *                     the same two shared loads. The k-tile grows to 64 bytes (16 words); rows
 *                     are padded by one word so that the 16 threads reading 16 rows of B at the
 *                     same k hit 16 different banks.
 *   v3_dp4a_regblock  Register blocking: 8x8 outputs per thread (128x128 per block of 256). Per
 *                     k-word a thread loads 8 words of A and 8 of B (four 16-byte LDS.128) and
 *                     does 64 __dp4a: 16 loads per 64 dp4a instead of 2 per 1. For that the
 *                     tiles are stored k-major in shared memory (the words of 128 rows at one k
 *                     are contiguous), transposed on the way in, rows padded by 4 words so that
 *                     the transposing stores are conflict-free; a thread's 8 rows are two runs
 *                     of 4 (ty*4 and 64 + ty*4), so 16 threads read 256 contiguous bytes of B.
 *                     Global loads for k-tile t+1 are issued before the math of tile t (double
 *                     buffering through registers), one barrier per k-tile.
 *   v4_wmma_s8        Tensor cores through WMMA: 16x16x16 s8 fragments, int32 accumulators, a
 *                     128x128 block tile of 8 warps with 64x32 warp tiles (4x2 fragments), a
 *                     4-stage cp.async ring. WMMA wants fragment pointers 32-byte aligned, and a
 *                     k-step of int8 is only 16 bytes, so the tiles are stored as "k-slabs": for
 *                     each 16-byte k-step, the 16-byte pieces of all rows one after another
 *                     (ldm = 16); slabs are padded by 32 bytes so that the cp.async stores of 8
 *                     consecutive chunks hit 8 different bank groups.
 *   v5_mma_s8         mma.sync m16n8k32 with ldmatrix (imma_ptx.cuh, common/kmajor_tile.cuh): the
 *                     int8 fragments are byte for byte the f16 ones of chapter 05, so its K-major
 *                     tiles, XOR swizzle and ldmatrix lane offsets serve unchanged (a 64-byte row
 *                     is 64 int8 values here). The structure of 05's v5_dbuf: 128x256 block tile,
 *                     64x64 warp tiles (4 x 8 mma of 16x8x32), a 4-stage cp.async ring, one
 *                     barrier per k-tile moved before the last k-step, fragments double-buffered
 *                     in registers, blocks rasterised in groups of 8 block-rows.
 */
#include "int8_gemm.h"

#include "gemm_hooks.h"
#include "imma_ptx.cuh"
#include "kmajor_tile.cuh"

#include <mma.h>
#include <stdint.h>

/* ================================================================================================
 * Shared pieces
 * ============================================================================================== */

/* Which operands move in vectors, decided on the host once per launch: a16/b16 16-byte rows of A
 * and B, a4/b4 4-byte words of A and B (v2), c4/c2 16- and 8-byte pieces of C's rows. */
struct i8_vec {
    bool a16, b16, a4, b4, c4, c2;
};

static bool words_ok(const void *ptr, long ld, long K)
{
    return (uintptr_t)ptr % 4 == 0 && ld % 4 == 0 && K % 4 == 0;
}

static i8_vec vector_paths(const tc_gemm_problem *p)
{
    i8_vec v;
    v.a16 = rows_vectorizable(p->d_a, p->lda, p->K, 1); /* common/gemm_tiles.cuh */
    v.b16 = rows_vectorizable(p->d_b, p->ldb, p->K, 1);
    v.a4 = words_ok(p->d_a, p->lda, p->K);
    v.b4 = words_ok(p->d_b, p->ldb, p->K);
    v.c4 = (uintptr_t)p->d_c % 16 == 0 && p->ldc % 4 == 0;
    v.c2 = (uintptr_t)p->d_c % 8 == 0 && p->ldc % 2 == 0;
    return v;
}

/* alpha * x + beta * y modulo 2^32 (unsigned arithmetic: wrap-around is defined) */
static __device__ __forceinline__ int axpby(int alpha, int x, int beta, int y)
{
    return (int)((unsigned)alpha * (unsigned)x + (unsigned)beta * (unsigned)y);
}

/* One element (r, c) of C. */
static __device__ __forceinline__ void store_one(int *__restrict__ C, long ldc, int r, int c, int M,
                                                 int N, int x, int alpha, int beta)
{
    if (r >= M || c >= N) return;
    int *p = C + (size_t)r * ldc + c;
    *p = axpby(alpha, x, beta, beta != 0 ? *p : 0);
}

/* Two neighbours (r, c), (r, c+1) of C, c even: one 8-byte store when the row allows it. */
static __device__ __forceinline__ void store_pair(int *__restrict__ C, long ldc, int r, int c,
                                                  int M, int N, int x, int y, int alpha, int beta,
                                                  bool vec2)
{
    if (r >= M || c >= N) return;
    int *p = C + (size_t)r * ldc + c;
    if (vec2 && c + 1 < N) {
        const int2 old = beta != 0 ? *(const int2 *)p : make_int2(0, 0);
        *(int2 *)p = make_int2(axpby(alpha, x, beta, old.x), axpby(alpha, y, beta, old.y));
    } else {
        p[0] = axpby(alpha, x, beta, beta != 0 ? p[0] : 0);
        if (c + 1 < N) p[1] = axpby(alpha, y, beta, beta != 0 ? p[1] : 0);
    }
}

/* Four neighbours (r, c .. c+3) of C, c a multiple of 4: one 16-byte store when it can. */
static __device__ __forceinline__ void store_quad(int *__restrict__ C, long ldc, int r, int c,
                                                  int M, int N, int4 v, int alpha, int beta,
                                                  bool vec4)
{
    if (r >= M || c >= N) return;
    int *p = C + (size_t)r * ldc + c;
    if (vec4 && c + 3 < N) {
        const int4 old = beta != 0 ? *(const int4 *)p : make_int4(0, 0, 0, 0);
        *(int4 *)p = make_int4(axpby(alpha, v.x, beta, old.x), axpby(alpha, v.y, beta, old.y),
                               axpby(alpha, v.z, beta, old.z), axpby(alpha, v.w, beta, old.w));
    } else {
        const int e[4] = {v.x, v.y, v.z, v.w};
        for (int k = 0; k < 4 && c + k < N; k++)
            p[k] = axpby(alpha, e[k], beta, beta != 0 ? p[k] : 0);
    }
}

/* The slow path of every tile load: the 16 bytes k .. k+15 of row `row` of a K-contiguous matrix
 * (rows x K, leading dimension ld) as one vector, zeros outside the matrix. Out of line, so that
 * it takes no registers from the fast path. */
static __device__ __noinline__ uint4 load_chunk_bytes(const int8_t *__restrict__ g, long ld,
                                                      int row, int k, int rows, int K)
{
    uint32_t w[4] = {0, 0, 0, 0};
    if (row < rows) {
        const int8_t *p = g + (size_t)row * ld;
#pragma unroll
        for (int e = 0; e < 16; e++)
            if (k + e < K) w[e / 4] |= (uint32_t)(uint8_t)p[k + e] << (8 * (e % 4));
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* 16 bytes at (row, k): one vector load when the rows are 16-byte aligned (then K % 16 == 0 and
 * the chunk is all inside or all outside), the byte path otherwise. */
static __device__ __forceinline__ uint4 load_chunk(const int8_t *__restrict__ g, long ld, int row,
                                                   int k, int rows, int K, bool vec)
{
    if (!vec) return load_chunk_bytes(g, ld, row, k, rows, K);
    return row < rows && k < K ? *(const uint4 *)(g + (size_t)row * ld + k)
                               : make_uint4(0, 0, 0, 0);
}

/* The block's tile of C on a 1-D grid (common/gemm_tiles.cuh): any M, N fits the grid limits. */
template <int BM, int BN, int GROUP_M>
static __device__ __forceinline__ void block_origin(int M, int N, int *block_m, int *block_n)
{
    int tm, tn;
    block_tile_coords<GROUP_M>((M + BM - 1) / BM, (N + BN - 1) / BN, &tm, &tn);
    *block_m = tm * BM, *block_n = tn * BN;
}

#define I8_ARGS(p)                                                                                 \
    (p)->M, (p)->N, (p)->K, (const int8_t *)(p)->d_a, (p)->lda, (const int8_t *)(p)->d_b,          \
        (p)->ldb, (int *)(p)->d_c, (p)->ldc, (int)(p)->alpha, (int)(p)->beta, vector_paths(p)

/* ================================================================================================
 * v1: the textbook tiled GEMM, int32 multiply-add, one output per thread
 * ============================================================================================== */
constexpr int V1_TILE = 16;
constexpr int V1_THREADS = V1_TILE * V1_TILE;

__global__ void __launch_bounds__(V1_THREADS)
    i8_v1_int32(int M, int N, int K, const int8_t *__restrict__ A, long lda,
                const int8_t *__restrict__ B, long ldb, int *__restrict__ C, long ldc, int alpha,
                int beta, i8_vec vec)
{
    __shared__ int sA[V1_TILE][V1_TILE];     /* sA[m][k] */
    __shared__ int sB[V1_TILE][V1_TILE + 1]; /* sB[k][n], written transposed: padded */
    const int tx = threadIdx.x % V1_TILE, ty = threadIdx.x / V1_TILE;
    int block_m, block_n;
    block_origin<V1_TILE, V1_TILE, 1>(M, N, &block_m, &block_n);
    const int row = block_m + ty, col = block_n + tx;
    const int b_col = block_n + ty; /* the column of B this thread copies */
    unsigned acc = 0;               /* wraps like the int32 result */
    for (int k0 = 0; k0 < K; k0 += V1_TILE) {
        const int k = k0 + tx; /* consecutive threads read consecutive k: coalesced, A and B */
        sA[ty][tx] = row < M && k < K ? A[(size_t)row * lda + k] : 0;
        sB[tx][ty] = b_col < N && k < K ? B[(size_t)b_col * ldb + k] : 0;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < V1_TILE; kk++) acc += (unsigned)(sA[ty][kk] * sB[kk][tx]);
        __syncthreads();
    }
    store_one(C, ldc, row, col, M, N, (int)acc, alpha, beta);
}

extern "C" void i8_v1_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                             cudaStream_t stream)
{
    i8_v1_int32<<<tile_count(p, V1_TILE, V1_TILE), V1_THREADS, 0, stream>>>(I8_ARGS(p));
}

/* ================================================================================================
 * v2: the same tiling, __dp4a on 32-bit words of four int8 values
 * ============================================================================================== */
constexpr int V2_TILE = 16;                   /* outputs per block side */
constexpr int V2_KW = 16;                     /* 32-bit words of k per tile: 64 int8 values */
constexpr int V2_THREADS = V2_TILE * V2_TILE; /* one output each */
static_assert(V2_KW == V2_TILE, "thread (ty, tx) copies word tx of row ty of each tile");

/* The 4 bytes k .. k+3 of row `row` as one word, zeros outside the matrix. */
static __device__ __forceinline__ uint32_t load_word(const int8_t *__restrict__ g, long ld, int row,
                                                     int k, int rows, int K, bool vec)
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

__global__ void __launch_bounds__(V2_THREADS)
    i8_v2_dp4a_smem(int M, int N, int K, const int8_t *__restrict__ A, long lda,
                    const int8_t *__restrict__ B, long ldb, int *__restrict__ C, long ldc,
                    int alpha, int beta, i8_vec vec)
{
    /* row-major words: sA[m][w] holds A(m, 4w .. 4w+3), sB[n][w] holds B(4w .. 4w+3, n); one
     * word of padding, so that sB[tx][w] for tx = 0..15 falls into 16 different banks */
    __shared__ uint32_t sA[V2_TILE][V2_KW + 1];
    __shared__ uint32_t sB[V2_TILE][V2_KW + 1];
    const int tx = threadIdx.x % V2_TILE, ty = threadIdx.x / V2_TILE;
    int block_m, block_n;
    block_origin<V2_TILE, V2_TILE, 1>(M, N, &block_m, &block_n);
    int acc = 0;
    for (int k0 = 0; k0 < K; k0 += 4 * V2_KW) {
        sA[ty][tx] = load_word(A, lda, block_m + ty, k0 + 4 * tx, M, K, vec.a4);
        sB[ty][tx] = load_word(B, ldb, block_n + ty, k0 + 4 * tx, N, K, vec.b4);
        __syncthreads();
#pragma unroll
        for (int w = 0; w < V2_KW; w++) acc = __dp4a((int)sA[ty][w], (int)sB[tx][w], acc);
        __syncthreads();
    }
    store_one(C, ldc, block_m + ty, block_n + tx, M, N, acc, alpha, beta);
}

extern "C" void i8_v2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                             cudaStream_t stream)
{
    i8_v2_dp4a_smem<<<tile_count(p, V2_TILE, V2_TILE), V2_THREADS, 0, stream>>>(I8_ARGS(p));
}

/* ================================================================================================
 * v3: __dp4a, register-blocked: 8x8 outputs per thread
 * ============================================================================================== */
constexpr int V3_BM = 128, V3_BN = 128; /* block tile */
constexpr int V3_BK = 32;               /* int8 values of k per tile */
constexpr int V3_KW = V3_BK / 4;        /* 32-bit words of k per tile */
constexpr int V3_TM = 8, V3_TN = 8;     /* outputs per thread */
constexpr int V3_THREADS = (V3_BM / V3_TM) * (V3_BN / V3_TN);
constexpr int V3_HALF = V3_BM / 2;   /* a thread's rows: ty*4 + i and V3_HALF + ty*4 + i */
constexpr int V3_SROW = V3_BM + 4;   /* words per k-row of a transposed tile (padded by 4) */
constexpr int V3_TX = V3_BN / V3_TN; /* threads along n (16) */
static_assert(V3_BM == V3_BN, "A and B tiles share the copy and the layout");
static_assert(V3_TM == 8 && V3_TN == 8, "two runs of 4 rows (columns) per thread");
static_assert(V3_THREADS == 256 && V3_BM * V3_BK / 16 == V3_THREADS,
              "one 16-byte chunk of A and one of B per thread and k-tile");
static_assert(V3_BK == 32, "a tile row is 2 chunks: thread i copies chunk i % 2 of row i / 2");
static_assert(V3_SROW % 4 == 0, "16-byte aligned k-rows (LDS.128)");
static_assert(V3_SROW % 32 == 4,
              "rows 4 banks apart: the 32 lanes of a transposing store hit 32 banks");

/* chunk c (words 4c .. 4c+3 of k) of tile row r, stored transposed: s[4c + i][r] = word i */
static __device__ __forceinline__ void store_transposed(uint32_t (*s)[V3_SROW], int r, int c,
                                                        uint4 v)
{
    s[4 * c + 0][r] = v.x;
    s[4 * c + 1][r] = v.y;
    s[4 * c + 2][r] = v.z;
    s[4 * c + 3][r] = v.w;
}

__global__ void __launch_bounds__(V3_THREADS, 2)
    i8_v3_dp4a_regblock(int M, int N, int K, const int8_t *__restrict__ A, long lda,
                        const int8_t *__restrict__ B, long ldb, int *__restrict__ C, long ldc,
                        int alpha, int beta, i8_vec vec)
{
    /* k-major, double-buffered: s[buf][w][r] = word w (k = 4w .. 4w+3) of tile row r */
    __shared__ __align__(16) uint32_t sA[2][V3_KW][V3_SROW];
    __shared__ __align__(16) uint32_t sB[2][V3_KW][V3_SROW];
    const int tx = threadIdx.x % V3_TX, ty = threadIdx.x / V3_TX;
    const int cr = threadIdx.x / 2, cc = threadIdx.x % 2; /* the chunk this thread copies */
    int block_m, block_n;
    block_origin<V3_BM, V3_BN, 1>(M, N, &block_m, &block_n);
    const int k_tiles = (K + V3_BK - 1) / V3_BK;

    uint4 pa = load_chunk(A, lda, block_m + cr, 16 * cc, M, K, vec.a16);
    uint4 pb = load_chunk(B, ldb, block_n + cr, 16 * cc, N, K, vec.b16);
    store_transposed(sA[0], cr, cc, pa);
    store_transposed(sB[0], cr, cc, pb);
    __syncthreads();

    int acc[V3_TM][V3_TN] = {};
    for (int t = 0; t < k_tiles; t++) {
        const int cur = t % 2;
        if (t + 1 < k_tiles) { /* in flight during the math below */
            pa = load_chunk(A, lda, block_m + cr, (t + 1) * V3_BK + 16 * cc, M, K, vec.a16);
            pb = load_chunk(B, ldb, block_n + cr, (t + 1) * V3_BK + 16 * cc, N, K, vec.b16);
        }
#pragma unroll
        for (int w = 0; w < V3_KW; w++) {
            const uint4 a0 = *(const uint4 *)&sA[cur][w][ty * 4];
            const uint4 a1 = *(const uint4 *)&sA[cur][w][V3_HALF + ty * 4];
            const uint4 b0 = *(const uint4 *)&sB[cur][w][tx * 4];
            const uint4 b1 = *(const uint4 *)&sB[cur][w][V3_HALF + tx * 4];
            const int a[V3_TM] = {(int)a0.x, (int)a0.y, (int)a0.z, (int)a0.w,
                                  (int)a1.x, (int)a1.y, (int)a1.z, (int)a1.w};
            const int b[V3_TN] = {(int)b0.x, (int)b0.y, (int)b0.z, (int)b0.w,
                                  (int)b1.x, (int)b1.y, (int)b1.z, (int)b1.w};
#pragma unroll
            for (int i = 0; i < V3_TM; i++)
#pragma unroll
                for (int j = 0; j < V3_TN; j++) acc[i][j] = __dp4a(a[i], b[j], acc[i][j]);
        }
        if (t + 1 < k_tiles) { /* the other buffer: last read before the previous barrier */
            store_transposed(sA[cur ^ 1], cr, cc, pa);
            store_transposed(sB[cur ^ 1], cr, cc, pb);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < V3_TM; i++) {
        const int r = block_m + (i < 4 ? ty * 4 + i : V3_HALF + ty * 4 + i - 4);
#pragma unroll
        for (int h = 0; h < 2; h++)
            store_quad(
                C, ldc, r, block_n + h * V3_HALF + tx * 4, M, N,
                make_int4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]),
                alpha, beta, vec.c4);
    }
}

extern "C" void i8_v3_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                             cudaStream_t stream)
{
    i8_v3_dp4a_regblock<<<tile_count(p, V3_BM, V3_BN), V3_THREADS, 0, stream>>>(I8_ARGS(p));
}

/* ================================================================================================
 * v4: WMMA s8 16x16x16, k-slab tiles, 4-stage cp.async ring
 * ============================================================================================== */
namespace wmma = nvcuda::wmma;

constexpr int WMMA_M = 16, WMMA_N = 16, WMMA_K = 16;
constexpr int V4_BM = 128, V4_BN = 128, V4_BK = 64, V4_STAGES = 4;
constexpr int V4_WARPS_M = 2, V4_WARPS_N = 4, V4_THREADS = 32 * V4_WARPS_M * V4_WARPS_N;
constexpr int V4_WARP_M = V4_BM / V4_WARPS_M, V4_WARP_N = V4_BN / V4_WARPS_N; /* 64 x 32 */
constexpr int V4_FM = V4_WARP_M / WMMA_M, V4_FN = V4_WARP_N / WMMA_N;         /* 4 x 2 */
constexpr int V4_SLABS = V4_BK / WMMA_K; /* 16-byte k-steps per k-tile */
/* slab s of a tile: the 16 bytes k = 16 s .. 16 s + 15 of every row, rows 16 bytes apart, then
 * 32 bytes of padding */
constexpr int V4_A_SLAB = (V4_BM + 2) * 16, V4_B_SLAB = (V4_BN + 2) * 16;
constexpr int V4_A_BYTES = V4_SLABS * V4_A_SLAB, V4_B_BYTES = V4_SLABS * V4_B_SLAB;
constexpr int V4_STAGE_BYTES = V4_A_BYTES + V4_B_BYTES;
constexpr size_t V4_SMEM_BYTES = (size_t)V4_STAGES * V4_STAGE_BYTES;
static_assert(V4_BM % V4_WARPS_M == 0 && V4_BN % V4_WARPS_N == 0, "warps tile the block");
static_assert(V4_WARP_M % WMMA_M == 0 && V4_WARP_N % WMMA_N == 0, "fragments tile the warp");
static_assert(V4_BK % WMMA_K == 0, "the k-tile is whole WMMA steps");
static_assert(V4_A_SLAB % 32 == 0 && V4_B_SLAB % 32 == 0 && V4_A_BYTES % 32 == 0 &&
                  V4_STAGE_BYTES % 32 == 0,
              "every fragment pointer 32-byte aligned (load_matrix_sync)");
static_assert(V4_SLABS == 4 && V4_A_SLAB / 16 % 8 == 2 && V4_B_SLAB / 16 % 8 == 2,
              "8 consecutive chunks (2 rows x 4 slabs) land in 8 different bank groups");
static_assert((V4_BM * V4_SLABS) % V4_THREADS == 0 && (V4_BN * V4_SLABS) % V4_THREADS == 0,
              "the chunks of a tile are shared evenly by the threads");
static_assert(V4_STAGES >= 2, "a ring needs two stages");
static_assert((size_t)(V4_THREADS / 32) * WMMA_M * WMMA_N * 4 <= V4_SMEM_BYTES,
              "the epilogue's per-warp scratch fits in the operand buffers");

typedef wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, signed char, wmma::row_major>
    v4_a_frag;
typedef wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, signed char, wmma::col_major>
    v4_b_frag;
typedef wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, int> v4_acc_frag;

/* The ROWS x BK tile at (row0, k0) of a K-contiguous matrix into k-slabs: chunk c of row r goes
 * to c * SLAB + 16 r. Thread i takes chunks i, i + THREADS, ...: chunk id = 4 r + c, so 4
 * consecutive threads read one row's 64 bytes (coalesced). */
template <int ROWS, int SLAB>
static __device__ __forceinline__ void v4_copy_tile(unsigned char *s, const int8_t *__restrict__ g,
                                                    long ld, int row0, int k0, int rows, int K,
                                                    bool vec)
{
#pragma unroll
    for (int p = 0; p < ROWS * V4_SLABS / V4_THREADS; p++) {
        const int id = threadIdx.x + p * V4_THREADS, r = id / V4_SLABS, c = id % V4_SLABS;
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

__global__ void __launch_bounds__(V4_THREADS)
    i8_v4_wmma(int M, int N, int K, const int8_t *__restrict__ A, long lda,
               const int8_t *__restrict__ B, long ldb, int *__restrict__ C, long ldc, int alpha,
               int beta, i8_vec vec)
{
    extern __shared__ __align__(128) unsigned char smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_m0 = warp / V4_WARPS_N * V4_WARP_M, warp_n0 = warp % V4_WARPS_N * V4_WARP_N;
    int block_m, block_n;
    block_origin<V4_BM, V4_BN, 1>(M, N, &block_m, &block_n);
    const int k_tiles = (K + V4_BK - 1) / V4_BK;

    v4_acc_frag acc[V4_FM][V4_FN];
#pragma unroll
    for (int i = 0; i < V4_FM; i++)
#pragma unroll
        for (int j = 0; j < V4_FN; j++) wmma::fill_fragment(acc[i][j], 0);

    auto load_stage = [&](int t) {
        unsigned char *stage = smem + (t % V4_STAGES) * V4_STAGE_BYTES;
        v4_copy_tile<V4_BM, V4_A_SLAB>(stage, A, lda, block_m, t * V4_BK, M, K, vec.a16);
        v4_copy_tile<V4_BN, V4_B_SLAB>(stage + V4_A_BYTES, B, ldb, block_n, t * V4_BK, N, K,
                                       vec.b16);
    };
    /* prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each (empty groups past the
     * end keep the count that wait_group relies on) */
#pragma unroll
    for (int t = 0; t < V4_STAGES - 1; t++) {
        if (t < k_tiles) load_stage(t);
        cp_async_commit_group();
    }
    for (int t = 0; t < k_tiles; t++) {
        /* k-tile t has landed; the barrier also says every warp is done with k-tile t-1, whose
         * stage is refilled next */
        cp_async_wait_group<V4_STAGES - 2>();
        __syncthreads();
        if (t + V4_STAGES - 1 < k_tiles) load_stage(t + V4_STAGES - 1);
        cp_async_commit_group();
        const unsigned char *sA = smem + (t % V4_STAGES) * V4_STAGE_BYTES, *sB = sA + V4_A_BYTES;
#pragma unroll
        for (int s = 0; s < V4_SLABS; s++) {
            v4_a_frag a[V4_FM];
            v4_b_frag b[V4_FN];
#pragma unroll
            for (int i = 0; i < V4_FM; i++)
                wmma::load_matrix_sync(
                    a[i], (const signed char *)(sA + s * V4_A_SLAB + (warp_m0 + i * WMMA_M) * 16),
                    16);
#pragma unroll
            for (int j = 0; j < V4_FN; j++) /* col_major: column n of B is a row of the slab */
                wmma::load_matrix_sync(
                    b[j], (const signed char *)(sB + s * V4_B_SLAB + (warp_n0 + j * WMMA_N) * 16),
                    16);
#pragma unroll
            for (int i = 0; i < V4_FM; i++)
#pragma unroll
                for (int j = 0; j < V4_FN; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
    }
    cp_async_wait_group<0>();
    __syncthreads(); /* the operand buffers become the epilogue's scratch */

    /* The accumulator's element-to-lane map is unspecified: through a 16x16 int32 scratch tile
     * per warp. Lane l then owns 4 consecutive elements of rows l / 4 and l / 4 + 8. */
    int *scratch = (int *)smem + warp * WMMA_M * WMMA_N;
#pragma unroll
    for (int i = 0; i < V4_FM; i++)
#pragma unroll
        for (int j = 0; j < V4_FN; j++) {
            wmma::store_matrix_sync(scratch, acc[i][j], WMMA_N, wmma::mem_row_major);
            __syncwarp();
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int r = lane / 4 + 8 * h, c = 4 * (lane % 4);
                store_quad(C, ldc, block_m + warp_m0 + i * WMMA_M + r,
                           block_n + warp_n0 + j * WMMA_N + c, M, N,
                           *(const int4 *)(scratch + r * WMMA_N + c), alpha, beta, vec.c4);
            }
            __syncwarp(); /* the scratch is rewritten for the next fragment */
        }
}

extern "C" const char *i8_v4_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return allow_smem((const void *)i8_v4_wmma, V4_SMEM_BYTES);
}

extern "C" void i8_v4_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                             cudaStream_t stream)
{
    i8_v4_wmma<<<tile_count(p, V4_BM, V4_BN), V4_THREADS, V4_SMEM_BYTES, stream>>>(I8_ARGS(p));
}

/* ================================================================================================
 * v5: mma.sync m16n8k32 .s8, ldmatrix, swizzled K-major tiles, cp.async ring, dbuf fragments
 * ============================================================================================== */
constexpr int MMA_M = 16, MMA_N = 8, MMA_K = 32; /* mma.sync m16n8k32: k in int8 values */
constexpr int V5_BM = 128, V5_BN = 256, V5_BK = 64, V5_STAGES = 4, V5_GROUP_M = 8;
constexpr int V5_WARPS_M = 2, V5_WARPS_N = 4, V5_THREADS = 32 * V5_WARPS_M * V5_WARPS_N;
constexpr int V5_WARP_M = V5_BM / V5_WARPS_M, V5_WARP_N = V5_BN / V5_WARPS_N; /* 64 x 64 */
constexpr int V5_MT = V5_WARP_M / MMA_M, V5_NT = V5_WARP_N / MMA_N;           /* 4 x 8 */
constexpr int V5_KSTEPS = V5_BK / MMA_K;
/* A row of BK int8 values is BK / 2 16-bit words: the unit of kmajor_tile (and of ldmatrix) */
typedef kmajor_tile<V5_BK / 2, true> V5Tile;
constexpr int V5_A_BYTES = V5_BM * V5Tile::ROW_BYTES, V5_B_BYTES = V5_BN * V5Tile::ROW_BYTES;
constexpr int V5_STAGE_BYTES = V5_A_BYTES + V5_B_BYTES;
constexpr size_t V5_SMEM_BYTES = (size_t)V5_STAGES * V5_STAGE_BYTES;
constexpr int V5_PER_ROW = V5Tile::ROW_BYTES / 16;        /* 16-byte chunks per tile row */
constexpr int V5_ROWS_PER_PASS = V5_THREADS / V5_PER_ROW; /* rows one pass of the copy covers */
static_assert(V5Tile::ROW_BYTES == V5_BK, "one byte per int8 value");
static_assert(V5_BM % V5_WARPS_M == 0 && V5_BN % V5_WARPS_N == 0, "warps tile the block");
static_assert(V5_WARP_M % MMA_M == 0, "16-row A fragments tile the warp");
static_assert(V5_WARP_N % (2 * MMA_N) == 0, "B fragments are loaded in pairs (16 columns)");
static_assert(V5_BK % MMA_K == 0, "the k-tile is whole mma k-steps");
static_assert(V5_KSTEPS % 2 == 0, "fragment sets alternate within and across k-tiles");
static_assert(V5_STAGES >= 3, "loading k-tile t+1 while t is multiplied needs 3 stages");
static_assert(V5_THREADS % V5_PER_ROW == 0 && V5_BM % V5_ROWS_PER_PASS == 0 &&
                  V5_BN % V5_ROWS_PER_PASS == 0,
              "the threads cover whole rows, and whole passes cover each tile");
static_assert(V5_ROWS_PER_PASS % 8 == 0, "a thread's rows share the swizzle (period 8)");
static_assert(V5_A_BYTES % 128 == 0 && V5_STAGE_BYTES % 128 == 0,
              "every tile starts 128-byte aligned (the swizzle's bank arithmetic)");

/* A thread's part in copying a tile: chunk column `col / 16` of rows row, row + ROWS_PER_PASS,
 * ...; those rows are a multiple of 8 apart, so they share one swizzled offset (dst) and one
 * global pointer (src) plus constant strides. */
struct v5_copy {
    const int8_t *src; /* the thread's first chunk at k = 0 (the row may be outside the matrix) */
    uint32_t dst;      /* its byte offset in the tile */
    int row, col;      /* its first row in the matrix, its first k in the tile */
};

static __device__ __forceinline__ v5_copy v5_copy_role(const int8_t *__restrict__ g, long ld,
                                                       int row0)
{
    const int r = threadIdx.x / V5_PER_ROW, c = threadIdx.x % V5_PER_ROW;
    v5_copy cp;
    cp.row = row0 + r, cp.col = 16 * c;
    cp.src = g + (size_t)cp.row * ld + cp.col;
    cp.dst = V5Tile::chunk_offset(r, c);
    return cp;
}

/* The ROWS x BK tile at k0 into a swizzled K-major tile: cp.async 16 bytes per chunk, zero-filled
 * outside the matrix (src_bytes = 0); rows that are not 16-byte aligned take the byte path (the
 * ring's barriers order both). */
template <int ROWS>
static __device__ __forceinline__ void v5_copy_tile(unsigned char *tile, const v5_copy &cp,
                                                    const int8_t *__restrict__ g, long ld, int k0,
                                                    int rows, int K, bool vec)
{
    constexpr int PASSES = ROWS / V5_ROWS_PER_PASS;
    constexpr int PASS_BYTES = V5_ROWS_PER_PASS * V5Tile::ROW_BYTES;
    if (!vec) {
#pragma unroll
        for (int p = 0; p < PASSES; p++)
            *(uint4 *)(tile + cp.dst + p * PASS_BYTES) =
                load_chunk_bytes(g, ld, cp.row + p * V5_ROWS_PER_PASS, k0 + cp.col, rows, K);
        return;
    }
    const uint32_t base = smem_u32(tile) + cp.dst;
    const bool k_inside = k0 + cp.col < K;
#pragma unroll
    for (int p = 0; p < PASSES; p++) {
        const bool inside = k_inside && cp.row + p * V5_ROWS_PER_PASS < rows;
        const int8_t *src = cp.src + (size_t)p * V5_ROWS_PER_PASS * ld + k0;
        cp_async_16(base + p * PASS_BYTES, inside ? (const void *)src : (const void *)g,
                    inside ? 16 : 0);
    }
}

static __device__ __forceinline__ void v5_load_k_tile(unsigned char *smem, const v5_copy &copy_a,
                                                      const v5_copy &copy_b,
                                                      const int8_t *__restrict__ A, long lda,
                                                      const int8_t *__restrict__ B, long ldb, int M,
                                                      int N, int K, i8_vec vec, int t)
{
    unsigned char *stage = smem + (t % V5_STAGES) * V5_STAGE_BYTES;
    v5_copy_tile<V5_BM>(stage, copy_a, A, lda, t * V5_BK, M, K, vec.a16);
    v5_copy_tile<V5_BN>(stage + V5_A_BYTES, copy_b, B, ldb, t * V5_BK, N, K, vec.b16);
}

/* The warp's MT A fragments and NT B fragments of one k-step (lane offsets a_off, b_off from
 * common/kmajor_tile.cuh, computed once per k-step). */
static __device__ __forceinline__ void v5_load_frags(uint32_t (&a)[V5_MT][4],
                                                     uint32_t (&b)[V5_NT][2], uint32_t sA,
                                                     uint32_t sB, int warp_m0, int warp_n0,
                                                     uint32_t a_off, uint32_t b_off)
{
#pragma unroll
    for (int i = 0; i < V5_MT; i++)
        load_a_frag_ldmatrix<V5Tile>(a[i], sA, warp_m0 + i * MMA_M, a_off);
#pragma unroll
    for (int j = 0; j < V5_NT / 2; j++)
        load_b_frags_ldmatrix<V5Tile>(b[2 * j], b[2 * j + 1], sB, warp_n0 + 2 * j * MMA_N, b_off);
}

static __device__ __forceinline__ void v5_mma_step(int (&acc)[V5_MT][V5_NT][4],
                                                   const uint32_t (&a)[V5_MT][4],
                                                   const uint32_t (&b)[V5_NT][2])
{
#pragma unroll
    for (int i = 0; i < V5_MT; i++)
#pragma unroll
        for (int j = 0; j < V5_NT; j++) mma_m16n8k32_s8(acc[i][j], a[i], b[j]);
}

__global__ void __launch_bounds__(V5_THREADS, 1)
    i8_v5_mma(int M, int N, int K, const int8_t *__restrict__ A, long lda,
              const int8_t *__restrict__ B, long ldb, int *__restrict__ C, long ldc, int alpha,
              int beta, i8_vec vec)
{
    extern __shared__ __align__(128) unsigned char smem[];
    const uint32_t smem_base = smem_u32(smem);
    const int warp = threadIdx.x / 32;
    const int warp_m0 = warp / V5_WARPS_N * V5_WARP_M, warp_n0 = warp % V5_WARPS_N * V5_WARP_N;
    int block_m, block_n;
    block_origin<V5_BM, V5_BN, V5_GROUP_M>(M, N, &block_m, &block_n);
    const v5_copy copy_a = v5_copy_role(A, lda, block_m), copy_b = v5_copy_role(B, ldb, block_n);
    const int k_tiles = (K + V5_BK - 1) / V5_BK;
    uint32_t a_off[V5_KSTEPS], b_off[V5_KSTEPS];
#pragma unroll
    for (int ks = 0; ks < V5_KSTEPS; ks++) {
        a_off[ks] = a_frag_lane_offset<V5Tile>(ks);
        b_off[ks] = b_frag_lane_offset<V5Tile>(ks);
    }
    int acc[V5_MT][V5_NT][4] = {};
    uint32_t a[2][V5_MT][4], b[2][V5_NT][2]; /* two fragment sets: multiplied, being loaded */

    /* prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each */
#pragma unroll
    for (int t = 0; t < V5_STAGES - 1; t++) {
        if (t < k_tiles) v5_load_k_tile(smem, copy_a, copy_b, A, lda, B, ldb, M, N, K, vec, t);
        cp_async_commit_group();
    }
    cp_async_wait_group<V5_STAGES - 2>(); /* k-tile 0 */
    __syncthreads();
    v5_load_frags(a[0], b[0], smem_base, smem_base + V5_A_BYTES, warp_m0, warp_n0, a_off[0],
                  b_off[0]);

    for (int t = 0; t < k_tiles; t++) {
        const uint32_t sA = smem_base + (t % V5_STAGES) * V5_STAGE_BYTES, sB = sA + V5_A_BYTES;
#pragma unroll
        for (int ks = 0; ks < V5_KSTEPS; ks++) {
            const int cur = ks % 2, nxt = cur ^ 1;
            if (ks == V5_KSTEPS - 1) {
                /* groups committed so far: STAGES-1 + t; k-tile t+1 is group t+1. After the
                 * barrier every warp is past its reads of k-tile t-1, whose stage is refilled. */
                cp_async_wait_group<V5_STAGES - 3>();
                __syncthreads();
                if (t + V5_STAGES - 1 < k_tiles)
                    v5_load_k_tile(smem, copy_a, copy_b, A, lda, B, ldb, M, N, K, vec,
                                   t + V5_STAGES - 1);
                cp_async_commit_group();
                if (t + 1 < k_tiles) {
                    const uint32_t nA = smem_base + ((t + 1) % V5_STAGES) * V5_STAGE_BYTES;
                    v5_load_frags(a[nxt], b[nxt], nA, nA + V5_A_BYTES, warp_m0, warp_n0, a_off[0],
                                  b_off[0]);
                }
            } else {
                v5_load_frags(a[nxt], b[nxt], sA, sB, warp_m0, warp_n0, a_off[ks + 1],
                              b_off[ks + 1]);
            }
            v5_mma_step(acc, a[cur], b[cur]);
        }
    }
    cp_async_wait_group<0>(); /* only empty groups are left; leave none behind */

    /* straight from registers: accumulator (i, j) of lane (g, t) holds rows g and g + 8, columns
     * 2t and 2t + 1 of its 16x8 tile (imma_ptx.cuh): two 8-byte stores */
    const int lane = threadIdx.x % 32, g = lane / 4, tq = lane % 4;
#pragma unroll
    for (int i = 0; i < V5_MT; i++)
#pragma unroll
        for (int j = 0; j < V5_NT; j++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                store_pair(C, ldc, block_m + warp_m0 + i * MMA_M + g + 8 * h,
                           block_n + warp_n0 + j * MMA_N + 2 * tq, M, N, acc[i][j][2 * h],
                           acc[i][j][2 * h + 1], alpha, beta, vec.c2);
}

extern "C" const char *i8_v5_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return allow_smem((const void *)i8_v5_mma, V5_SMEM_BYTES);
}

extern "C" void i8_v5_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                             cudaStream_t stream)
{
    i8_v5_mma<<<tile_count(p, V5_BM, V5_BN), V5_THREADS, V5_SMEM_BYTES, stream>>>(I8_ARGS(p));
}

/* ================================================================================================
 * The int8 data as f32, for the SGEMM comparison row (in prepare, outside the timed region)
 * ============================================================================================== */
__global__ void i8_to_f32(const int8_t *__restrict__ src, float *__restrict__ dst, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = (float)src[i];
}

extern "C" void i8_to_f32_launch(const int8_t *src, float *dst, size_t n, cudaStream_t stream)
{
    i8_to_f32<<<1024, 256, 0, stream>>>(src, dst, n);
}
