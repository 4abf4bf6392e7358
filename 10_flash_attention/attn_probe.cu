/* 10_flash_attention/attn_probe.cu - kernels of 10_attn_probe (driver: attn_probe.c): one-warpgroup
 * unit tests of the PTX wrappers of attn_wgmma.cuh that v2_wgmma relies on, run before the kernel
 * is trusted (CONTRIBUTING: every PTX wrapper is checked on the GPU before a kernel relies on it).
 * sm_90a only.
 *
 * probe_rs_kernel: one block of one warpgroup, the second product of v2_wgmma in miniature. B
 * (k x n, n contiguous, V's layout) reaches a 128-byte swizzled tile, panels of 64 values of n by
 * PROBE_K_MAX rows, through attn_tma_load_4d or through plain stores at the swizzle's addresses
 * (probe_sw128: what SWIZZLE_128B writes); A comes from an f32 array shaped like an accumulator,
 * packed pairwise by attn_pack2, exactly as v2 packs P; then attn_wgmma_rs<T, N> per k-step with
 * attn_wgmma_desc_mn_sw128 (leading byte offset = one panel), and D leaves by the accumulator's
 * layout. A wrong descriptor field, transpose bit, packing order or register list gives a wrong D.
 *
 * probe_tma_kernel: one warpgroup per box of a BSHD tensor: the 4-D map and copy of v2's loads,
 * with rows past S to be zero-filled; the shared tile is dumped as it lies, and the host
 * un-swizzles it. */
#include "attn_probe.h"

#include "attn_tile.cuh"  /* attn_pack2 */
#include "attn_wgmma.cuh" /* the wrappers under test */

#include "wgmma_parts.cuh" /* ROW_BYTES, align_1024 */

constexpr int PROBE_PANEL_BYTES = PROBE_K_MAX * ROW_BYTES; /* one panel of B: 64 values of n */
static_assert(PROBE_K_MAX == 32, "the A array is 64 x 32: two k-steps");
static_assert(PROBE_PANEL_BYTES % 1024 == 0, "every panel starts at a swizzle atom");

/* byte offset of B(k, n) in its tile: panel n / 64, row k, 16-byte chunk (n % 64) / 8 XOR k % 8 */
static __device__ __forceinline__ uint32_t probe_sw128(int k, int n)
{
    return (n / 64) * PROBE_PANEL_BYTES + k * ROW_BYTES + (((n % 64 / 8) ^ (k % 8)) << 4) +
           2 * (n % 8);
}

template <class T, int N, int KSTEPS>
__global__ void __launch_bounds__(128, 1)
    probe_rs_kernel(const __grid_constant__ CUtensorMap map_b, const float *a, const uint16_t *b,
                    int by_tma, float *d_out)
{
    constexpr int BYTES = N / 64 * PROBE_PANEL_BYTES;
    __shared__ unsigned char raw[BYTES + 1024];
    __shared__ uint64_t bar;
    unsigned char *const sb = align_1024(raw);
    if (by_tma) {
        if (threadIdx.x == 0) {
            mbar_init(&bar, 1);
            fence_mbarrier_init();
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            mbar_arrive_expect_tx(&bar, BYTES);
            for (int p = 0; p < N / 64; p++)
                attn_tma_load_4d(sb + p * PROBE_PANEL_BYTES, &map_b, &bar, 64 * p, 0, 0, 0);
        }
        mbar_wait(&bar, 0);
    } else {
        for (int e = threadIdx.x; e < PROBE_K_MAX * N; e += blockDim.x)
            *(uint16_t *)(sb + probe_sw128(e / N, e % N)) = b[e];
        fence_proxy_async(); /* generic-proxy stores -> the async proxy wgmma reads through */
        __syncthreads();
    }

    /* A as an f32 accumulator of 64 x 32 holds it: register i of lane 4 g + t of warp w is row 16 w
     * + g + 8 ((i / 2) % 2), column 8 (i / 4) + 2 t + i % 2; then v2's packing, k-step c from
     * registers 8 c .. 8 c + 7 */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    float acc[16];
#pragma unroll
    for (int i = 0; i < 16; i++)
        acc[i] = a[(16 * warp + g + 8 * (i / 2 % 2)) * PROBE_K_MAX + 8 * (i / 4) + 2 * t + i % 2];
    uint32_t p[KSTEPS][4];
#pragma unroll
    for (int c = 0; c < KSTEPS; c++)
#pragma unroll
        for (int q = 0; q < 4; q++)
            p[c][q] = attn_pack2<T>(acc[8 * c + 2 * q], acc[8 * c + 2 * q + 1]);

    float d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; i++) d[i] = __int_as_float(0x7FC00000); /* scale-d = 0 ignores it */
    attn_fence_a(p);
    wgmma_fence_operand(d);
    wgmma_fence();
