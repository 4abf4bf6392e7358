/* common/mma_sync.cuh - mma.sync (sm_80+) as small inline-PTX functions, one per instruction, each
 * with the fragment layout it assumes. Chapter 05 teaches them and builds its GEMM ladder on them;
 * chapters 04 (the tf32 mma.sync GEMM), 06 (dense stencil bands) and 08 (the numerics probes) use
 * them too. It includes common/cp_async.cuh and common/ldmatrix.cuh, so one include gives a kernel
 * everything it needs to feed mma.sync from shared memory; copy the three files together.
 *
 *   mma_m16n8k16_f16f32   mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32    D = A B + D
 *   mma_m16n8k16_bf16f32  mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32  D = A B + D
 *   mma_m16n8k16_f16f16   mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16    D = A B + D, f16 D
 *   mma_m16n8k8_tf32f32   mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32   D = A B + D, tf32 in
 *   mma_m8n8k4_f64        mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64      D = A B + D, FP64
 *   mma_m16n8k16_f64      mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64    the same, sm_90
 *   ldmatrix_x4           ldmatrix.sync.aligned.m8n8.x4.shared.b16             4 8x8 tiles
 *   ldmatrix_x4_trans     ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16       the same, transposed
 *   smem_u32              the shared-memory address ldmatrix and cp.async take
 *                         (these three: common/ldmatrix.cuh)
 *   cp_async_16           cp.async.cg.shared.global [dst], [src], 16, src_bytes
 *   cp_async_commit_group, cp_async_wait_group<N>   (these three: common/cp_async.cuh)
 *
 * Every layout below is the PTX ISA's ("Matrix Fragments for mma.m16n8k16 with floating point
 * type", "Matrix Fragments for mma.m16n8k8", "Warp-level matrix load instruction: ldmatrix"),
 * checked on the GPU by the one-warp unit tests of 05_mma_probe --test (chapter 05) before any
 * GEMM uses it (the FP64 ones too: chapter 09 builds on them); m16n8k8 tf32 by chapter 08's
 * sanity probe (rows 0..7 of A) and 04_wmma_tf32 --test (the whole GEMM of v6_mma_tf32).
 *
 * Notation. lane = 0..31; g = lane / 4 ("groupID", 0..7); t = lane % 4 ("threadID_in_group",
 * 0..3). A 32-bit register holding two 16-bit values keeps the lower-indexed element in its low
 * half. All the fragments are built from one 8x8 pattern, "the quad map":
 *
 *            cols 0,1  2,3  4,5  6,7            lane 4*r + c holds row r, columns 2c and 2c+1
 *     row 0:     L0   L1   L2   L3              (one 32-bit register: two 16-bit elements,
 *     row 1:     L4   L5   L6   L7               or two f32 registers for the accumulator)
 *      ...
 *     row 7:     L28  L29  L30  L31
 *
 * Requires sm_80 (m16n8k16 even in f16, bf16, tf32, cp.async); ldmatrix and the f16 m16n8k8
 * exist from sm_75. */
#ifndef TC_MMA_SYNC_CUH
#define TC_MMA_SYNC_CUH

#include "cp_async.cuh"
#include "ldmatrix.cuh"

#include <stdint.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "mma_sync.cuh needs sm_80 or newer (m16n8k16 mma.sync, bf16, cp.async)"
#endif

/* ---- mma.sync m16n8k16, f32 accumulate ---------------------------------------------------------
 * D (16x8, f32) = A (16x16) * B (16x8) + D, for the warp. ".row.col": A is given by rows (k runs
 * along a register pair), B by columns (k runs along a register pair).
 *
 *   A: a[0..3], 16x16                     B: b[0..1], 16x8 (k x n), shown transposed (n x k),
 *                k 0..7      k 8..15         which is how a column of B sits in memory
 *              +-----------+-----------+                     k 0..7      k 8..15
 *     m 0..7   |   a[0]    |   a[2]    |                   +-----------+-----------+
 *              +-----------+-----------+          n 0..7   |   b[0]    |   b[1]    |
 *     m 8..15  |   a[1]    |   a[3]    |                   +-----------+-----------+
 *              +-----------+-----------+
 *   each 8x8 block in the quad map:         each block in the quad map (row = n, column = k):
 *   a[0]: m = g,     k = 2t, 2t+1           b[0]: k = 2t, 2t+1,     n = g
 *   a[1]: m = g + 8, k = 2t, 2t+1           b[1]: k = 2t+8, 2t+9,   n = g
 *   a[2]: m = g,     k = 2t+8, 2t+9
 *   a[3]: m = g + 8, k = 2t+8, 2t+9
 *
 *   C/D: d[0..3], 16x8 f32                  So lane L of the warp owns the f32 pairs
 *                n 0..7                       (g, 2t), (g, 2t+1)     in d[0], d[1]
 *              +-----------+                  (g+8, 2t), (g+8, 2t+1) in d[2], d[3]
 *     m 0..7   | d[0] d[1] |                  of the output tile: two float2 per lane, which is
 *              +-----------+                  what lets an epilogue store straight from
 *     m 8..15  | d[2] d[3] |                  registers.
 *              +-----------+
 *   quad map again: lane 4r + c holds row r, columns 2c (d[0] or d[2]) and 2c+1 (d[1] or d[3]).
 *
 * asm volatile: the compiler must neither drop nor merge them (the throughput benchmark runs
 * chains whose results are only summed at the end). */
