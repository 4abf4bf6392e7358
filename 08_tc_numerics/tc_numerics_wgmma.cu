/* 08_tc_numerics/tc_numerics_wgmma.cu - the dot-product box of tc_numerics.cu, through Hopper's
 * warpgroup MMA (wgmma, sm_90a) instead of mma.sync: the same eight instruction variants, so that
 * the probes, the fit and the search of the chapter ask the tensor cores that cuBLAS drives.
 *
 * One wgmma m64n8 per eight dot products, one warpgroup per block. Dot i of the block's eight is
 * row i of A (rows 8..63 zero), row i of the K-major B (column i of B) and element (i, i) of C:
 *
 *        A (64 x K, shared)        B^T (8 x K, shared)      C, D (64 x 8, registers)
 *     row i < 8: a of dot i     row i: b of dot i         (i, i): c / d of dot i
 *     rows 8..63: zero                                     everything else: zero (ignored)
 *
 * A and B go to shared memory in the 128-byte swizzled K-major layout of common/wgmma_ptx.cuh
 * (one k-step: the first 32 bytes of each 128-byte row, the rest zero) and reach the tensor cores
 * through descriptors. D's register map for m64nN (common/wgmma_ptx.cuh) puts rows 0..7 in warp 0
 * of the group: lane 4g + t holds (g, 2t) and (g, 2t + 1) in d[0], d[1] (f32), or packed in the
 * low and high halves of d[0] (f16 accumulator): the map of mma.sync's C, so the diagonal is found
 * exactly as in tc_numerics.cu.
 *
 * Requires sm_90a: the kernel bodies compile only #if TC_SM90A, and the wg_ variants' target
 * "90a" (main.c) tells the driver whether this build's code for the GPU has them. */
#include "tc_numerics.h"

#include "wgmma_ptx.cuh"

#include <stdio.h>

constexpr int DOTS = 8, WG = 128; /* dot products per wgmma, threads per block (a warpgroup) */

#if TC_SM90A /* the instructions exist only in the sm_90a pass */
namespace {
constexpr int A_ROWS = 64, ROW_BYTES = 128, A_BYTES = A_ROWS * ROW_BYTES, B_BYTES = DOTS * ROW_BYTES;

__host__ __device__ constexpr int base_of(int kind) { return kind - NK_WG_F16F32; }
__host__ __device__ constexpr int k_of(int kind)
{
    return base_of(kind) == NK_TF32F32 ? 8 : (base_of(kind) >= NK_E4M3F32 ? 32 : 16);
}
/* one k-step is 32 bytes of a row */
__host__ __device__ constexpr int bytes_of(int kind) { return 32 / k_of(kind); }
__host__ __device__ constexpr bool f16_out(int kind)
{
    return base_of(kind) == NK_F16F16 || base_of(kind) == NK_E4M3F16 ||
           base_of(kind) == NK_E5M2F16;
}
} // namespace

/* wgmma m64n8 with each input type; d: 4 f32 or 2 f16x2 registers; scale-d = 1 (D = A B + D);
 * the 16-bit types have the two "transpose" immediates (0: K-major), tf32 and fp8 none */
#define WG_N8_F32(NAME, SHAPE, TYPES, IMM)                                                         \
    static __device__ __forceinline__ void NAME(float (&d)[4], uint64_t da, uint64_t db)           \
    {                                                                                              \
        asm volatile("{\n"                                                                         \
                     ".reg .pred p;\n"                                                             \
                     "setp.ne.b32 p, %6, 0;\n"                                                     \
                     "wgmma.mma_async.sync.aligned." SHAPE ".f32." TYPES                           \
                     " {%0, %1, %2, %3}, %4, %5, p, 1, 1" IMM ";\n"                                \
                     "}\n"                                                                         \
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                              \
                     : "l"(da), "l"(db), "r"(1));                                                  \
    }
#define WG_N8_F16(NAME, SHAPE, TYPES, IMM)                                                         \
    static __device__ __forceinline__ void NAME(uint32_t (&d)[2], uint64_t da, uint64_t db)        \
    {                                                                                              \
        asm volatile("{\n"                                                                         \
                     ".reg .pred p;\n"                                                             \
                     "setp.ne.b32 p, %4, 0;\n"                                                     \
                     "wgmma.mma_async.sync.aligned." SHAPE ".f16." TYPES                           \
                     " {%0, %1}, %2, %3, p, 1, 1" IMM ";\n"                                        \
                     "}\n"                                                                         \
                     : "+r"(d[0]), "+r"(d[1])                                                      \
                     : "l"(da), "l"(db), "r"(1));                                                  \
    }
// clang-format off
WG_N8_F32(wg_f16f32,  "m64n8k16", "f16.f16",   ", 0, 0")
WG_N8_F32(wg_bf16f32, "m64n8k16", "bf16.bf16", ", 0, 0")
WG_N8_F32(wg_tf32f32, "m64n8k8",  "tf32.tf32", "")
WG_N8_F32(wg_e4m3f32, "m64n8k32", "e4m3.e4m3", "")
WG_N8_F32(wg_e5m2f32, "m64n8k32", "e5m2.e5m2", "")
WG_N8_F16(wg_f16f16,  "m64n8k16", "f16.f16",   ", 0, 0")
WG_N8_F16(wg_e4m3f16, "m64n8k32", "e4m3.e4m3", "")
WG_N8_F16(wg_e5m2f16, "m64n8k32", "e5m2.e5m2", "")
// clang-format on
#undef WG_N8_F32
#undef WG_N8_F16

/* byte j of row r of a 128-byte swizzled K-major tile (common/wgmma_ptx.cuh) */
static __device__ __forceinline__ int sw128(int r, int j)
{
    return ROW_BYTES * r + 16 * ((j / 16) ^ (r % 8)) + j % 16;
}
#endif

