/* 08_tc_numerics/tc_numerics.cu - the device half of chapter 08: a tensor core as a black box
 * that computes dot products, one mma.sync instruction per eight of them.
 *
 * What it teaches
 *   An mma computes a 16x8 tile, D = A B + C, and every element of D is its own dot product of a
 *   row of A and a column of B, plus one element of C. To ask the hardware about one dot product
 *   at a time (the probes) or about millions of independent ones (the random search), put dot i
 *   of eight in row i of A, column i of B and element (i, i) of C, zeros elsewhere, and read
 *   D(i, i): eight independent answers per instruction, no shared memory, no tiling. The other
 *   120 elements of D are computed too and thrown away; the cost is irrelevant here.
 *
 *        A (16 x K)              B (K x 8)            C, D (16 x 8)
 *     row 0: a of dot 0      col 0: b of dot 0      (0,0): c / d of dot 0
 *     row 1: a of dot 1      col 1: b of dot 1      (1,1): c / d of dot 1
 *      ...                     ...                    ...
 *     row 7: a of dot 7      col 7: b of dot 7      (7,7): c / d of dot 7
 *     rows 8..15: zero                              everything else: zero (ignored)
 *
 *   Each lane builds its registers from the lane maps (numerics_ptx.cuh for tf32 and FP8;
 *   common/mma_sync.cuh for f16 and bf16), so the A registers of rows 8..15 (a[1], a[3])
 *   are zero, and lane 4g + t holds C/D(g, 2t) and C/D(g, 2t + 1): the diagonal element of row g
 *   sits in the lane with 2t == g (d[0]) or 2t + 1 == g (d[1]).
 *
 *   A layout mistake does not crash: it pairs the wrong elements. The sanity probe of the host
 *   (tc_probe.c: ones, unit vectors that meet only in the right slot, c passing through) catches
 *   a mistake that pairs a of one k with b of another, loses an element, or misplaces a row, a
 *   column or c. It cannot see a permutation of k applied to A and B alike: every dot product is
 *   then the same sum in another order, which shows only in which products share a block. So
 *   the k order behind what the probes report (the blocks; on sm_90 the FP8 blocks k = 0, 1 and
 *   k = 2, 3 (mod 4)) rests on these lane maps being the PTX ISA's fragment layouts, quoted in
 *   numerics_ptx.cuh and common/mma_sync.cuh, not on the probe.
 *
 * Minimum: sm_80 (sm_89 for the FP8 kinds). CUDA 12.x or 13.x; the FP8 kinds need CUDA 12.4,
 * with an f16 accumulator 12.8 (older toolkits build the rest and skip them). Build and run: see
 * main.c.
 *
 * Scope: this file probes mma.sync. Hopper's wgmma (sm_90a), whose k = 16 (f16/bf16), 8 (tf32)
 * and 32 (FP8) per instruction may add blocks differently from mma.sync, is tc_numerics_wgmma.cu's
 * (the NK_WG_ kinds, dispatched from here). */
#include "tc_numerics.h"

#include "mma_sync.cuh"
#include "numerics_ptx.cuh"

#include <stdio.h>

enum { DOTS_PER_WARP = 8, WARPS_PER_BLOCK = 4 };

/* the mma.sync kind a wgmma kind mirrors (the same inputs and accumulator) */
static __host__ __device__ constexpr int base_kind(int kind)
{
    return kind >= NK_WG_F16F32 ? kind - NK_WG_F16F32 : kind;
}
static __host__ __device__ constexpr int kind_k(int kind)
{
    return base_kind(kind) == NK_TF32F32 ? 8 : (base_kind(kind) >= NK_E4M3F32 ? 32 : 16);
}
static __host__ __device__ constexpr bool kind_f16_out(int kind)
{
    return kind == NK_F16F16 || kind == NK_E4M3F16 || kind == NK_E5M2F16;
}

static __device__ __forceinline__ uint32_t pack16(uint32_t lo, uint32_t hi)
{
    return (lo & 0xFFFFu) | (hi << 16);
}
static __device__ __forceinline__ uint32_t pack8(uint32_t e0, uint32_t e1, uint32_t e2, uint32_t e3)
{
    return (e0 & 0xFFu) | ((e1 & 0xFFu) << 8) | ((e2 & 0xFFu) << 16) | (e3 << 24);
}

