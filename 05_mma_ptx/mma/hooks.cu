/* 05_mma_ptx/mma/hooks.cu - the rungs of the mma.sync ladder as hooks of the GEMM driver
 * (mma_gemm.h): each prepare() makes its rung's plan with the rung's plain prepare function
 * (outside the timed region: the shared-memory opt-in, the vector paths, the grid), each launch()
 * runs it, release() frees it. A problem a rung cannot take is reported as skipped with the
 * rung's own reason. The kernels are in the rung files; nothing here is the lesson.
 *
 *   v1_hand      v1_hand.cuh                    v4_pipeline  v4_pipeline.cuh
 *   v2_ldmatrix  v2_ldmatrix.cuh                v5_dbuf      v5_dbuf.cuh
 *   v3_swizzle   v3_swizzle.cuh                 v6_epilogue  common/mma_v6_epilogue.cuh */
#include "mma_gemm.h"

#include "gemm_hooks.h"
#include "mma_v6_epilogue.cuh"
#include "v1_hand.cuh"
#include "v2_ldmatrix.cuh"
#include "v3_swizzle.cuh"
#include "v4_pipeline.cuh"
#include "v5_dbuf.cuh"

#include <stdlib.h>

const mma_input mma_in_f16 = MMA_IN_F16, mma_in_bf16 = MMA_IN_BF16;

static bool is_bf16(const tc_gemm_variant *v) { return *(const mma_input *)v->impl == MMA_IN_BF16; }

extern "C" void hook_release_plan(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    free(p->plan);
    p->plan = NULL;
}

