/* 10_flash_attention/attn_tile.cuh - the plumbing the attention kernels share (CUDA C++): a tile of
 * rows of a BSHD tensor in shared memory (one query or key per row, D 16-bit values), swizzled;
 * its cp.async load; the ldmatrix fragments of Q (A), K (B) and V (B, transposed); the f32 pair
 * packed into two halves of the input type. None of it is a rung's lesson; each rung file
 * includes it. No harness header: copy it with the rung, attn_layout.h and common/'s
 * mma_parts.cuh (and what that includes).
 *
 * The tile. ROWS rows of D values, each row D / 8 chunks of 16 bytes (128 or 256 bytes for D = 64
 * or 128). Within every 128-byte segment of a row, chunk c sits at position c ^ (row % 8)
 * (common/swizzle.h with 8 chunks per line): the 8 rows an ldmatrix phase reads at one logical
 * chunk land in 8 different bank groups, with or without .trans.
 *
 *   row r, D = 128:  [seg 0: chunks 0..7, XOR r%8][seg 1: chunks 8..15, XOR r%8]
 *
 * Fragments (common/mma_sync.cuh's maps, common/ldmatrix.cuh's lane addressing):
 *   Q, the A operand of S = Q K^T, rows m0..m0+15, k-step ks (d = 16 ks .. 16 ks + 15):
 *       lane l gives row m0 + l % 16, chunk 2 ks + l / 16                       (ldmatrix_x4)
 *   K, the B operand (B[k = d][n = key] is K[key][d]: each key row is a column of B, d
 *       contiguous, as .col wants): keys n0..n0+15 as two n8 blocks, k-step ks:
 *       lane l gives row n0 + l % 8 + 8 (l / 16), chunk 2 ks + (l / 8) % 2      (ldmatrix_x4)
 *   V, the B operand of O = P V (B[k = key][n = d] is V[key][d]: rows of k with n contiguous,
 *       so ldmatrix .trans): keys k0..k0+15, dims n0..n0+15 as two n8 blocks:
 *       lane l gives row k0 + l % 16, chunk n0 / 8 + l / 16                     (ldmatrix_x4_trans)
 *
 * Requires sm_80 (cp.async, bf16 mma), CUDA 12.x or 13.x. */
#ifndef ATTN_TILE_CUH
#define ATTN_TILE_CUH

#include "attn_layout.h"

#include "mma_parts.cuh" /* mma_f32<T>, smem_optin, cp.async, ldmatrix */
#include "swizzle.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

/* 2^x on the special-function unit, one MUFU.EX2, results below 2^-126 flushed to 0. exp2f
 * (without --use_fast_math) wraps the same instruction in a range check and two multiplies so that
 * such results come out as denormals: 3 of the softmax's ~7 instructions per score. Nothing here
 * needs them: P is at most 1 and is rounded to f16 (least denormal 2^-24) or bf16, and the row sum
 * is at least 1. exp2(-inf) = 0 and NaN stays NaN, as with exp2f. */
static __device__ __forceinline__ float attn_exp2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

template <int ROWS_, int D_> struct attn_tile {
    static constexpr int ROWS = ROWS_, D = D_;
    static constexpr int CHUNKS = D / 8; /* 16-byte chunks per row */
    static constexpr int ROW_BYTES = 2 * D;
    static constexpr int BYTES = ROWS * ROW_BYTES;
    static_assert(D % 64 == 0, "rows of whole 128-byte segments, the swizzle's unit");
    static_assert(ROWS % 16 == 0, "whole 16-row fragments");
    static_assert(BYTES % 128 == 0, "the next tile starts 128-byte aligned");

    /* byte offset of chunk c of row r */
    static __device__ __forceinline__ uint32_t chunk_offset(int r, int c)
    {
        return (uint32_t)(r * ROW_BYTES + (c & ~7) * 16 + tc_swizzle_chunk(r, c & 7, 8) * 16);
    }
};

