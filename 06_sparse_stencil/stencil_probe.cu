/* 06_sparse_stencil/stencil_probe.cu - one-warp unit tests of the fragment layouts the tensor-core
 * kernels rely on, run by `06_sparse_stencil --test` before any stencil.
 *
 * What it teaches
 *   A wrong lane map does not crash, it computes another product. So each piece is run alone on
 *   data whose answer the host knows exactly:
 *     probe_mma_sp      registers packed on the host by the documented maps (stencil_bands.h)
 *                       -> mma.sp with selector 0 and with selector 1 on one shared metadata
 *                       register -> raw D registers; small integers make every product and sum
 *                       exact in f16 and f32, so the host compares bit for bit, and when they
 *                       differ it tries the likely misreadings of the metadata layout and names
 *                       the one the GPU matches
 *     probe_mma_dense   the same for mma.sync m16n8k16 (f32 and the f16 accumulator)
 *     probe_b_loader    the kernel's own shared tile fill and B loader (ldmatrix.x4 and the swap):
 *                       every cell holds a code of its (y, x), so a wrong register names the cell
 *                       it came from
 *   and one throughput kernel, probe_rate: how fast the tensor cores run the two instructions the
 *   stencils are built on, dense mma.sync m16n8k16 and sparse mma.sp m16n8k32 (f32 accumulators),
 *   so the claim the sparse rung rests on, "sparse k32 covers K faster than dense k16", is
 *   measured on the GPU at hand, not taken on trust (stencil.c --bench prints it and turns it
 *   into GStencil/s bounds).
 * Minimum: sm_80. */
#include "stencil_kernels.h"

#include "stencil_tc.cuh"

__global__ void __launch_bounds__(32)
    probe_mma_sp(int f16acc, const uint32_t *a0, const uint32_t *a1, const uint32_t *b,
                 const uint32_t *e, const uint32_t *c, uint32_t *d0, uint32_t *d1)
{
    const int l = threadIdx.x;
    const uint32_t ra0[4] = {a0[4 * l], a0[4 * l + 1], a0[4 * l + 2], a0[4 * l + 3]};
    const uint32_t ra1[4] = {a1[4 * l], a1[4 * l + 1], a1[4 * l + 2], a1[4 * l + 3]};
    const uint32_t rb[4] = {b[4 * l], b[4 * l + 1], b[4 * l + 2], b[4 * l + 3]};
    const uint32_t re = e[l];
    if (f16acc) {
        uint32_t x0[2] = {c[2 * l], c[2 * l + 1]}, x1[2] = {c[2 * l], c[2 * l + 1]};
        mma_sp_m16n8k32_f16f16<0>(x0, ra0, rb, re);
        mma_sp_m16n8k32_f16f16<1>(x1, ra1, rb, re);
        for (int j = 0; j < 2; j++) d0[2 * l + j] = x0[j], d1[2 * l + j] = x1[j];
    } else {
        float x0[4], x1[4];
        for (int j = 0; j < 4; j++) x0[j] = x1[j] = __uint_as_float(c[4 * l + j]);
        mma_sp_m16n8k32_f16f32<0>(x0, ra0, rb, re);
        mma_sp_m16n8k32_f16f32<1>(x1, ra1, rb, re);
        for (int j = 0; j < 4; j++)
            d0[4 * l + j] = __float_as_uint(x0[j]), d1[4 * l + j] = __float_as_uint(x1[j]);
    }
}

extern "C" void probe_mma_sp_launch(int f16acc, const uint32_t *a0, const uint32_t *a1,
                                    const uint32_t *b, const uint32_t *e, const uint32_t *c,
                                    uint32_t *d0, uint32_t *d1, cudaStream_t stream)
{
    probe_mma_sp<<<1, 32, 0, stream>>>(f16acc, a0, a1, b, e, c, d0, d1);
}

