/* bf_v4_bf16x_fast - v3's three bf16 words per f32 value on a wgmma GEMM of our own, which lets
 * the tensor cores sum one k-tile of 64 at a time and adds each partial sum to an f32 total on the
 * CUDA cores (the rows v4_bf16x6_fast, v4_bf16x9_fast).
 *
 * Rung v4 of chapter 09. Parent: v3_bf16xN (v3_bf16x.cuh). What changes, and why it is more
 * accurate: v3's cuBLAS GEMMs sum all of K in the tensor core's f32 accumulator, which aligns the
 * products to the largest exponent of a block and truncates (chapter 08): that error grows like K
 * and v3's x6 and x9 cannot beat it. Here the GEMM is common/wgmma_multiword.cuh's
 * gemm_multiword (chapter 04's v8_3xtf32_fast, with three words): each stage of its ring holds
 * the k-tile of A's three words and of B's three, a consumer warpgroup issues the 6 or 9 word
 * products per k-step (wgmma m64n128k16 bf16, the smallest first) into a partial sum of one
 * k-tile (64 values), and its CUDA cores add the partial to an f32 total, rounding to nearest.
 * The words come from the same split as v3's (repeated here as bf_v4_split); tensor maps address
 * each word's columns of the concatenated rows (the TMA zero-fills the columns past K). All 6 or
 * 9 products of a k-step run in one kernel, and the diagonals no longer need C as a scratch sum.
 *
 * Problem: C = alpha A B + beta C, A M x K row-major (lda), B K x N column-major (ldb: stored
 * N x K, K-contiguous), C M x N row-major (ldc), all f32; any M, N, K >= 1 and any alignment of
 * A, B and C; beta == 0 never reads C. 6 or 9 word products (the kernel's instantiations).
 *
 * Tile: gemm_multiword's: 128 x 128 per block, two consumer warpgroups of 64 x 128 and a
 * producer warpgroup whose first thread loads the tiles by TMA, k-tiles of 64, 2 stages of 96 KiB
 * (three words of A and of B), blocks in groups of 8 block-rows.
 *
 * The plain launcher (no harness types; common/wgmma_multiword.cuh and its headers only):
 *   bf_v4_bf16x_fast_workspace_size(M, N, K, &bytes): the device workspace a problem needs (the
 *   words of A and B); allocate it once (16-byte aligned, as cudaMalloc's are), any contents;
 *   bf_v4_bf16x_fast_gemm(products, M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, workspace,
 *   bytes, stream), or bf_v4_bf16x_fast_prepare(&plan, products, M, N, K, ..., workspace, bytes)
 *   once (the checks, the shared-memory opt-in, the words' tensor maps; the plan holds
 *   CUtensorMaps, 128-byte aligned on the stack, tma_host_calloc on the heap) and
 *   bf_v4_bf16x_fast_run(&plan, alpha, beta, stream) per product (launches that share a workspace
 *   must not run at the same time). Both return cudaSuccess, cudaErrorInvalidValue for sizes
 *   below 1, a leading dimension below the row or a workspace too small or not 16-byte aligned,
 *   cudaErrorNotSupported for a product count or GPU it cannot take
 *   (bf_v4_bf16x_fast_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_90a (wgmma, the TMA; built with -gencode=arch=compute_90a,code=sm_90a), CUDA 12.x
 * or 13.x. */
#ifndef BF_V4_BF16X_FAST_CUH
#define BF_V4_BF16X_FAST_CUH

#include "wgmma_multiword.cuh"

#include <cuda_bf16.h>
#include <stdint.h>

constexpr int BF_V4_WORDS = 3;
constexpr int BF_V4_K_ALIGN = 8; /* 16-byte rows of bf16: the TMA's row stride */
static_assert(BF_V4_K_ALIGN * 2 % 16 == 0,
              "each word's columns start 16 bytes apart and the rows are 16-byte strides (TMA)");
constexpr int BF_V4_GROUP_M = 8; /* blocks in groups of 8 block-rows */
/*                                  WORDS BN STAGES */
typedef mw_config<BF_V4_WORDS, 128, 2> bf_v4_config; /* 128 x 128 tiles, 2 stages of 96 KiB */
/* word products, smallest first: 6 (i + j <= 2) or all 9 */
typedef word_pairs<2, 0, 0, 2, 1, 1, 1, 0, 0, 1, 0, 0> bf_v4_x6;
typedef word_pairs<2, 2, 2, 1, 1, 2, 2, 0, 0, 2, 1, 1, 1, 0, 0, 1, 0, 0> bf_v4_x9;