template <int KIND>
__global__ void __launch_bounds__(WG)
    wgmma_dots_kernel(long n, const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *d)
{
#if TC_SM90A
    constexpr int K = k_of(KIND), EB = bytes_of(KIND);
    __shared__ __align__(1024) unsigned char tile[A_BYTES + B_BYTES];
    unsigned char *ta = tile, *tb = tile + A_BYTES;
    const long base = (long)blockIdx.x * DOTS;
    for (int i = threadIdx.x; i < (A_BYTES + B_BYTES) / 4; i += WG) ((uint32_t *)tile)[i] = 0u;
    __syncthreads();
    /* element k of dot r: EB bytes at byte EB k of row r */
    for (int e = threadIdx.x; e < DOTS * K; e += WG) {
        const int r = e / K, k = e % K;
        if (base + r >= n) continue;
        const uint32_t va = a[(base + r) * K + k], vb = b[(base + r) * K + k];
        for (int byte = 0; byte < EB; byte++) {
            ta[sw128(r, EB * k + byte)] = (unsigned char)(va >> (8 * byte));
            tb[sw128(r, EB * k + byte)] = (unsigned char)(vb >> (8 * byte));
        }
    }
    fence_proxy_async(); /* generic-proxy stores, read by wgmma through the async proxy */
    __syncthreads();
    const uint64_t da = wgmma_desc_sw128(smem_u32(ta)), db = wgmma_desc_sw128(smem_u32(tb));
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const bool row_of_dot = warp == 0 && base + g < n; /* rows 0..7 live in warp 0 */
    const uint32_t cg = row_of_dot ? c[base + g] : 0u;
    if constexpr (!f16_out(KIND)) {
        float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f}; /* (g, 2t), (g, 2t+1), rows g + 8 */
        if (row_of_dot && 2 * t == g) acc[0] = __uint_as_float(cg);
        if (row_of_dot && 2 * t + 1 == g) acc[1] = __uint_as_float(cg);
        wgmma_fence_operand(acc);
        wgmma_fence();
        if constexpr (base_of(KIND) == NK_F16F32) wg_f16f32(acc, da, db);
        if constexpr (base_of(KIND) == NK_BF16F32) wg_bf16f32(acc, da, db);
        if constexpr (base_of(KIND) == NK_TF32F32) wg_tf32f32(acc, da, db);
        if constexpr (base_of(KIND) == NK_E4M3F32) wg_e4m3f32(acc, da, db);
        if constexpr (base_of(KIND) == NK_E5M2F32) wg_e5m2f32(acc, da, db);
        wgmma_commit_group();
        wgmma_wait_group<0>();
        wgmma_fence_operand(acc);
        if (row_of_dot && 2 * t == g) d[base + g] = __float_as_uint(acc[0]);
        if (row_of_dot && 2 * t + 1 == g) d[base + g] = __float_as_uint(acc[1]);
    } else {
        uint32_t acc[2] = {0u, 0u}; /* (g, 2t) low half, (g, 2t+1) high half; rows g + 8 */
        if (row_of_dot && 2 * t == g) acc[0] = cg & 0xFFFFu;
        if (row_of_dot && 2 * t + 1 == g) acc[0] = (cg & 0xFFFFu) << 16;
        asm volatile("" : "+r"(acc[0]), "+r"(acc[1])::"memory");
        wgmma_fence();
        if constexpr (base_of(KIND) == NK_F16F16) wg_f16f16(acc, da, db);
        if constexpr (base_of(KIND) == NK_E4M3F16) wg_e4m3f16(acc, da, db);
        if constexpr (base_of(KIND) == NK_E5M2F16) wg_e5m2f16(acc, da, db);
        wgmma_commit_group();
        wgmma_wait_group<0>();
        asm volatile("" : "+r"(acc[0]), "+r"(acc[1])::"memory");
        if (row_of_dot && 2 * t == g) d[base + g] = acc[0] & 0xFFFFu;
        if (row_of_dot && 2 * t + 1 == g) d[base + g] = acc[0] >> 16;
    }
#endif
}

typedef void (*dots_fn)(long, const uint32_t *, const uint32_t *, const uint32_t *, uint32_t *);
static const dots_fn wg_kernels[NK_COUNT - NK_WG_F16F32] = {
    wgmma_dots_kernel<NK_WG_F16F32>,  wgmma_dots_kernel<NK_WG_F16F16>,
    wgmma_dots_kernel<NK_WG_BF16F32>, wgmma_dots_kernel<NK_WG_TF32F32>,
    wgmma_dots_kernel<NK_WG_E4M3F32>, wgmma_dots_kernel<NK_WG_E5M2F32>,
    wgmma_dots_kernel<NK_WG_E4M3F16>, wgmma_dots_kernel<NK_WG_E5M2F16>,
};

extern "C" int numerics_wgmma_runnable(int kind, char *why, size_t why_size)
{
    cudaFuncAttributes attr;
    const cudaError_t err = cudaFuncGetAttributes(&attr, wg_kernels[kind - NK_WG_F16F32]);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, why_size, "no code for this GPU in the binary (%s)", cudaGetErrorName(err));
        return 0;
    }
    return 1;
}

extern "C" void numerics_wgmma_dots_launch(int kind, long n, const uint32_t *a, const uint32_t *b,
                                           const uint32_t *c, uint32_t *d, cudaStream_t stream)
{
    const long blocks = (n + DOTS - 1) / DOTS;
    if (blocks > 0)
        wg_kernels[kind - NK_WG_F16F32]<<<(unsigned)blocks, WG, 0, stream>>>(n, a, b, c, d);
}
