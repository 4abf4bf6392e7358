/* common/kmajor_tile.cuh - "K-major" shared-memory operand tiles and their ldmatrix fragment
 * loaders, shared by chapter 05 (f16/bf16 mma.m16n8k16) and chapter 07 (int8 mma.m16n8k32).
 *
 * A K-major tile holds, in each row, BK consecutive k-values of one row of A (A row-major) or of
 * one column of B (B column-major, i.e. B^T row-major). Both operands of mma .row.col want k
 * contiguous, so A and B tiles have the same layout and the same loaders, and ldmatrix without
 * .trans yields A and B fragments alike.
 *
 *   tile (ROWS rows of 64 bytes, BK = 32 words):   row r = 4 chunks of 16 bytes
 *     row 0 : [chunk 0][chunk 1][chunk 2][chunk 3]    each chunk goes to position
 *     row 1 : [chunk 0][chunk 1][chunk 2][chunk 3]    tc_swizzle_chunk(r, c, 4) of its row when
 *     ...                                             SWIZZLE (common/swizzle.h), to position c
 *                                                     when not
 *
 * The layout counts 16-bit words and bytes, never elements, so it serves both element sizes: a
 * chunk is 8 halves or 16 int8 values, and one mma k-step is 32 bytes of every row, i.e. k = 16
 * halves (mma.m16n8k16) or k = 32 int8 values (mma.m16n8k32). The fragments of the two
 * instructions are the same bytes in the same registers: lane (g, t) of an A fragment holds bytes
 * 4t .. 4t+3 of rows g and g+8, in the first and in the second 16 bytes of the k-step (two halves
 * each, or four int8 values each), and likewise for B. So the same ldmatrix addresses serve both.
 */
#ifndef TC_KMAJOR_TILE_CUH
#define TC_KMAJOR_TILE_CUH

#include "ldmatrix.cuh"
#include "swizzle.h"

#include <stdint.h>

/* The layout of one K-major tile with BK 16-bit words per row (BK = 16, 32 or 64: rows of 32, 64
 * or 128 bytes), plain or XOR-swizzled. Tiles must start 128-byte aligned (the swizzle's bank
 * arithmetic assumes it). The unit is the 16-bit word because that is what ldmatrix moves: a
 * tile of int8 values with BK8 values per row is kmajor_tile<BK8 / 2, ...> (chapter 07), and its
 * value k of row r is byte chunk_offset(r, k / 16) + k % 16. */
template <int BK_, bool SWIZZLE_> struct kmajor_tile {
    static constexpr int BK = BK_;
    static constexpr bool SWIZZLE = SWIZZLE_;
    static constexpr int CHUNKS = BK / 8; /* 16-byte chunks per row */
    static constexpr int ROW_BYTES = BK * 2;
    static_assert(BK == 16 || BK == 32 || BK == 64, "rows of 2, 4 or 8 chunks of 16 bytes");

    /* where logical chunk c of row r sits in its row */
    static __device__ __forceinline__ int chunk_pos(int r, int c)
    {
        return SWIZZLE ? tc_swizzle_chunk(r, c, CHUNKS) : c;
    }
    /* byte offset of chunk c (16-bit words 8c .. 8c+7, or bytes 16c .. 16c+15) of row r */
    static __device__ __forceinline__ uint32_t chunk_offset(int r, int c)
    {
        return (uint32_t)(r * ROW_BYTES + chunk_pos(r, c) * 16);
    }
    /* byte offset of 16-bit word k of row r */
    static __device__ __forceinline__ uint32_t value_offset(int r, int k)
    {
        return chunk_offset(r, k / 8) + (uint32_t)(k % 8) * 2;
    }
};

/* ---- fragments with ldmatrix --------------------------------------------------------------------
 * The row address a lane gives to ldmatrix_x4 depends on the lane, the k-step and the 16-row block;
 * the swizzle repeats every 8 rows (common/swizzle.h), so for a block starting at a multiple of 8
 * the lane's offset from the block's first row is the same for every block. A GEMM computes these
 * offsets once per k-step before its main loop. k-step ks covers bytes 32 ks .. 32 ks + 31 of each
 * row, i.e. chunks 2 ks and 2 ks + 1. */

/* Lane offset (bytes) for the A fragment at k-step ks: lane l gives row l % 16, chunk
 * 2 ks + l / 16 (tiles a[0] a[1] a[2] a[3] of the 16x16 f16 or 16x32 int8 A fragment). */
template <class Tile> __device__ __forceinline__ uint32_t a_frag_lane_offset(int ks)
{
    const int lane = threadIdx.x % 32;
    return Tile::chunk_offset(lane % 16, 2 * ks + lane / 16);
}

/* Lane offset for two B fragments (tile rows n 0..7 and 8..15 of a 16-row block) at k-step ks:
 * lane l gives row l % 8 + 8 (l / 16), chunk 2 ks + (l / 8) % 2. */
template <class Tile> __device__ __forceinline__ uint32_t b_frag_lane_offset(int ks)
{
    const int lane = threadIdx.x % 32;
    return Tile::chunk_offset(lane % 8 + 8 * (lane / 16), 2 * ks + (lane / 8) % 2);
}

/* The A fragment of tile rows m0..m0+15 (m0 % 8 == 0); tile = shared address of the tile. */
template <class Tile>
__device__ __forceinline__ void load_a_frag_ldmatrix(uint32_t (&a)[4], uint32_t tile, int m0,
                                                     uint32_t lane_offset)
{
    ldmatrix_x4(a, tile + (uint32_t)(m0 * Tile::ROW_BYTES) + lane_offset);
}

/* The B fragments of tile rows n0..n0+7 (b0) and n0+8..n0+15 (b1), n0 % 8 == 0. */
template <class Tile>
__device__ __forceinline__ void load_b_frags_ldmatrix(uint32_t (&b0)[2], uint32_t (&b1)[2],
                                                      uint32_t tile, int n0, uint32_t lane_offset)
{
    uint32_t r[4];
    ldmatrix_x4(r, tile + (uint32_t)(n0 * Tile::ROW_BYTES) + lane_offset);
    b0[0] = r[0], b0[1] = r[1], b1[0] = r[2], b1[1] = r[3];
}

#endif /* TC_KMAJOR_TILE_CUH */
