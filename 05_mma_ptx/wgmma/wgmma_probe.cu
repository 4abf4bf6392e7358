/* 05_mma_ptx/wgmma_probe.cu - kernels of 05_wgmma_probe (driver: wgmma_probe.c): one-warpgroup
 * unit tests of the wgmma/TMA wrappers (wgmma_ptx.cuh, tma_map.h) and the wgmma throughput
 * benchmark. sm_90a only.
 *
 * probe_wgmma_kernel: one block of one warpgroup. A (64 x 64) and B (N x 64, both K-contiguous in
 * global memory) reach a 128-byte swizzled shared tile either through the TMA (the maps made on
 * the host with the tile's rows and k as the tensor's extent, so a smaller matrix is zero-filled
 * by the copy engine) or through plain stores at the addresses of the swizzle formula; then four
 * wgmma k-steps (the first with scale-d = 0), and every accumulator register goes to D(row, col)
 * by the documented layout. A wrong descriptor bit, swizzle or register map gives a wrong D.
 *
 * peak_kernel: W warpgroups per block, each issuing `iters` groups of 4 wgmma m64n256k16 on the
 * same shared tiles (no memory traffic), at most two groups in flight. What the tensor cores can
 * do with wgmma: the ceiling the ladder is judged against. */
#include "wgmma_probe.h"

#include "check.h"
#include "tma_map.h"
#include "wgmma_ptx.cuh"

constexpr int TILE_K = 64, ROW_BYTES = 128;

/* the 128-byte swizzle (wgmma_ptx.cuh), for the hand-written path */
static __device__ __forceinline__ uint32_t sw128_offset(int r, int k)
{
    return r * ROW_BYTES + (((k / 8) ^ (r % 8)) << 4) + 2 * (k % 8);
}

template <int N> struct probe_smem {
    static constexpr int A_BYTES = 64 * ROW_BYTES, B_BYTES = N * ROW_BYTES;
    static constexpr size_t BYTES = A_BYTES + B_BYTES + 16 + 1024; /* + barrier + alignment */
};

static __device__ __forceinline__ unsigned char *align_1024(unsigned char *p)
{
    return p + ((1024u - (smem_u32(p) & 1023u)) & 1023u);
}

/* rows x 64 values of a K-contiguous matrix (rows_valid x k_valid, ld) by plain stores, zeros
 * outside */
static __device__ void store_tile_by_hand(unsigned char *tile, const uint16_t *g, long ld, int rows,
                                          int rows_valid, int k_valid)
{
    for (int e = threadIdx.x; e < rows * TILE_K; e += blockDim.x) {
        const int r = e / TILE_K, k = e % TILE_K;
        *(uint16_t *)(tile + sw128_offset(r, k)) =
            r < rows_valid && k < k_valid ? g[(size_t)r * ld + k] : (uint16_t)0;
    }
}

template <class T, int N>
__global__ void __launch_bounds__(128, 1)
    probe_wgmma_kernel(const __grid_constant__ CUtensorMap map_a,
                       const __grid_constant__ CUtensorMap map_b, const uint16_t *a,
                       const uint16_t *b, int m_valid, int n_valid, int k_valid, int by_tma,
                       float *d_out)
{
    extern __shared__ unsigned char smem_raw[];
    unsigned char *sa = align_1024(smem_raw), *sb = sa + probe_smem<N>::A_BYTES;
    uint64_t *bar = (uint64_t *)(sb + probe_smem<N>::B_BYTES);
    if (by_tma) {
        if (threadIdx.x == 0) {
            mbar_init(bar, 1);
            fence_mbarrier_init();
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            mbar_arrive_expect_tx(bar, probe_smem<N>::A_BYTES + probe_smem<N>::B_BYTES);
            tma_load_2d(sa, &map_a, bar, 0, 0);
            tma_load_2d(sb, &map_b, bar, 0, 0);
        }
        mbar_wait(bar, 0);
    } else {
        store_tile_by_hand(sa, a, k_valid, 64, m_valid, k_valid);
        store_tile_by_hand(sb, b, k_valid, N, n_valid, k_valid);
        fence_proxy_async(); /* generic-proxy stores -> the async proxy wgmma reads through */
        __syncthreads();
    }
    float d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; i++) d[i] = -1.0f; /* scale-d = 0 must ignore this */
    wgmma_fence_operand(d);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < TILE_K / 16; kk++)
        wgmma_op<T, N>::run(d, wgmma_desc_sw128(smem_u32(sa) + 32 * kk),
                            wgmma_desc_sw128(smem_u32(sb) + 32 * kk), kk > 0);
    wgmma_commit_group();
    wgmma_wait_group<0>();
    wgmma_fence_operand(d);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < N / 2; i++) {
        const int row = 16 * warp + g + 8 * (i / 2 % 2), col = 8 * (i / 4) + 2 * t + i % 2;
        d_out[row * N + col] = d[i];
    }
}

