/* 09_emulated_precision/ozaki.cu - v2_ozaki_sN: an FP64 GEMM computed by int8 tensor cores (the
 * Ozaki scheme with s int8 slices per value; ozaki_model.h has the arithmetic and its bound).
 *
 * The steps, all on the stream, all inside the timed launch:
 *   1. oz_exponents   one warp per row of A (per column of B): the exponent e with |x| < 2^e;
 *   2. oz_split       each value cut into s slices of 7 bits, written as int8 with the slices of a
 *                     row laid end to end along k: A as D_1 | D_2 | ... | D_s, B as E_s | ... | E_1
 *                     (both K-major, leading dimension s Kc), zeros past K;
 *   3. for each diagonal t = s+1 down to 2: ONE cuBLAS int8 GEMM (int32 out, exact) of A's first
 *      (t-1) Kc columns with B's last (t-1) Kc rows, i.e. sum_{p+q=t} D_p E_q; then
 *      oz_accumulate adds it, times 2^-7t, to an f64 sum (the smallest diagonal first);
 *   4. oz_finish      C = alpha 2^(e_i + f_j) sum + beta C.
 * K is cut into chunks of Kc <= oz_k_exact_int32(s) (rounded down to a multiple of 16), so that
 * every int32 sum is exact; each chunk runs steps 2 and 3, adding its diagonals to the same f64
 * sum (ozaki_model.c's oz_dot models one chunk). TC_OZAKI_KC (environment, a multiple of 16)
 * caps Kc, so that a test can run the chunk path at small K.
 * Not handled: NaN and infinite inputs (a slice of them is undefined; DGEMM would propagate
 * them).
 *
 * Problem and layout: C = alpha A B + beta C, A M x K row-major (lda), B K x N column-major (ldb),
 * C M x N row-major (ldc), all f64; any M, N, K and alignment. beta == 0 never reads C.
 *
 * Minimum: sm_75 for cuBLAS's int8 tensor cores (the chapter's floor is sm_80). */
#include <cublas_v2.h> /* before check.h (through ozaki.h): TC_CUBLAS_CHECK */

#include "ozaki.h"

#include "ozaki_model.h"

#include <stdint.h>
#include <stdlib.h>

const int oz_slices_6 = 6, oz_slices_7 = 7, oz_slices_8 = 8;

constexpr int OZ_KC_ALIGN = 16; /* chunk length and slice stride: cuBLAS int8 wants ld % 4 */

/* ---- device code ------------------------------------------------------------------------------ */

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

/* The slices of x(r, k0 .. k0+Kc-1) into cat (rows x s Kc, leading dimension s Kc): slice p
 * (1-based) at columns slot(p) Kc .. slot(p) Kc + Kc - 1, slot(p) = p - 1 (A) or s - p (B). */
__global__ void oz_split(const double *__restrict__ x, long ld, int rows, int K, int k0, int kc,
                         const int *__restrict__ e, int s, int reverse, int8_t *__restrict__ cat)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= kc) return;
    const long ldc = (long)s * kc;
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        double v = k0 + k < K ? ldexp(x[(long)r * ld + k0 + k], -e[r]) : 0.0; /* |v| < 1 */
        for (int p = 1; p <= s; p++) {
            const double y = ldexp(v, OZ_SLICE_BITS), t = trunc(y); /* exact */
            v = y - t;
            const int slot = reverse ? s - p : p - 1;
            cat[(long)r * ldc + (long)slot * kc + k] = (int8_t)t;
        }
    }
}

/* sum(i, j) += 2^-7t R(i, j): R row-major M x N int32, sum f64 */
__global__ void oz_accumulate(const int32_t *__restrict__ R, double *__restrict__ sum, long n,
                              int t)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
         i += (long)gridDim.x * blockDim.x)
        sum[i] += ldexp((double)R[i], -OZ_SLICE_BITS * t);
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
static void launch_finish(const double *sum, const int *ea, const int *eb, const tc_gemm_problem *p,
                          cudaStream_t stream)
{
    const dim3 grid((unsigned)((p->N + 255) / 256), p->M < 65535 ? p->M : 65535);
    oz_finish<<<grid, 256, 0, stream>>>(sum, ea, eb, p->M, p->N, (double *)p->d_c, p->ldc, p->alpha,
                                        p->beta);
}

