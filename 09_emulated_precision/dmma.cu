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
 * v1_dmma16 (sm_90): the same kernel with Hopper's larger FP64 instruction, mma.sync m16n8k16 f64
 *   (SASS DMMA.16x8x16): 16 x 8 x 16 per instruction, 8 times the work of m8n8k4, so a warp issues
 *   8 times fewer tensor-core instructions for the same tile. The fragments keep the pattern
 *   (g = lane / 4, t = lane % 4; v the value's index in the fragment):
 *
 *     a[v] = A(g + 8 (v % 2), t + 4 (v / 2))   v = 0..7   (16 x 16)
 *     b[v] = B(t + 4 v, g)                     v = 0..3   (16 x 8)
 *     c[v] = C(g + 8 (v / 2), 2 t + v % 2)     v = 0..3   (16 x 8)
 *
 *   so each 8-byte shared load still reads rows g at words 40 g + 2 t (+ a constant): conflict-free.
 *   The block tile stays 64 x 64 (4 warps of 32 x 32: 2 x 4 instructions per warp and k-tile).
 *
 * Minimum: sm_80 (DMMA, cp.async); v1_dmma16 sm_90. */
#include "dmma.h"

#include "gemm_hooks.h"
#include "mma_sync.cuh"

#include <stdint.h>
#include <stdio.h>

namespace
{
constexpr int BK = 16, SROW = BK + 4, THREADS = 128, STAGES = 3, GROUP_M = 8;
static_assert(SROW % 2 == 0, "shared rows of whole 16-byte vectors");
static_assert(SROW * 2 % 32 == 8, "rows 8 banks apart: conflict-free 8-byte fragment loads");

/* One FP64 tensor-core instruction: its shape, its fragments' loads from K-major shared tiles
 * (rows of SROW doubles) and the place of each accumulator value. */
template <int MMA_M> struct dmma_op;

template <> struct dmma_op<8> { /* mma.sync m8n8k4 f64, sm_80 */
    static constexpr int M = 8, N = 8, K = 4, A = 1, B = 1, C = 2;
    static __device__ void load_a(double (&a)[A], const double *s, int g, int t)
    {
        a[0] = s[g * SROW + t];
    }
    static __device__ void load_b(double (&b)[B], const double *s, int g, int t)
    {
        b[0] = s[g * SROW + t];
    }
    static __device__ void mma(double (&d)[C], const double (&a)[A], const double (&b)[B])
    {
        mma_m8n8k4_f64(d, a[0], b[0]);
    }
    static __device__ int c_row(int v, int g) { return g; }
    static __device__ int c_col(int v, int t) { return 2 * t + v; }
};

template <> struct dmma_op<16> { /* mma.sync m16n8k16 f64, sm_90 */
    static constexpr int M = 16, N = 8, K = 16, A = 8, B = 4, C = 4;
    static __device__ void load_a(double (&a)[A], const double *s, int g, int t)
    {
#pragma unroll
        for (int v = 0; v < A; v++) a[v] = s[(g + 8 * (v % 2)) * SROW + t + 4 * (v / 2)];
    }
    static __device__ void load_b(double (&b)[B], const double *s, int g, int t)
    {
#pragma unroll
        for (int v = 0; v < B; v++) b[v] = s[g * SROW + t + 4 * v];
    }
    static __device__ void mma(double (&d)[C], const double (&a)[A], const double (&b)[B])
    {
        mma_m16n8k16_f64(d, a, b); /* traps below sm_90: dmma16_prepare checks the code */
    }
    static __device__ int c_row(int v, int g) { return g + 8 * (v / 2); }
    static __device__ int c_col(int v, int t) { return 2 * t + v % 2; }
};

/* A block tile of BM x BN, 4 warps of WARP_M x WARP_N, for the instruction MMA_M */
template <int MMA_M, int BM_, int BN_, int WARP_M_, int WARP_N_> struct dmma_cfg {
    using op = dmma_op<MMA_M>;
    static constexpr int BM = BM_, BN = BN_, WARP_M = WARP_M_, WARP_N = WARP_N_;
    static constexpr int MT = WARP_M / op::M, NT = WARP_N / op::N, KSTEPS = BK / op::K;
    static constexpr size_t SMEM_BYTES = (size_t)STAGES * (BM + BN) * SROW * sizeof(double);
    static_assert(BM / WARP_M * (BN / WARP_N) * 32 == THREADS, "one warp per warp tile");
    static_assert(WARP_M % op::M == 0 && WARP_N % op::N == 0, "whole instructions per warp tile");
    static_assert(BK % op::K == 0, "whole k-steps per k-tile");
};
using cfg_m8 = dmma_cfg<8, 64, 64, 32, 32>;
using cfg_m16 = dmma_cfg<16, 64, 64, 32, 32>;
} // namespace

template <class Cfg>
__global__ void __launch_bounds__(THREADS)
    gemm_dmma(int M, int N, int K, const double *__restrict__ A, long lda,
              const double *__restrict__ B, long ldb, double *__restrict__ C, long ldc,
              double alpha, double beta, bool vec_a, bool vec_b)
{
    using op = typename Cfg::op;
    constexpr int BM = Cfg::BM, BN = Cfg::BN, MT = Cfg::MT, NT = Cfg::NT;
    extern __shared__ __align__(16) double smem[];
    double *As = smem, *Bs = smem + STAGES * BM * SROW;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int wm = warp / (BN / Cfg::WARP_N) * Cfg::WARP_M,
              wn = warp % (BN / Cfg::WARP_N) * Cfg::WARP_N;
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
    double acc[MT][NT][op::C] = {};
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
        for (int ks = 0; ks < Cfg::KSTEPS; ks++) {
            /* B's fragments for the warp tile, A's one instruction row at a time: fewer live
             * registers beside the accumulators (with A's all loaded first, a 64 x 32 warp tile
             * spilled) */
            double b[NT][op::B];
#pragma unroll
            for (int j = 0; j < NT; j++)
                op::load_b(b[j], bs + (wn + op::N * j) * SROW + op::K * ks, g, t);
#pragma unroll
            for (int i = 0; i < MT; i++) {
                double a[op::A];
                op::load_a(a, as + (wm + op::M * i) * SROW + op::K * ks, g, t);
#pragma unroll
                for (int j = 0; j < NT; j++) op::mma(acc[i][j], a, b[j]);
            }
        }
    }
    cp_async_wait_group<0>();
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int v = 0; v < op::C; v++) {
                const int r = m0 + wm + op::M * i + op::c_row(v, g);
                const int c = n0 + wn + op::N * j + op::c_col(v, t);
                if (r < M && c < N) {
                    double *out = C + (long)r * ldc + c;
                    const double x = alpha * acc[i][j][v];
                    *out = beta == 0 ? x : x + beta * *out;
                }
            }
}

