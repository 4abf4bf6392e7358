/* common/mma_parts.cuh - the parts every mma.sync GEMM rung of chapter 05 is built from (part 1,
 * v1_hand .. v6_epilogue), over the input type: f16 and bf16 with mma.m16n8k16 (chapter 05),
 * f32 read as tf32 with mma.m16n8k8 (chapter 04's v6_mma_tf32, which runs 05's v6_epilogue,
 * common/mma_v6_epilogue.cuh). Chapter 05's rung files (05_mma_ptx/mma/v1_hand.cuh ..
 * v5_dbuf.cuh) explain each piece as the ladder adds it; this file is where the pieces live. No
 * harness header: a rung that includes this file can be copied into any program.
 *
 * Problem and layout
 *   C = alpha * A * B + beta * C. A is M x K row-major (lda), B is K x N column-major (ldb: the
 *   distance between columns), C is M x N row-major f32 (ldc). Both operands are K-contiguous,
 *   which is what mma .row.col wants: a row of A and a column of B become rows of a "K-major"
 *   shared-memory tile (common/kmajor_tile.cuh), and ldmatrix without .trans makes fragments of
 *   both. beta == 0 never reads C. Any M, N, K >= 1: tile loads outside the matrix are
 *   zero-filled, stores are guarded; rows move as 16-byte vectors when they are 16-byte aligned
 *   (mma_vector_paths), one 16-bit word at a time otherwise.
 *
 * One kernel for both element sizes
 *   A K-major tile counts 16-bit words and bytes, not elements, and one mma k-step is 32 bytes of
 *   every tile row: 16 halves for m16n8k16, 8 tf32 values for m16n8k8. The fragments of the two
 *   instructions are the same bytes in the same registers: lane (g, t) of an A fragment holds
 *   bytes 4t .. 4t+3 of rows g and g+8, in the first and in the second 16 bytes of the k-step
 *   (two halves, or one tf32 value, each); B likewise with one row per n (common/mma_sync.cuh).
 *   So the kernels see A and B as arrays of 16-bit words: K, lda and ldb count words (an f32
 *   value is two), a 16-byte chunk is 8 words (8 halves or 4 floats), a k-tile of BK words is BK
 *   halves or BK / 2 floats, and the input type T only picks the mma instruction (mma_f32<T>).
 *   A rung's prepare function converts a problem's elements into words (words_per_elem).
 *
 *   mma_f32<T>               the mma of one k-step for input type T (__half, __nv_bfloat16, float)
 *   gemm_config              block, warp and k-tile sizes, stages, swizzle, shared memory
 *   mma_vec_flags            which operands move as vectors (mma_vector_paths, on the host)
 *   words_per_elem<T>        16-bit words per element (1 for halves, 2 for floats)
 *   tile_copy, copy_tile_sync, copy_tile_async    tile loads, zero-filled outside the matrix
 *   load_frags_ldmatrix, mma_step                 a warp's fragments and its MT x NT mmas
 *   block_tile_origin, load_k_tile                the 1-D grid's tile order, one k-tile's copies
 *
 * Minimum: sm_80 (cp.async, bf16 and tf32 mma). CUDA 12.x or 13.x. Copy it with
 * common/gemm_tiles.cuh, kmajor_tile.cuh, mma_sync.cuh and what they include. */
#ifndef TC_MMA_PARTS_CUH
#define TC_MMA_PARTS_CUH

#include "gemm_tiles.cuh"
#include "kmajor_tile.cuh"
#include "mma_sync.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

/* mma_f32<T>::run(d, a, b): the mma of one k-step (32 bytes of every tile row) with f32
 * accumulate for input type T, with the same fragment registers for every T. */
template <class T> struct mma_f32;
template <> struct mma_f32<__half> {
    static constexpr int K = 16; /* k per instruction: 16 halves = 32 bytes */
    static __device__ __forceinline__ void run(float (&d)[4], const uint32_t (&a)[4],
                                               const uint32_t (&b)[2])
    {
        mma_m16n8k16_f16f32(d, a, b);
    }
};
template <> struct mma_f32<__nv_bfloat16> {
    static constexpr int K = 16;
    static __device__ __forceinline__ void run(float (&d)[4], const uint32_t (&a)[4],
                                               const uint32_t (&b)[2])
    {
        mma_m16n8k16_bf16f32(d, a, b);
    }
};
/* f32 data, multiplied as tf32: the tensor core ignores the 13 low bits of each f32 value. */
template <> struct mma_f32<float> {
    static constexpr int K = 8; /* 8 tf32 values = 32 bytes */
    static __device__ __forceinline__ void run(float (&d)[4], const uint32_t (&a)[4],
                                               const uint32_t (&b)[2])
    {
        mma_m16n8k8_tf32f32(d, a, b);
    }
};