/* ---- host side -------------------------------------------------------------------------------- */
typedef struct {
    cublasHandle_t handle;
} oz_ctx;

extern "C" void *oz_chapter_init(const tc_device_info *dev, FILE *info)
{
    (void)dev, (void)info;
    oz_ctx *c = (oz_ctx *)calloc(1, sizeof *c);
    if (!c) return NULL;
    TC_CUBLAS_CHECK(cublasCreate(&c->handle));
    return c;
}

extern "C" void *oz_cublas_handle(void *chapter_ctx)
{
    return chapter_ctx ? (void *)((oz_ctx *)chapter_ctx)->handle : NULL;
}

extern "C" void oz_chapter_fini(void *ctx)
{
    oz_ctx *c = (oz_ctx *)ctx;
    if (!c) return;
    cublasDestroy(c->handle);
    free(c);
}

typedef struct {
    int s;
    long kc, chunks;     /* chunk length (a multiple of OZ_KC_ALIGN) and count */
    int8_t *acat, *bcat; /* M x s kc and N x s kc */
    int32_t *r;          /* one diagonal: M x N */
    double *sum;         /* M x N */
    int *ea, *eb;        /* M and N exponents */
} oz_plan;

extern "C" const char *oz_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    if (!p->chapter_ctx) return "out of host memory";
    const int s = *(const int *)v->impl;
    oz_plan *plan = (oz_plan *)calloc(1, sizeof *plan);
    if (!plan) return "out of host memory";
    plan->s = s;
    const long k_round = (p->K + OZ_KC_ALIGN - 1) / OZ_KC_ALIGN * OZ_KC_ALIGN;
    const long k_max = oz_k_exact_int32(s) / OZ_KC_ALIGN * OZ_KC_ALIGN;
    plan->kc = k_round < k_max ? k_round : k_max;
    const char *cap = getenv("TC_OZAKI_KC"); /* a test's cap on the chunk (see the header) */
    if (cap && atol(cap) >= OZ_KC_ALIGN && atol(cap) % OZ_KC_ALIGN == 0 && atol(cap) < plan->kc)
        plan->kc = atol(cap);
    plan->chunks = (p->K + plan->kc - 1) / plan->kc;
    const size_t cat_a = (size_t)p->M * s * plan->kc, cat_b = (size_t)p->N * s * plan->kc;
    const size_t mn = (size_t)p->M * p->N;
    if (cudaMalloc(&plan->acat, cat_a) != cudaSuccess ||
        cudaMalloc(&plan->bcat, cat_b) != cudaSuccess ||
        cudaMalloc(&plan->r, mn * sizeof(int32_t)) != cudaSuccess ||
        cudaMalloc(&plan->sum, mn * sizeof(double)) != cudaSuccess ||
        cudaMalloc(&plan->ea, (size_t)p->M * sizeof(int)) != cudaSuccess ||
        cudaMalloc(&plan->eb, (size_t)p->N * sizeof(int)) != cudaSuccess) {
        (void)cudaGetLastError();
        p->plan = plan;
        oz_release(v, p);
        return TC_GEMM_SKIP "not enough device memory for the slices";
    }
    /* R is poisoned once (a large int32 in every element): a product cuBLAS did not write would
     * wreck the result. The fill also marks R initialised for compute-sanitizer's initcheck, which
     * does not see every store of cuBLAS's int8 kernels. */
    TC_CUDA_CHECK(cudaMemset(plan->r, 0x7f, mn * sizeof(int32_t)));
    p->plan = plan;
    return NULL;
}

static unsigned blocks_for(long n, int threads)
{
    const long b = (n + threads - 1) / threads;
    return (unsigned)(b < 65535 * 16 ? b : 65535 * 16);
}

