/* 05_mma_ptx/mma/mma_probe.cu - the device half of 05_mma_probe: one-warp unit tests of every PTX
 * wrapper and fragment loader, and the mma.sync throughput benchmark (the ceiling the GEMM ladder
 * is judged against).
 *
 * What it teaches
 *   A fragment layout is a contract between your code and the hardware, and a wrong one does not
 *   crash: it computes a different product. So each wrapper is tested alone, one warp, on a tile
 *   small enough to compute on the CPU exactly (small integers: every product and sum is exact in
 *   f16, bf16 and f32), before any GEMM uses it:
 *     probe_mma        registers packed by hand from the documented map -> mma -> D unpacked by
 *                      the map; a wrong map for A, B or C gives a wrong D
 *     probe_dmma       the same for the FP64 wrappers (m8n8k4, and m16n8k16 on sm_90)
 *     probe_ldmatrix   raw registers out, compared on the host with the map of ldmatrix (.trans)
 *                      for rows scattered over shared memory (any row address per lane)
 *     probe_cp_async   zero fill (src_bytes 0..16) and commit/wait groups
 *     probe_tile       the GEMM's loaders together: shared tiles (plain, swizzled, row-major B)
 *                      -> fragments (by hand, ldmatrix, ldmatrix.trans) -> mma -> D
 *   Then the throughput of mma.sync itself: every warp runs independent accumulator chains on
 *   fragments already in registers, no memory traffic at all. One chain per warp measures the
 *   latency of the instruction; enough chains and warps measure the tensor pipe's throughput.
 *
 * Minimum: sm_80 (bf16 mma, cp.async). CUDA 12.x or 13.x.
 * Build and run: see mma_probe.c. */
#include "mma_probe.h"

#include "mma_tile.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

/* two 16-bit values as one register: lo in the low half */
static __device__ __forceinline__ uint32_t pack(uint16_t lo, uint16_t hi)
{
    return (uint32_t)lo | ((uint32_t)hi << 16);
}

/* ---- mma_m16n8k16: registers by hand --------------------------------------------------------- */
template <class T>
__global__ void __launch_bounds__(32)
    probe_mma(const uint16_t *a, const uint16_t *b, const float *c, float *d)
{
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    /* A 16x16 row-major: a[0] (g, 2t..), a[1] (g+8, 2t..), a[2] (g, 2t+8..), a[3] (g+8, 2t+8..) */
    const uint32_t ra[4] = {
        pack(a[g * 16 + 2 * t], a[g * 16 + 2 * t + 1]),
        pack(a[(g + 8) * 16 + 2 * t], a[(g + 8) * 16 + 2 * t + 1]),
        pack(a[g * 16 + 2 * t + 8], a[g * 16 + 2 * t + 9]),
        pack(a[(g + 8) * 16 + 2 * t + 8], a[(g + 8) * 16 + 2 * t + 9]),
    };
    /* B 16x8 row-major (k x n): b[0] (k = 2t, 2t+1; n = g), b[1] (k = 2t+8, 2t+9; n = g) */
    const uint32_t rb[2] = {
        pack(b[(2 * t) * 8 + g], b[(2 * t + 1) * 8 + g]),
        pack(b[(2 * t + 8) * 8 + g], b[(2 * t + 9) * 8 + g]),
    };
    /* C/D 16x8 row-major: d[0], d[1] (g, 2t..); d[2], d[3] (g+8, 2t..) */
    float acc[4] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1], c[(g + 8) * 8 + 2 * t],
                    c[(g + 8) * 8 + 2 * t + 1]};
    mma_f32<T>::run(acc, ra, rb);
    d[g * 8 + 2 * t] = acc[0];
    d[g * 8 + 2 * t + 1] = acc[1];
    d[(g + 8) * 8 + 2 * t] = acc[2];
    d[(g + 8) * 8 + 2 * t + 1] = acc[3];
}

extern "C" void probe_mma_launch(int bf16, const uint16_t *a, const uint16_t *b, const float *c,
                                 float *d, cudaStream_t stream)
{
    if (bf16)
        probe_mma<__nv_bfloat16><<<1, 32, 0, stream>>>(a, b, c, d);
    else
        probe_mma<__half><<<1, 32, 0, stream>>>(a, b, c, d);
}

