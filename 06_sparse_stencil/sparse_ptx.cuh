/* 06_sparse_stencil/sparse_ptx.cuh - the inline PTX of chapter 06 that chapter 05 does not have:
 * the sparse tensor-core mma (mma.sp::ordered_metadata m16n8k32) with f32 and f16 accumulators,
 * and stmatrix (sm_90), the store that rung g writes its accumulators back with.
 * The dense ones (mma_m16n8k16_f16f32 and _f16f16) and ldmatrix come from
 * common/mma_sync.cuh and common/ldmatrix.cuh (stencil_tc.cuh includes them).
 *
 *   mma_sp_m16n8k32_f16f32<SEL>  mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col
 *                                .f32.f16.f16.f32                         D = A B + D, A 2:4
 *   mma_sp_m16n8k32_f16f16<SEL>  the same with .f16 C and D
 *   stmatrix_x4_trans            stmatrix.sync.aligned.m8n8.x4.trans.shared.b16   sm_90
 *
 * Lane maps (g = lane / 4, t = lane % 4; stencil_bands.h has them as functions, which the host
 * packer and the CPU emulation in test_stencil.c use):
 *
 *   A (sparse, 16 x 32 with two non-zeros per 4-chunk; registers hold the kept values):
 *     a[0]: row g,     chunk t     (columns 4t .. 4t+3)      two kept values, lower position low
 *     a[1]: row g + 8, chunk t
 *     a[2]: row g,     chunk t + 4 (columns 16+4t .. 16+4t+3)
 *     a[3]: row g + 8, chunk t + 4
 *   B (32 x 8): b[j] = (B[2t + 8j][g], B[2t + 8j + 1][g]), j = 0..3
 *   C/D f32: d[j] = D[g + 8 (j >> 1)][2t + (j & 1)];  f16: d[j] = (D[g + 8j][2t], D[g + 8j][2t+1])
 *   e (metadata): read from lanes 4g + 2*SEL and 4g + 2*SEL + 1 only; lane 4g + 2*SEL + h holds
 *     bits 4c+3..4c = chunk 4h + c of row g, bits 16+4c+3..16+4c = chunk 4h + c of row g + 8,
 *     each nibble idx0 | idx1 << 2 with idx0 < idx1 (::ordered_metadata: 0x4 0x8 0x9 0xC 0xD 0xE).
 *   SEL, the sparsity selector, must be an immediate: 0 or 1.
 *
 * Needs sm_80 and PTX ISA 8.5 (CUDA 12.5) for ::ordered_metadata. The one-warp probes of
 * stencil_probe.cu check every map on the GPU against exact integer products. */
#ifndef SPARSE_PTX_CUH
#define SPARSE_PTX_CUH

#include <stdint.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "06_sparse_stencil needs sm_80 or newer (mma.sp, cp.async)"
#endif

// clang-format off
template <int SEL>
static __device__ __forceinline__ void mma_sp_m16n8k32_f16f32(float (&d)[4], const uint32_t (&a)[4],
                                                              const uint32_t (&b)[4], uint32_t e)
{
    static_assert(SEL == 0 || SEL == 1, "m16n8k32: sparsity selector 0 (lanes t=0,1) or 1 (t=2,3)");
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%0, %1, %2, %3}, %12, %13;\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]),
                   "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e), "n"(SEL));
}

template <int SEL>
static __device__ __forceinline__ void mma_sp_m16n8k32_f16f16(uint32_t (&d)[2], const uint32_t (&a)[4],
                                                              const uint32_t (&b)[4], uint32_t e)
{
    static_assert(SEL == 0 || SEL == 1, "m16n8k32: sparsity selector 0 (lanes t=0,1) or 1 (t=2,3)");
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16 "
                 "{%0, %1}, {%2, %3, %4, %5}, {%6, %7, %8, %9}, {%0, %1}, %10, %11;\n"
                 : "+r"(d[0]), "+r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]),
                   "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e), "n"(SEL));
}

/* stmatrix.x4.trans (sm_90): ldmatrix.x4.trans run backwards. Lane 8 j + k gives the address of
 * row k of tile j in shared memory (8 halves, 16-byte aligned; any stride); lane 4 g + t's r[j]
 * holds that tile's (row 2t, column g) in its low half and (row 2t + 1, column g) in its high half.
 * So an f16 accumulator of mma m16n8 (d[j]: D[g + 8j][2t], D[g + 8j][2t + 1]) stored with it lands
 * transposed: D's column n becomes row n of the tile, D's rows its 8 columns. Built for an older
 * target, where nothing that uses it runs, it traps. */
static __device__ __forceinline__ void stmatrix_x4_trans(uint32_t smem_addr, const uint32_t (&r)[4])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    (void)smem_addr;
    (void)r;
    __trap();
#else
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n"
                 :: "r"(smem_addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
#endif
}
// clang-format on

#endif /* SPARSE_PTX_CUH */
