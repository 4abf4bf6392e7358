/* 07_int8_dp4a/dp4a_basics.cu - the device half of 07_dp4a_basics: what dp4a and dp2a compute,
 * the one-warp unit tests of the int8 tensor-core path, and the throughput benchmarks that give
 * the chapter its ceilings.
 *
 * What it teaches
 *   __dp4a (sm_61+) multiplies the four int8 (or uint8) values packed in one 32-bit register with
 *   the four in another and adds the four products to a 32-bit accumulator: 4 multiply-adds, 8
 *   integer operations, in one instruction (IDP.4A in SASS) that issues like an integer
 *   multiply-add. __dp2a_lo/__dp2a_hi multiply two 16-bit values with two of the four bytes of the
 *   other register. The probe runs every CUDA form of both, plus the mixed-sign PTX forms, on edge
 *   and random words; the host compares each result bit for bit with dp4a_model.c.
 *   Then the int8 tensor-core instruction, mma.sync m16n8k32 .s8: 8192 integer operations per warp
 *   instruction. Its fragments are tested one warp at a time, as in chapter 05, before the GEMM
 *   (v5_mma_s8.cuh) uses them:
 *     probe_imma        registers packed by hand from the lane map of imma_ptx.cuh -> mma -> D
 *     probe_ldmatrix_b8 raw registers of ldmatrix on 16-byte rows of int8 data, against the map
 *     probe_imma_tile   the GEMM's own path: K-major int8 tiles (plain and swizzled) -> ldmatrix
 *                       at the lane offsets of common/kmajor_tile.cuh -> mma -> D
 *   Finally the throughput of each instruction on operands already in registers: independent
 *   accumulator chains per thread (dp4a, dp2a) or per warp (mma), swept over chains and warps per
 *   SM. The best figure is the ceiling a kernel built on that instruction cannot beat.
 *
 * Minimum: sm_75 (the chapter's build floor; dp4a itself is sm_61), sm_80 for the mma tests and
 * benchmark. CUDA 12.x or 13.x. Build and run: see dp4a_basics.c. */
#include "dp4a_basics.h"

#include "imma_ptx.cuh"
#include "kmajor_tile.cuh"

/* ================================================================================================
 * The semantics probe
 * ============================================================================================== */
/* A word as the vector types of the intrinsics: element x is byte 0 (the lowest address), as in
 * memory. */
static __device__ __forceinline__ char4 as_char4(uint32_t w)
{
    return make_char4((signed char)(w & 0xFF), (signed char)(w >> 8 & 0xFF),
                      (signed char)(w >> 16 & 0xFF), (signed char)(w >> 24));
}
static __device__ __forceinline__ uchar4 as_uchar4(uint32_t w)
{
    return make_uchar4((unsigned char)(w & 0xFF), (unsigned char)(w >> 8 & 0xFF),
                       (unsigned char)(w >> 16 & 0xFF), (unsigned char)(w >> 24));
}
static __device__ __forceinline__ short2 as_short2(uint32_t w)
{
    return make_short2((short)(w & 0xFFFF), (short)(w >> 16));
}
static __device__ __forceinline__ ushort2 as_ushort2(uint32_t w)
{
    return make_ushort2((unsigned short)(w & 0xFFFF), (unsigned short)(w >> 16));
}

__global__ void dp_probe(dp_op op, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                         uint32_t *d, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uint32_t x = a[i], y = b[i], z = c[i];
    uint32_t r = 0;
    switch (op) {
    case DP_DP4A_INT: r = (uint32_t)__dp4a((int)x, (int)y, (int)z); break;
    case DP_DP4A_UINT: r = __dp4a(x, y, z); break;
    case DP_DP4A_CHAR4: r = (uint32_t)__dp4a(as_char4(x), as_char4(y), (int)z); break;
    case DP_DP4A_UCHAR4: r = __dp4a(as_uchar4(x), as_uchar4(y), z); break;
    case DP_DP4A_U_S: r = (uint32_t)dp4a_u32s32_asm(x, (int)y, (int)z); break;
    case DP_DP4A_S_U: r = (uint32_t)dp4a_s32u32_asm((int)x, y, (int)z); break;
    case DP_DP2A_LO_INT: r = (uint32_t)__dp2a_lo((int)x, (int)y, (int)z); break;
    case DP_DP2A_HI_INT: r = (uint32_t)__dp2a_hi((int)x, (int)y, (int)z); break;
    case DP_DP2A_LO_UINT: r = __dp2a_lo(x, y, z); break;
    case DP_DP2A_HI_UINT: r = __dp2a_hi(x, y, z); break;
    case DP_DP2A_LO_SHORT2: r = (uint32_t)__dp2a_lo(as_short2(x), as_char4(y), (int)z); break;
    case DP_DP2A_HI_USHORT2: r = __dp2a_hi(as_ushort2(x), as_uchar4(y), z); break;
    default: r = 0xDEADBEEFu; break;
    }
    d[i] = r;
}

