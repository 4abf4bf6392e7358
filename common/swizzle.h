/* common/swizzle.h - the XOR swizzle of shared-memory tiles made of 16-byte chunks.
 *
 * A tile whose rows are `chunks` 16-byte chunks long (chunks = 1, 2, 4 or 8: rows of 16, 32, 64
 * or 128 bytes) keeps logical chunk c of row r at chunk position tc_swizzle_chunk(r, c, chunks)
 * of the same row. Nothing moves between rows, so a row is still one contiguous 16*chunks-byte
 * slice and a 16-byte vector still lands in one piece.
 *
 * Why (the bank arithmetic). Shared memory has 32 banks of 4 bytes: a 128-byte line touches every
 * bank once, i.e. it is 8 "bank groups" of 16 bytes. An instruction that moves 16 bytes per lane
 * (ldmatrix, which takes one 16-byte row address from each of 8 lanes per 8x8 matrix, and
 * 16-byte stores, served 8 lanes at a time) is conflict-free when its 8 chunks fall into 8
 * different bank groups. With the tile 128-byte aligned, chunk position p of row r is in
 *
 *     bank group (r * chunks + p) % 8.
 *
 * Without a swizzle, 8 consecutive rows read at the same chunk c hit only 8/chunks different
 * groups, a chunks-way conflict: with 64-byte rows (chunks = 4) (4r + c) % 8 takes 2 values, a
 * 4-way conflict; 128-byte rows (chunks = 8) give 1 value, 8-way. The swizzle XORs the chunk
 * index with the number of the 128-byte line the row starts in (modulo chunks):
 *
 *     p = c ^ ((r / (8 / chunks)) % chunks)
 *
 * so the 8/chunks rows that share a line keep their chunks apart (different offsets in the line)
 * and the lines differ in the XOR: 8 different groups for any c. Written out for chunks = 4
 * (BK = 32 halves, 64-byte rows, two rows per 128-byte line), logical chunk -> position:
 *
 *     row 0: 0 1 2 3   row 1: 0 1 2 3      (line 0: XOR 0)
 *     row 2: 1 0 3 2   row 3: 1 0 3 2      (line 1: XOR 1)
 *     row 4: 2 3 0 1   row 5: 2 3 0 1      (line 2: XOR 2)
 *     row 6: 3 2 1 0   row 7: 3 2 1 0      (line 3: XOR 3)
 *
 * Column "logical chunk 0" of rows 0..7 lands at positions 0,0,1,1,2,2,3,3 of rows whose line
 * offsets are 0,4,0,4,0,4,0,4 chunks: groups 0,4,1,5,2,6,3,7, all different. The pattern repeats
 * every 8 rows (a GEMM relies on that: the lane offsets of a 16-row fragment do not depend on
 * which 16 rows it is). tests/test_swizzle.c checks all of this for chunks = 1, 2, 4, 8.
 *
 * Host and device: plain C, usable from C11 and CUDA; a constant `chunks` folds to shifts. */
#ifndef TC_SWIZZLE_H
#define TC_SWIZZLE_H

#if defined(__CUDACC__)
#define TC_HOST_DEVICE __host__ __device__
#else
#define TC_HOST_DEVICE
#endif

/* Chunk position of logical chunk `chunk` (0 .. chunks-1) in row `row` (>= 0) of a tile with
 * `chunks` 16-byte chunks per row; chunks must be 1, 2, 4 or 8. */
static inline TC_HOST_DEVICE int tc_swizzle_chunk(int row, int chunk, int chunks)
{
    const int rows_per_line = 8 / chunks; /* rows that share one 128-byte line */
    return chunk ^ (row / rows_per_line % chunks);
}

/* The bank group (0..7) of chunk position `pos` of row `row` in a 128-byte aligned tile. */
static inline TC_HOST_DEVICE int tc_bank_group(int row, int pos, int chunks)
{
    return (row * chunks + pos) % 8;
}

#endif /* TC_SWIZZLE_H */