template <class Cfg> static void launch_dmma(const tc_gemm_problem *p, cudaStream_t stream)
{
    const bool vec_a = rows_vectorizable(p->d_a, p->lda, p->K, sizeof(double));
    const bool vec_b = rows_vectorizable(p->d_b, p->ldb, p->K, sizeof(double));
    gemm_dmma<Cfg><<<tile_count(p, Cfg::BM, Cfg::BN), THREADS, Cfg::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, (const double *)p->d_a, p->lda, (const double *)p->d_b, p->ldb,
        (double *)p->d_c, p->ldc, p->alpha, p->beta, vec_a, vec_b);
}

extern "C" const char *dmma_v1_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return allow_smem((const void *)gemm_dmma<cfg_m8>, cfg_m8::SMEM_BYTES);
}

extern "C" void dmma_v1_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    launch_dmma<cfg_m8>(p, stream);
}

extern "C" const char *dmma16_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    /* the row's target "90" (sm_90 code: a build without it compiles m16n8k16 f64 as a trap)
     * is checked by the driver before this runs */
    return allow_smem((const void *)gemm_dmma<cfg_m16>, cfg_m16::SMEM_BYTES);
}

extern "C" void dmma16_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                              cudaStream_t stream)
{
    launch_dmma<cfg_m16>(p, stream);
}
