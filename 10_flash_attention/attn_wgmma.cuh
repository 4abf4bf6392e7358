/* 10_flash_attention/attn_wgmma.cuh - what chapter 10's Hopper rungs need beyond common/'s wgmma
 * parts: the second product's wgmma with A (P) from registers and B (V) transposed, the
 * descriptor of an MN-major operand, and a 4-D TMA copy (BSHD tensors: one map for every batch and
 * head). Only this chapter uses them, so they live here (CONTRIBUTING: "Shared helpers"). No
 * harness header: copy it with the rung, attn_layout.h and common/'s wgmma_ptx.cuh, tma_map.h.
 *
 *   attn_wgmma_desc_mn_sw128   the descriptor of an MN-major, 128-byte swizzled operand
 *   attn_wgmma_m64n64k16_rs_f16,  attn_wgmma_m64n64k16_rs_bf16,
 *   attn_wgmma_m64n128k16_rs_f16, attn_wgmma_m64n128k16_rs_bf16
 *                              wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}.{f16,bf16}
 *                              with A in registers and B transposed (imm-trans-b = 1);
 *                              attn_wgmma_rs<T, N> picks one
 *   attn_tma_load_4d           cp.async.bulk.tensor.4d.shared::cluster.global.tile
 *                              .mbarrier::complete_tx::bytes
 *   attn_tma_map_bshd          (host) the map of one BSHD tensor, boxes of 64 values x ROWS rows
 *
 * ---- A from registers (PTX ISA, "Register Fragments", "Matrix Fragments for
 * wgmma.mma_async.m64nNk16", Figure 148) ----------------------------------------------------------
 * For .f16/.bf16 the A fragment of a thread is four .f16x2 registers holding a0..a7. Warp j of the
 * warpgroup (j = warp % 4) owns rows 16 j .. 16 j + 15 of the 64 x 16 A, and inside them the layout
 * is mma.m16n8k16's A fragment; with lane = 4 g + t, element a_i sits at
 *
 *     row = 16 j + g + 8 * ((i / 2) % 2)          col (k) = 2 t + i % 2 + 8 * (i / 4)
 *
 *   register 0 = (a0, a1): row g,     k 2t, 2t+1          register 2 = (a4, a5): row g,     k 2t+8, 2t+9
 *   register 1 = (a2, a3): row g + 8, k 2t, 2t+1          register 3 = (a6, a7): row g + 8, k 2t+8, 2t+9
 *
 * (CUTLASS writes the same map as ALayout_64x16 = ((4,8,4),(2,2,2)):((128,1,16),(64,8,512)), which
 * it notes is the accumulator's CLayout_64x16.) The f32 accumulator of a wgmma (wgmma_ptx.cuh)
 * gives the same thread, in registers d[8 c .. 8 c + 7], columns 16 c .. 16 c + 15 of the same
 * rows in the same order: d[8c + 2r + e] is row g + 8 r, column 16 c + 2 t + e and d[8c + 4 + 2r
 * + e] column 16 c + 8 + 2 t + e. So the A fragment of k-step c of a product whose A is an earlier
 * accumulator is
 *
 *     a[c][q] = pack(d[8 c + 2 q], d[8 c + 2 q + 1])           q = 0 .. 3
 *
 * consecutive pairs, no shuffle: the wgmma form of chapter 10's lane map.
 *
 * ---- B transposed: MN-major, 128-byte swizzle -----------------------------------------------------
 * O += P V reads V (keys x D, D contiguous) as B[k = key][n = d]: n is contiguous, "MN-major",
 * which 16-bit wgmma reads when imm-trans-b = 1. The TMA writes a box of 64 values (128 bytes) of d
 * by ROWS keys exactly as for a K-major operand (row = key, 128 bytes, chunks XOR key % 8); read as
 * MN-major, 8 rows (8 keys, 1024 bytes) form one swizzle atom of k = 8 by n = 64. The descriptor
 * (CUTLASS make_gmma_desc, Major::MN, B128: ((8,m),(8,k)) : ((1,LBO),(8,SBO)) in 16-byte units):
 *
 *     leading byte offset  = from one 64-wide block of n to the next (D = 128: the second panel
 *                            of V, ROWS x 128 bytes further on)
 *     stride byte offset   = from one group of 8 k-rows to the next: 1024 bytes
 *
 * A k-step of 16 keys starts 16 rows = 2048 bytes further on: whole atoms, base offset 0.
 *
 * Requires sm_90a, CUDA 12.x or 13.x. */
