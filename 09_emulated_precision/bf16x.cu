/* 09_emulated_precision/bf16x.cu - v3_bf16xN: an FP32 GEMM from bf16 tensor-core products.
 *
 * What it teaches
 *   The bf16 relative of chapter 04's 3xTF32 and of cuBLAS's COMPUTE_32F_EMULATED_16BFX9. Every f32
 *   value is cut into three bf16 words, each rounded to nearest from what the words before it
 *   left:
 *
 *       w1 = bf16(x),  w2 = bf16(x - w1),  w3 = bf16(x - w1 - w2) = x - w1 - w2  (exactly)
 *
 *   x has 24 significant bits and each word 8, so for every normal x the three words hold x
 *   exactly (x - w1 and x - w1 - w2 are exact in f32). A product a b is then the 9 products of the
 *   words, each exact in f32 (8 + 8 bits), which the bf16 tensor cores sum in f32. The products
 *   of "diagonal" t = p + q are of size 2^(-8 (t - 2)) |a b|; keeping the diagonals up to T:
 *     T = 3: 3 products, error up to ~2^-15.5 |a b|      (v3_bf16x3: about bf16x2's 16 bits)
 *     T = 4: 6 products, error up to ~2^-25 |a b|        (v3_bf16x6: f32 accuracy)
 *     T = 6: all 9 products, none dropped                 (v3_bf16x9)
 *
 * How: a split pass writes the words of A as row-major M x 3K' (w1 | w2 | w3 along k) and those of
 *   B as K-major N x 3K' in the opposite order (w3 | w2 | w1), K' = K rounded up to 8 (zeros
 *   after K). Then the products of one diagonal t are ONE bf16 GEMM (f32 accumulate, cuBLAS) over
 *   a contiguous range of A's words and the matching, also contiguous, range of B's: as in
 *   ozaki.cu. The diagonals are added into C by cuBLAS itself (beta = 1 after the first), the
 *   smallest first; the first one applies the caller's beta, every one the caller's alpha.
 *
 * v4_bf16x6_fast, v4_bf16x9_fast (sm_90a): the same words, but the GEMM is our own
 *   (common/wgmma_multiword.cuh, chapter 04's v8_3xtf32_fast with three words): each stage of the
 *   ring holds the k-tile of A's three words and of B's three, a consumer issues the 6 or 9 word
 *   products per k-step (wgmma m64n128k16 bf16, smallest first) into a partial sum of one k-tile
 *   (64 values), and its CUDA cores add the partial to an f32 total, rounding to nearest. cuBLAS
 *   (v3) sums all of K in the tensor core's truncating accumulator; here it sums 64 values at a
 *   time. The words come from the same split pass; tensor maps address each word's columns of
 *   the concatenated rows (TMA zero-fills the columns past K). Tiles 128 x 128, 2 stages of 96 KiB.
 *
 * Problem and layout: C = alpha A B + beta C, A M x K row-major (lda), B K x N column-major (ldb),
 * C M x N row-major (ldc), all f32; any M, N, K and alignment. beta == 0 never reads C. */
#include <cublas_v2.h> /* before check.h (through the headers below): TC_CUBLAS_CHECK */

#include "bf16x.h"
#include "ozaki.h"
#include "ozaki_model.h"

#include "gemm_hooks.h"
#include "wgmma_multiword.cuh"

#include <cuda_bf16.h>
#include <stdint.h>
#include <stdlib.h>

const int bf_terms_3 = 3, bf_terms_6 = 4, bf_terms_9 = 6; /* the largest diagonal kept */

constexpr int BF_WORDS = 3;
constexpr int BF_K_ALIGN = 8; /* 16-byte rows of bf16 for cuBLAS's tensor-core paths */

/* the words of x(r, 0 .. K-1) into cat (rows x 3 kp, leading dimension 3 kp): word p (1-based)
 * at columns slot(p) kp .., slot(p) = p - 1 (A) or 3 - p (B) */
__global__ void bf_split(const float *__restrict__ x, long ld, int rows, int K, int kp, int reverse,
                         __nv_bfloat16 *__restrict__ cat)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= kp) return;
    const long ldc = (long)BF_WORDS * kp;
    for (long r = blockIdx.y; r < rows; r += gridDim.y) {
        float rest = k < K ? x[r * ld + k] : 0.0f;
        for (int p = 1; p <= BF_WORDS; p++) {
            const __nv_bfloat16 w = __float2bfloat16_rn(rest);
            rest -= __bfloat162float(w); /* exact */
            const int slot = reverse ? BF_WORDS - p : p - 1;
            cat[r * ldc + (long)slot * kp + k] = w;
        }
    }
}

typedef struct {
    int t_max;
    long kp;
    __nv_bfloat16 *acat, *bcat;
    mw_maps<BF_WORDS> maps; /* v4: word w + 1 of A and of B (word 0 the largest) */
} bf_plan;

extern "C" const char *bf_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    if (!p->chapter_ctx) return "out of host memory";
    bf_plan *plan = (bf_plan *)tma_host_calloc(sizeof *plan);
    if (!plan) return "out of host memory";
    plan->t_max = *(const int *)v->impl;
    plan->kp = (p->K + BF_K_ALIGN - 1) / BF_K_ALIGN * BF_K_ALIGN;
    const size_t words = (size_t)BF_WORDS * plan->kp;
    p->plan = plan;
    if (cudaMalloc(&plan->acat, (size_t)p->M * words * sizeof(__nv_bfloat16)) != cudaSuccess ||
        cudaMalloc(&plan->bcat, (size_t)p->N * words * sizeof(__nv_bfloat16)) != cudaSuccess) {
        (void)cudaGetLastError();
        bf_release(v, p);
        return TC_GEMM_SKIP "not enough device memory for the bf16 words";
    }
    return NULL;
}

