/* 09_emulated_precision/ozaki_parts.cuh - what both Ozaki schemes share (v2_ozaki_sN in
 * v2_ozaki.cuh, v5_ozaki2_nN in v5_ozaki2.cuh): the exponent of every row of A and column of B,
 * the final scaling with alpha and beta, the alignment of the chunks of K, and the cutting of a
 * caller's workspace into buffers. No harness types: a rung file that includes it can be copied
 * into any program.
 *
 * Layout: x is rows x K with leading dimension ld (A row-major, or B column-major: a row of x is
 * a column of B); sum and C are M x N row-major (sum's leading dimension N, C's ldc). */
#ifndef OZAKI_PARTS_CUH
#define OZAKI_PARTS_CUH

#include <cuda_runtime.h>

constexpr int OZ_KC_ALIGN = 16; /* chunk length and slice stride: cuBLAS int8 wants ld % 4 */

/* e[r] = the exponent of row r of x (rows x K, leading dimension ld): |x| < 2^e, 0 for a zero row.
 * One warp per row. */
__global__ void oz_exponents(const double *__restrict__ x, long ld, int rows, int K,
                             int *__restrict__ e)
{
    const int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (r >= rows) return;
    double m = 0;
    for (int k = lane; k < K; k += 32) m = fmax(m, fabs(x[(long)r * ld + k]));
    for (int o = 16; o > 0; o /= 2) m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
    if (lane == 0) {
        int ex = 0;
        if (m > 0) frexp(m, &ex);
        e[r] = ex;
    }
}

/* C = alpha 2^(ea_i + eb_j) sum + beta C */
__global__ void oz_finish(const double *__restrict__ sum, const int *__restrict__ ea,
                          const int *__restrict__ eb, int M, int N, double *__restrict__ C,
                          long ldc, double alpha, double beta)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x; /* a column per thread, rows by y */
    if (c >= N) return;
    for (int r = blockIdx.y; r < M; r += gridDim.y) {
        const double v = alpha * ldexp(sum[(long)r * N + c], ea[r] + eb[c]);
        double *out = C + (long)r * ldc + c;
        *out = beta == 0 ? v : v + beta * *out;
    }
}

/* oz_finish's launch: 256 columns per block, one row per block row */
static inline void oz_launch_finish(const double *sum, const int *ea, const int *eb, int M, int N,
                                    double *C, long ldc, double alpha, double beta,
                                    cudaStream_t stream)
{
    const dim3 grid((unsigned)((N + 255) / 256), M < 65535 ? M : 65535);
    oz_finish<<<grid, 256, 0, stream>>>(sum, ea, eb, M, N, C, ldc, alpha, beta);
}

/* the next buffer of a workspace at *off (256-byte aligned, as cudaMalloc's), or only its size
 * when base is NULL */
static inline void *oz_take(char *base, size_t *off, size_t bytes)
{
    void *p = base ? base + *off : NULL;
    *off += (bytes + 255) / 256 * 256;
    return p;
}

#endif /* OZAKI_PARTS_CUH */
