/* 06_sparse_stencil/stencil_cuda.cu - the stencil on CUDA cores (rung b), and the frame restore
 * that the cuDNN rung needs after every convolution.
 *
 * What it teaches
 *   The strong baseline a tensor-core stencil must beat: every tap is one FP32 FMA, so the only
 *   thing to get right is feeding the FMAs. The block's tile is converted to f32 once, into shared
 *   memory (so no f16 -> f32 conversion sits in the inner loop); each thread computes a column of
 *   RY outputs and walks the RY + 2r input rows once, each row's 2r + 1 values loaded once and used
 *   by every output row it touches (register blocking along y). The weights are a kernel
 *   parameter: every FMA reads its weight straight from the constant bank, no register, no load.
 *   A star stencil is compiled with its taps only (4r + 1 FMAs instead of (2r + 1)^2): CUDA cores
 *   skip zeros for free, tensor cores cannot, which is why the stars are the hard case of the
 *   chapter (README).
 *
 * Data layout: grids f16 row-major with pitch ld; shared tile f32 [BY + 2r][32 + 2r]; thread
 *   (tx, ty) owns column xb + tx, rows yb + ty RY .. +RY-1.
 *
 * Variant: cuda_f32, rung b (one kernel per radius and kind). Minimum sm_80 (the chapter's).
 * Build and run: see stencil.c. */
#include "stencil_kernels.h"

#include <cuda_fp16.h>

template <int R, bool STAR> struct cuda_cfg {
    static constexpr int RY =
        R <= 3 ? 16 : 8; /* outputs per thread: unrolled code grows as RY R^2 */
    static constexpr int TX = 32, TY = 8, THREADS = TX * TY;
    static constexpr int BX = TX, BY = TY * RY;
    static constexpr int ROWS = BY + 2 * R, COLS = BX + 2 * R;
    static_assert(ROWS * COLS * 4 <= 48 * 1024, "static shared memory is limited to 48 KB");
};

template <int R, bool STAR>
__global__ void __launch_bounds__(cuda_cfg<R, STAR>::THREADS)
    stencil_cuda_kernel(const __half *__restrict__ in, __half *__restrict__ out, int NY, int NX,
                        int ld, const st_weights_f32 w)
{
    typedef cuda_cfg<R, STAR> C;
    constexpr int D = 2 * R + 1, RY = C::RY;
    __shared__ float tile[C::ROWS][C::COLS];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * C::TX + tx;
    const int xb = blockIdx.x * C::BX, yb = blockIdx.y * C::BY;
    for (int v = tid; v < C::ROWS * C::COLS; v += C::THREADS) {
        const int rr = v / C::COLS, cc = v % C::COLS, y = yb - R + rr, x = xb - R + cc;
        tile[rr][cc] =
            y >= 0 && y < NY && x >= 0 && x < NX ? __half2float(in[(size_t)y * ld + x]) : 0.0f;
    }
    __syncthreads();

    float acc[RY];
#pragma unroll
    for (int q = 0; q < RY; q++) acc[q] = 0.0f;
        /* input row ty*RY + rr (tile row) feeds output rows q = rr - R - dy */
#pragma unroll
    for (int rr = 0; rr < RY + 2 * R; rr++) {
        float v[D];
#pragma unroll
        for (int dx = 0; dx < D; dx++) v[dx] = tile[ty * RY + rr][tx + dx];
#pragma unroll
        for (int dy = -R; dy <= R; dy++) {
            const int q = rr - R - dy;
            if (q < 0 || q >= RY) continue;
#pragma unroll
            for (int dx = -R; dx <= R; dx++) {
                if (STAR && dy != 0 && dx != 0) continue;
                acc[q] = fmaf(w.w[(dy + R) * D + dx + R], v[dx + R], acc[q]);
            }
        }
    }
    const int x = xb + tx;
    if (x < R || x >= NX - R) return;
#pragma unroll
    for (int q = 0; q < RY; q++) {
        const int y = yb + ty * RY + q;
        if (y >= R && y < NY - R) out[(size_t)y * ld + x] = __float2half_rn(acc[q]);
    }
}

template <int R, bool STAR>
static void launch_cuda(const void *in, void *out, int NY, int NX, int ld, const st_weights_f32 *w,
                        cudaStream_t stream)
{
    typedef cuda_cfg<R, STAR> C;
    const dim3 grid((unsigned)((NX + C::BX - 1) / C::BX), (unsigned)((NY + C::BY - 1) / C::BY));
    stencil_cuda_kernel<R, STAR><<<grid, dim3(C::TX, C::TY), 0, stream>>>(
        (const __half *)in, (__half *)out, NY, NX, ld, *w);
}

extern "C" int stencil_cuda_supported(int r, int star)
{
    return star ? r >= 1 && r <= 3 : r == 1 || r == 2 || r == 3 || r == 7;
}

extern "C" int stencil_cuda_launch(int r, int star, const void *in, void *out, int NY, int NX,
                                   int ld, const st_weights_f32 *w, cudaStream_t stream)
{
    if (!stencil_cuda_supported(r, star) || NY < 1 || NX < 1 || ld < NX) return -1;
    switch (r * 2 + (star ? 1 : 0)) {
    case 2: launch_cuda<1, false>(in, out, NY, NX, ld, w, stream); break;
    case 3: launch_cuda<1, true>(in, out, NY, NX, ld, w, stream); break;
    case 4: launch_cuda<2, false>(in, out, NY, NX, ld, w, stream); break;
    case 5: launch_cuda<2, true>(in, out, NY, NX, ld, w, stream); break;
    case 6: launch_cuda<3, false>(in, out, NY, NX, ld, w, stream); break;
    case 7: launch_cuda<3, true>(in, out, NY, NX, ld, w, stream); break;
    default: launch_cuda<7, false>(in, out, NY, NX, ld, w, stream); break;
    }
    return 0;
}

/* ---- the frame restore: block y copies row y's frame cells (all of a top or bottom row, the r
 * cells at either end of the others) ------------------------------------------------------------
 */
__global__ void restore_frame_kernel(int r, const __half *__restrict__ init,
                                     __half *__restrict__ dst, int NY, int NX, int ld)
{
    const int y = blockIdx.x;
    const size_t row = (size_t)y * ld;
    if (y < r || y >= NY - r) {
        for (int x = threadIdx.x; x < NX; x += blockDim.x) dst[row + x] = init[row + x];
        return;
    }
    const int ends = 2 * r < NX ? 2 * r : NX; /* cells x < r and x >= NX - r */
    for (int q = threadIdx.x; q < ends; q += blockDim.x) {
        const int x = q < r ? q : NX - (ends - q);
        dst[row + x] = init[row + x];
    }
}

extern "C" void stencil_restore_frame_launch(int r, const void *init, void *dst, int NY, int NX,
                                             int ld, cudaStream_t stream)
{
    restore_frame_kernel<<<(unsigned)NY, 128, 0, stream>>>(r, (const __half *)init, (__half *)dst,
                                                           NY, NX, ld);
}
