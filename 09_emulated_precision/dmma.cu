/* 09_emulated_precision/dmma.cu - v1_dmma: an FP64 GEMM on the FP64 tensor cores.
 *
 * What it teaches
 *   Since sm_80 the tensor cores also multiply doubles: PTX mma.sync.aligned.m8n8k4 f64 (SASS
 *   DMMA.884), 8 x 8 x 4 per warp and instruction, rounded like FP64 FMAs. cuBLAS DGEMM uses them;
 *   Hopper has no FP64 wgmma, so this warp-level instruction is the path. Its fragments are the
 *   simplest of all: one double of A and one of B per lane, two doubles of C.
 *
 *     lane = 4 g + t:   a = A(g, t)     b = B(t, g)     c[0..1] = C(g, 2t), C(g, 2t + 1)
 *
 *   A row of a K-major tile is one row of A or one column of B, k contiguous; lane (g, t) of a
 *   k-step of 4 reads the double at k = t of row g: 8-byte shared loads (ldmatrix moves 16-bit
 *   words and does not fit a 64-bit value per lane).
 *
 * Problem and layout: C = alpha A B + beta C, A M x K row-major (lda), B K x N column-major (ldb),
 *   C M x N row-major (ldc), all f64; any M, N, K and alignment (tiles zero-filled outside the
 *   matrices, 16-byte cp.async copies when rows are 16-byte aligned, element copies otherwise;
 *   stores guarded). beta == 0 never reads C.
 *
 * The kernel: a 64 x 64 block tile, 4 warps of 32 x 32 (4 x 4 DMMA tiles of 8 x 8), k-tiles of 16
 *   doubles in a 3-stage cp.async ring (common/gemm_tiles.cuh's load_tile_async), shared rows
 *   padded to 20 doubles: a fragment load touches rows g at word 40 g + 2 t, so each half-warp
 *   (g = 0..3, g = 4..7) covers the 32 banks once and the 8-byte loads are conflict-free.
 *
 * Minimum: sm_80 (DMMA, cp.async). */
#include "dmma.h"

#include "gemm_tiles.cuh"

#include <stdint.h>

namespace
{
constexpr int BM = 64, BN = 64, BK = 16, SROW = BK + 4, THREADS = 128, STAGES = 3, GROUP_M = 8;
constexpr int WARP_M = 32, WARP_N = 32, MT = WARP_M / 8, NT = WARP_N / 8, KSTEPS = BK / 4;
constexpr size_t SMEM_BYTES = (size_t)STAGES * (BM + BN) * SROW * sizeof(double);
static_assert(BM / WARP_M * (BN / WARP_N) * 32 == THREADS, "one warp per warp tile");
static_assert(BK % 4 == 0 && SROW % 2 == 0, "k-steps of 4, shared rows of whole 16-byte vectors");
static_assert(SROW * 2 % 32 == 8, "rows 8 banks apart: conflict-free 8-byte fragment loads");
} // namespace

/* D (8 x 8, two doubles per lane) += A (8 x 4, one per lane) B (4 x 8, one per lane) */
static __device__ __forceinline__ void dmma_m8n8k4(double (&d)[2], double a, double b)
{
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a), "d"(b));
}

__global__ void __launch_bounds__(THREADS)
    gemm_dmma(int M, int N, int K, const double *__restrict__ A, long lda,
              const double *__restrict__ B, long ldb, double *__restrict__ C, long ldc,
              double alpha, double beta, bool vec_a, bool vec_b)
{
    extern __shared__ __align__(16) double smem[];
    double *As = smem, *Bs = smem + STAGES * BM * SROW;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int wm = warp / (BN / WARP_N) * WARP_M, wn = warp % (BN / WARP_N) * WARP_N;
    int tm, tn;
    block_tile_coords<GROUP_M>((M + BM - 1) / BM, (N + BN - 1) / BN, &tm, &tn);
    const int m0 = tm * BM, n0 = tn * BN, k_tiles = (K + BK - 1) / BK;

    /* A as rows of K (row-major), B as columns of K: both K-major tiles */
    const auto load = [&](int kt) {
        const int s = kt % STAGES;
        load_tile_async<double, BM, BK, THREADS, SROW>(As + s * BM * SROW, A, lda, m0, kt * BK, M,
                                                       K, vec_a);
        load_tile_async<double, BN, BK, THREADS, SROW>(Bs + s * BN * SROW, B, ldb, n0, kt * BK, N,
                                                       K, vec_b);
    };
    double acc[MT][NT][2] = {};
#pragma unroll
    for (int kt = 0; kt < STAGES - 1; kt++) {
        if (kt < k_tiles) load(kt);
        cp_async_commit_group();
    }
    for (int kt = 0; kt < k_tiles; kt++) {
        cp_async_wait_group<STAGES - 2>();
        __syncthreads(); /* k-tile kt is in; every warp is done with the stage refilled next */
        if (kt + STAGES - 1 < k_tiles) load(kt + STAGES - 1);
        cp_async_commit_group();
        const double *as = As + kt % STAGES * BM * SROW, *bs = Bs + kt % STAGES * BN * SROW;
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ks++) {
            double a[MT], b[NT];
#pragma unroll
            for (int i = 0; i < MT; i++) a[i] = as[(wm + 8 * i + g) * SROW + 4 * ks + t];
#pragma unroll
            for (int j = 0; j < NT; j++) b[j] = bs[(wn + 8 * j + g) * SROW + 4 * ks + t];
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++) dmma_m8n8k4(acc[i][j], a[i], b[j]);
        }
    }
    cp_async_wait_group<0>();
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int r = m0 + wm + 8 * i + g, c = n0 + wn + 8 * j + 2 * t + h;
                if (r < M && c < N) {
                    double *out = C + (long)r * ldc + c;
                    const double v = alpha * acc[i][j][h];
                    *out = beta == 0 ? v : v + beta * *out;
                }
            }
}

extern "C" const char *dmma_v1_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return allow_smem((const void *)gemm_dmma, SMEM_BYTES);
}

extern "C" void dmma_v1_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    const bool vec_a = rows_vectorizable(p->d_a, p->lda, p->K, sizeof(double));
    const bool vec_b = rows_vectorizable(p->d_b, p->ldb, p->K, sizeof(double));
    gemm_dmma<<<tile_count(p, BM, BN), THREADS, SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, (const double *)p->d_a, p->lda, (const double *)p->d_b, p->ldb,
        (double *)p->d_c, p->ldc, p->alpha, p->beta, vec_a, vec_b);
}