/* One mma tile is 16 x 8 of C; one k-step is 32 bytes of a tile row, 16 16-bit words. */
constexpr int MMA_M = 16, MMA_N = 8, KSTEP_WORDS = 16;

/* ================================================================================================
 * The configuration of a kernel
 * ============================================================================================== */
/* A block computes a BM x BN tile of C with WARPS_M x WARPS_N warps; each warp owns a WARP_M x
 * WARP_N tile held as MT x NT accumulators of 16x8 (4 f32 per lane each). K advances in k-tiles
 * of BK 16-bit words (KSTEPS mma k-steps of 16 words); STAGES k-tiles live in shared memory at
 * once. */
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int STAGES_, bool SWIZZLE_>
struct gemm_config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_;
    static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_;
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int WARP_M = BM / WARPS_M, WARP_N = BN / WARPS_N;
    static constexpr int MT = WARP_M / MMA_M, NT = WARP_N / MMA_N;
    static constexpr int KSTEPS = BK / KSTEP_WORDS;
    typedef kmajor_tile<BK, SWIZZLE_> Tile;
    static constexpr int A_BYTES = BM * Tile::ROW_BYTES, B_BYTES = BN * Tile::ROW_BYTES;
    static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
    static constexpr size_t SMEM_BYTES = (size_t)STAGES * STAGE_BYTES;

    static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0, "warps tile the block");
    static_assert(WARP_M % MMA_M == 0, "16-row A fragments tile the warp");
    static_assert(WARP_N % (2 * MMA_N) == 0, "B fragments are loaded in pairs (16 columns)");
    static_assert(BK % KSTEP_WORDS == 0, "the k-tile is whole mma k-steps");
    static_assert((BM * BK / 8) % THREADS == 0 && (BN * BK / 8) % THREADS == 0,
                  "the 16-byte chunks of a tile are shared evenly by the threads");
    static_assert(A_BYTES % 128 == 0 && STAGE_BYTES % 128 == 0,
                  "every tile starts 128-byte aligned (the swizzle's bank arithmetic)");
};

/* Which operands move as vectors, decided on the host once per launch: a, b 16-byte rows of A and
 * B; c2, c4 8- and 16-byte pieces of C's rows. */
struct mma_vec_flags {
    bool a, b, c2, c4;
};

/* 16-byte rows: the base 16-byte aligned, every row a whole number of 16-byte vectors apart, and
 * the row length (K) whole vectors, so that a vector is all inside the matrix or all outside.
 * lda, ldb and K count elements; elem: the size of A's and B's elements in bytes (2 for halves, 4
 * for floats). C's pieces: 8 and 16 bytes, their rows a whole number of pieces apart. */
static inline mma_vec_flags mma_vector_paths(const void *A, long lda, const void *B, long ldb,
                                             int K, size_t elem, const float *C, long ldc)
{
    mma_vec_flags v;
    v.a = rows_vectorizable(A, lda, K, elem);
    v.b = rows_vectorizable(B, ldb, K, elem);
    v.c2 = (uintptr_t)C % 8 == 0 && ldc % 2 == 0;
    v.c4 = (uintptr_t)C % 16 == 0 && ldc % 4 == 0;
    return v;
}

/* 16-bit words per element of type T: 1 for halves, 2 for floats. A rung's prepare function
 * multiplies K, lda and ldb by it: the kernels count k in words. */
template <class T> constexpr int words_per_elem() { return (int)(sizeof(T) / sizeof(uint16_t)); }