/* ---- mma_m8n8k4_f64 / mma_m16n8k16_f64: fragments by the documented map ---------------------- */
template <int MM>
__global__ void __launch_bounds__(32)
    probe_dmma(const double *a, const double *b, const double *c, double *d)
{
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    if constexpr (MM == 8) { /* A 8x4, B 4x8 (k x n), C and D 8x8, all row-major */
        double acc[2] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1]};
        mma_m8n8k4_f64(acc, a[g * 4 + t], b[t * 8 + g]);
        d[g * 8 + 2 * t] = acc[0];
        d[g * 8 + 2 * t + 1] = acc[1];
    } else { /* A 16x16, B 16x8 (k x n), C and D 16x8, all row-major */
        double ra[8], rb[4], acc[4];
        for (int v = 0; v < 8; v++) ra[v] = a[(g + 8 * (v % 2)) * 16 + t + 4 * (v / 2)];
        for (int v = 0; v < 4; v++) rb[v] = b[(t + 4 * v) * 8 + g];
        for (int v = 0; v < 4; v++) acc[v] = c[(g + 8 * (v / 2)) * 8 + 2 * t + v % 2];
        mma_m16n8k16_f64(acc, ra, rb);
        for (int v = 0; v < 4; v++) d[(g + 8 * (v / 2)) * 8 + 2 * t + v % 2] = acc[v];
    }
}

extern "C" int probe_dmma_launch(int m16, const double *a, const double *b, const double *c,
                                 double *d, cudaStream_t stream)
{
    if (!m16) {
        probe_dmma<8><<<1, 32, 0, stream>>>(a, b, c, d);
        return 1;
    }
    cudaFuncAttributes fa; /* m16n8k16 f64 exists only in sm_90 code (a trap elsewhere) */
    if (cudaFuncGetAttributes(&fa, (const void *)probe_dmma<16>) != cudaSuccess ||
        fa.binaryVersion < 90) {
        (void)cudaGetLastError();
        return 0;
    }
    probe_dmma<16><<<1, 32, 0, stream>>>(a, b, c, d);
    return 1;
}

/* ---- ldmatrix_x4 / ldmatrix_x4_trans: raw registers ------------------------------------------ */
__global__ void __launch_bounds__(32)
    probe_ldmatrix(int trans, const uint16_t *src, const int *row_slot, uint32_t *out)
{
    __shared__ __align__(128) uint16_t s[PROBE_LDM_SLOTS * 8];
    const int lane = threadIdx.x;
    /* every store below writes whole 32-bit words, one lane per word (racecheck-clean) */
    for (int i = lane; i < PROBE_LDM_SLOTS * 4; i += 32) ((uint32_t *)s)[i] = 0xFFFFFFFFu;
    __syncwarp();
    for (int e = 0; e < 8; e += 2) /* row `lane` */
        *(uint32_t *)(s + row_slot[lane] * 8 + e) = pack(src[lane * 8 + e], src[lane * 8 + e + 1]);
    __syncwarp();
    uint32_t r[4];
    const uint32_t addr = smem_u32(s + row_slot[lane] * 8); /* lane l: row l % 8 of tile l / 8 */
    if (trans)
        ldmatrix_x4_trans(r, addr);
    else
        ldmatrix_x4(r, addr);
    for (int j = 0; j < 4; j++) out[lane * 4 + j] = r[j];
}

extern "C" void probe_ldmatrix_launch(int trans, const uint16_t *src, const int *row_slot,
                                      uint32_t *out, cudaStream_t stream)
{
    probe_ldmatrix<<<1, 32, 0, stream>>>(trans, src, row_slot, out);
}

/* ---- cp_async_16 with commit and wait groups ------------------------------------------------- */
__global__ void __launch_bounds__(32)
    probe_cp_async(const unsigned char *src, const int *src_bytes, unsigned char *out)
{
    __shared__ __align__(128) unsigned char s[64 * 16];
    const int lane = threadIdx.x;
    for (int i = lane; i < 64 * 4; i += 32) /* the bytes cp.async must overwrite, or zero */
        ((uint32_t *)s)[i] = PROBE_CP_FILL * 0x01010101u;
    __syncwarp();
    const uint32_t base = smem_u32(s);
    /* group 0: partial copies (the rest of each 16 bytes is zero-filled) to scattered slots */
    cp_async_16(base + 16 * ((5 * lane + 3) % 32), src + 16 * lane, src_bytes[lane]);
    cp_async_commit_group();
    /* group 1: full copies */
    cp_async_16(base + 16 * (32 + (7 * lane + 1) % 32), src + 16 * (32 + lane), 16);
    cp_async_commit_group();

    cp_async_wait_group<1>(); /* this thread's group 0 has landed ... */
    __syncwarp();             /* ... and every lane's, once all have passed their wait */
    *(uint4 *)(out + 16 * lane) = *(const uint4 *)(s + 16 * lane);
    cp_async_wait_group<0>();
    __syncwarp();
    *(uint4 *)(out + 16 * (32 + lane)) = *(const uint4 *)(s + 16 * (32 + lane));
}