extern "C" void oz_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream)
{
    const oz_plan *plan = (const oz_plan *)p->plan;
    const oz_ctx *ctx = (const oz_ctx *)p->chapter_ctx;
    const int s = plan->s, M = p->M, N = p->N, K = p->K;
    const long kc = plan->kc, ldcat = (long)s * kc, mn = (long)M * N;
    const double *A = (const double *)p->d_a, *B = (const double *)p->d_b;

    oz_exponents<<<(M + 7) / 8, 256, 0, stream>>>(A, p->lda, M, K, plan->ea);
    oz_exponents<<<(N + 7) / 8, 256, 0, stream>>>(B, p->ldb, N, K, plan->eb);
    TC_CUDA_CHECK(cudaMemsetAsync(plan->sum, 0, (size_t)mn * sizeof(double), stream));
    TC_CUBLAS_CHECK(cublasSetStream(ctx->handle, stream));
    const int32_t one = 1, zero = 0;
    for (long c = 0; c < plan->chunks; c++) {
        const int k0 = (int)(c * kc);
        const dim3 block(256), grid_a((unsigned)((kc + 255) / 256), M < 65535 ? M : 65535),
            grid_b((unsigned)((kc + 255) / 256), N < 65535 ? N : 65535);
        oz_split<<<grid_a, block, 0, stream>>>(A, p->lda, M, K, k0, (int)kc, plan->ea, s, 0,
                                               plan->acat);
        oz_split<<<grid_b, block, 0, stream>>>(B, p->ldb, N, K, k0, (int)kc, plan->eb, s, 1,
                                               plan->bcat);
        for (int t = s + 1; t >= 2; t--) {
            /* R (row-major M x N) = Acat[:, 0 : (t-1) kc] Bcat[(s-t+1) kc : s kc, :], computed
             * column-major as R^T = Bcat^T Acat^T: both operands K-contiguous ("TN") */
            int a_slot, b_slot, count;
            oz_diagonal(s, t, &a_slot, &b_slot, &count); /* here a_slot = 0, count = t - 1 */
            const int kd = (int)(count * kc);
            TC_CUBLAS_CHECK(cublasGemmEx(ctx->handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, kd, &one,
                                         plan->bcat + (long)b_slot * kc, CUDA_R_8I, (int)ldcat,
                                         plan->acat + (long)a_slot * kc, CUDA_R_8I, (int)ldcat,
                                         &zero, plan->r, CUDA_R_32I, N, CUBLAS_COMPUTE_32I,
                                         CUBLAS_GEMM_DEFAULT));
            oz_accumulate<<<blocks_for(mn, 256), 256, 0, stream>>>(plan->r, plan->sum, mn, t);
        }
    }
    launch_finish(plan->sum, plan->ea, plan->eb, p, stream);
}

extern "C" void oz_release(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    oz_plan *plan = (oz_plan *)p->plan;
    if (!plan) return;
    cudaFree(plan->acat);
    cudaFree(plan->bcat);
    cudaFree(plan->r);
    cudaFree(plan->sum);
    cudaFree(plan->ea);
    cudaFree(plan->eb);
    free(plan);
    p->plan = NULL;
}

/* ================================================================================================
 * v5_ozaki2_nN: scheme II (ozaki_model.h): k-bit integers, their residues modulo n moduli, one
 * int8 GEMM per modulus, the Chinese remainder theorem in 128-bit fixed point.
 * The steps per chunk of K (Kc from oz2_k_chunk: C' of a chunk stays within (-P/2, P/2)):
 *   1. oz2_residues  A' = trunc(A 2^(k - e)) and its n residues, int8, one K-major matrix per
 *                    modulus (leading dimension Kc rounded up to 16, zeros past K); B likewise;
 *   2. per modulus l: ONE cuBLAS int8 GEMM (int32, exact), then oz2_reduce: t_l = (R mod m_l)
 *                    inv_l mod m_l, one byte per element;
 *   3. oz2_combine   F = sum_l t_l W_l mod 2^128 (four 64-bit word sums), C' = P F 2^-128
 *                    (oz2_fixed_to_double, shared with the CPU model), times 2^-2k, into the f64
 *                    sum of the chunks;
 * then oz_finish as in scheme I. Not handled, as in scheme I: NaN and infinite inputs.
 *
 * Steps 1 and 2 are integer work on every element, n times: the moduli are compile-time constants
 * (template arguments), so that every "mod m" is a multiply by a constant, never a division, and
 * each thread handles 4 neighbouring elements (one 32-bit store of 4 residues). The element
 * buffers are padded to a multiple of 4 elements, so the kernels have no tails.
 * ============================================================================================== */