/* ================================================================================================
 * Tile loads: a ROWS x BK tile of a K-contiguous matrix (rows x K, leading dimension ld, both in
 * 16-bit words) at (row0, k0) into a K-major shared tile; outside the matrix the tile gets zeros.
 *
 * Thread i copies the 16-byte chunk column i % PER_ROW of rows i / PER_ROW + p * ROWS_PER_PASS,
 * p = 0 .. PASSES-1: consecutive threads copy consecutive 16 bytes of a row (coalesced), and the
 * rows of one thread are a multiple of 8 apart, so they share the swizzle pattern (period 8): one
 * shared-memory offset and one global pointer per thread and operand, plus constant strides.
 * ============================================================================================== */
template <class Cfg, int ROWS> struct tile_copy {
    static constexpr int PER_ROW = Cfg::BK / 8; /* 16-byte chunks per row */
    static constexpr int ROWS_PER_PASS = Cfg::THREADS / PER_ROW;
    static constexpr int PASSES = ROWS / ROWS_PER_PASS;
    static_assert(Cfg::THREADS % PER_ROW == 0 && ROWS % ROWS_PER_PASS == 0,
                  "the threads cover whole rows, and whole passes cover the tile");
    static_assert(ROWS_PER_PASS % 8 == 0, "a thread's rows share the swizzle (period 8)");

    const uint16_t *src; /* this thread's first chunk at k = 0 (row may be outside the matrix) */
    uint32_t dst;        /* its byte offset in the tile */
    int row, col;        /* its first row in the matrix, its first k in the tile */

    __device__ __forceinline__ tile_copy(const uint16_t *__restrict__ g, long ld, int row0)
    {
        const int r = threadIdx.x / PER_ROW, c = threadIdx.x % PER_ROW;
        row = row0 + r, col = 8 * c;
        src = g + (size_t)row * ld + col;
        dst = Cfg::Tile::chunk_offset(r, c);
    }
};

/* The slow path for rows that are not 16-byte aligned: one 16-byte chunk, word by word (an f32
 * value is two words, both inside or both outside since K is even in words). Kept out of line so
 * that it does not take registers from the main loop. */
static __device__ __noinline__ void load_chunk_scalar(unsigned char *dst,
                                                      const uint16_t *__restrict__ g, long ld,
                                                      int gr, int gk, int rows, int K)
{
    uint16_t *d = (uint16_t *)dst;
    for (int e = 0; e < 8; e++)
        d[e] = gr < rows && gk + e < K ? g[(size_t)gr * ld + gk + e] : (uint16_t)0;
}

/* Synchronous: global -> registers -> shared (chapter 05's v1..v3, and the pipelines for
 * unaligned rows). */
template <class Cfg, int ROWS>
__device__ __forceinline__ void copy_tile_sync(unsigned char *tile, const tile_copy<Cfg, ROWS> &cp,
                                               const uint16_t *__restrict__ g, long ld, int k0,
                                               int rows, int K, bool vec)
{
    typedef tile_copy<Cfg, ROWS> TC;
#pragma unroll
    for (int p = 0; p < TC::PASSES; p++) {
        const int gr = cp.row + p * TC::ROWS_PER_PASS, gk = k0 + cp.col;
        unsigned char *dst = tile + cp.dst + p * TC::ROWS_PER_PASS * Cfg::Tile::ROW_BYTES;
        if (vec) {
            uint4 x = make_uint4(0, 0, 0, 0); /* K % 8 == 0 (words): all in or all out */
            if (gr < rows && gk < K)
                x = *(const uint4 *)(cp.src + (size_t)p * TC::ROWS_PER_PASS * ld + k0);
            *(uint4 *)dst = x;
        } else {
            load_chunk_scalar(dst, g, ld, gr, gk, rows, K);
        }
    }
}

/* Asynchronous: cp.async 16 bytes per chunk, zero-filled outside (the pipelines). Rows that are
 * not 16-byte aligned take the synchronous path (the pipeline's barriers order both). */