extern "C" void dp_probe_launch(dp_op op, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                                uint32_t *d, int n, cudaStream_t stream)
{
    dp_probe<<<(n + 127) / 128, 128, 0, stream>>>(op, a, b, c, d, n);
}

/* ================================================================================================
 * The int8 tensor-core unit tests
 * ============================================================================================== */
/* four consecutive int8 values as one register, the first in the low byte */
static __device__ __forceinline__ uint32_t pack4(const int8_t *p)
{
    return (uint32_t)(uint8_t)p[0] | (uint32_t)(uint8_t)p[1] << 8 | (uint32_t)(uint8_t)p[2] << 16 |
           (uint32_t)(uint8_t)p[3] << 24;
}
/* four int8 values p[0], p[stride], p[2 stride], p[3 stride] (a column of a row-major B) */
static __device__ __forceinline__ uint32_t pack4_strided(const int8_t *p, int stride)
{
    return (uint32_t)(uint8_t)p[0] | (uint32_t)(uint8_t)p[stride] << 8 |
           (uint32_t)(uint8_t)p[2 * stride] << 16 | (uint32_t)(uint8_t)p[3 * stride] << 24;
}

/* ---- mma_m16n8k32_s8: registers by hand ------------------------------------------------------ */
__global__ void __launch_bounds__(32)
    probe_imma(const int8_t *a, const int8_t *b, const int32_t *c, int32_t *d)
{
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    /* A 16x32 row-major: a[0] (g, 4t..) a[1] (g+8, 4t..) a[2] (g, 16+4t..) a[3] (g+8, 16+4t..) */
    const uint32_t ra[4] = {pack4(a + g * 32 + 4 * t), pack4(a + (g + 8) * 32 + 4 * t),
                            pack4(a + g * 32 + 16 + 4 * t), pack4(a + (g + 8) * 32 + 16 + 4 * t)};
    /* B 32x8 row-major (k x n): b[0] (k = 4t.., n = g), b[1] (k = 16+4t.., n = g) */
    const uint32_t rb[2] = {pack4_strided(b + (4 * t) * 8 + g, 8),
                            pack4_strided(b + (16 + 4 * t) * 8 + g, 8)};
    /* C/D 16x8 row-major: d[0], d[1] (g, 2t..); d[2], d[3] (g+8, 2t..) */
    int acc[4] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1], c[(g + 8) * 8 + 2 * t],
                  c[(g + 8) * 8 + 2 * t + 1]};
    mma_m16n8k32_s8(acc, ra, rb);
    d[g * 8 + 2 * t] = acc[0];
    d[g * 8 + 2 * t + 1] = acc[1];
    d[(g + 8) * 8 + 2 * t] = acc[2];
    d[(g + 8) * 8 + 2 * t + 1] = acc[3];
}

extern "C" void probe_imma_launch(const int8_t *a, const int8_t *b, const int32_t *c, int32_t *d,
                                  cudaStream_t stream)
{
    probe_imma<<<1, 32, 0, stream>>>(a, b, c, d);
}

/* ---- ldmatrix_x4 on 8-bit data: raw registers ------------------------------------------------ */
__global__ void __launch_bounds__(32)
    probe_ldmatrix_b8(const uint8_t *src, const int *row_slot, uint32_t *out)
{
    __shared__ __align__(128) uint32_t s[PROBE_LDM8_SLOTS * 4];
    const int lane = threadIdx.x;
    /* whole 32-bit words, one lane per word (racecheck-clean) */
    for (int i = lane; i < PROBE_LDM8_SLOTS * 4; i += 32) s[i] = 0xFFFFFFFFu;
    __syncwarp();
    for (int w = 0; w < 4; w++) /* row `lane`: 16 bytes, 4 words */
        s[row_slot[lane] * 4 + w] = pack4((const int8_t *)src + lane * 16 + 4 * w);
    __syncwarp();
    uint32_t r[4];
    ldmatrix_x4(r, smem_u32(s + row_slot[lane] * 4)); /* lane l: row l % 8 of tile l / 8 */
    for (int j = 0; j < 4; j++) out[lane * 4 + j] = r[j];
}

