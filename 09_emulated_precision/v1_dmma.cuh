/* dmma_v1_dmma - an FP64 GEMM on the FP64 tensor cores: mma.sync m8n8k4 f64 (SASS DMMA.8x8x4),
 * a 64 x 64 block tile of 4 warps fed by a 3-stage cp.async ring.
 *
 * Rung v1 of chapter 09 (f64 in, f64 accumulate and out; the row v1_dmma). Parent: none in this
 * chapter (its first rung); the pipeline is chapter 05's v4_pipeline (mma.sync fed by a cp.async
 * ring of k-tiles), with the FP64 instruction. What it teaches: since sm_80 the tensor cores also
 * multiply doubles: PTX mma.sync.aligned.m8n8k4 f64, 8 x 8 x 4 per warp and instruction, rounded
 * like FP64 FMAs. cuBLAS DGEMM uses them; Hopper has no FP64 wgmma, so this warp-level
 * instruction is the path. Its fragments are the simplest of all: one double of A and one of B
 * per lane, two doubles of C.
 *
 *     lane = 4 g + t:   a = A(g, t)     b = B(t, g)     c[0..1] = C(g, 2t), C(g, 2t + 1)
 *
 * A row of a K-major tile is one row of A or one column of B, k contiguous; lane (g, t) of a
 * k-step of 4 reads the double at k = t of row g: 8-byte shared loads (ldmatrix moves 16-bit
 * words and does not fit a 64-bit value per lane).
 *
 * Problem: C = alpha A B + beta C, A M x K row-major (lda), B K x N column-major (ldb: stored
 * N x K, K-contiguous), C M x N row-major (ldc), all f64; any M, N, K >= 1 and any alignment
 * (tiles zero-filled outside the matrices, 16-byte cp.async copies when rows are 16-byte aligned,
 * element copies otherwise; stores guarded). beta == 0 never reads C.
 *
 * Tile: 64 x 64 per block, 4 warps of 32 x 32 (4 x 4 DMMA tiles of 8 x 8), k-tiles of 16 doubles
 * in a 3-stage cp.async ring (common/gemm_tiles.cuh's load_tile_async; 60 KiB of shared memory,
 * above the 48 KiB a block gets without the opt-in), shared rows padded to 20 doubles: a fragment
 * load touches rows g at word 40 g + 2 t, so each half-warp (g = 0..3, g = 4..7) covers the 32
 * banks once and the 8-byte loads are conflict-free. Blocks in groups of 8 block-rows
 * (block_tile_coords) for L2 reuse.
 *
 * The plain launcher (no harness types; common/gemm_tiles.cuh and common/mma_sync.cuh only):
 *   dmma_v1_dmma_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or dmma_v1_dmma_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc) once (the checks, the
 * shared-memory opt-in, the vector paths, the grid) and dmma_v1_dmma_run(&plan, alpha, beta,
 * stream) per product. They return cudaSuccess, cudaErrorInvalidValue for sizes below 1 or a
 * leading dimension below its row, cudaErrorNotSupported for a GPU it cannot run on
 * (dmma_v1_dmma_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_80 (DMMA, cp.async), CUDA 12.x or 13.x. */
#ifndef DMMA_V1_DMMA_CUH
#define DMMA_V1_DMMA_CUH

#include "gemm_tiles.cuh"
#include "mma_sync.cuh"

#include <stdint.h>

/* mma.sync m8n8k4 f64 (sm_80): its shape, its fragments' loads from K-major shared tiles (rows
 * of SROW doubles) and the place of each accumulator value */