template <class Cfg, int ROWS>
__device__ __forceinline__ void copy_tile_async(unsigned char *tile, const tile_copy<Cfg, ROWS> &cp,
                                                const uint16_t *__restrict__ g, long ld, int k0,
                                                int rows, int K, bool vec)
{
    typedef tile_copy<Cfg, ROWS> TC;
    if (!vec) {
        copy_tile_sync<Cfg, ROWS>(tile, cp, g, ld, k0, rows, K, false);
        return;
    }
    const uint32_t base = smem_u32(tile) + cp.dst;
    const bool k_inside = k0 + cp.col < K;
#pragma unroll
    for (int p = 0; p < TC::PASSES; p++) {
        const bool inside = k_inside && cp.row + p * TC::ROWS_PER_PASS < rows;
        /* outside: src_bytes = 0 writes 16 zero bytes; the source address must still be valid */
        const uint16_t *src = cp.src + (size_t)p * TC::ROWS_PER_PASS * ld + k0;
        cp_async_16(base + p * TC::ROWS_PER_PASS * Cfg::Tile::ROW_BYTES, inside ? src : g,
                    inside ? 16 : 0);
    }
}

/* ================================================================================================
 * The warp's fragments and mmas
 * ============================================================================================== */

/* ldmatrix.x4 (chapter 05's v2..v6), one per A fragment and one per pair of B fragments. a_off,
 * b_off: the lane's offsets for this k-step (a_frag_lane_offset, b_frag_lane_offset), computed
 * once. The same addresses give f16, bf16 and tf32 fragments (the file's header). */
template <class Cfg>
__device__ __forceinline__ void
load_frags_ldmatrix(uint32_t (&a)[Cfg::MT][4], uint32_t (&b)[Cfg::NT][2], uint32_t sA, uint32_t sB,
                    int warp_m0, int warp_n0, uint32_t a_off, uint32_t b_off)
{
#pragma unroll
    for (int i = 0; i < Cfg::MT; i++)
        load_a_frag_ldmatrix<typename Cfg::Tile>(a[i], sA, warp_m0 + i * MMA_M, a_off);
#pragma unroll
    for (int j = 0; j < Cfg::NT / 2; j++)
        load_b_frags_ldmatrix<typename Cfg::Tile>(b[2 * j], b[2 * j + 1], sB,
                                                  warp_n0 + 2 * j * MMA_N, b_off);
}

/* MT x NT mmas: every A fragment meets every B fragment */
template <class T, class Cfg>
__device__ __forceinline__ void mma_step(float (&acc)[Cfg::MT][Cfg::NT][4],
                                         const uint32_t (&a)[Cfg::MT][4],
                                         const uint32_t (&b)[Cfg::NT][2])
{
#pragma unroll
    for (int i = 0; i < Cfg::MT; i++)
#pragma unroll
        for (int j = 0; j < Cfg::NT; j++) mma_f32<T>::run(acc[i][j], a[i], b[j]);
}

/* ================================================================================================
 * The cp.async pipeline
 * ============================================================================================== */

/* Blocks run on a 1-D grid and are mapped to tiles of C here. GROUP_M = 1: row by row.
 * GROUP_M = g: bands of g block-rows, walked column by column, so that the ~132 blocks resident
 * at once cover a g x (132 / g) patch of C and fetch each tile of A and B from DRAM about once
 * (rasterisation). */
template <class Cfg, int GROUP_M>
__device__ __forceinline__ void block_tile_origin(int M, int N, int *block_m, int *block_n)
{
    int tm, tn; /* block_tile_coords: common/gemm_tiles.cuh */
    block_tile_coords<GROUP_M>((M + Cfg::BM - 1) / Cfg::BM, (N + Cfg::BN - 1) / Cfg::BN, &tm, &tn);
    *block_m = tm * Cfg::BM, *block_n = tn * Cfg::BN;
}

/* Starts the copies of k-tile t of A and B into its stage of the ring (stage t % STAGES). */
template <class Cfg>
__device__ __forceinline__ void
load_k_tile(unsigned char *smem, const tile_copy<Cfg, Cfg::BM> &copy_a,
            const tile_copy<Cfg, Cfg::BN> &copy_b, const uint16_t *__restrict__ A, long lda,
            const uint16_t *__restrict__ B, long ldb, int M, int N, int K, mma_vec_flags vec, int t)
{
    unsigned char *stage = smem + (t % Cfg::STAGES) * Cfg::STAGE_BYTES;
    copy_tile_async<Cfg, Cfg::BM>(stage, copy_a, A, lda, t * Cfg::BK, M, K, vec.a);
    copy_tile_async<Cfg, Cfg::BN>(stage + Cfg::A_BYTES, copy_b, B, ldb, t * Cfg::BK, N, K, vec.b);
}

#endif /* TC_MMA_PARTS_CUH */
