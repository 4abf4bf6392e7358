/* oz_v5_ozaki2 - an FP64 GEMM from int8 tensor cores by the Chinese remainder theorem (Ozaki
 * scheme II; the rows v5_ozaki2_n14, _n15, _n16): k-bit integers, their residues modulo n moduli,
 * one int8 GEMM per modulus, the CRT in 128-bit fixed point (ozaki_model.h has the arithmetic and
 * its bound).
 *
 * Rung v5 of chapter 09. Parent: v2_ozaki_sN (v2_ozaki.cuh). What changes, and why faster:
 * scheme I cuts every value into s slices of 7 bits and pays s(s+1)/2 int8 products; scheme II
 * rounds every scaled value to one k-bit integer and computes the integer product exactly modulo
 * n moduli of at most 256, one int8 GEMM of length K per modulus (n = 15 carries 51 bits, where
 * scheme I pays 36 products for 56). What it costs: integer work on every element, n times (the
 * residues, the reductions) and the reconstruction.
 *
 * The steps per chunk of K (Kc from oz2_k_chunk: C' of a chunk stays within (-P/2, P/2)):
 *   1. oz2_residues  A' = trunc(A 2^(k - e)) and its n residues, int8, one K-major matrix per
 *                    modulus (leading dimension Kc rounded up to 16, zeros past K); B likewise;
 *   2. per modulus l: ONE cuBLAS int8 GEMM (int32, exact), then oz2_reduce: t_l = (R mod m_l)
 *                    inv_l mod m_l, one byte per element;
 *   3. oz2_combine   F = sum_l t_l W_l mod 2^128 (four 64-bit word sums), C' = P F 2^-128
 *                    (oz2_fixed_to_double, shared with the CPU model), times 2^-2k, into the f64
 *                    sum of the chunks;
 * before them oz_exponents, after them oz_finish, as in scheme I (ozaki_parts.cuh). Not handled, as
 * in scheme I: NaN and infinite inputs.
 *
 * Steps 1 and 2 are integer work on every element, n times: the moduli are compile-time constants
 * (template arguments), so that every "mod m" is a multiply by a constant, never a division, and
 * each thread handles 4 neighbouring elements (one 32-bit store of 4 residues). The element
 * buffers are padded to a multiple of 4 elements, so the kernels have no tails.
 *
 * Problem: C = alpha A B + beta C, A M x K row-major (lda), B K x N column-major (ldb: stored
 * N x K, K-contiguous), C M x N row-major (ldc), all f64; any M, N, K >= 1 and any alignment;
 * beta == 0 never reads C. n = 14, 15 or 16 moduli (the kernels' instantiations) and k <= 52 bits
 * (residue_of needs integers below 2^52) such that a chunk of at least 16 fits; the chapter's
 * rows are n = 14, k = 48; n = 15, k = 51; n = 16, k = 52.
 *
 * Tile: none of its own; the int8 GEMMs are cuBLAS's (cublasGemmEx, CUDA_R_8I, COMPUTE_32I).
 *
 * The plain launcher (no harness types; ozaki_parts.cuh, cublas_status.cuh, ozaki_model.h and
 * cuBLAS: link ozaki_model.c and -lcublas):
 *   oz_v5_ozaki2_workspace_size(n, k, M, N, K, &bytes): the device workspace a problem needs (the
 *   residues, one int32 product, the bytes t_l, an f64 sum, the exponents); allocate it once, any
 *   contents;
 *   oz_v5_ozaki2_gemm(n, k, M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, workspace, bytes,
 *   handle, stream), or oz_v5_ozaki2_prepare(&plan, n, k, ..., workspace, bytes, handle) once and
 *   oz_v5_ozaki2_run(&plan, alpha, beta, stream) per product (run sets the cuBLAS handle's stream;
 *   launches that share a workspace or a handle must not run at the same time). Both return
 *   cudaSuccess, cudaErrorInvalidValue for sizes below 1, a leading dimension below the row, no
 *   handle or a workspace too small, cudaErrorNotSupported for an n, k or GPU it cannot take
 *   (oz_v5_ozaki2_unsupported says why; nothing is launched), or the failed call's error (a
 *   cuBLAS status as the nearest cudaError_t). oz_v5_ozaki2_prepare_chunk is prepare with the
 *   chunk of K forced below its choice (a multiple of 16), so that a test runs the chunk path at
 *   small K.
 *
 * Minimum: sm_75 for cuBLAS's int8 tensor cores (the chapter's floor is sm_80). */