__global__ void __launch_bounds__(32)
    probe_mma_dense(int f16acc, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                    uint32_t *d)
{
    const int l = threadIdx.x;
    const uint32_t ra[4] = {a[4 * l], a[4 * l + 1], a[4 * l + 2], a[4 * l + 3]};
    const uint32_t rb[2] = {b[2 * l], b[2 * l + 1]};
    if (f16acc) {
        uint32_t x[2] = {c[2 * l], c[2 * l + 1]};
        mma_m16n8k16_f16f16(x, ra, rb);
        for (int j = 0; j < 2; j++) d[2 * l + j] = x[j];
    } else {
        float x[4];
        for (int j = 0; j < 4; j++) x[j] = __uint_as_float(c[4 * l + j]);
        mma_m16n8k16_f16f32(x, ra, rb);
        for (int j = 0; j < 4; j++) d[4 * l + j] = __float_as_uint(x[j]);
    }
}

extern "C" void probe_mma_dense_launch(int f16acc, const uint32_t *a, const uint32_t *b,
                                       const uint32_t *c, uint32_t *d, cudaStream_t stream)
{
    probe_mma_dense<<<1, 32, 0, stream>>>(f16acc, a, b, c, d);
}

/* the geometry of the r = 3 kernels (stencil_tc.cu's tc_cfg<3>) */
typedef tc_tile<3, 8, 4, 2> probe_tile_t;

extern "C" void probe_b_geometry(int *R, int *S, int *WX, int *WY, int *BX, int *BY)
{
    *R = probe_tile_t::R, *S = probe_tile_t::S, *WX = probe_tile_t::WX, *WY = probe_tile_t::WY;
    *BX = probe_tile_t::BX, *BY = probe_tile_t::BY;
}

__global__ void __launch_bounds__(probe_tile_t::THREADS)
    probe_b_loader(const __half *grid, int NY, int ld, int bx, int by, int wx, int wy,
                   uint32_t *raw, uint32_t *swapped)
{
    typedef probe_tile_t T;
    __shared__ __align__(128) __half smem[T::SMEM_H];
    tc_load_tile<T>(smem, grid, NY, ld, bx * T::BX, by * T::BY);
    cp_async_wait_group<0>();
    __syncthreads();
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (warp != wy * T::WX + wx) return;
    const uint32_t base = smem_u32(smem);
    for (int oo = 0; oo < T::S + 2 * T::R; oo++) {
        uint32_t r[4], b[4];
        tc_load_b<T>(r, base, lane, wx, wy, oo);
        tc_load_b_swapped<T>(b, base, lane, wx, wy, oo);
        for (int j = 0; j < 4; j++) {
            raw[(oo * 32 + lane) * 4 + j] = r[j];
            swapped[(oo * 32 + lane) * 4 + j] = b[j];
        }
    }
}

extern "C" void probe_b_loader_launch(const void *grid, int NY, int ld, int bx, int by, int wx,
                                      int wy, uint32_t *raw, uint32_t *swapped, cudaStream_t stream)
{
    /* one block, standing in for block (bx, by) of a stencil launch */
    probe_b_loader<<<1, probe_tile_t::THREADS, 0, stream>>>((const __half *)grid, NY, ld, bx, by,
                                                            wx, wy, raw, swapped);
}

/* ---- the tensor-core rates ----------------------------------------------------------------------
 * Every warp runs CHAINS independent accumulator chains of one instruction on the same registers:
 * chain c depends only on its own previous mma, so up to CHAINS are in flight per warp, and the
 * sweep over chains and warps per SM (stencil_probe.c) finds the throughput. The chains start
 * from different values (c0 + c), the asm is volatile, and every chain's sum reaches memory, so
 * the host checks that all iters * CHAINS mmas ran: out = sum_c (c0 + c) + CHAINS iters (A B),
 * exactly (small integers). frag: 9 words per lane: A (4), B (4; the dense k16 uses 2), e.
 * MIX > 0: after each mma, MIX prmt.b32 on a register chain of its own (one per accumulator
 * chain), as the sparse stencil's step issues about one PRMT (the swap) per mma.sp: how far does
 * ALU work between the mmas lower their rate? Each prmt takes bytes of its own chain and of
 * another chain's register, which changes too, so that no two fold into one; the chains' bytes
 * reach memory only if c0 holds a value above 1e30 (never: the host's c0 is small integers, but
 * the compiler cannot know), which keeps them without touching out. */
