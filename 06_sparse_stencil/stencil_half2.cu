/* 06_sparse_stencil/stencil_half2.cu - rung b2: the CUDA-core stencil a stencil programmer would
 * write against the fused tensor-core rungs: f16 in half2 arithmetic, register-blocked, with the
 * same temporal blocking (F steps per pass on overlapped tiles, stencil_fuse.h).
 *
 * What it teaches
 *   The fair competitor. Rung b (stencil_cuda.cu) computes in f32, one FMA per tap and point; the
 *   tensor-core rungs it is compared with take f16 and, in the _f16 rows, add in f16. Here a thread
 *   owns two neighbouring columns and adds in half2: one HFMA2 is a tap of two points, so a CUDA
 *   core does twice the taps per instruction of rung b, at the precision of the f16 rows. And it
 *   fuses steps exactly as the tensor-core rung e does (stencil_fused.cuh): the block's tile, with
 *   a halo of F r rows and 8 + (F - 1) r columns rounded up to 8 (stencil_fuse.h), stays in shared
 *   memory for F steps, each step written back in place to the interior cells of the compute
 *   region, the frame and the cells outside the grid never written (they keep the loaded values:
 *   the frame's initial ones, zeros, the pitch padding as it is in memory). So the two rungs
 *   move the same bytes per point update and recompute the same overlap: what is left between
 *   them is tensor cores against CUDA cores.
 *
 * Data layout
 *   Grids f16 row-major, pitch ld (a multiple of 8). Shared tile: f16 [CY + 2r][CX + 16],
 *   row-major, no gaps: a warp reads 32 consecutive words of one row. Compute region 128 x 64
 *   (r <= 3; 64 x 64 at r = 7), the tensor-core rung's. Thread (tx, ty) owns the
 *   compute-region columns 2 tx, 2 tx + 1 (tile columns 8 + 2 tx, +1) and rows ty RY .. +RY-1.
 *   It walks its RY + 2r input rows once; for each it loads the RP + 1 words that cover columns
 *   c - RP .. c + 1 + RP (RP = r rounded up to even, c = its first column), and makes the 2r + 1
 *   pairs (c + dx, c + 1 + dx): an even dx + RP is a loaded word, an odd one the high half of a
 *   word and the low half of the next (one PRMT). Every pair then feeds every output row it
 *   touches, times the weight pair (w, w) from the constant bank.
 *
 * Variant: cuda_h2_fused (stencil.c's table), one kernel per radius and kind (box or star: the
 *   star compiled with its 4r + 1 taps only). Minimum sm_80 (cp.async; the chapter's).
 * Build and run: see stencil.c; PART2.md has the lesson. */
#include "stencil_fuse.h"
#include "stencil_kernels.h"

#include "cp_async.cuh"

#include <cuda_fp16.h>
#include <string.h>

/* the compute region is the tensor-core rung's (stencil_fused_cfg): 128 x 64 for r <= 3, 64 x 64
 * for r = 7, so that both rungs pay the same overlap */
template <int R, bool STAR> struct h2_cfg {
    static constexpr int RY = R <= 3 ? 16 : 8; /* outputs per thread per column */
    static constexpr int TX = R <= 3 ? 64 : 32, TY = 256 / TX, THREADS = TX * TY;
    static constexpr int CX = 2 * TX, CY = TY * RY; /* the compute region (stencil_fuse.h) */
    static constexpr int ROWS = CY + 2 * R, COLS = CX + 2 * ST_FUSE_MARGIN;
    static constexpr int RP = (R + 1) / 2 * 2; /* the first word starts RP columns left */
    static constexpr int WORDS = RP + 1;       /* words per row: columns c - RP .. c + 1 + RP */
    static_assert(CX == (R <= 3 ? ST_FUSE_CX : ST_FUSE_CX_R7) &&
                      CY == (R <= 3 ? ST_FUSE_CY : ST_FUSE_CY_R7),
                  "the tensor-core rung's compute region (stencil_fuse.h)");
    static_assert(CX % 16 == 0, "the plan takes whole 16-column segments");
    static_assert(TX % 32 == 0, "a warp reads one tile row: 32 consecutive words");
    static_assert(COLS % 8 == 0, "16-byte tile rows for cp.async and the output vectors");
    static_assert(RP <= ST_FUSE_MARGIN, "a thread's words must stay inside the tile's rows");
    static_assert(ST_FUSE_MARGIN % 2 == 0, "the column pairs start on even tile columns");
    static_assert(ROWS * COLS * 2 <= 48 * 1024, "static shared memory is limited to 48 KB");
};