static size_t probe_wgmma_smem(int n)
{
    return n == 128 ? probe_smem<128>::BYTES : probe_smem<256>::BYTES;
}

extern "C" void probe_wgmma_launch(int bf16, int n, int by_tma, const uint16_t *a,
                                   const uint16_t *b, int m_valid, int n_valid, int k_valid,
                                   float *d, cudaStream_t stream)
{
    /* the maps describe exactly the valid part: the TMA fills the rest of each box with zeros */
    const CUtensorMapDataType type =
        bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    CUtensorMap ma, mb;
    TC_CUDA_CHECK(tma_map_kmajor(&ma, a, type, m_valid, k_valid, k_valid, 64));
    TC_CUDA_CHECK(tma_map_kmajor(&mb, b, type, n_valid, k_valid, k_valid, n));
    const size_t smem = probe_wgmma_smem(n);
#define PROBE_LAUNCH(T, NN)                                                                        \
    do {                                                                                           \
        TC_CUDA_CHECK(cudaFuncSetAttribute(                                                        \
            probe_wgmma_kernel<T, NN>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));   \
        probe_wgmma_kernel<T, NN>                                                                  \
            <<<1, 128, smem, stream>>>(ma, mb, a, b, m_valid, n_valid, k_valid, by_tma, d);        \
    } while (0)
    if (bf16 && n == 128)
        PROBE_LAUNCH(__nv_bfloat16, 128);
    else if (bf16)
        PROBE_LAUNCH(__nv_bfloat16, 256);
    else if (n == 128)
        PROBE_LAUNCH(__half, 128);
    else
        PROBE_LAUNCH(__half, 256);
#undef PROBE_LAUNCH
}

/* ---- the throughput benchmark -------------------------------------------------------------------
 */
template <class T>
__global__ void __launch_bounds__(PEAK_MAX_WARPGROUPS * 128, 1)
    peak_kernel(const uint16_t *a, const uint16_t *b, int iters, float *out)
{
    extern __shared__ unsigned char smem_raw[];
    unsigned char *sa = align_1024(smem_raw), *sb = sa + probe_smem<256>::A_BYTES;
    store_tile_by_hand(sa, a, TILE_K, 64, 64, TILE_K);
    store_tile_by_hand(sb, b, TILE_K, 256, 256, TILE_K);
    fence_proxy_async();
    __syncthreads();
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; i++) d[i] = 0.0f;
    const uint32_t a0 = smem_u32(sa), b0 = smem_u32(sb);
    for (int it = 0; it < iters; it++) {
        wgmma_fence_operand(d);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < TILE_K / 16; kk++)
            wgmma_op<T, 256>::run(d, wgmma_desc_sw128(a0 + 32 * kk), wgmma_desc_sw128(b0 + 32 * kk),
                                  1);
        wgmma_commit_group();
        wgmma_wait_group<1>();
    }
    wgmma_wait_group<0>();
    wgmma_fence_operand(d);
    /* every warpgroup of every block computes iters * (A B): keep one block's first warpgroup
     * and the last warpgroup of the last block, for the exact check */
    const int wg = threadIdx.x / 128;
    const bool first = blockIdx.x == 0 && wg == 0;
    const bool last = blockIdx.x == gridDim.x - 1 && wg == (int)blockDim.x / 128 - 1;
    if (!first && !last) return;
    float *o = out + (first ? 0 : 64 * 256);
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < 128; i++) {
        const int row = 16 * warp + g + 8 * (i / 2 % 2), col = 8 * (i / 4) + 2 * t + i % 2;
        o[row * 256 + col] = d[i];
    }
}

extern "C" void peak_launch(int bf16, int warpgroups, int blocks, int iters, const uint16_t *a,
                            const uint16_t *b, float *out, cudaStream_t stream)
{
    const size_t smem = probe_smem<256>::BYTES;
    if (bf16) {
        TC_CUDA_CHECK(cudaFuncSetAttribute(peak_kernel<__nv_bfloat16>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        peak_kernel<__nv_bfloat16><<<blocks, 128 * warpgroups, smem, stream>>>(a, b, iters, out);
    } else {
        TC_CUDA_CHECK(cudaFuncSetAttribute(peak_kernel<__half>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        peak_kernel<__half><<<blocks, 128 * warpgroups, smem, stream>>>(a, b, iters, out);
    }
}