extern "C" void probe_cp_async_launch(const unsigned char *src, const int *src_bytes,
                                      unsigned char *out, cudaStream_t stream)
{
    probe_cp_async<<<1, 32, 0, stream>>>(src, src_bytes, out);
}

/* ---- the fragment loaders of the GEMM, together ---------------------------------------------- */
template <class T, class Tile, int MODE>
__global__ void __launch_bounds__(32) probe_tile(const uint16_t *a, const uint16_t *b, float *d)
{
    constexpr int M = 16, N = 16, K = 32;
    static_assert(Tile::BK == K, "one tile row holds the whole k range");
    __shared__ __align__(128) unsigned char sA[M * K * 2];
    __shared__ __align__(128) unsigned char sB[N * K * 2]; /* K-major, or row-major k x n */
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    /* pairs of neighbours along a tile row, one 32-bit word per lane and store */
    for (int i = lane; i < M * K / 2; i += 32) { /* A(m, k), A(m, k+1), k even */
        const int m = 2 * i / K, k = 2 * i % K;
        *(uint32_t *)(sA + Tile::value_offset(m, k)) = pack(a[m * K + k], a[m * K + k + 1]);
    }
    for (int i = lane; i < K * N / 2; i += 32) { /* b[k * N + n] is B(k, n) */
        if (MODE == PROBE_TILE_TRANS) {          /* row-major k x n: B(k, n), B(k, n+1), n even */
            const int k = 2 * i / N, n = 2 * i % N;
            *(uint32_t *)(sB + (k * N + n) * 2) = pack(b[k * N + n], b[k * N + n + 1]);
        } else { /* K-major (n rows): B(k, n), B(k+1, n), k even */
            const int n = 2 * i / K, k = 2 * i % K;
            *(uint32_t *)(sB + Tile::value_offset(n, k)) = pack(b[k * N + n], b[(k + 1) * N + n]);
        }
    }
    __syncwarp();

    float acc[2][4] = {};
    for (int ks = 0; ks < K / 16; ks++) {
        uint32_t fa[4], fb[2][2];
        if (MODE == PROBE_TILE_HAND) {
            load_a_frag_hand<Tile>(fa, sA, 0, 16 * ks);
            load_b_frag_hand<Tile>(fb[0], sB, 0, 16 * ks);
            load_b_frag_hand<Tile>(fb[1], sB, 8, 16 * ks);
        } else {
            load_a_frag_ldmatrix<Tile>(fa, smem_u32(sA), 0, a_frag_lane_offset<Tile>(ks));
            if (MODE == PROBE_TILE_TRANS)
                load_b_frags_ldmatrix_trans(fb[0], fb[1], smem_u32(sB), N * 2, 16 * ks, 0);
            else
                load_b_frags_ldmatrix<Tile>(fb[0], fb[1], smem_u32(sB), 0,
                                            b_frag_lane_offset<Tile>(ks));
        }
        mma_f32<T>::run(acc[0], fa, fb[0]);
        mma_f32<T>::run(acc[1], fa, fb[1]);
    }
    for (int j = 0; j < 2; j++) {
        d[g * N + 8 * j + 2 * t] = acc[j][0];
        d[g * N + 8 * j + 2 * t + 1] = acc[j][1];
        d[(g + 8) * N + 8 * j + 2 * t] = acc[j][2];
        d[(g + 8) * N + 8 * j + 2 * t + 1] = acc[j][3];
    }
}

template <class T>
static void launch_tile(int mode, const uint16_t *a, const uint16_t *b, float *d,
                        cudaStream_t stream)
{
    typedef kmajor_tile<32, false> plain;
    typedef kmajor_tile<32, true> swizzled;
    switch (mode) {
    case PROBE_TILE_HAND:
        probe_tile<T, plain, PROBE_TILE_HAND><<<1, 32, 0, stream>>>(a, b, d);
        break;
    case PROBE_TILE_LDMATRIX:
        probe_tile<T, plain, PROBE_TILE_LDMATRIX><<<1, 32, 0, stream>>>(a, b, d);
        break;
    case PROBE_TILE_SWIZZLED:
        probe_tile<T, swizzled, PROBE_TILE_SWIZZLED><<<1, 32, 0, stream>>>(a, b, d);
        break;
    default: probe_tile<T, plain, PROBE_TILE_TRANS><<<1, 32, 0, stream>>>(a, b, d); break;
    }
}