template <bool SPARSE, int CHAINS, int MIX>
__global__ void __launch_bounds__(32 * ST_RATE_WARPS)
    probe_rate(const uint32_t *frag, const float *c0, int iters, float *out)
{
    const int lane = threadIdx.x % 32;
    const uint32_t *f = frag + lane * 9;
    const uint32_t a[4] = {f[0], f[1], f[2], f[3]};
    const uint32_t b[4] = {f[4], f[5], f[6], f[7]}, b2[2] = {f[4], f[5]};
    const uint32_t e = f[8];
    float acc[CHAINS][4];
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
#pragma unroll
        for (int i = 0; i < 4; i++) acc[c][i] = c0[lane * 4 + i] + (float)c;
    uint32_t mix[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; c++) mix[c] = a[c % 4] ^ (uint32_t)c;
#pragma unroll 4
    for (int it = 0; it < iters; it++)
#pragma unroll
        for (int c = 0; c < CHAINS; c++) {
            if (SPARSE)
                mma_sp_m16n8k32_f16f32<0>(acc[c], a, b, e);
            else
                mma_m16n8k16_f16f32(acc[c], a, b2);
#pragma unroll
            for (int m = 0; m < MIX; m++)
                asm volatile("prmt.b32 %0, %0, %1, 0x6521;"
                             : "+r"(mix[c])
                             : "r"(mix[(c + 1 + m) % CHAINS]));
        }
    if (MIX > 0) {
        uint32_t x = 0;
#pragma unroll
        for (int c = 0; c < CHAINS; c++) x ^= mix[c];
        if (c0[lane * 4] > 1e30f) out[threadIdx.x] = __uint_as_float(x); /* never: c0 is small */
    }
    const size_t warp = (size_t)blockIdx.x * ST_RATE_WARPS + threadIdx.x / 32;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        float s = 0.0f;
#pragma unroll
        for (int c = 0; c < CHAINS; c++) s += acc[c][i];
        out[(warp * 32 + lane) * 4 + i] = s;
    }
}

template <bool SPARSE>
static int launch_rate(int chains, int mix, int blocks, int iters, const uint32_t *frag,
                       const float *c0, float *out, cudaStream_t stream)
{
    const dim3 grid((unsigned)blocks), block(32 * ST_RATE_WARPS);
    if (mix == 0) {
        switch (chains) {
        case 2: probe_rate<SPARSE, 2, 0><<<grid, block, 0, stream>>>(frag, c0, iters, out); return 0;
        case 4: probe_rate<SPARSE, 4, 0><<<grid, block, 0, stream>>>(frag, c0, iters, out); return 0;
        case 8: probe_rate<SPARSE, 8, 0><<<grid, block, 0, stream>>>(frag, c0, iters, out); return 0;
        default: return -1;
        }
    }
    if (chains != 8) return -1; /* the mix runs at the sweep's best chain count */
    switch (mix) {
    case 1: probe_rate<SPARSE, 8, 1><<<grid, block, 0, stream>>>(frag, c0, iters, out); return 0;
    case 2: probe_rate<SPARSE, 8, 2><<<grid, block, 0, stream>>>(frag, c0, iters, out); return 0;
    default: return -1;
    }
}

extern "C" int probe_rate_launch(int sparse, int chains, int mix, int blocks, int iters,
                                 const uint32_t *frag, const float *c0, float *out,
                                 cudaStream_t stream)
{
    return sparse ? launch_rate<true>(chains, mix, blocks, iters, frag, c0, out, stream)
                  : launch_rate<false>(chains, mix, blocks, iters, frag, c0, out, stream);
}