/* the words of x(r, 0 .. K-1) into cat (rows x 3 kp, leading dimension 3 kp): word p (1-based)
 * at columns slot(p) kp .., slot(p) = p - 1 (A) or 3 - p (B) */
__global__ void bf_v4_split(const float *__restrict__ x, long ld, int rows, int K, int kp,
                            int reverse, __nv_bfloat16 *__restrict__ cat)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= kp) return;
    const long ldc = (long)BF_V4_WORDS * kp;
    for (long r = blockIdx.y; r < rows; r += gridDim.y) {
        float rest = k < K ? x[r * ld + k] : 0.0f;
        for (int p = 1; p <= BF_V4_WORDS; p++) {
            const __nv_bfloat16 w = __float2bfloat16_rn(rest);
            rest -= __bfloat162float(w); /* exact */
            const int slot = reverse ? BF_V4_WORDS - p : p - 1;
            cat[r * ldc + (long)slot * kp + k] = w;
        }
    }
}

/* ---- the host side --------------------------------------------------------------------------- */
typedef struct {
    mw_maps<BF_V4_WORDS> maps; /* word w + 1 of A and of B (word 0 the largest) */
    int M, N, K;
    const float *A, *B;
    long lda, ldb;
    float *C;
    long ldc;
    int products;               /* 6 or 9 */
    long kp;                    /* K rounded up to BF_V4_K_ALIGN: the length of one word's row */
    __nv_bfloat16 *acat, *bcat; /* the words: M x 3 kp and N x 3 kp, in the workspace */
} bf_v4_bf16x_fast_plan;

/* the kernel for 6 or 9 word products */
static inline const void *bf_v4_bf16x_fast_kernel(int products)
{
    return products == 9
               ? (const void *)gemm_multiword<__nv_bfloat16, bf_v4_config, bf_v4_x9, BF_V4_GROUP_M>
               : (const void *)gemm_multiword<__nv_bfloat16, bf_v4_config, bf_v4_x6, BF_V4_GROUP_M>;
}

/* NULL when the rung can take the product count and the problem on this GPU, else why not */
static inline const char *bf_v4_bf16x_fast_unsupported(int products, int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (products != 6 && products != 9)
        return "v4_bf16x_fast: 6 or 9 word products (the kernel's instantiations)";
    const char *why = wg_code_unsupported(bf_v4_bf16x_fast_kernel(products));
    if (why) return why;
    if (!smem_fits(bf_v4_config::SMEM_BYTES))
        return "the ring needs more shared memory than this GPU has";
    return NULL;
}

/* the words' buffers at base (sizes only when base is NULL; 256-byte aligned, as cudaMalloc's);
 * returns the workspace's bytes */
static inline size_t bf_v4_bf16x_fast_layout(bf_v4_bf16x_fast_plan *p, int M, int N, int K,
                                             char *base)
{
    p->kp = ((long)K + BF_V4_K_ALIGN - 1) / BF_V4_K_ALIGN * BF_V4_K_ALIGN;
    const size_t a_bytes = (size_t)M * BF_V4_WORDS * p->kp * sizeof(__nv_bfloat16);
    const size_t b_bytes = (size_t)N * BF_V4_WORDS * p->kp * sizeof(__nv_bfloat16);
    const size_t b_off = (a_bytes + 255) / 256 * 256;
    p->acat = base ? (__nv_bfloat16 *)base : NULL;
    p->bcat = base ? (__nv_bfloat16 *)(base + b_off) : NULL;
    return b_off + (b_bytes + 255) / 256 * 256;
}

static inline cudaError_t bf_v4_bf16x_fast_workspace_size(int M, int N, int K, size_t *bytes)
{
    *bytes = 0;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    bf_v4_bf16x_fast_plan plan;
    *bytes = bf_v4_bf16x_fast_layout(&plan, M, N, K, NULL);
    return cudaSuccess;
}