extern "C" void probe_tile_launch(int mode, int bf16, const uint16_t *a, const uint16_t *b,
                                  float *d, cudaStream_t stream)
{
    if (bf16)
        launch_tile<__nv_bfloat16>(mode, a, b, d, stream);
    else
        launch_tile<__half>(mode, a, b, d, stream);
}

/* ---- the throughput benchmark -------------------------------------------------------------------
 * Every warp multiplies the same A and B fragments into CHAINS accumulators. The chains are
 * independent (chain c depends only on its own previous mma), so up to CHAINS mmas of a warp are
 * in flight at once. They start from different values (c0 + c), so neither the compiler nor
 * ptxas can prove two chains equal and merge them; the asm is volatile, so none is dropped; and
 * every chain's final value reaches memory (summed per lane), so the host can check that each of
 * the iters * CHAINS mmas happened: the result must equal c0 sums + CHAINS * iters * (A B)
 * exactly (small integers). */
/* %globaltimer: a nanosecond clock shared by the whole GPU (clock64 counts this SM's cycles) */
static __device__ __forceinline__ unsigned long long globaltimer_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <class T, int CHAINS>
__global__ void __launch_bounds__(32 * MMA_PEAK_WARPS)
    mma_peak(const uint32_t *frag, const float *c0, int iters, float *out, long long *clk)
{
    const int lane = threadIdx.x % 32;
    const uint32_t a[4] = {frag[lane * 6], frag[lane * 6 + 1], frag[lane * 6 + 2],
                           frag[lane * 6 + 3]};
    const uint32_t b[2] = {frag[lane * 6 + 4], frag[lane * 6 + 5]};
    float acc[CHAINS][4];
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
#pragma unroll
        for (int i = 0; i < 4; i++) acc[c][i] = c0[lane * 4 + i] + (float)c;
    const long long cycles0 = clock64();
    const unsigned long long ns0 = globaltimer_ns();
#pragma unroll 4
    for (int it = 0; it < iters; it++)
#pragma unroll
        for (int c = 0; c < CHAINS; c++) mma_f32<T>::run(acc[c], a, b);
    if (clk && threadIdx.x == 0) {
        clk[2 * blockIdx.x] = clock64() - cycles0;
        clk[2 * blockIdx.x + 1] = (long long)(globaltimer_ns() - ns0);
    }
    const size_t warp = (size_t)blockIdx.x * MMA_PEAK_WARPS + threadIdx.x / 32;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        float s = 0.0f;
#pragma unroll
        for (int c = 0; c < CHAINS; c++) s += acc[c][i];
        out[(warp * 32 + lane) * 4 + i] = s;
    }
}

extern "C" int mma_peak_chains_supported(int chains)
{
    return chains == 1 || chains == 2 || chains == 4 || chains == 8;
}

template <class T>
static void launch_peak(int chains, int blocks, int iters, const uint32_t *frag, const float *c0,
                        float *out, long long *clk, cudaStream_t stream)
{
    const dim3 grid(blocks), block(32 * MMA_PEAK_WARPS);
    switch (chains) {
    case 1: mma_peak<T, 1><<<grid, block, 0, stream>>>(frag, c0, iters, out, clk); break;
    case 2: mma_peak<T, 2><<<grid, block, 0, stream>>>(frag, c0, iters, out, clk); break;
    case 4: mma_peak<T, 4><<<grid, block, 0, stream>>>(frag, c0, iters, out, clk); break;
    default: mma_peak<T, 8><<<grid, block, 0, stream>>>(frag, c0, iters, out, clk); break;
    }
}

extern "C" void mma_peak_launch(int bf16, int chains, int blocks, int iters, const uint32_t *frag,
                                const float *c0, float *out, long long *clk, cudaStream_t stream)
{
    if (bf16)
        launch_peak<__nv_bfloat16>(chains, blocks, iters, frag, c0, out, clk, stream);
    else
        launch_peak<__half>(chains, blocks, iters, frag, c0, out, clk, stream);
}

/* ---- random inputs for the cuBLAS figure ----------------------------------------------------- */
static __device__ __forceinline__ uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; /* the splitmix64 finaliser */
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__global__ void fill_random(int bf16, uint16_t *x, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const uint64_t h = mix64(seed * 0x9E3779B97F4A7C15ull + i);
        const float u = (float)(h >> 40) * (2.0f / 16777216.0f) - 1.0f; /* [-1, 1), 24 bits */
        x[i] = bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(u))
                    : __half_as_ushort(__float2half_rn(u));
    }
}

extern "C" void probe_fill_random(int bf16, uint16_t *x, size_t n, uint64_t seed,
                                  cudaStream_t stream)
{
    fill_random<<<1024, 256, 0, stream>>>(bf16, x, n, seed);
}