#pragma unroll
    for (int c = 0; c < KSTEPS; c++) /* k-step c: keys 16 c .. 16 c + 15, whole atoms further on */
        attn_wgmma_rs<T, N>::run(
            d, p[c], attn_wgmma_desc_mn_sw128(smem_u32(sb) + c * 16 * ROW_BYTES, PROBE_PANEL_BYTES),
            c > 0);
    wgmma_commit_group();
    wgmma_wait_group<0>();
    wgmma_fence_operand(d);
    attn_fence_a(p);
#pragma unroll
    for (int i = 0; i < N / 2; i++)
        d_out[(16 * warp + g + 8 * (i / 2 % 2)) * N + 8 * (i / 4) + 2 * t + i % 2] = d[i];
}

template <class T>
static void probe_rs_run(int n, int ksteps, const CUtensorMap &map, const float *a,
                         const uint16_t *b, int by_tma, float *d, cudaStream_t stream)
{
    if (n == 64 && ksteps == 1)
        probe_rs_kernel<T, 64, 1><<<1, 128, 0, stream>>>(map, a, b, by_tma, d);
    else if (n == 64)
        probe_rs_kernel<T, 64, 2><<<1, 128, 0, stream>>>(map, a, b, by_tma, d);
    else if (ksteps == 1)
        probe_rs_kernel<T, 128, 1><<<1, 128, 0, stream>>>(map, a, b, by_tma, d);
    else
        probe_rs_kernel<T, 128, 2><<<1, 128, 0, stream>>>(map, a, b, by_tma, d);
}

extern "C" const char *probe_rs_launch(int bf16, int n, int ksteps, int by_tma, const float *a,
                                       const uint16_t *b, float *d, cudaStream_t stream)
{
    /* B as a BSHD tensor of 1 batch, 16 ksteps rows, 1 head, n values: boxes of PROBE_K_MAX rows */
    alignas(128) CUtensorMap map;
    memset(&map, 0, sizeof map);
    const CUtensorMapDataType type =
        bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    if (by_tma &&
        attn_tma_map_bshd(&map, b, type, 1, 16 * ksteps, 1, n, attn_strides_bshd(PROBE_K_MAX, 1, n),
                          PROBE_K_MAX) != cudaSuccess)
        return tma_map_last_error();
    if (bf16)
        probe_rs_run<__nv_bfloat16>(n, ksteps, map, a, b, by_tma, d, stream);
    else
        probe_rs_run<__half>(n, ksteps, map, a, b, by_tma, d, stream);
    return NULL;
}