/* ---- v1_hand -------------------------------------------------------------------------------- */
template <class T> static const char *prepare_v1(tc_gemm_problem *p)
{
    mma_v1_hand_plan *plan = (mma_v1_hand_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    const cudaError_t e = mma_v1_hand_prepare<T>(plan, p->M, p->N, p->K, A, p->lda, B, p->ldb,
                                                 (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, mma_v1_hand_unsupported<T>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_v1_hand_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_bf16(v) ? prepare_v1<__nv_bfloat16>(p) : prepare_v1<__half>(p);
}
extern "C" void hook_v1_hand_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                    cudaStream_t stream)
{
    const mma_v1_hand_plan *plan = (const mma_v1_hand_plan *)p->plan;
    TC_CUDA_CHECK(is_bf16(v) ? mma_v1_hand_run<__nv_bfloat16>(plan, p->alpha, p->beta, stream)
                             : mma_v1_hand_run<__half>(plan, p->alpha, p->beta, stream));
}

/* ---- v2_ldmatrix ---------------------------------------------------------------------------- */
template <class T> static const char *prepare_v2(tc_gemm_problem *p)
{
    mma_v2_ldmatrix_plan *plan = (mma_v2_ldmatrix_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    const cudaError_t e = mma_v2_ldmatrix_prepare<T>(plan, p->M, p->N, p->K, A, p->lda, B, p->ldb,
                                                     (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e,
                           mma_v2_ldmatrix_unsupported<T>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_v2_ldmatrix_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_bf16(v) ? prepare_v2<__nv_bfloat16>(p) : prepare_v2<__half>(p);
}
extern "C" void hook_v2_ldmatrix_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                        cudaStream_t stream)
{
    const mma_v2_ldmatrix_plan *plan = (const mma_v2_ldmatrix_plan *)p->plan;
    TC_CUDA_CHECK(is_bf16(v) ? mma_v2_ldmatrix_run<__nv_bfloat16>(plan, p->alpha, p->beta, stream)
                             : mma_v2_ldmatrix_run<__half>(plan, p->alpha, p->beta, stream));
}

/* ---- v3_swizzle ----------------------------------------------------------------------------- */
template <class T> static const char *prepare_v3(tc_gemm_problem *p)
{
    mma_v3_swizzle_plan *plan = (mma_v3_swizzle_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    const cudaError_t e = mma_v3_swizzle_prepare<T>(plan, p->M, p->N, p->K, A, p->lda, B, p->ldb,
                                                    (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e,
                           mma_v3_swizzle_unsupported<T>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_v3_swizzle_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_bf16(v) ? prepare_v3<__nv_bfloat16>(p) : prepare_v3<__half>(p);
}
extern "C" void hook_v3_swizzle_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                       cudaStream_t stream)
{
    const mma_v3_swizzle_plan *plan = (const mma_v3_swizzle_plan *)p->plan;
    TC_CUDA_CHECK(is_bf16(v) ? mma_v3_swizzle_run<__nv_bfloat16>(plan, p->alpha, p->beta, stream)
                             : mma_v3_swizzle_run<__half>(plan, p->alpha, p->beta, stream));
}

/* ---- v4_pipeline ---------------------------------------------------------------------------- */
template <class T> static const char *prepare_v4(tc_gemm_problem *p)
{
    mma_v4_pipeline_plan *plan = (mma_v4_pipeline_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    const cudaError_t e = mma_v4_pipeline_prepare<T>(plan, p->M, p->N, p->K, A, p->lda, B, p->ldb,
                                                     (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e,
                           mma_v4_pipeline_unsupported<T>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_v4_pipeline_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_bf16(v) ? prepare_v4<__nv_bfloat16>(p) : prepare_v4<__half>(p);
}
extern "C" void hook_v4_pipeline_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                        cudaStream_t stream)
{
    const mma_v4_pipeline_plan *plan = (const mma_v4_pipeline_plan *)p->plan;
    TC_CUDA_CHECK(is_bf16(v) ? mma_v4_pipeline_run<__nv_bfloat16>(plan, p->alpha, p->beta, stream)
                             : mma_v4_pipeline_run<__half>(plan, p->alpha, p->beta, stream));
}

/* ---- v5_dbuf -------------------------------------------------------------------------------- */
template <class T> static const char *prepare_v5(tc_gemm_problem *p)
{
    mma_v5_dbuf_plan *plan = (mma_v5_dbuf_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    const cudaError_t e = mma_v5_dbuf_prepare<T>(plan, p->M, p->N, p->K, A, p->lda, B, p->ldb,
                                                 (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, mma_v5_dbuf_unsupported<T>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_v5_dbuf_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_bf16(v) ? prepare_v5<__nv_bfloat16>(p) : prepare_v5<__half>(p);
}
extern "C" void hook_v5_dbuf_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                    cudaStream_t stream)
{
    const mma_v5_dbuf_plan *plan = (const mma_v5_dbuf_plan *)p->plan;
    TC_CUDA_CHECK(is_bf16(v) ? mma_v5_dbuf_run<__nv_bfloat16>(plan, p->alpha, p->beta, stream)
                             : mma_v5_dbuf_run<__half>(plan, p->alpha, p->beta, stream));
}

/* ---- v6_epilogue ---------------------------------------------------------------------------- */
template <class T> static const char *prepare_v6(tc_gemm_problem *p)
{
    mma_v6_epilogue_plan *plan = (mma_v6_epilogue_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    const cudaError_t e = mma_v6_epilogue_prepare<T>(plan, p->M, p->N, p->K, A, p->lda, B, p->ldb,
                                                     (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e,
                           mma_v6_epilogue_unsupported<T>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_v6_epilogue_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_bf16(v) ? prepare_v6<__nv_bfloat16>(p) : prepare_v6<__half>(p);
}
extern "C" void hook_v6_epilogue_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                        cudaStream_t stream)
{
    const mma_v6_epilogue_plan *plan = (const mma_v6_epilogue_plan *)p->plan;
    TC_CUDA_CHECK(is_bf16(v) ? mma_v6_epilogue_run<__nv_bfloat16>(plan, p->alpha, p->beta, stream)
                             : mma_v6_epilogue_run<__half>(plan, p->alpha, p->beta, stream));
}