#ifndef OZ_V5_OZAKI2_CUH
#define OZ_V5_OZAKI2_CUH

#include "cublas_status.cuh"
#include "ozaki_model.h"
#include "ozaki_parts.cuh"

#include <stdint.h>

namespace
{
constexpr int OZ2_M[OZ2_MAX_MODULI] = {OZ2_MODULI_LIST};
constexpr int OZ2_GROUP = 4; /* elements per thread in the element kernels */
/* 1.5 2^52: fma(v, 1/m, MAGIC) rounds v/m to an integer q (|q| < 2^51) and holds q in the low 32
 * bits of its bit pattern */
constexpr double MAGIC = 0x1.8p52;

/* the residue of v (an integer below 2^52 in magnitude; vd its double, v32 its low 32 bits) modulo
 * M in the symmetric range of oz2_residue: q = round(v / M) is off by at most 1/386 before the
 * rounding, so v - q M lies within M/2 + 1 of zero and one step each way finishes */
template <int M> __device__ __forceinline__ int residue_of(double vd, uint32_t v32)
{
    constexpr int HIGH = (M + 1) / 2 - 1; /* the largest residue: 127 for 255 and 256 */
    const uint32_t q = (uint32_t)__double2loint(fma(vd, 1.0 / M, MAGIC));
    int r = (int)(v32 - q * (uint32_t)M); /* exact: the true difference is small */
    r = r > HIGH ? r - M : r;
    return r < HIGH + 1 - M ? r + M : r;
}

/* the residues of 4 values for moduli L .. N-1, stored 4 to a word (little endian: k ascending) */
template <int L, int N>
__device__ __forceinline__ void store_residues(const double (&vd)[OZ2_GROUP],
                                               const uint32_t (&v32)[OZ2_GROUP], long plane,
                                               int8_t *__restrict__ res)
{
    if constexpr (L < N) {
        uint32_t word = 0;
#pragma unroll
        for (int g = 0; g < OZ2_GROUP; g++)
            word |= (uint32_t)(uint8_t)residue_of<OZ2_M[L]>(vd[g], v32[g]) << (8 * g);
        *(uint32_t *)(res + L * plane) = word;
        store_residues<L + 1, N>(vd, v32, plane, res);
    }
}
} // namespace

/* residues of the k-bit integers of x(r, k0 .. k0+kc-1): res[l] (rows x kcp, K-major), 4 values
 * of k per thread (kcp is a multiple of 16) */
template <int N>
__global__ void oz2_residues(const double *__restrict__ x, long ld, int rows, int K, int k0, int kc,
                             int kcp, const int *__restrict__ e, int bits, int8_t *__restrict__ res)
{
    const int k = OZ2_GROUP * (blockIdx.x * blockDim.x + threadIdx.x);
    if (k >= kcp) return;
    const long plane = (long)rows * kcp;
#pragma unroll 1
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        double vd[OZ2_GROUP];
        uint32_t v32[OZ2_GROUP];
#pragma unroll
        for (int g = 0; g < OZ2_GROUP; g++) {
            const int kk = k + g;
            const double v =
                kk < kc && k0 + kk < K ? trunc(ldexp(x[(long)r * ld + k0 + kk], bits - e[r])) : 0.0;
            vd[g] = v;
            v32[g] = (uint32_t)(unsigned long long)__double2ll_rz(v); /* |v| < 2^52: exact */
        }
        store_residues<0, N>(vd, v32, plane, res + (long)r * kcp + k);
    }
}

/* t = (R mod M) inv mod M, one byte per element, 4 elements per thread (groups = ceil(n / 4); the
 * buffers are padded) */
template <int M>
__global__ void oz2_reduce(const int32_t *__restrict__ R, long groups, int inv,
                           uint8_t *__restrict__ t)
{
    const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= groups) return;
    const int4 r4 = ((const int4 *)R)[i];
    const int r[OZ2_GROUP] = {r4.x, r4.y, r4.z, r4.w};
    uint32_t word = 0;