static inline cudaError_t bf_v4_bf16x_fast_prepare(bf_v4_bf16x_fast_plan *plan, int products, int M,
                                                   int N, int K, const float *A, long lda,
                                                   const float *B, long ldb, float *C, long ldc,
                                                   void *workspace, size_t workspace_bytes)
{
    typedef bf_v4_config Cfg;
    if (M < 1 || N < 1 || K < 1 || lda < K || ldb < K || ldc < N) return cudaErrorInvalidValue;
    if (bf_v4_bf16x_fast_unsupported(products, M, N, K)) return cudaErrorNotSupported;
    if (!workspace || (uintptr_t)workspace % 16 != 0 ||
        workspace_bytes < bf_v4_bf16x_fast_layout(plan, M, N, K, NULL))
        return cudaErrorInvalidValue;
    cudaError_t e = products == 9 ? mw_kernel_ready<__nv_bfloat16, Cfg, bf_v4_x9, BF_V4_GROUP_M>()
                                  : mw_kernel_ready<__nv_bfloat16, Cfg, bf_v4_x6, BF_V4_GROUP_M>();
    if (e != cudaSuccess) return e;
    bf_v4_bf16x_fast_layout(plan, M, N, K, (char *)workspace);
    const long ldcat = (long)BF_V4_WORDS * plan->kp;
    const CUtensorMapDataType bf16 = tma_dtype<__nv_bfloat16>::value;
    for (int w = 0; w < BF_V4_WORDS && e == cudaSuccess; w++) { /* A: word w+1 at slot w; B: 2-w */
        e = tma_map_kmajor(&plan->maps.a[w], plan->acat + w * plan->kp, bf16, M, K, ldcat, Cfg::BM);
        if (e == cudaSuccess)
            e = tma_map_kmajor(&plan->maps.b[w], plan->bcat + (BF_V4_WORDS - 1 - w) * plan->kp,
                               bf16, N, K, ldcat, Cfg::BN);
    }
    if (e != cudaSuccess) return e;
    plan->M = M, plan->N = N, plan->K = K, plan->A = A, plan->lda = lda, plan->B = B;
    plan->ldb = ldb, plan->C = C, plan->ldc = ldc, plan->products = products;
    return cudaSuccess;
}

static inline cudaError_t bf_v4_bf16x_fast_run(const bf_v4_bf16x_fast_plan *plan, float alpha,
                                               float beta, cudaStream_t stream)
{
    typedef bf_v4_config Cfg;
    const int M = plan->M, N = plan->N, K = plan->K;
    const long kp = plan->kp;
    /* the words of A (slots w1 w2 w3) and of B (slots w3 w2 w1) into the workspace */
    const dim3 block(256), grid_a((unsigned)((kp + 255) / 256), M < 65535 ? M : 65535),
        grid_b((unsigned)((kp + 255) / 256), N < 65535 ? N : 65535);
    bf_v4_split<<<grid_a, block, 0, stream>>>(plan->A, plan->lda, M, K, (int)kp, 0, plan->acat);
    bf_v4_split<<<grid_b, block, 0, stream>>>(plan->B, plan->ldb, N, K, (int)kp, 1, plan->bcat);
    if (plan->products == 9)
        return mw_launch<__nv_bfloat16, Cfg, bf_v4_x9, BF_V4_GROUP_M>(
            plan->maps, M, N, K, plan->C, plan->ldc, alpha, beta, stream);
    return mw_launch<__nv_bfloat16, Cfg, bf_v4_x6, BF_V4_GROUP_M>(plan->maps, M, N, K, plan->C,
                                                                  plan->ldc, alpha, beta, stream);
}

static inline cudaError_t bf_v4_bf16x_fast_gemm(int products, int M, int N, int K, const float *A,
                                                long lda, const float *B, long ldb, float *C,
                                                long ldc, float alpha, float beta, void *workspace,
                                                size_t workspace_bytes, cudaStream_t stream)
{
    bf_v4_bf16x_fast_plan plan; /* on the stack, its CUtensorMaps keep their type's alignment */
    const cudaError_t e = bf_v4_bf16x_fast_prepare(&plan, products, M, N, K, A, lda, B, ldb, C, ldc,
                                                   workspace, workspace_bytes);
    return e == cudaSuccess ? bf_v4_bf16x_fast_run(&plan, alpha, beta, stream) : e;
}

#endif /* BF_V4_BF16X_FAST_CUH */
