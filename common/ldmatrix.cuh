/* common/ldmatrix.cuh - ldmatrix (sm_75+): four 8x8 tiles of 16-bit words from shared memory into
 * the registers of a warp, in the lane map every mma.sync fragment is built from. Self-contained
 * (no other header of this repository), like cp_async.cuh. Chapter 05 reaches it through
 * mma_sync.cuh (f16 and bf16 fragments), chapter 07 through kmajor_tile.cuh (int8 fragments:
 * ldmatrix moves 16-bit words, and a word is two int8 values as well as one half).
 *
 *   smem_u32            the 32-bit shared-memory address of a generic pointer
 *   ldmatrix_x4         ldmatrix.sync.aligned.m8n8.x4.shared.b16          4 8x8 tiles
 *   ldmatrix_x4_trans   ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16    the same, transposed
 *
 * Notation. lane = 0..31; g = lane / 4 ("groupID", 0..7); t = lane % 4 ("threadID_in_group",
 * 0..3). A 32-bit register holding two 16-bit words keeps the lower-addressed word in its low
 * half. "The quad map" is the 8x8 pattern of every mma.sync fragment:
 *
 *            cols 0,1  2,3  4,5  6,7            lane 4*r + c holds row r, columns 2c and 2c+1
 *     row 0:     L0   L1   L2   L3              (one 32-bit register)
 *     row 1:     L4   L5   L6   L7
 *      ...
 *     row 7:     L28  L29  L30  L31
 *
 * Built for a target older than sm_75 (where nothing that uses it runs) the wrappers trap, so
 * that every file that includes this one compiles for every target. */
#ifndef TC_LDMATRIX_CUH
#define TC_LDMATRIX_CUH

#include <stdint.h>

/* The 32-bit shared-memory address of a generic pointer into shared memory: what ldmatrix and
 * cp.async take as their [address] operand. */
static __device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* ---- ldmatrix.x4: four 8x8 tiles of 16-bit words from shared memory ---------------------------
 * Each lane gives the address of one 16-byte row (8 words; 16-byte aligned): lanes 0-7 the rows
 * 0-7 of tile 0, lanes 8-15 those of tile 1, 16-23 tile 2, 24-31 tile 3. The rows may be anywhere
 * in shared memory (any stride, any order, a swizzle). Register r[j] receives tile j in the quad
 * map:
 *
 *   addresses:  lane  0..7  -> tile 0, rows 0..7     result: r[j] of lane 4*row + c holds
 *               lane  8..15 -> tile 1, rows 0..7       (tile j[row][2c], tile j[row][2c+1])
 *               lane 16..23 -> tile 2, rows 0..7
 *               lane 24..31 -> tile 3, rows 0..7
 *
 * So one ldmatrix.x4 fills a whole A fragment of mma.m16n8k16 (tiles = the four 8x8 blocks of a
 * 16x16 A in the order a[0], a[1], a[2], a[3]: lane l points at row l % 16, column 8 * (l / 16)),
 * or two B fragments of a K-contiguous (column-major) B (tiles n0-7/k0-7, n0-7/k8-15,
 * n8-15/k0-7, n8-15/k8-15: lane l points at row n = l % 8 + 8 * (l / 16), column
 * k = 8 * ((l / 8) % 2)).
 *
 * 8-bit data: a row of 16 bytes is 16 int8 values, so a "tile" is 8 rows x 16 bytes and r[j] of
 * lane 4*row + c holds the bytes 4c .. 4c+3 of that row, the lowest address in the low byte. That
 * is exactly the register of the int8 mma.m16n8k32 fragments (chapter 07's imma_ptx.cuh): the
 * same addresses give the int8 fragments of a 16x32-byte block. */
// clang-format off
static __device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t smem_addr)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 750
    (void)smem_addr;
    r[0] = r[1] = r[2] = r[3] = 0;
    __trap();
#else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr));
#endif
}

/* .trans: the same addressing, but each tile arrives transposed: r[j] of lane 4*row + c =
 * (tile j[2c][row], tile j[2c+1][row]). The rows given are then columns of the fragment: a B
 * stored row-major (k x n, n contiguous) gives B fragments directly. For a 16x16 block of such a
 * B at (k0, n0), lane l points at row k = k0 + l % 16, column n = n0 + 8 * (l / 16); r[0], r[1]
 * are the b[0], b[1] of columns n0..n0+7 and r[2], r[3] those of n0+8..n0+15:
 *
 *   stored (k rows, n contiguous):              after .trans, lane 4*g + t holds
 *          n 0..7    n 8..15                      r[0]: k = 2t, 2t+1    of column n = g
 *   k 0..7   tile 0    tile 2                     r[1]: k = 2t+8, 2t+9  of column n = g
 *   k 8..15  tile 1    tile 3                     r[2], r[3]: the same for n = g + 8
 *
 * It transposes 16-bit words, never bytes: it cannot turn a row-major int8 B into int8 fragments.
 */
static __device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t smem_addr)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 750
    (void)smem_addr;
    r[0] = r[1] = r[2] = r[3] = 0;
    __trap();
#else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr));
#endif
}
// clang-format on

#endif /* TC_LDMATRIX_CUH */