#pragma unroll
    for (int g = 0; g < OZ2_GROUP; g++) {
        int m = r[g] % M; /* a multiply by a constant */
        m = m < 0 ? m + M : m;
        word |= ((uint32_t)(m * inv) % M) << (8 * g); /* m inv < 2^16 */
    }
    ((uint32_t *)t)[i] = word;
}

/* oz2_reduce for modulus number l (a run-time index) */
template <int L = 0>
static void launch_reduce(int l, const int32_t *R, long groups, int inv, uint8_t *t,
                          cudaStream_t stream)
{
    if constexpr (L < OZ2_MAX_MODULI) {
        if (l != L) return launch_reduce<L + 1>(l, R, groups, inv, t, stream);
        oz2_reduce<OZ2_M[L]>
            <<<(unsigned)((groups + 255) / 256), 256, 0, stream>>>(R, groups, inv, t);
    }
}

/* sum(i) (+)= 2^-2k C'(i) (scale = 2^-2k, exact), C' from t_0(i) .. t_{N-1}(i) (ozaki_model.c's
 * oz2_reconstruct), 4 elements per thread; t's planes are tstride bytes apart; first: the first
 * chunk writes sum */
template <int N>
__global__ void oz2_combine(const uint8_t *__restrict__ t, long tstride, long groups, double scale,
                            oz2_consts c, int first, double *__restrict__ sum)
{
    const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= groups) return;
    uint64_t acc[OZ2_GROUP][4] = {};
#pragma unroll
    for (int l = 0; l < N; l++) {
        const uint32_t word = ((const uint32_t *)(t + l * tstride))[i];
#pragma unroll
        for (int g = 0; g < OZ2_GROUP; g++) {
            const uint32_t tl = (word >> (8 * g)) & 0xff;
#pragma unroll
            for (int j = 0; j < 4; j++) acc[g][j] += (uint64_t)tl * c.w[l][j]; /* IMAD.WIDE */
        }
    }
    double *out = sum + OZ2_GROUP * i;
#pragma unroll
    for (int g = 0; g < OZ2_GROUP; g++) {
        const double v = oz2_fixed_to_double(acc[g], c.p_hi, c.p_lo) * scale;
        out[g] = first ? v : out[g] + v;
    }
}

/* ---- the host side --------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
    const double *A, *B;
    long lda, ldb;
    double *C;
    long ldc;
    cublasHandle_t handle;
    int bits;
    oz2_consts c;
    long kc, kcp, chunks; /* chunk length, its padded length (a multiple of 16) and count */
    long groups;          /* ceil(M N / 4): the element buffers hold 4 groups elements */
    int8_t *ares, *bres;  /* n x M x kcp and n x N x kcp */
    int32_t *r;           /* one modulus: M x N */
    uint8_t *t;           /* n planes of M x N, 4 groups bytes apart */
    double *sum;          /* M x N */
    int *ea, *eb;
} oz_v5_ozaki2_plan;

/* NULL when the rung can take n moduli, k-bit integers and the problem on this GPU, else why not */
static inline const char *oz_v5_ozaki2_unsupported(int n, int bits, int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (n < 14 || n > 16) return "v5_ozaki2: 14, 15 or 16 moduli (the kernels' instantiations)";
    if (bits < 1 || bits > 52) return "v5_ozaki2: 1 to 52 bits per value (residue_of)";
    oz2_consts c;
    oz2_consts_init(&c, n);
    for (int l = 0; l < c.n; l++)
        if (c.m[l] != OZ2_M[l]) /* the kernels' constants are the model's moduli */
            return "v5_ozaki2: the kernels' moduli differ from ozaki_model.c's";
    if (oz2_k_chunk(&c, bits, OZ_KC_ALIGN) < OZ_KC_ALIGN)
        return "v5_ozaki2: no chunk of K fits the moduli at this many bits (2 Kc 2^2k < P)";
    cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, (const void *)oz_exponents) != cudaSuccess) {
        (void)cudaGetLastError();
        return "no code for this GPU in this build (or no GPU)";
    }
    return NULL;
}

/* the chunk of K (at most kc_cap when that is not 0) and the workspace's buffers at base (sizes
 * only when base is NULL); returns the workspace's bytes */