static __device__ __forceinline__ __half2 h2_from_bits(uint32_t u)
{
    __half2 h;
    memcpy(&h, &u, sizeof h);
    return h;
}
static __device__ __forceinline__ uint32_t h2_bits(__half2 h)
{
    uint32_t u;
    memcpy(&u, &h, sizeof u);
    return u;
}
static __device__ __forceinline__ bool h2_interior(int y, int x, int NY, int NX, int R)
{
    return y >= R && y < NY - R && x >= R && x < NX - R;
}

/* One pass: F = fuse steps on the block's tile, then its output region (plan: stencil_fuse.h). */
template <int R, bool STAR>
__global__ void __launch_bounds__(h2_cfg<R, STAR>::THREADS)
    stencil_h2_kernel(const __half *__restrict__ in, __half *__restrict__ out, int NY, int NX,
                      int ld, const st_weights_h2 w, int fuse, int halo_x, int out_x, int out_y)
{
    typedef h2_cfg<R, STAR> C;
    constexpr int D = 2 * R + 1, RY = C::RY;
    __shared__ __align__(16) __half tile[C::ROWS * C::COLS];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * C::TX + tx;
    const int xo = blockIdx.x * out_x, yo = blockIdx.y * out_y;
    const int x_tile = xo - halo_x, y_tile = yo - fuse * R; /* grid cell of tile (0, 0) */

    /* 1. the tile, 16 bytes at a time; outside the rows and the pitch zeros (the pitch padding,
     *    columns NX .. ld - 1, as it is in memory) */
    const uint32_t tile_base = (uint32_t)__cvta_generic_to_shared(tile);
    for (int v = tid; v < C::ROWS * (C::COLS / 8); v += C::THREADS) {
        const int rho = v / (C::COLS / 8), col = 8 * (v % (C::COLS / 8));
        const int y = y_tile + rho, x = x_tile + col;
        const bool inside = y >= 0 && y < NY && x >= 0 && x < ld;
        cp_async_16(tile_base + 2u * (uint32_t)(rho * C::COLS + col),
                    inside ? in + (size_t)y * ld + x : in, inside ? 16 : 0);
    }
    cp_async_commit_group();
    cp_async_wait_group<0>();
    __syncthreads();

    const uint32_t *words = (const uint32_t *)tile;
    const int col0 = ST_FUSE_MARGIN + 2 * tx; /* this thread's first tile column */
    for (int step = 0; step < fuse; step++) {
        __half2 acc[RY];
#pragma unroll
        for (int q = 0; q < RY; q++) acc[q] = __float2half2_rn(0.0f);
        /* input row ty RY + rr of the tile feeds output rows q = rr - R - dy */
#pragma unroll
        for (int rr = 0; rr < RY + 2 * R; rr++) {
            const int row = ty * RY + rr;
            uint32_t word[C::WORDS];
#pragma unroll
            for (int k = 0; k < C::WORDS; k++) word[k] = words[(row * C::COLS + col0 - C::RP) / 2 + k];
            __half2 pair[D]; /* pair[dx + R] = columns (c + dx, c + dx + 1) */
#pragma unroll
            for (int dx = -R; dx <= R; dx++) {
                const int o = dx + C::RP;
                pair[dx + R] = h2_from_bits(o % 2 == 0 ? word[o / 2]
                                                       : __byte_perm(word[o / 2], word[o / 2 + 1],
                                                                     0x5432));
            }
#pragma unroll
            for (int dy = -R; dy <= R; dy++) {
                const int q = rr - R - dy;
                if (q < 0 || q >= RY) continue;
#pragma unroll
                for (int dx = -R; dx <= R; dx++) {
                    if (STAR && dy != 0 && dx != 0) continue;
                    acc[q] = __hfma2(h2_from_bits(w.w[(dy + R) * D + dx + R]), pair[dx + R],
                                     acc[q]);
                }
            }
        }
        /* back into the tile once every thread has read it: the interior cells only */
        __syncthreads();
#pragma unroll
        for (int q = 0; q < RY; q++) {
            const int rho = R + ty * RY + q, y = y_tile + rho, x = x_tile + col0;
            const bool lo = h2_interior(y, x, NY, NX, R), hi = h2_interior(y, x + 1, NY, NX, R);
            __half *cell = tile + rho * C::COLS + col0;
            if (lo && hi) {
                *(uint32_t *)cell = h2_bits(acc[q]);
            } else {
                if (lo) cell[0] = __low2half(acc[q]);
                if (hi) cell[1] = __high2half(acc[q]);
            }
        }
        __syncthreads();
    }

    /* 2. the output region: 16-byte stores of its interior cells */
    const int vec_per_row = out_x / 8;
    for (int v = tid; v < out_y * vec_per_row; v += C::THREADS) {
        const int yl = v / vec_per_row, xl = 8 * (v % vec_per_row);
        const int y = yo + yl, x = xo + xl;
        if (y < R || y >= NY - R || x + 8 <= R || x >= NX - R) continue;
        const __half *src = tile + (fuse * R + yl) * C::COLS + halo_x + xl;
        __half *dst = out + (size_t)y * ld + x;
        if (x >= R && x + 8 <= NX - R) {
            *(uint4 *)dst = *(const uint4 *)src;
        } else {
            for (int q = 0; q < 8; q++)
                if (x + q >= R && x + q < NX - R) dst[q] = src[q];
        }
    }
}