template <int KIND>
__global__ void __launch_bounds__(32 * WARPS_PER_BLOCK)
    dots_kernel(long n, const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *d)
{
    constexpr int K = kind_k(KIND);
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const long base = ((long)blockIdx.x * WARPS_PER_BLOCK + threadIdx.x / 32) * DOTS_PER_WARP;
    if (base >= n) return;          /* the whole warp: base is warp-uniform */
    const bool mine = base + g < n; /* dot g of this warp exists */
    /* element k of dot g's a (row g of A) and b (column g of B); zero past n */
    auto A = [&](int k) -> uint32_t { return mine ? a[(base + g) * K + k] : 0u; };
    auto B = [&](int k) -> uint32_t { return mine ? b[(base + g) * K + k] : 0u; };
    uint32_t ra[4], rb[2];
    if (K == 16) { /* a[0] (g, 2t..2t+1), a[2] (g, 2t+8..); b[0] (2t.., n = g), b[1] (2t+8..) */
        ra[0] = pack16(A(2 * t), A(2 * t + 1));
        ra[2] = pack16(A(2 * t + 8), A(2 * t + 9));
        rb[0] = pack16(B(2 * t), B(2 * t + 1));
        rb[1] = pack16(B(2 * t + 8), B(2 * t + 9));
    } else if (K == 8) { /* a[0] (g, t), a[2] (g, t+4); b[0] (t, g), b[1] (t+4, g) */
        ra[0] = A(t);
        ra[2] = A(t + 4);
        rb[0] = B(t);
        rb[1] = B(t + 4);
    } else { /* a[0] (g, 4t..4t+3), a[2] (g, 4t+16..); b[0] (4t.., g), b[1] (4t+16.., g) */
        ra[0] = pack8(A(4 * t), A(4 * t + 1), A(4 * t + 2), A(4 * t + 3));
        ra[2] = pack8(A(4 * t + 16), A(4 * t + 17), A(4 * t + 18), A(4 * t + 19));
        rb[0] = pack8(B(4 * t), B(4 * t + 1), B(4 * t + 2), B(4 * t + 3));
        rb[1] = pack8(B(4 * t + 16), B(4 * t + 17), B(4 * t + 18), B(4 * t + 19));
    }
    ra[1] = ra[3] = 0u; /* rows 8..15 */
    const uint32_t cg = mine ? c[base + g] : 0u;
    if (!kind_f16_out(KIND)) {
        float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f}; /* (g, 2t), (g, 2t+1), rows g+8 */
        if (2 * t == g) acc[0] = __uint_as_float(cg);
        if (2 * t + 1 == g) acc[1] = __uint_as_float(cg);
        if (KIND == NK_F16F32) mma_m16n8k16_f16f32(acc, ra, rb);
        if (KIND == NK_BF16F32) mma_m16n8k16_bf16f32(acc, ra, rb);
        if (KIND == NK_TF32F32) mma_m16n8k8_tf32f32(acc, ra, rb);
        if (KIND == NK_E4M3F32) mma_m16n8k32_e4m3f32(acc, ra, rb);
        if (KIND == NK_E5M2F32) mma_m16n8k32_e5m2f32(acc, ra, rb);
        if (mine && 2 * t == g) d[base + g] = __float_as_uint(acc[0]);
        if (mine && 2 * t + 1 == g) d[base + g] = __float_as_uint(acc[1]);
    } else {
        uint32_t acc[2] = {0u, 0u}; /* (g, 2t) low half, (g, 2t+1) high half; rows g+8 */
        if (2 * t == g) acc[0] = cg & 0xFFFFu;
        if (2 * t + 1 == g) acc[0] = (cg & 0xFFFFu) << 16;
        if (KIND == NK_F16F16) mma_m16n8k16_f16f16(acc, ra, rb);
        if (KIND == NK_E4M3F16) mma_m16n8k32_e4m3f16(acc, ra, rb);
        if (KIND == NK_E5M2F16) mma_m16n8k32_e5m2f16(acc, ra, rb);
        if (mine && 2 * t == g) d[base + g] = acc[0] & 0xFFFFu;
        if (mine && 2 * t + 1 == g) d[base + g] = acc[0] >> 16;
    }
}

typedef void (*dots_fn)(long, const uint32_t *, const uint32_t *, const uint32_t *, uint32_t *);
static const dots_fn kernels[NK_MMA_COUNT] = {
    dots_kernel<NK_F16F32>,  dots_kernel<NK_F16F16>,  dots_kernel<NK_BF16F32>,
    dots_kernel<NK_TF32F32>, dots_kernel<NK_E4M3F32>, dots_kernel<NK_E5M2F32>,
    dots_kernel<NK_E4M3F16>, dots_kernel<NK_E5M2F16>,
};

extern "C" int numerics_kind_k(int kind) { return kind_k(kind); }

extern "C" int numerics_kind_runnable(int kind, char *why, size_t why_size)
{
    if (kind >= NK_WG_F16F32) return numerics_wgmma_runnable(kind, why, why_size);
    cudaFuncAttributes attr;
    const cudaError_t err = cudaFuncGetAttributes(&attr, kernels[kind]);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, why_size, "no code for this GPU in the binary (%s)", cudaGetErrorName(err));
        return 0;
    }
    if ((kind == NK_E4M3F32 || kind == NK_E5M2F32) && !NUMERICS_TOOLKIT_FP8_F32) {
        snprintf(why, why_size, "built with CUDA %d.%d; FP8 mma.sync needs CUDA 12.4",
                 __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
        return 0;
    }
    if ((kind == NK_E4M3F16 || kind == NK_E5M2F16) && !NUMERICS_TOOLKIT_FP8_F16) {
        snprintf(why, why_size,
                 "built with CUDA %d.%d; FP8 mma.sync with an f16 accumulator needs CUDA 12.8",
                 __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
        return 0;
    }
    return 1;
}

extern "C" void numerics_dots_launch(int kind, long n, const uint32_t *a, const uint32_t *b,
                                     const uint32_t *c, uint32_t *d, cudaStream_t stream)
{
    if (kind >= NK_WG_F16F32) {
        numerics_wgmma_dots_launch(kind, n, a, b, c, d, stream);
        return;
    }
    const long warps = (n + DOTS_PER_WARP - 1) / DOTS_PER_WARP;
    const long blocks = (warps + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK;
    if (blocks > 0)
        kernels[kind]<<<(unsigned)blocks, 32 * WARPS_PER_BLOCK, 0, stream>>>(n, a, b, c, d);
}