#ifndef ATTN_WGMMA_CUH
#define ATTN_WGMMA_CUH

#include "attn_layout.h"

#include "tma_map.h"
#include "wgmma_ptx.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

/* ---- the MN-major descriptor --------------------------------------------------------------------
 * smem_addr: the operand's first row (1024-byte aligned atoms); leading_bytes: the distance between
 * 64-value blocks along n (unused when n = 64: one block) */
static __device__ __forceinline__ uint64_t attn_wgmma_desc_mn_sw128(uint32_t smem_addr,
                                                                    uint32_t leading_bytes)
{
    const uint64_t start = (smem_addr & 0x3FFFF) >> 4;
    const uint64_t leading = (leading_bytes & 0x3FFFF) >> 4;
    const uint64_t stride = 1024 >> 4; /* 8 k-rows x 128 bytes */
    const uint64_t swizzle_128b = 1;
    return start | leading << 16 | stride << 32 | swizzle_128b << 62;
}

/* ---- wgmma with A from registers, B transposed ----------------------------------------------------
 * D (64 x N, f32) += A (64 x 16, the four registers a above) * B (16 x N, MN-major in shared memory
 * through desc_b). scale_d = 0 overwrites D. The immediates after the predicate: imm-scale-a = 1,
 * imm-scale-b = 1, imm-trans-b = 1 (with A in registers there is no imm-trans-a). The registers of
 * a are read asynchronously: keep them unchanged until wgmma_wait_group (attn_fence_a). */
// clang-format off
static __device__ __forceinline__ void attn_wgmma_m64n64k16_rs_f16(float (&d)[32], const uint32_t (&a)[4],
                                                                   uint64_t desc_b, int scale_d)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
                 "{%32, %33, %34, %35}, %36, p, 1, 1, 1;\n"
                 "}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
}
static __device__ __forceinline__ void attn_wgmma_m64n64k16_rs_bf16(float (&d)[32], const uint32_t (&a)[4],
                                                                    uint64_t desc_b, int scale_d)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
                 "{%32, %33, %34, %35}, %36, p, 1, 1, 1;\n"
                 "}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
}
/* n = 128: 64 accumulators, common/wgmma_ptx.cuh's lists of them; A is %64..%67, desc_b %68 */
static __device__ __forceinline__ void attn_wgmma_m64n128k16_rs_f16(float (&d)[64], const uint32_t (&a)[4],
                                                                    uint64_t desc_b, int scale_d)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
                 "{" WGMMA_D_REGS_64 "}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n"
                 "}\n"
                 : WGMMA_D_OPERANDS_64(d)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
}
static __device__ __forceinline__ void attn_wgmma_m64n128k16_rs_bf16(float (&d)[64], const uint32_t (&a)[4],
                                                                     uint64_t desc_b, int scale_d)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
                 "{" WGMMA_D_REGS_64 "}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n"
                 "}\n"
                 : WGMMA_D_OPERANDS_64(d)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
}
// clang-format on