// clang-format off
static __device__ __forceinline__ void mma_m16n8k16_f16f32(float (&d)[4], const uint32_t (&a)[4],
                                                           const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* The same instruction and the same layouts with bf16 inputs (8-bit exponent, 8 significant
 * bits); f32 accumulate. */
static __device__ __forceinline__ void mma_m16n8k16_bf16f32(float (&d)[4], const uint32_t (&a)[4],
                                                            const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* The same f16 inputs with f16 C and D (accumulated in f16): A and B as above; the accumulator is
 * two registers of f16 pairs, d[j] = (D[g + 8j][2t], D[g + 8j][2t + 1]), the quad map again. */
static __device__ __forceinline__ void mma_m16n8k16_f16f16(uint32_t (&d)[2], const uint32_t (&a)[4],
                                                           const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
                 "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"
                 : "+r"(d[0]), "+r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* ---- mma.sync m16n8k8 tf32, f32 accumulate ------------------------------------------------------
 * D (16x8, f32) = A (16x8) * B (8x8) + D, one 32-bit register per tf32 element (an f32 value of
 * which the tensor core reads sign, exponent and the 10 high mantissa bits, ignoring the 13 low
 * bits: truncation, unless the data was rounded before, e.g. with cvt.rna.tf32.f32). C/D as for
 * m16n8k16 above.
 *
 *   A: a[0..3], 16x8                      B: b[0..1], 8x8 (k x n), shown transposed (n x k)
 *                k 0..3      k 4..7                          k 0..3      k 4..7
 *              +-----------+-----------+                   +-----------+-----------+
 *     m 0..7   |   a[0]    |   a[2]    |          n 0..7   |   b[0]    |   b[1]    |
 *              +-----------+-----------+                   +-----------+-----------+
 *     m 8..15  |   a[1]    |   a[3]    |
 *              +-----------+-----------+
 *   a[0]: m = g, k = t      a[2]: m = g, k = t + 4       b[0]: k = t, n = g
 *   a[1]: m = g + 8, k = t  a[3]: m = g + 8, k = t + 4   b[1]: k = t + 4, n = g
 *
 * In bytes, this is the m16n8k16 map: lane (g, t) holds bytes 4t .. 4t+3 of rows g and g+8 (of
 * A, or of the n-rows of a K-contiguous B) in the first 16 bytes of the 32-byte k-step (a[0],
 * a[1], b[0]) and in the second (a[2], a[3], b[1]), one tf32 value where m16n8k16 has two halves.
 * So ldmatrix without .trans loads tf32 fragments from rows with k contiguous, at the addresses
 * that give f16 ones (common/mma_parts.cuh); .trans would split each 32-bit value. */
static __device__ __forceinline__ void mma_m16n8k8_tf32f32(float (&d)[4], const uint32_t (&a)[4],
                                                           const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// clang-format on

/* ---- FP64: the FP64 tensor cores (DMMA) ------------------------------------------------------
 * One double per register, so no packing; the maps are those of the PTX ISA ("Matrix Fragments
 * for mma.m8n8k4 with .f64 floating point type", "... mma.m16n8k16 with .f64"). Each product and
 * sum is rounded like an FP64 FMA. With lane = 4g + t:
 *
 *   m8n8k4  (sm_80, DMMA.8x8x4):   a = A(g, t)                        b = B(t, g)
 *                                  d[v] = D(g, 2t + v)                           v = 0, 1
 *   m16n8k16 (sm_90, DMMA.16x8x16): a[v] = A(g + 8 (v % 2), t + 4 (v / 2))         v = 0..7
 *                                  b[v] = B(t + 4 v, g)                          v = 0..3
 *                                  d[v] = D(g + 8 (v / 2), 2t + v % 2)           v = 0..3
 *
 * m16n8k16 does eight times the work of m8n8k4 per instruction; on Hopper only the sm_90 shapes
 * reach the FP64 tensor cores' full rate (chapter 09). Compiled for an older target, it traps:
 * check that the GPU runs sm_90 code before a kernel that uses it (cudaFuncGetAttributes). */
static __device__ __forceinline__ void mma_m8n8k4_f64(double (&d)[2], double a, double b)
{
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a), "d"(b));
}

static __device__ __forceinline__ void mma_m16n8k16_f64(double (&d)[4], const double (&a)[8],
                                                        const double (&b)[4])
{
#if __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
                   "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#else
    __trap(); /* no such instruction before sm_90 */
#endif
}

/* ---- ldmatrix: smem_u32, ldmatrix_x4, ldmatrix_x4_trans ------------------------------------
 * In common/ldmatrix.cuh (self-contained; chapter 07 builds its int8 fragments with it), with the
 * lane map of each: lane l gives the address of row l % 8 of tile l / 8, and register r[j] gets
 * tile j in the quad map above. Copy it with this file. */

/* ---- cp.async: cp_async_16, cp_async_commit_group, cp_async_wait_group<N> -------------------
 * In common/cp_async.cuh (self-contained, shared with chapters 03 and 04): copy it with this
 * file. */

#endif /* TC_MMA_SYNC_CUH */