/* the words of A (slots w1 w2 w3) and of B (slots w3 w2 w1) into the plan's workspace */
static void bf_split_both(const bf_plan *plan, const tc_gemm_problem *p, cudaStream_t stream)
{
    const int M = p->M, N = p->N, K = p->K;
    const long kp = plan->kp;
    const dim3 block(256), grid_a((unsigned)((kp + 255) / 256), M < 65535 ? M : 65535),
        grid_b((unsigned)((kp + 255) / 256), N < 65535 ? N : 65535);
    bf_split<<<grid_a, block, 0, stream>>>((const float *)p->d_a, p->lda, M, K, (int)kp, 0,
                                           plan->acat);
    bf_split<<<grid_b, block, 0, stream>>>((const float *)p->d_b, p->ldb, N, K, (int)kp, 1,
                                           plan->bcat);
}

extern "C" void bf_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream)
{
    const bf_plan *plan = (const bf_plan *)p->plan;
    cublasHandle_t handle = (cublasHandle_t)oz_cublas_handle(p->chapter_ctx);
    const int M = p->M, N = p->N;
    const long kp = plan->kp, ldcat = (long)BF_WORDS * kp;
    bf_split_both(plan, p, stream);
    TC_CUBLAS_CHECK(cublasSetStream(handle, stream));
    TC_CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    const float alpha = p->alpha, one = 1.0f;
    for (int t = plan->t_max; t >= 2; t--) {
        /* the word pairs p + q = t: contiguous slots of A and of B (ozaki_model.h) */
        int a_slot, b_slot, count;
        oz_diagonal(BF_WORDS, t, &a_slot, &b_slot, &count);
        const int kd = (int)(count * kp);
        const long a_off = (long)a_slot * kp, b_off = (long)b_slot * kp;
        const float *beta = t == plan->t_max ? &p->beta : &one;
        /* C (row-major M x N) = alpha Acat[:, range] Bcat[range, :] + beta C, as the
         * column-major C^T = Bcat^T Acat^T: both operands K-contiguous ("TN") */
        TC_CUBLAS_CHECK(
            cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, kd, &alpha, plan->bcat + b_off,
                         CUDA_R_16BF, (int)ldcat, plan->acat + a_off, CUDA_R_16BF, (int)ldcat, beta,
                         p->d_c, CUDA_R_32F, (int)p->ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }
}

extern "C" void bf_release(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    bf_plan *plan = (bf_plan *)p->plan;
    if (!plan) return;
    cudaFree(plan->acat);
    cudaFree(plan->bcat);
    free(plan);
    p->plan = NULL;
}

/* ---- v4_bf16xN_fast: the words on our own wgmma GEMM ------------------------------------------ */
constexpr int BF_GROUP_M = 8;
typedef mw_config<BF_WORDS, 128, 2> BF_FAST;
/* word products, smallest first: 6 (i + j <= 2) or all 9 */
typedef word_pairs<2, 0, 0, 2, 1, 1, 1, 0, 0, 1, 0, 0> BF_X6;
typedef word_pairs<2, 2, 2, 1, 1, 2, 2, 0, 0, 2, 1, 1, 1, 0, 0, 1, 0, 0> BF_X9;

extern "C" const char *bf_fast_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    const int t_max = *(const int *)v->impl;
    const char *why = hook_status(
        t_max == bf_terms_9 ? mw_kernel_ready<__nv_bfloat16, BF_FAST, BF_X9, BF_GROUP_M>()
                            : mw_kernel_ready<__nv_bfloat16, BF_FAST, BF_X6, BF_GROUP_M>(),
        "the wgmma GEMM of the words needs sm_90a code (a Hopper GPU, 90 in SM) and the "
        "shared memory of its tile");
    if (why) return why;
    why = bf_prepare(v, p);
    if (why) return why;
    bf_plan *plan = (bf_plan *)p->plan;
    const long ldcat = (long)BF_WORDS * plan->kp;
    const CUtensorMapDataType bf16 = tma_dtype<__nv_bfloat16>::value;
    for (int w = 0; w < BF_WORDS; w++) { /* A: word w + 1 at slot w; B: at slot 2 - w */
        TC_CUDA_CHECK(tma_map_kmajor(&plan->maps.a[w], plan->acat + w * plan->kp, bf16, p->M, p->K,
                                     ldcat, BF_FAST::BM));
        TC_CUDA_CHECK(tma_map_kmajor(&plan->maps.b[w], plan->bcat + (BF_WORDS - 1 - w) * plan->kp,
                                     bf16, p->N, p->K, ldcat, BF_FAST::BN));
    }
    return NULL;
}

extern "C" void bf_fast_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    const bf_plan *plan = (const bf_plan *)p->plan;
    bf_split_both(plan, p, stream);
    float *C = (float *)p->d_c;
    if (plan->t_max == bf_terms_9)
        TC_CUDA_CHECK((mw_launch<__nv_bfloat16, BF_FAST, BF_X9, BF_GROUP_M>(
            plan->maps, p->M, p->N, p->K, C, p->ldc, p->alpha, p->beta, stream)));
    else
        TC_CUDA_CHECK((mw_launch<__nv_bfloat16, BF_FAST, BF_X6, BF_GROUP_M>(
            plan->maps, p->M, p->N, p->K, C, p->ldc, p->alpha, p->beta, stream)));
}