/* ---- the 4-D TMA ----------------------------------------------------------------------------- */
template <int PANELS>
__global__ void __launch_bounds__(128, 1)
    probe_tma_kernel(const __grid_constant__ CUtensorMap map, uint16_t *out)
{
    constexpr int PANEL_BYTES = PROBE_TMA_ROWS * ROW_BYTES, BYTES = PANELS * PANEL_BYTES;
    __shared__ unsigned char raw[BYTES + 1024];
    __shared__ uint64_t bar;
    unsigned char *const tile = align_1024(raw);
    /* poison: a byte the copy leaves alone stays 0xFF, so a missing zero fill shows */
    for (int i = threadIdx.x; i < BYTES / 16; i += blockDim.x)
        ((uint4 *)tile)[i] = make_uint4(~0u, ~0u, ~0u, ~0u);
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        fence_mbarrier_init();
    }
    fence_proxy_async(); /* the poison's generic stores before the copy engine's writes */
    __syncthreads();
    if (threadIdx.x == 0) {
        mbar_arrive_expect_tx(&bar, BYTES); /* zero-filled rows count too */
        for (int p = 0; p < PANELS; p++)
            attn_tma_load_4d(tile + p * PANEL_BYTES, &map, &bar, 64 * p,
                             (int)blockIdx.x * PROBE_TMA_ROWS, (int)blockIdx.y, (int)blockIdx.z);
    }
    mbar_wait(&bar, 0);
    const size_t block = ((size_t)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    uint4 *const dst = (uint4 *)(out + block * (BYTES / 2));
    for (int i = threadIdx.x; i < BYTES / 16; i += blockDim.x) dst[i] = ((const uint4 *)tile)[i];
}

extern "C" const char *probe_tma_launch(int bf16, const uint16_t *x, int B, int S, int H, int D,
                                        attn_strides st, uint16_t *out, cudaStream_t stream)
{
    alignas(128) CUtensorMap map;
    const CUtensorMapDataType type =
        bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    if (attn_tma_map_bshd(&map, x, type, B, S, H, D, st, PROBE_TMA_ROWS) != cudaSuccess)
        return tma_map_last_error();
    const dim3 grid((unsigned)((S + PROBE_TMA_ROWS - 1) / PROBE_TMA_ROWS), (unsigned)H,
                    (unsigned)B);
    if (D == 64)
        probe_tma_kernel<1><<<grid, 128, 0, stream>>>(map, out);
    else
        probe_tma_kernel<2><<<grid, 128, 0, stream>>>(map, out);
    return NULL;
}

/* ---- the consumers' turns (v3_pingpong): named_bar_sync and named_bar_arrive --------------------
 * Two warpgroups take `rounds` turns each, as v3's consumers do: warpgroup 1 arrives once at
 * warpgroup 0's barrier first, each turn waits at its own barrier and ends with an arrival at the
 * other's, and warpgroup 1 skips its last. In its turn, thread 0 of the warpgroup reads the shared
 * position, waits about 2000 cycles (a window in which the other warpgroup, were it not held,
 * would read the same position), writes its number at it and moves it on. */
__global__ void __launch_bounds__(2 * WG_THREADS, 1)
    probe_turns_kernel(int rounds, int *log, int *count)
{
    constexpr int THREADS = 2 * WG_THREADS, BAR0 = 1;
    __shared__ int pos;
    if (threadIdx.x == 0) pos = 0;
    __syncthreads();
    const int wg = threadIdx.x / WG_THREADS, mine = BAR0 + wg, other = BAR0 + 1 - wg;
    if (wg == 1) named_bar_arrive(other, THREADS);
    for (int r = 0; r < rounds; r++) {
        named_bar_sync(mine, THREADS);
        if (threadIdx.x % WG_THREADS == 0) {
            volatile int *vpos = &pos;
            const int p = *vpos;
            const long long t0 = clock64();
            while (clock64() - t0 < 2000) {
            }
            log[p] = wg;
            *vpos = p + 1;
        }
        __syncwarp();
        if (wg == 0 || r + 1 < rounds) named_bar_arrive(other, THREADS);
    }
    __syncthreads();
    if (threadIdx.x == 0) *count = pos;
}

extern "C" void probe_turns_launch(int rounds, int *log, int *count, cudaStream_t stream)
{
    probe_turns_kernel<<<1, 2 * WG_THREADS, 0, stream>>>(rounds, log, count);
}
