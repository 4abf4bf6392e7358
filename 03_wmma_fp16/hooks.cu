/* 03_wmma_fp16/hooks.cu - the rungs of the WMMA ladder as hooks of the GEMM driver (wmma_gemm.h):
 * each prepare() makes its rung's plan with the rung's plain prepare function (outside the timed
 * region: checks, the shared-memory opt-in, the vector paths, the grid), each launch() runs it,
 * hook_release_plan frees it. A problem a rung cannot take is reported as skipped with the rung's
 * own reason. The kernels are in the rung files; nothing here is the lesson.
 *
 *   v1_naive     v1_naive.cuh                   v4_pipeline  v4_pipeline.cuh
 *   v2_smem      v2_smem.cuh                    v5_dbuf      v5_dbuf.cuh
 *   v3_regblock  v3_regblock.cuh                (what they share: wmma_tiles.cuh) */
#include "wmma_gemm.h"

#include "gemm_hooks.h"
#include "v1_naive.cuh"
#include "v2_smem.cuh"
#include "v3_regblock.cuh"
#include "v4_pipeline.cuh"
#include "v5_dbuf.cuh"

#include <stdlib.h>

extern "C" void hook_release_plan(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    free(p->plan);
    p->plan = NULL;
}

/* ---- v1_naive -------------------------------------------------------------------------------- */
extern "C" const char *hook_v1_naive_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    wmma_v1_naive_plan *plan = (wmma_v1_naive_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const half *A = (const half *)p->d_a, *B = (const half *)p->d_b;
    float *C = (float *)p->d_c;
    const cudaError_t e =
        wmma_v1_naive_prepare(plan, p->M, p->N, p->K, A, p->lda, B, p->ldb, C, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(
            e, wmma_v1_naive_unsupported(p->M, p->N, p->K, A, p->lda, B, p->ldb, C, p->ldc));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v1_naive_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                     cudaStream_t stream)
{
    TC_CUDA_CHECK(
        wmma_v1_naive_run((const wmma_v1_naive_plan *)p->plan, p->alpha, p->beta, stream));
}

/* ---- v2_smem --------------------------------------------------------------------------------- */
extern "C" const char *hook_v2_smem_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    wmma_v2_smem_plan *plan = (wmma_v2_smem_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const cudaError_t e =
        wmma_v2_smem_prepare(plan, p->M, p->N, p->K, (const half *)p->d_a, p->lda,
                             (const half *)p->d_b, p->ldb, (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, wmma_v2_smem_unsupported(p->M, p->N, p->K));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v2_smem_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                    cudaStream_t stream)
{
    TC_CUDA_CHECK(wmma_v2_smem_run((const wmma_v2_smem_plan *)p->plan, p->alpha, p->beta, stream));
}

/* ---- v3_regblock ----------------------------------------------------------------------------- */
extern "C" const char *hook_v3_regblock_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    wmma_v3_regblock_plan *plan = (wmma_v3_regblock_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const cudaError_t e =
        wmma_v3_regblock_prepare(plan, p->M, p->N, p->K, (const half *)p->d_a, p->lda,
                                 (const half *)p->d_b, p->ldb, (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, wmma_v3_regblock_unsupported(p->M, p->N, p->K));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v3_regblock_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                        cudaStream_t stream)
{
    TC_CUDA_CHECK(
        wmma_v3_regblock_run((const wmma_v3_regblock_plan *)p->plan, p->alpha, p->beta, stream));
}

/* ---- v4_pipeline ----------------------------------------------------------------------------- */
extern "C" const char *hook_v4_pipeline_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    wmma_v4_pipeline_plan *plan = (wmma_v4_pipeline_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const cudaError_t e =
        wmma_v4_pipeline_prepare(plan, p->M, p->N, p->K, (const half *)p->d_a, p->lda,
                                 (const half *)p->d_b, p->ldb, (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, wmma_v4_pipeline_unsupported(p->M, p->N, p->K));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v4_pipeline_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                        cudaStream_t stream)
{
    TC_CUDA_CHECK(
        wmma_v4_pipeline_run((const wmma_v4_pipeline_plan *)p->plan, p->alpha, p->beta, stream));
}

/* ---- v5_dbuf --------------------------------------------------------------------------------- */
extern "C" const char *hook_v5_dbuf_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    wmma_v5_dbuf_plan *plan = (wmma_v5_dbuf_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const half *A = (const half *)p->d_a, *B = (const half *)p->d_b;
    /* the rung's choice: 5 stages, or 3 where the GPU allows a block only 99 KiB; forced
     * (--test): 5 or 3 stages, whatever the GPU allows */
    const cudaError_t e =
        p->force ? wmma_v5_dbuf_prepare_stages(plan, p->force == 1 ? 5 : 3, p->M, p->N, p->K, A,
                                               p->lda, B, p->ldb, (float *)p->d_c, p->ldc)
                 : wmma_v5_dbuf_prepare(plan, p->M, p->N, p->K, A, p->lda, B, p->ldb,
                                        (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        const char *why = wmma_v5_dbuf_unsupported(p->M, p->N, p->K);
        if (!why && p->force == 1) why = "5 stages need more shared memory than this GPU has";
        return hook_status(e, why);
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v5_dbuf_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                    cudaStream_t stream)
{
    TC_CUDA_CHECK(wmma_v5_dbuf_run((const wmma_v5_dbuf_plan *)p->plan, p->alpha, p->beta, stream));
}