static inline size_t oz_v5_ozaki2_layout(oz_v5_ozaki2_plan *p, int n, int bits, int M, int N, int K,
                                         long kc_cap, char *base)
{
    p->bits = bits;
    oz2_consts_init(&p->c, n);
    const long k_max = oz2_k_chunk(&p->c, bits, OZ_KC_ALIGN);
    const long k_round = ((long)K + OZ_KC_ALIGN - 1) / OZ_KC_ALIGN * OZ_KC_ALIGN;
    p->kc = k_round < k_max ? K : k_max;
    if (kc_cap > 0 && kc_cap < p->kc) p->kc = kc_cap;
    p->kcp = (p->kc + OZ_KC_ALIGN - 1) / OZ_KC_ALIGN * OZ_KC_ALIGN;
    p->chunks = (K + p->kc - 1) / p->kc;
    p->groups = ((long)M * N + OZ2_GROUP - 1) / OZ2_GROUP;
    const size_t padded = (size_t)p->groups * OZ2_GROUP;
    size_t off = 0;
    p->ares = (int8_t *)oz_take(base, &off, (size_t)n * M * p->kcp);
    p->bres = (int8_t *)oz_take(base, &off, (size_t)n * N * p->kcp);
    p->r = (int32_t *)oz_take(base, &off, padded * sizeof(int32_t));
    p->t = (uint8_t *)oz_take(base, &off, (size_t)n * padded);
    p->sum = (double *)oz_take(base, &off, padded * sizeof(double));
    p->ea = (int *)oz_take(base, &off, (size_t)M * sizeof(int));
    p->eb = (int *)oz_take(base, &off, (size_t)N * sizeof(int));
    return off;
}

static inline cudaError_t oz_v5_ozaki2_workspace_size(int n, int bits, int M, int N, int K,
                                                      size_t *bytes)
{
    *bytes = 0;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (oz_v5_ozaki2_unsupported(n, bits, M, N, K)) return cudaErrorNotSupported;
    oz_v5_ozaki2_plan plan;
    *bytes = oz_v5_ozaki2_layout(&plan, n, bits, M, N, K, 0, NULL);
    return cudaSuccess;
}

/* prepare() with the chunk of K at most kc_cap (a multiple of 16; 0: the rung's choice) */
static inline cudaError_t oz_v5_ozaki2_prepare_chunk(oz_v5_ozaki2_plan *plan, long kc_cap, int n,
                                                     int bits, int M, int N, int K, const double *A,
                                                     long lda, const double *B, long ldb, double *C,
                                                     long ldc, void *workspace,
                                                     size_t workspace_bytes, cublasHandle_t handle)
{
    if (M < 1 || N < 1 || K < 1 || lda < K || ldb < K || ldc < N || !handle)
        return cudaErrorInvalidValue;
    if (kc_cap < 0 || kc_cap % OZ_KC_ALIGN != 0) return cudaErrorInvalidValue;
    if (oz_v5_ozaki2_unsupported(n, bits, M, N, K)) return cudaErrorNotSupported;
    if (!workspace || workspace_bytes < oz_v5_ozaki2_layout(plan, n, bits, M, N, K, kc_cap, NULL))
        return cudaErrorInvalidValue;
    oz_v5_ozaki2_layout(plan, n, bits, M, N, K, kc_cap, (char *)workspace);
    plan->M = M, plan->N = N, plan->K = K, plan->A = A, plan->lda = lda, plan->B = B;
    plan->ldb = ldb, plan->C = C, plan->ldc = ldc, plan->handle = handle;
    /* R is poisoned once (a large int32 in every element, the padding past M N too): a product
     * cuBLAS did not write would wreck the result. The fill also marks R initialised for
     * compute-sanitizer's initcheck, which does not see every store of cuBLAS's int8 kernels. */
    return cudaMemset(plan->r, 0x7f, (size_t)plan->groups * OZ2_GROUP * sizeof(int32_t));
}

static inline cudaError_t oz_v5_ozaki2_prepare(oz_v5_ozaki2_plan *plan, int n, int bits, int M,
                                               int N, int K, const double *A, long lda,
                                               const double *B, long ldb, double *C, long ldc,
                                               void *workspace, size_t workspace_bytes,
                                               cublasHandle_t handle)
{
    return oz_v5_ozaki2_prepare_chunk(plan, 0, n, bits, M, N, K, A, lda, B, ldb, C, ldc, workspace,
                                      workspace_bytes, handle);
}

