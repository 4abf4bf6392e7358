/* 04_wmma_tf32/hooks.cu - the rungs of the WMMA TF32 ladder as hooks of the GEMM driver
 * (wmma_tf32.h): each prepare() makes its rung's plan with the rung's plain prepare function
 * (outside the timed region: checks, the shared-memory opt-in, the vector paths, the grid), each
 * launch() runs it, hook_release_plan frees it. A problem a rung cannot take is reported as
 * skipped with the rung's own reason. The kernels are in the rung files; nothing here is the
 * lesson.
 *
 *   v1_naive     v1_naive.cuh                   v4_dbuf      v4_dbuf.cuh
 *   v2_smem      v2_smem.cuh                    v5_3xtf32    v5_3xtf32.cuh
 *   v3_pipeline  v3_pipeline.cuh                (what they share: wmma_tf32_tiles.cuh)
 * Part 2's rungs have their hooks in their own files (mma_tf32.cu, wgmma_tf32.cu). */
#include "wmma_tf32.h"

#include "gemm_hooks.h"
#include "v1_naive.cuh"
#include "v2_smem.cuh"
#include "v3_pipeline.cuh"
#include "v4_dbuf.cuh"
#include "v5_3xtf32.cuh"

#include <stdlib.h>

extern "C" void hook_release_plan(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    free(p->plan);
    p->plan = NULL;
}

/* ---- v1_naive -------------------------------------------------------------------------------- */
extern "C" const char *hook_v1_naive_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    tf32_v1_naive_plan *plan = (tf32_v1_naive_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const float *A = (const float *)p->d_a, *B = (const float *)p->d_b;
    float *C = (float *)p->d_c;
    const cudaError_t e =
        tf32_v1_naive_prepare(plan, p->M, p->N, p->K, A, p->lda, B, p->ldb, C, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(
            e, tf32_v1_naive_unsupported(p->M, p->N, p->K, A, p->lda, B, p->ldb, C, p->ldc));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v1_naive_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                     cudaStream_t stream)
{
    TC_CUDA_CHECK(
        tf32_v1_naive_run((const tf32_v1_naive_plan *)p->plan, p->alpha, p->beta, stream));
}

/* ---- v2_smem --------------------------------------------------------------------------------- */
extern "C" const char *hook_v2_smem_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    tf32_v2_smem_plan *plan = (tf32_v2_smem_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const cudaError_t e =
        tf32_v2_smem_prepare(plan, p->M, p->N, p->K, (const float *)p->d_a, p->lda,
                             (const float *)p->d_b, p->ldb, (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, tf32_v2_smem_unsupported(p->M, p->N, p->K));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v2_smem_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                    cudaStream_t stream)
{
    TC_CUDA_CHECK(tf32_v2_smem_run((const tf32_v2_smem_plan *)p->plan, p->alpha, p->beta, stream));
}

/* ---- v3_pipeline ----------------------------------------------------------------------------- */
extern "C" const char *hook_v3_pipeline_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    tf32_v3_pipeline_plan *plan = (tf32_v3_pipeline_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const cudaError_t e =
        tf32_v3_pipeline_prepare(plan, p->M, p->N, p->K, (const float *)p->d_a, p->lda,
                                 (const float *)p->d_b, p->ldb, (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, tf32_v3_pipeline_unsupported(p->M, p->N, p->K));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v3_pipeline_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                        cudaStream_t stream)
{
    TC_CUDA_CHECK(
        tf32_v3_pipeline_run((const tf32_v3_pipeline_plan *)p->plan, p->alpha, p->beta, stream));
}

/* ---- v4_dbuf --------------------------------------------------------------------------------- */
extern "C" const char *hook_v4_dbuf_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    tf32_v4_dbuf_plan *plan = (tf32_v4_dbuf_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const cudaError_t e =
        tf32_v4_dbuf_prepare(plan, p->M, p->N, p->K, (const float *)p->d_a, p->lda,
                             (const float *)p->d_b, p->ldb, (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, tf32_v4_dbuf_unsupported(p->M, p->N, p->K));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v4_dbuf_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                    cudaStream_t stream)
{
    TC_CUDA_CHECK(tf32_v4_dbuf_run((const tf32_v4_dbuf_plan *)p->plan, p->alpha, p->beta, stream));
}

/* ---- v5_3xtf32 ------------------------------------------------------------------------------- */
extern "C" const char *hook_v5_3xtf32_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    tf32_v5_3xtf32_plan *plan = (tf32_v5_3xtf32_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const cudaError_t e =
        tf32_v5_3xtf32_prepare(plan, p->M, p->N, p->K, (const float *)p->d_a, p->lda,
                               (const float *)p->d_b, p->ldb, (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, tf32_v5_3xtf32_unsupported(p->M, p->N, p->K));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v5_3xtf32_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                      cudaStream_t stream)
{
    TC_CUDA_CHECK(
        tf32_v5_3xtf32_run((const tf32_v5_3xtf32_plan *)p->plan, p->alpha, p->beta, stream));
}
