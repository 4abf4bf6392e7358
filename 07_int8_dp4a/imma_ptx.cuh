/* 07_int8_dp4a/imma_ptx.cuh - the inline PTX of chapter 07, one small function per instruction,
 * each with the layout it assumes. Copy it with common/ldmatrix.cuh (and common/kmajor_tile.cuh
 * for the tile loaders the GEMM uses).
 *
 *   mma_m16n8k32_s8      mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32   D = A B + D   sm_80
 *   dp4a_s32_asm         dp4a.s32.s32 d, a, b, c    (what __dp4a(int, int, int) emits)  sm_61
 *   dp4a_u32s32_asm      dp4a.u32.s32: a unsigned, b signed (no CUDA intrinsic)       sm_61
 *   dp4a_s32u32_asm      dp4a.s32.u32: a signed, b unsigned (no CUDA intrinsic)       sm_61
 *   dp2a_lo_s32_asm      dp2a.lo.s32.s32            (what __dp2a_lo(int, int, int) emits)
 *
 * Why asm for dp4a when CUDA has __dp4a: the mixed-sign forms have no intrinsic, and the
 * throughput benchmark needs instructions the compiler may neither drop nor merge (asm volatile;
 * a chain acc = dp4a(a, b, acc) with constant a, b is acc + n * dot(a, b), and nothing obliges
 * the compiler to keep n instructions for it).
 *
 * ---- the int8 mma fragments (PTX ISA, "Matrix Fragments for mma.m16n8k32", .s8) -----------------
 * lane = 4 g + t (g = lane / 4, t = lane % 4). Every register holds four int8 values, the lowest
 * k in the low byte (little-endian, like a word loaded from memory):
 *
 *   A 16x32 (m x k), a[0..3]:                 B 32x8 (k x n), b[0..1], shown transposed (n x k),
 *               k 0..15      k 16..31         which is how a column of B sits in memory:
 *            +------------+------------+                      k 0..15      k 16..31
 *   m 0..7   |    a[0]    |    a[2]    |                   +------------+------------+
 *            +------------+------------+         n 0..7    |    b[0]    |    b[1]    |
 *   m 8..15  |    a[1]    |    a[3]    |                   +------------+------------+
 *            +------------+------------+
 *   a[0]: m = g,     k = 4t .. 4t+3            b[0]: k = 4t .. 4t+3,        n = g
 *   a[1]: m = g + 8, k = 4t .. 4t+3            b[1]: k = 16+4t .. 16+4t+3,  n = g
 *   a[2]: m = g,     k = 16+4t .. 16+4t+3
 *   a[3]: m = g + 8, k = 16+4t .. 16+4t+3
 *
 *   C/D 16x8 s32, d[0..3]: d[0], d[1] = (m = g, n = 2t, 2t+1); d[2], d[3] = (m = g+8, n = 2t, 2t+1)
 *
 * Each 8x16-byte block above is one 8x8 "b16" matrix of ldmatrix (common/ldmatrix.cuh): lane
 * 4r + c receives the 32-bit word at row r, bytes 4c .. 4c+3, i.e. int8 values 4c .. 4c+3. So
 * these are byte for byte the fragments of mma.m16n8k16 with f16 (a 16x16 f16 block is a 16x32
 * byte block) and the same ldmatrix addresses load them (common/kmajor_tile.cuh). The s32
 * accumulator has the f32 accumulator's layout. 07_dp4a_basics --test checks all of it, one warp
 * at a time, before the GEMM uses it.
 *
 * The products and sums are exact (no rounding anywhere); without .satfinite the sum is not
 * clamped. Every test and benchmark of this chapter stays below 2^31: the throughput benchmark's
 * operands are small, the correlator's largest sum is 65535 * 2^15 = 2^31 - 2^15 (CORR_MAX_T in
 * correlator.h), and a GEMM sum can pass it only for K > 131071 with extreme inputs. */
#ifndef IMMA_PTX_CUH
#define IMMA_PTX_CUH

#include "ldmatrix.cuh"

#include <stdint.h>

// clang-format off
static __device__ __forceinline__ void mma_m16n8k32_s8(int (&d)[4], const uint32_t (&a)[4],
                                                       const uint32_t (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    /* never launched below sm_80: the variant table and the probe gate it on the device */
    (void)a, (void)b;
    __trap();
#else
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

/* d = c + a0 b0 + a1 b1 + a2 b2 + a3 b3, bytes sign-extended (both), wrapping modulo 2^32 */
static __device__ __forceinline__ int dp4a_s32_asm(int a, int b, int c)
{
    int d;
    asm volatile("dp4a.s32.s32 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

/* the same with a's bytes zero-extended (0..255) and b's sign-extended: u8 activations times s8
 * weights, the usual quantised-inference pairing */
static __device__ __forceinline__ int dp4a_u32s32_asm(unsigned a, int b, int c)
{
    int d;
    asm volatile("dp4a.u32.s32 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

/* a's bytes sign-extended, b's zero-extended */
static __device__ __forceinline__ int dp4a_s32u32_asm(int a, unsigned b, int c)
{
    int d;
    asm volatile("dp4a.s32.u32 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

/* d = c + a.lo16 * b.byte0 + a.hi16 * b.byte1, all signed */
static __device__ __forceinline__ int dp2a_lo_s32_asm(int a, int b, int c)
{
    int d;
    asm volatile("dp2a.lo.s32.s32 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
// clang-format on

#endif /* IMMA_PTX_CUH */