template <int R, bool STAR>
static int h2_pass(const void *in, void *out, int NY, int NX, int ld, const st_weights_h2 *w,
                   int fuse, cudaStream_t stream)
{
    typedef h2_cfg<R, STAR> C;
    st_fuse_plan p;
    if (st_fuse_plan_make(C::CX, C::CY, R, fuse, NY, NX, &p) != 0 || p.blocks_y > 65535) return -1;
    const dim3 grid((unsigned)p.blocks_x, (unsigned)p.blocks_y);
    stencil_h2_kernel<R, STAR><<<grid, dim3(C::TX, C::TY), 0, stream>>>(
        (const __half *)in, (__half *)out, NY, NX, ld, *w, p.fuse, p.halo_x, p.out_x, p.out_y);
    return 0;
}

static int h2_pass_any(int r, int star, const void *in, void *out, int NY, int NX, int ld,
                       const st_weights_h2 *w, int fuse, cudaStream_t stream)
{
    switch (r * 2 + (star ? 1 : 0)) {
    case 2: return h2_pass<1, false>(in, out, NY, NX, ld, w, fuse, stream);
    case 3: return h2_pass<1, true>(in, out, NY, NX, ld, w, fuse, stream);
    case 4: return h2_pass<2, false>(in, out, NY, NX, ld, w, fuse, stream);
    case 5: return h2_pass<2, true>(in, out, NY, NX, ld, w, fuse, stream);
    case 6: return h2_pass<3, false>(in, out, NY, NX, ld, w, fuse, stream);
    case 7: return h2_pass<3, true>(in, out, NY, NX, ld, w, fuse, stream);
    case 14: return h2_pass<7, false>(in, out, NY, NX, ld, w, fuse, stream);
    default: return -1;
    }
}

extern "C" int stencil_h2_supported(int r, int star)
{
    return star ? r >= 1 && r <= 3 : r == 1 || r == 2 || r == 3 || r == 7;
}

extern "C" int stencil_h2_plan(int r, int fuse, long NY, long NX, st_fuse_plan *plan)
{
    if (!stencil_h2_supported(r, 0) || fuse < 1 || fuse > ST_FUSE_MAX) return -1;
    return r <= 3 ? st_fuse_plan_make(h2_cfg<3, false>::CX, h2_cfg<3, false>::CY, r, fuse, NY, NX,
                                      plan)
                  : st_fuse_plan_make(h2_cfg<7, false>::CX, h2_cfg<7, false>::CY, r, fuse, NY, NX,
                                      plan);
}

extern "C" int stencil_h2_run(int r, int star, int fuse, const void *in, void *p, void *q, int NY,
                              int NX, int ld, const st_weights_h2 *w, int steps,
                              cudaStream_t stream)
{
    st_fuse_plan plan;
    if (!stencil_h2_supported(r, star) || NY < 1 || NX < 1 || ld < NX || ld % 8 != 0 ||
        steps < 0 || stencil_h2_plan(r, fuse, NY, NX, &plan) != 0 || plan.blocks_y > 65535)
        return -1;
    const int passes = st_fuse_passes(steps, fuse);
    for (int i = 0; i < passes; i++) {
        const void *src = i == 0 ? in : i % 2 ? p : q;
        if (h2_pass_any(r, star, src, i % 2 ? q : p, NY, NX, ld, w,
                        st_fuse_pass_steps(steps, fuse, i), stream) != 0)
            return -1;
        if (cudaPeekAtLastError() != cudaSuccess) return 0; /* the caller's launch check reports */
    }
    return 0;
}