/* Starts the copies of rows row0 .. row0 + ROWS - 1 of one head of a tensor (g: its (b, h) base,
 * seq: its row stride, both in 16-bit words) into the tile at shared address `tile`; rows at or
 * past `rows` are zero-filled (cp.async with 0 source bytes). Thread i copies chunks i, i +
 * THREADS, ...: consecutive threads take consecutive 16 bytes of a row. The caller commits. */
template <class Tile, int THREADS>
__device__ __forceinline__ void attn_load_tile(uint32_t tile, const uint16_t *__restrict__ g,
                                               long seq, int row0, int rows)
{
    constexpr int TOTAL = Tile::ROWS * Tile::CHUNKS;
    static_assert(TOTAL % THREADS == 0, "the chunks of a tile are shared evenly by the threads");
#pragma unroll
    for (int p = 0; p < TOTAL / THREADS; p++) {
        const int id = (int)threadIdx.x + p * THREADS, r = id / Tile::CHUNKS, c = id % Tile::CHUNKS;
        const bool inside = row0 + r < rows;
        /* outside: 16 zero bytes, from a valid address */
        const uint16_t *src = inside ? g + (size_t)(row0 + r) * seq + c * 8 : g;
        cp_async_16(tile + Tile::chunk_offset(r, c), src, inside ? 16 : 0);
    }
}

/* The A fragment of rows m0..m0+15 at k-step ks. */
template <class Tile>
__device__ __forceinline__ void attn_frag_a(uint32_t (&a)[4], uint32_t tile, int m0, int ks)
{
    const int lane = threadIdx.x % 32;
    ldmatrix_x4(a, tile + Tile::chunk_offset(m0 + lane % 16, 2 * ks + lane / 16));
}

/* The B fragments of keys n0..n0+7 (b0) and n0+8..n0+15 (b1) at k-step ks: K as the B operand. */
template <class Tile>
__device__ __forceinline__ void attn_frag_b(uint32_t (&b0)[2], uint32_t (&b1)[2], uint32_t tile,
                                            int n0, int ks)
{
    const int lane = threadIdx.x % 32;
    uint32_t r[4];
    ldmatrix_x4(
        r, tile + Tile::chunk_offset(n0 + lane % 8 + 8 * (lane / 16), 2 * ks + (lane / 8) % 2));
    b0[0] = r[0], b0[1] = r[1], b1[0] = r[2], b1[1] = r[3];
}

/* The B fragments of dims n0..n0+7 (b0) and n0+8..n0+15 (b1) for keys k0..k0+15: V as the B
 * operand, through ldmatrix .trans. */
template <class Tile>
__device__ __forceinline__ void attn_frag_b_trans(uint32_t (&b0)[2], uint32_t (&b1)[2],
                                                  uint32_t tile, int k0, int n0)
{
    const int lane = threadIdx.x % 32;
    uint32_t r[4];
    ldmatrix_x4_trans(r, tile + Tile::chunk_offset(k0 + lane % 16, n0 / 8 + lane / 16));
    b0[0] = r[0], b0[1] = r[1], b1[0] = r[2], b1[1] = r[3];
}

/* Two f32 values as two 16-bit values of type T in one register, rounded to nearest; the first
 * (lower index) in the low half, as every fragment keeps them. */
template <class T> __device__ __forceinline__ uint32_t attn_pack2(float lo, float hi);
template <> __device__ __forceinline__ uint32_t attn_pack2<__half>(float lo, float hi)
{
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t *>(&h);
}
template <> __device__ __forceinline__ uint32_t attn_pack2<__nv_bfloat16>(float lo, float hi)
{
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const uint32_t *>(&h);
}

/* The host's checks every attention launcher shares: rows of 16-byte chunks for cp.async. */
static inline bool attn_rows_aligned(const void *p, attn_strides s)
{
    return (uintptr_t)p % 16 == 0 && s.batch % 8 == 0 && s.seq % 8 == 0 && s.head % 8 == 0;
}

#endif /* ATTN_TILE_CUH */