/* attn_wgmma_rs<T, N>::run: one of the four above by input type and width (N = D) */
template <class T, int N> struct attn_wgmma_rs;
template <> struct attn_wgmma_rs<__half, 64> {
    static __device__ __forceinline__ void run(float (&d)[32], const uint32_t (&a)[4], uint64_t b,
                                               int s)
    {
        attn_wgmma_m64n64k16_rs_f16(d, a, b, s);
    }
};
template <> struct attn_wgmma_rs<__nv_bfloat16, 64> {
    static __device__ __forceinline__ void run(float (&d)[32], const uint32_t (&a)[4], uint64_t b,
                                               int s)
    {
        attn_wgmma_m64n64k16_rs_bf16(d, a, b, s);
    }
};
template <> struct attn_wgmma_rs<__half, 128> {
    static __device__ __forceinline__ void run(float (&d)[64], const uint32_t (&a)[4], uint64_t b,
                                               int s)
    {
        attn_wgmma_m64n128k16_rs_f16(d, a, b, s);
    }
};
template <> struct attn_wgmma_rs<__nv_bfloat16, 128> {
    static __device__ __forceinline__ void run(float (&d)[64], const uint32_t (&a)[4], uint64_t b,
                                               int s)
    {
        attn_wgmma_m64n128k16_rs_bf16(d, a, b, s);
    }
};

/* The compiler must keep register operands of an in-flight wgmma (P's fragments) alive and unchanged
 * until the wait: an empty asm that "reads and writes" them after wgmma_wait_group. */
template <int R> static __device__ __forceinline__ void attn_fence_a(uint32_t (&a)[R][4])
{
#pragma unroll
    for (int i = 0; i < R; i++)
#pragma unroll
        for (int q = 0; q < 4; q++) asm volatile("" : "+r"(a[i][q])::"memory");
}

/* ---- TMA: a 4-D box (d, s, h, b) of a BSHD tensor into shared memory ----------------------------
 * The box whose first element is (d0, s0, h, b) goes to dst (1024-byte aligned) and completes on
 * *bar; rows past the tensor's S are zero-filled and still counted. */
static __device__ __forceinline__ void attn_tma_load_4d(void *dst, const CUtensorMap *map,
                                                        uint64_t *bar, int d0, int s0, int h, int b)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(smem_u32(dst)),
                 "l"((uint64_t)map), "r"(smem_u32(bar)), "r"(d0), "r"(s0), "r"(h), "r"(b)
                 : "memory");
}

/* ---- host: the map of one BSHD tensor -------------------------------------------------------------
 * Dimensions, innermost first: d (D values), s (S rows, stride seq), h (H, stride head), b (B,
 * stride batch), strides in bytes (multiples of 16: attn_rows_aligned). Boxes of 64 values (128
 * bytes, the 128-byte swizzle) x rows x 1 x 1. The strides need not grow with the dimension (packed
 * BSHD has head < seq): the TMA takes any order. cudaErrorNotSupported: the driver has no TMA;
 * cudaErrorInvalidValue: it refused the map (tma_map_last_error() says how). */
static inline cudaError_t attn_tma_map_bshd(CUtensorMap *map, const void *base,
                                            CUtensorMapDataType type, int B, int S, int H, int D,
                                            attn_strides st, int rows)
{
    tma_map_last_error()[0] = '\0'; /* no earlier refusal's text for this map's error */
    const PFN_cuTensorMapEncodeTiled_v12000 encode = tma_encode_function();
    if (!encode) {
        snprintf(tma_map_last_error(), 160, "the driver has no cuTensorMapEncodeTiled");
        return cudaErrorNotSupported;
    }
    const cuuint64_t dims[4] = {(cuuint64_t)D, (cuuint64_t)S, (cuuint64_t)H, (cuuint64_t)B};
    const cuuint64_t strides[3] = {(cuuint64_t)st.seq * 2, (cuuint64_t)st.head * 2,
                                   (cuuint64_t)st.batch * 2};
    const cuuint32_t box[4] = {64, (cuuint32_t)rows, 1, 1};
    const cuuint32_t element_strides[4] = {1, 1, 1, 1};
    const CUresult r =
        encode(map, type, 4, (void *)base, dims, strides, box, element_strides,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r == CUDA_SUCCESS) return cudaSuccess;
    snprintf(tma_map_last_error(), 160,
             "cuTensorMapEncodeTiled refused a BSHD map (B %d, S %d, H %d, D %d, strides %ld, %ld, "
             "%ld): CUresult %d",
             B, S, H, D, st.batch, st.seq, st.head, (int)r);
    return cudaErrorInvalidValue;
}

#endif /* ATTN_WGMMA_CUH */