template <int SROW> struct dmma_v1_dmma_op {
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

/* A block tile of BM x BN, 4 warps of WARP_M x WARP_N; k-tiles of BK doubles in a ring of STAGES,
 * shared rows padded to SROW doubles; blocks in groups of GROUP_M block-rows */
template <int BM_, int BN_, int WARP_M_, int WARP_N_> struct dmma_v1_dmma_cfg {
    static constexpr int BK = 16, SROW = BK + 4, THREADS = 128, STAGES = 3, GROUP_M = 8;
    static_assert(SROW % 2 == 0, "shared rows of whole 16-byte vectors");
    static_assert(SROW * 2 % 32 == 8, "rows 8 banks apart: conflict-free 8-byte fragment loads");
    using op = dmma_v1_dmma_op<SROW>;
    static constexpr int BM = BM_, BN = BN_, WARP_M = WARP_M_, WARP_N = WARP_N_;
    static constexpr int MT = WARP_M / op::M, NT = WARP_N / op::N, KSTEPS = BK / op::K;
    static constexpr size_t SMEM_BYTES = (size_t)STAGES * (BM + BN) * SROW * sizeof(double);
    static_assert(BM / WARP_M * (BN / WARP_N) * 32 == THREADS, "one warp per warp tile");
    static_assert(WARP_M % op::M == 0 && WARP_N % op::N == 0, "whole instructions per warp tile");
    static_assert(BK % op::K == 0, "whole k-steps per k-tile");
};
/*                       BM  BN  WARP_M WARP_N */
typedef dmma_v1_dmma_cfg<64, 64, 32, 32> dmma_v1_dmma_config;

template <class Cfg>
__global__ void __launch_bounds__(Cfg::THREADS)
    dmma_v1_dmma_kernel(int M, int N, int K, const double *__restrict__ A, long lda,
                        const double *__restrict__ B, long ldb, double *__restrict__ C, long ldc,
                        double alpha, double beta, bool vec_a, bool vec_b)
{
    using op = typename Cfg::op;
    constexpr int BM = Cfg::BM, BN = Cfg::BN, MT = Cfg::MT, NT = Cfg::NT;
    constexpr int BK = Cfg::BK, SROW = Cfg::SROW, THREADS = Cfg::THREADS, STAGES = Cfg::STAGES;
    extern __shared__ __align__(16) double smem[];
    double *As = smem, *Bs = smem + STAGES * BM * SROW;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int wm = warp / (BN / Cfg::WARP_N) * Cfg::WARP_M,
              wn = warp % (BN / Cfg::WARP_N) * Cfg::WARP_N;
    int tm, tn;
    block_tile_coords<Cfg::GROUP_M>((M + BM - 1) / BM, (N + BN - 1) / BN, &tm, &tn);
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

/* ---- the host side --------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
    const double *A, *B;
    long lda, ldb;
    double *C;
    long ldc;
    bool vec_a, vec_b; /* which operands move in 16-byte cp.async copies (rows_vectorizable) */
    unsigned grid;     /* one block per tile of C */
} dmma_v1_dmma_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
static inline const char *dmma_v1_dmma_unsupported(int M, int N, int K)
{
    typedef dmma_v1_dmma_config Cfg;
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, (const void *)dmma_v1_dmma_kernel<Cfg>) != cudaSuccess) {
        (void)cudaGetLastError();
        return "no code for this GPU in this build (or no GPU)";
    }
    if (!smem_fits(Cfg::SMEM_BYTES))
        return "the block tile needs more shared memory than this GPU has";
    return NULL;
}

static inline cudaError_t dmma_v1_dmma_prepare(dmma_v1_dmma_plan *plan, int M, int N, int K,
                                               const double *A, long lda, const double *B, long ldb,
                                               double *C, long ldc)
{
    typedef dmma_v1_dmma_config Cfg;
    if (M < 1 || N < 1 || K < 1 || lda < K || ldb < K || ldc < N) return cudaErrorInvalidValue;
    if (dmma_v1_dmma_unsupported(M, N, K)) return cudaErrorNotSupported;
    const cudaError_t e = smem_optin((const void *)dmma_v1_dmma_kernel<Cfg>, Cfg::SMEM_BYTES);
    if (e != cudaSuccess) return e;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->vec_a = rows_vectorizable(A, lda, K, sizeof(double));
    plan->vec_b = rows_vectorizable(B, ldb, K, sizeof(double));
    plan->grid = tile_count(M, N, Cfg::BM, Cfg::BN);
    return cudaSuccess;
}

static inline cudaError_t dmma_v1_dmma_run(const dmma_v1_dmma_plan *p, double alpha, double beta,
                                           cudaStream_t stream)
{
    typedef dmma_v1_dmma_config Cfg;
    dmma_v1_dmma_kernel<Cfg><<<p->grid, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec_a,
        p->vec_b);
    return cudaGetLastError();
}

static inline cudaError_t dmma_v1_dmma_gemm(int M, int N, int K, const double *A, long lda,
                                            const double *B, long ldb, double *C, long ldc,
                                            double alpha, double beta, cudaStream_t stream)
{
    dmma_v1_dmma_plan plan;
    const cudaError_t e = dmma_v1_dmma_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? dmma_v1_dmma_run(&plan, alpha, beta, stream) : e;
}

#endif /* DMMA_V1_DMMA_CUH */