extern "C" void probe_ldmatrix_b8_launch(const uint8_t *src, const int *row_slot, uint32_t *out,
                                         cudaStream_t stream)
{
    probe_ldmatrix_b8<<<1, 32, 0, stream>>>(src, row_slot, out);
}

/* ---- the GEMM's fragment path: K-major int8 tiles -> ldmatrix -> mma ------------------------- */
template <bool SWIZZLE>
__global__ void __launch_bounds__(32) probe_imma_tile(const int8_t *a, const int8_t *b, int32_t *d)
{
    constexpr int M = 16, N = 16, K = 64;
    /* 64 int8 values per row = 32 16-bit words: the tile type counts words (kmajor_tile.cuh) */
    typedef kmajor_tile<K / 2, SWIZZLE> Tile;
    static_assert(Tile::ROW_BYTES == K, "one tile row holds the whole k range");
    __shared__ __align__(128) unsigned char sA[M * K];
    __shared__ __align__(128) unsigned char sB[N * K]; /* K-major: row n holds B(0..63, n) */
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    /* word w of a row holds k = 4w .. 4w+3: chunk w / 4, bytes 4 (w % 4) .. of the chunk */
    for (int i = lane; i < M * K / 4; i += 32) {
        const int r = i / (K / 4), w = i % (K / 4);
        const uint32_t off = Tile::chunk_offset(r, w / 4) + 4 * (w % 4);
        *(uint32_t *)(sA + off) = pack4(a + r * K + 4 * w);            /* A(r, 4w..) */
        *(uint32_t *)(sB + off) = pack4_strided(b + 4 * w * N + r, N); /* B(4w.., n = r) */
    }
    __syncwarp();

    int acc[2][4] = {};
    for (int ks = 0; ks < K / 32; ks++) {
        uint32_t fa[4], fb[2][2];
        load_a_frag_ldmatrix<Tile>(fa, smem_u32(sA), 0, a_frag_lane_offset<Tile>(ks));
        load_b_frags_ldmatrix<Tile>(fb[0], fb[1], smem_u32(sB), 0, b_frag_lane_offset<Tile>(ks));
        mma_m16n8k32_s8(acc[0], fa, fb[0]);
        mma_m16n8k32_s8(acc[1], fa, fb[1]);
    }
    for (int j = 0; j < 2; j++) {
        d[g * N + 8 * j + 2 * t] = acc[j][0];
        d[g * N + 8 * j + 2 * t + 1] = acc[j][1];
        d[(g + 8) * N + 8 * j + 2 * t] = acc[j][2];
        d[(g + 8) * N + 8 * j + 2 * t + 1] = acc[j][3];
    }
}

extern "C" void probe_imma_tile_launch(int swizzled, const int8_t *a, const int8_t *b, int32_t *d,
                                       cudaStream_t stream)
{
    if (swizzled)
        probe_imma_tile<true><<<1, 32, 0, stream>>>(a, b, d);
    else
        probe_imma_tile<false><<<1, 32, 0, stream>>>(a, b, d);
}

/* ================================================================================================
 * The throughput benchmarks
 * ================================================================================================
 * Every thread (dp4a, dp2a) or warp (mma) runs CHAINS independent accumulator chains: chain c
 * depends only on its own previous instruction, so up to CHAINS of them are in flight at once.
 * The chains start from different values (c0 + c), so they cannot be merged; the instructions are
 * asm volatile, so none is dropped; and every chain's final value reaches memory (summed), so the
 * host can check that all iters * CHAINS instructions happened, exactly: the result must equal the
 * start values plus iters * CHAINS * dot(a, b), modulo 2^32. */
static __device__ __forceinline__ unsigned long long globaltimer_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <int CHAINS, bool DP2A>
__global__ void __launch_bounds__(PEAK_THREADS)
    peak_dp(const uint32_t *a, const uint32_t *b, const int32_t *c0, int iters, uint32_t *out,
            long long *clk)
{
    const int lane = threadIdx.x % 32;
    const int x = (int)a[lane], y = (int)b[lane];
    int acc[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; c++) acc[c] = c0[lane] + c;
    const long long cycles0 = clock64();
    const unsigned long long ns0 = globaltimer_ns();
#pragma unroll 4
    for (int it = 0; it < iters; it++)
#pragma unroll
        for (int c = 0; c < CHAINS; c++)
            acc[c] = DP2A ? dp2a_lo_s32_asm(x, y, acc[c]) : dp4a_s32_asm(x, y, acc[c]);
    if (clk && threadIdx.x == 0) {
        clk[2 * blockIdx.x] = clock64() - cycles0;
        clk[2 * blockIdx.x + 1] = (long long)(globaltimer_ns() - ns0);
    }
    uint32_t s = 0; /* unsigned: the sum wraps, as the host model does */
#pragma unroll
    for (int c = 0; c < CHAINS; c++) s += (uint32_t)acc[c];
    out[(size_t)blockIdx.x * PEAK_THREADS + threadIdx.x] = s;
}

