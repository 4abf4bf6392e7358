/* 08_tc_numerics/numerics_ptx.cuh - the mma.sync variants chapter 08 probes that
 * common/mma_sync.cuh does not have (that file provides mma_m16n8k16_f16f32, _bf16f32, _f16f16 and
 * mma_m16n8k8_tf32f32 with their lane maps; the quad-map notation below is the same):
 *
 *   mma_m16n8k32_e4m3f32  mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32   sm_89
 *   mma_m16n8k32_e5m2f32  mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32   sm_89
 *   mma_m16n8k32_e4m3f16  mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16   sm_89
 *   mma_m16n8k32_e5m2f16  mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16   sm_89
 *
 * Layouts (PTX ISA, "Matrix Fragments for mma.m16n8k8" and "... mma.m16n8k32"); lane = 4g + t:
 *
 *   m16n8k8 .tf32 (one 32-bit register per element; the wrapper is in common/mma_sync.cuh):
 *     A 16x8:  a[0] (m = g,   k = t)      a[2] (m = g,   k = t + 4)
 *              a[1] (m = g+8, k = t)      a[3] (m = g+8, k = t + 4)
 *     B 8x8:   b[0] (k = t, n = g)        b[1] (k = t + 4, n = g)
 *
 *   m16n8k32 .e4m3/.e5m2 (four 8-bit elements per register, the lowest k in the low byte):
 *     A 16x32: a[0] (m = g,   k = 4t .. 4t+3)       a[2] (m = g,   k = 4t+16 .. 4t+19)
 *              a[1] (m = g+8, k = 4t .. 4t+3)       a[3] (m = g+8, k = 4t+16 .. 4t+19)
 *     B 32x8:  b[0] (k = 4t .. 4t+3, n = g)         b[1] (k = 4t+16 .. 4t+19, n = g)
 *
 *   C/D 16x8, every shape: f32: d[0], d[1] = (m = g, n = 2t, 2t+1), d[2], d[3] = (m = g+8, ...);
 *   f16: two registers of two halves, r[0] = (m = g: n = 2t low, 2t+1 high), r[1] = (m = g+8).
 *
 * The FP8 instructions need sm_89 code: they are compiled only when __CUDA_ARCH__ >= 890, and
 * trap otherwise (the host checks the binary's architecture before it launches them). */
#ifndef NUMERICS_PTX_CUH
#define NUMERICS_PTX_CUH

#include <stdint.h>

/* The toolkit must know the instructions too: FP8 mma.sync with an f32 accumulator needs PTX ISA
 * 8.4 (CUDA 12.4), with an f16 accumulator 8.7 (CUDA 12.8). NUMERICS_TOOLKIT_FP8_* are visible to
 * the host pass as well, so the program can say why a row is missing. */
#define NUMERICS_CUDA_VERSION    (__CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__)
#define NUMERICS_TOOLKIT_FP8_F32 (NUMERICS_CUDA_VERSION >= 1204)
#define NUMERICS_TOOLKIT_FP8_F16 (NUMERICS_CUDA_VERSION >= 1208)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define NUMERICS_HAVE_FP8_MMA     NUMERICS_TOOLKIT_FP8_F32
#define NUMERICS_HAVE_FP8_F16_MMA NUMERICS_TOOLKIT_FP8_F16
#else
#define NUMERICS_HAVE_FP8_MMA     0
#define NUMERICS_HAVE_FP8_F16_MMA 0
#endif

// clang-format off
static __device__ __forceinline__ void mma_m16n8k32_e4m3f32(float (&d)[4], const uint32_t (&a)[4],
                                                            const uint32_t (&b)[2])
{
#if NUMERICS_HAVE_FP8_MMA
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    __trap();
#endif
}

static __device__ __forceinline__ void mma_m16n8k32_e5m2f32(float (&d)[4], const uint32_t (&a)[4],
                                                            const uint32_t (&b)[2])
{
#if NUMERICS_HAVE_FP8_MMA
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    __trap();
#endif
}

static __device__ __forceinline__ void mma_m16n8k32_e4m3f16(uint32_t (&d)[2], const uint32_t (&a)[4],
                                                            const uint32_t (&b)[2])
{
#if NUMERICS_HAVE_FP8_F16_MMA
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 "
                 "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"
                 : "+r"(d[0]), "+r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    __trap();
#endif
}

static __device__ __forceinline__ void mma_m16n8k32_e5m2f16(uint32_t (&d)[2], const uint32_t (&a)[4],
                                                            const uint32_t (&b)[2])
{
#if NUMERICS_HAVE_FP8_F16_MMA
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16 "
                 "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"
                 : "+r"(d[0]), "+r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    __trap();
#endif
}
// clang-format on

#endif /* NUMERICS_PTX_CUH */