const oz2_variant oz2_n14 = {.moduli = 14, .bits = 48}, oz2_n15 = {.moduli = 15, .bits = 51},
                  oz2_n16 = {.moduli = 16, .bits = 52};

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

typedef struct {
    int bits;
    oz2_consts c;
    long kc, kcp, chunks; /* chunk length, its padded length (a multiple of 16) and count */
    long groups;          /* ceil(M N / 4): the element buffers hold 4 groups elements */
    int8_t *ares, *bres;  /* n x M x kcp and n x N x kcp */
    int32_t *r;           /* one modulus: M x N */
    uint8_t *t;           /* n planes of M x N, 4 groups bytes apart */
    double *sum;          /* M x N */
    int *ea, *eb;
} oz2_plan;

extern "C" const char *oz2_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    if (!p->chapter_ctx) return "out of host memory";
    const oz2_variant *var = (const oz2_variant *)v->impl;
    if (var->moduli < 14 || var->moduli > 16) return "v5_ozaki2: 14, 15 or 16 moduli (oz2_launch)";
    oz2_plan *plan = (oz2_plan *)calloc(1, sizeof *plan);
    if (!plan) return "out of host memory";
    p->plan = plan;
    plan->bits = var->bits;
    oz2_consts_init(&plan->c, var->moduli);
    for (int l = 0; l < plan->c.n; l++)
        if (plan->c.m[l] != OZ2_M[l]) { /* the kernels' constants are the model's moduli */
            oz2_release(v, p);
            return "v5_ozaki2: the kernels' moduli differ from ozaki_model.c's";
        }
    const long k_max = oz2_k_chunk(&plan->c, var->bits, OZ_KC_ALIGN);
    if (k_max < OZ_KC_ALIGN) {
        oz2_release(v, p);
        return "v5_ozaki2: no chunk of K fits the moduli (a bad variant row)";
    }
    const long k_round = (p->K + OZ_KC_ALIGN - 1) / OZ_KC_ALIGN * OZ_KC_ALIGN;
    plan->kc = k_round < k_max ? p->K : k_max;
    const char *cap = getenv("TC_OZAKI_KC"); /* a test's cap on the chunk, as in scheme I */
    if (cap && atol(cap) >= OZ_KC_ALIGN && atol(cap) % OZ_KC_ALIGN == 0 && atol(cap) < plan->kc)
        plan->kc = atol(cap);
    plan->kcp = (plan->kc + OZ_KC_ALIGN - 1) / OZ_KC_ALIGN * OZ_KC_ALIGN;
    plan->chunks = (p->K + plan->kc - 1) / plan->kc;
    plan->groups = ((long)p->M * p->N + OZ2_GROUP - 1) / OZ2_GROUP;
    const size_t n = (size_t)var->moduli, padded = (size_t)plan->groups * OZ2_GROUP;
    if (cudaMalloc(&plan->ares, n * p->M * plan->kcp) != cudaSuccess ||
        cudaMalloc(&plan->bres, n * p->N * plan->kcp) != cudaSuccess ||
        cudaMalloc(&plan->r, padded * sizeof(int32_t)) != cudaSuccess ||
        cudaMalloc(&plan->t, n * padded) != cudaSuccess ||
        cudaMalloc(&plan->sum, padded * sizeof(double)) != cudaSuccess ||
        cudaMalloc(&plan->ea, (size_t)p->M * sizeof(int)) != cudaSuccess ||
        cudaMalloc(&plan->eb, (size_t)p->N * sizeof(int)) != cudaSuccess) {
        (void)cudaGetLastError();
        oz2_release(v, p);
        return TC_GEMM_SKIP "not enough device memory for the residues";
    }
    /* as in scheme I (initcheck cannot see cuBLAS's int8 stores); also the padding past M N */
    TC_CUDA_CHECK(cudaMemset(plan->r, 0x7f, padded * sizeof(int32_t)));
    return NULL;
}