template <int N>
static cudaError_t oz2_run(const oz_v5_ozaki2_plan *plan, double alpha, double beta,
                           cudaStream_t stream)
{
    const int M = plan->M, Ncols = plan->N, K = plan->K;
    const long kcp = plan->kcp, tstride = plan->groups * OZ2_GROUP;
    const double *A = plan->A, *B = plan->B;
    const unsigned group_blocks = (unsigned)((plan->groups + 255) / 256);

    oz_exponents<<<(M + 7) / 8, 256, 0, stream>>>(A, plan->lda, M, K, plan->ea);
    oz_exponents<<<(Ncols + 7) / 8, 256, 0, stream>>>(B, plan->ldb, Ncols, K, plan->eb);
    cublasStatus_t st = cublasSetStream(plan->handle, stream);
    const int32_t one = 1, zero = 0;
    for (long ch = 0; ch < plan->chunks && st == CUBLAS_STATUS_SUCCESS; ch++) {
        const int k0 = (int)(ch * plan->kc);
        const dim3 block(256),
            grid_a((unsigned)((kcp / OZ2_GROUP + 255) / 256), M < 65535 ? M : 65535),
            grid_b((unsigned)((kcp / OZ2_GROUP + 255) / 256), Ncols < 65535 ? Ncols : 65535);
        oz2_residues<N><<<grid_a, block, 0, stream>>>(A, plan->lda, M, K, k0, (int)plan->kc,
                                                      (int)kcp, plan->ea, plan->bits, plan->ares);
        oz2_residues<N><<<grid_b, block, 0, stream>>>(B, plan->ldb, Ncols, K, k0, (int)plan->kc,
                                                      (int)kcp, plan->eb, plan->bits, plan->bres);
        for (int l = 0; l < N && st == CUBLAS_STATUS_SUCCESS; l++) {
            /* R (row-major M x N) = A_l B_l, computed column-major as R^T = B_l^T A_l^T ("TN") */
            st = cublasGemmEx(plan->handle, CUBLAS_OP_T, CUBLAS_OP_N, Ncols, M, (int)kcp, &one,
                              plan->bres + l * (long)Ncols * kcp, CUDA_R_8I, (int)kcp,
                              plan->ares + l * (long)M * kcp, CUDA_R_8I, (int)kcp, &zero, plan->r,
                              CUDA_R_32I, Ncols, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
            if (st == CUBLAS_STATUS_SUCCESS)
                launch_reduce(l, plan->r, plan->groups, plan->c.inv[l], plan->t + l * tstride,
                              stream);
        }
        if (st == CUBLAS_STATUS_SUCCESS)
            oz2_combine<N><<<group_blocks, 256, 0, stream>>>(plan->t, tstride, plan->groups,
                                                             ldexp(1.0, -2 * plan->bits), plan->c,
                                                             ch == 0, plan->sum);
    }
    if (st != CUBLAS_STATUS_SUCCESS) return cublas_status_error(st);
    oz_launch_finish(plan->sum, plan->ea, plan->eb, M, Ncols, plan->C, plan->ldc, alpha, beta,
                     stream);
    return cudaGetLastError();
}

static inline cudaError_t oz_v5_ozaki2_run(const oz_v5_ozaki2_plan *plan, double alpha, double beta,
                                           cudaStream_t stream)
{
    switch (plan->c.n) { /* the moduli counts the kernels are instantiated for */
    case 14: return oz2_run<14>(plan, alpha, beta, stream);
    case 15: return oz2_run<15>(plan, alpha, beta, stream);
    default: return oz2_run<16>(plan, alpha, beta, stream);
    }
}

static inline cudaError_t oz_v5_ozaki2_gemm(int n, int bits, int M, int N, int K, const double *A,
                                            long lda, const double *B, long ldb, double *C,
                                            long ldc, double alpha, double beta, void *workspace,
                                            size_t workspace_bytes, cublasHandle_t handle,
                                            cudaStream_t stream)
{
    oz_v5_ozaki2_plan plan;
    const cudaError_t e = oz_v5_ozaki2_prepare(&plan, n, bits, M, N, K, A, lda, B, ldb, C, ldc,
                                               workspace, workspace_bytes, handle);
    return e == cudaSuccess ? oz_v5_ozaki2_run(&plan, alpha, beta, stream) : e;
}

#endif /* OZ_V5_OZAKI2_CUH */
