/* 05_mma_ptx/mma/mma_tile.cuh - what chapter 05's mma.sync rungs share and chapter 04 does not:
 * the fragment loaders by hand and with ldmatrix .trans, unit-tested one warp at a time
 * (mma_probe.cu), and the direct epilogue of v1_hand .. v5_dbuf.
 *
 * The operand tiles are "K-major": every row of a tile is BK consecutive k-values of one row of
 * A (A row-major) or of one column of B (B column-major, i.e. B^T row-major). Both operands of
 * mma .row.col want k contiguous, so A and B tiles have the same layout and the same loaders,
 * and ldmatrix without .trans makes fragments of both.
 *
 *   tile (ROWS x BK 16-bit values, BK = 32):   row r = 64 bytes = 4 chunks of 16 bytes
 *     row 0 : [k 0..7][k 8..15][k 16..23][k 24..31]    each chunk goes to position
 *     row 1 : [k 0..7][k 8..15][k 16..23][k 24..31]    tc_swizzle_chunk(r, c, 4) of its row
 *     ...                                              when SWIZZLE (common/swizzle.h), to
 *                                                      position c when not
 *
 * The tile layout (kmajor_tile) and the ldmatrix loaders (a_frag_lane_offset, b_frag_lane_offset,
 * load_a_frag_ldmatrix, load_b_frags_ldmatrix) are in common/kmajor_tile.cuh, shared with chapter
 * 07's int8 GEMM; the mma dispatch by input type (mma_f32<T>), the tile loads and the other parts
 * of the rungs are in common/mma_parts.cuh, shared with chapter 04's tf32 GEMM (which runs v6,
 * common/mma_v6_epilogue.cuh). This file adds what only chapter 05 uses. */
#ifndef MMA_TILE_CUH
#define MMA_TILE_CUH

#include "kmajor_tile.cuh"
#include "mma_parts.cuh"
#include "mma_sync.cuh"

#include <stdint.h>

/* ---- fragments by hand: 32-bit shared loads following the map of mma_m16n8k16 -------------- */
static __device__ __forceinline__ uint32_t lds32(const unsigned char *p)
{
    return *(const uint32_t *)p;
}

/* The A fragment of the 16x16 block at tile rows m0..m0+15, k0..k0+15 (k0 % 16 == 0): lane
 * (g, t) loads the pairs (g, 2t) (g+8, 2t) (g, 2t+8) (g+8, 2t+8) - four loads per lane. */
template <class Tile>
__device__ __forceinline__ void load_a_frag_hand(uint32_t (&a)[4], const unsigned char *tile,
                                                 int m0, int k0)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    a[0] = lds32(tile + Tile::value_offset(m0 + g, k0 + 2 * t));
    a[1] = lds32(tile + Tile::value_offset(m0 + g + 8, k0 + 2 * t));
    a[2] = lds32(tile + Tile::value_offset(m0 + g, k0 + 2 * t + 8));
    a[3] = lds32(tile + Tile::value_offset(m0 + g + 8, k0 + 2 * t + 8));
}

/* The B fragment of the 8 columns n0..n0+7 (tile rows), k0..k0+15: lane (g, t) loads the pairs
 * (n = g, k = 2t) and (n = g, k = 2t + 8). */
template <class Tile>
__device__ __forceinline__ void load_b_frag_hand(uint32_t (&b)[2], const unsigned char *tile,
                                                 int n0, int k0)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    b[0] = lds32(tile + Tile::value_offset(n0 + g, k0 + 2 * t));
    b[1] = lds32(tile + Tile::value_offset(n0 + g, k0 + 2 * t + 8));
}

/* ---- fragments with ldmatrix: common/kmajor_tile.cuh, plus the .trans loader ----------------- */

/* The B fragments of columns n0..n0+7 (b0) and n0+8..n0+15 (b1), k0..k0+15, from a ROW-major B
 * in shared memory (rows of row_bytes, n contiguous, 16-byte aligned rows), with ldmatrix .trans:
 * lane l gives row k0 + l % 16, column n0 + 8 (l / 16). */
static __device__ __forceinline__ void load_b_frags_ldmatrix_trans(uint32_t (&b0)[2],
                                                                   uint32_t (&b1)[2], uint32_t base,
                                                                   int row_bytes, int k0, int n0)
{
    const int lane = threadIdx.x % 32;
    uint32_t r[4];
    ldmatrix_x4_trans(r,
                      base + (uint32_t)((k0 + lane % 16) * row_bytes + (n0 + 8 * (lane / 16)) * 2));
    b0[0] = r[0], b0[1] = r[1], b1[0] = r[2], b1[1] = r[3];
}

/* ---- the direct epilogue: C = alpha * acc + beta * C, guarded at the edges of C -------------- */

/* v1..v5: straight from registers. Accumulator (i, j) of lane (g, t) holds rows g and g + 8,
 * columns 2t and 2t + 1 of its 16x8 tile (mma_sync.cuh): two float2 stores (store_pair,
 * common/gemm_tiles.cuh). Four lanes of a row cover 32 contiguous bytes, one whole sector. row0,
 * col0: the warp tile's origin in C. */
template <class Cfg>
__device__ __forceinline__ void epilogue_direct(const float (&acc)[Cfg::MT][Cfg::NT][4],
                                                float *__restrict__ C, long ldc, int row0, int col0,
                                                int M, int N, float alpha, float beta, bool vec2)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < Cfg::MT; i++)
#pragma unroll
        for (int j = 0; j < Cfg::NT; j++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                store_pair(C, ldc, row0 + i * MMA_M + g + 8 * h, col0 + j * MMA_N + 2 * t, M, N,
                           acc[i][j][2 * h], acc[i][j][2 * h + 1], alpha, beta, vec2);
}

#endif /* MMA_TILE_CUH */