template <int CHAINS>
__global__ void __launch_bounds__(PEAK_THREADS)
    peak_mma(const uint32_t *frag, const int32_t *c0, int iters, uint32_t *out, long long *clk)
{
    const int lane = threadIdx.x % 32;
    const uint32_t a[4] = {frag[lane * 6], frag[lane * 6 + 1], frag[lane * 6 + 2],
                           frag[lane * 6 + 3]};
    const uint32_t b[2] = {frag[lane * 6 + 4], frag[lane * 6 + 5]};
    int acc[CHAINS][4];
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
#pragma unroll
        for (int e = 0; e < 4; e++) acc[c][e] = c0[lane * 4 + e] + c;
    const long long cycles0 = clock64();
    const unsigned long long ns0 = globaltimer_ns();
#pragma unroll 4
    for (int it = 0; it < iters; it++)
#pragma unroll
        for (int c = 0; c < CHAINS; c++) mma_m16n8k32_s8(acc[c], a, b);
    if (clk && threadIdx.x == 0) {
        clk[2 * blockIdx.x] = clock64() - cycles0;
        clk[2 * blockIdx.x + 1] = (long long)(globaltimer_ns() - ns0);
    }
    const size_t warp = (size_t)blockIdx.x * (PEAK_THREADS / 32) + threadIdx.x / 32;
#pragma unroll
    for (int e = 0; e < 4; e++) {
        uint32_t s = 0;
#pragma unroll
        for (int c = 0; c < CHAINS; c++) s += (uint32_t)acc[c][e];
        out[(warp * 32 + lane) * 4 + e] = s;
    }
}

extern "C" int peak_chains_supported(int chains)
{
    return chains == 1 || chains == 2 || chains == 4 || chains == 8;
}

template <int CHAINS>
static void launch_peak_chains(peak_kind kind, int blocks, int iters, const uint32_t *a,
                               const uint32_t *b, const int32_t *c0, uint32_t *out, long long *clk,
                               cudaStream_t stream)
{
    switch (kind) {
    case PEAK_DP4A:
        peak_dp<CHAINS, false><<<blocks, PEAK_THREADS, 0, stream>>>(a, b, c0, iters, out, clk);
        break;
    case PEAK_DP2A:
        peak_dp<CHAINS, true><<<blocks, PEAK_THREADS, 0, stream>>>(a, b, c0, iters, out, clk);
        break;
    default: peak_mma<CHAINS><<<blocks, PEAK_THREADS, 0, stream>>>(a, c0, iters, out, clk); break;
    }
}

extern "C" void peak_launch(peak_kind kind, int chains, int blocks, int iters, const uint32_t *a,
                            const uint32_t *b, const int32_t *c0, uint32_t *out, long long *clk,
                            cudaStream_t stream)
{
    switch (chains) {
    case 1: launch_peak_chains<1>(kind, blocks, iters, a, b, c0, out, clk, stream); break;
    case 2: launch_peak_chains<2>(kind, blocks, iters, a, b, c0, out, clk, stream); break;
    case 4: launch_peak_chains<4>(kind, blocks, iters, a, b, c0, out, clk, stream); break;
    default: launch_peak_chains<8>(kind, blocks, iters, a, b, c0, out, clk, stream); break;
    }
}

/* ================================================================================================
 * Random int8 inputs for the cuBLAS figure
 * ============================================================================================== */
static __device__ __forceinline__ uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; /* the splitmix64 finaliser */
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__global__ void fill_random_i8_kernel(int8_t *x, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = (int8_t)(uint8_t)(mix64(seed * 0x9E3779B97F4A7C15ull + i) >> 56);
}

extern "C" void fill_random_i8(int8_t *x, size_t n, uint64_t seed, cudaStream_t stream)
{
    fill_random_i8_kernel<<<1024, 256, 0, stream>>>(x, n, seed);
}