template <int N>
static void oz2_run(const oz2_plan *plan, const tc_gemm_problem *p, cudaStream_t stream)
{
    const oz_ctx *ctx = (const oz_ctx *)p->chapter_ctx;
    const int M = p->M, Ncols = p->N, K = p->K;
    const long kcp = plan->kcp, tstride = plan->groups * OZ2_GROUP;
    const double *A = (const double *)p->d_a, *B = (const double *)p->d_b;
    const unsigned group_blocks = (unsigned)((plan->groups + 255) / 256);

    oz_exponents<<<(M + 7) / 8, 256, 0, stream>>>(A, p->lda, M, K, plan->ea);
    oz_exponents<<<(Ncols + 7) / 8, 256, 0, stream>>>(B, p->ldb, Ncols, K, plan->eb);
    TC_CUBLAS_CHECK(cublasSetStream(ctx->handle, stream));
    const int32_t one = 1, zero = 0;
    for (long ch = 0; ch < plan->chunks; ch++) {
        const int k0 = (int)(ch * plan->kc);
        const dim3 block(256),
            grid_a((unsigned)((kcp / OZ2_GROUP + 255) / 256), M < 65535 ? M : 65535),
            grid_b((unsigned)((kcp / OZ2_GROUP + 255) / 256), Ncols < 65535 ? Ncols : 65535);
        oz2_residues<N><<<grid_a, block, 0, stream>>>(A, p->lda, M, K, k0, (int)plan->kc, (int)kcp,
                                                      plan->ea, plan->bits, plan->ares);
        oz2_residues<N><<<grid_b, block, 0, stream>>>(B, p->ldb, Ncols, K, k0, (int)plan->kc,
                                                      (int)kcp, plan->eb, plan->bits, plan->bres);
        for (int l = 0; l < N; l++) {
            /* R (row-major M x N) = A_l B_l, computed column-major as R^T = B_l^T A_l^T ("TN") */
            TC_CUBLAS_CHECK(cublasGemmEx(ctx->handle, CUBLAS_OP_T, CUBLAS_OP_N, Ncols, M, (int)kcp,
                                         &one, plan->bres + l * (long)Ncols * kcp, CUDA_R_8I,
                                         (int)kcp, plan->ares + l * (long)M * kcp, CUDA_R_8I,
                                         (int)kcp, &zero, plan->r, CUDA_R_32I, Ncols,
                                         CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
            launch_reduce(l, plan->r, plan->groups, plan->c.inv[l], plan->t + l * tstride, stream);
        }
        oz2_combine<N><<<group_blocks, 256, 0, stream>>>(plan->t, tstride, plan->groups,
                                                         ldexp(1.0, -2 * plan->bits), plan->c,
                                                         ch == 0, plan->sum);
    }
    launch_finish(plan->sum, plan->ea, plan->eb, p, stream);
}

extern "C" void oz2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream)
{
    const oz2_plan *plan = (const oz2_plan *)p->plan;
    switch (plan->c.n) { /* the variants' moduli counts */
    case 14: oz2_run<14>(plan, p, stream); break;
    case 15: oz2_run<15>(plan, p, stream); break;
    default: oz2_run<16>(plan, p, stream); break;
    }
}

extern "C" void oz2_release(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    oz2_plan *plan = (oz2_plan *)p->plan;
    if (!plan) return;
    cudaFree(plan->ares);
    cudaFree(plan->bres);
    cudaFree(plan->r);
    cudaFree(plan->t);
    cudaFree(plan->sum);
    cudaFree(plan->ea);
    cudaFree(plan->eb);
    free(plan);
    p->plan = NULL;
}
