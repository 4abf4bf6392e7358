/* 07_int8_dp4a/hooks.cu - the rungs of the INT8 GEMM ladder as hooks of the GEMM driver
 * (int8_gemm.h): each prepare() makes its rung's plan with the rung's plain prepare function
 * (outside the timed region: the checks, the shared-memory opt-in, the vector paths, the grid),
 * each launch() runs it with the driver's alpha and beta as integers, release() frees it. A
 * problem a rung cannot take is reported as skipped with the rung's own reason. The kernels are
 * in the rung files; nothing here is the lesson.
 *
 *   v1_int32          v1_int32.cuh             v4_wmma_s8   v4_wmma_s8.cuh
 *   v2_dp4a_smem      v2_dp4a_smem.cuh         v5_mma_s8    v5_mma_s8.cuh
 *   v3_dp4a_regblock  v3_dp4a_regblock.cuh     v6_wgmma_s8  v6_wgmma_s8.cuh (sm_90a)
 *   v7_wgmma_s8_wide  v7_wgmma_s8_wide.cuh (sm_90a) */
#include "int8_gemm.h"

#include "gemm_hooks.h"
#include "v1_int32.cuh"
#include "v2_dp4a_smem.cuh"
#include "v3_dp4a_regblock.cuh"
#include "v4_wmma_s8.cuh"
#include "v5_mma_s8.cuh"
#include "v6_wgmma_s8.cuh"
#include "v7_wgmma_s8_wide.cuh"

#include <stdlib.h>

extern "C" void hook_release_plan(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    free(p->plan);
    p->plan = NULL;
}

/* ---- v1_int32 -------------------------------------------------------------------------------- */
extern "C" const char *hook_v1_int32_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    i8_v1_int32_plan *plan = (i8_v1_int32_plan *)tc_xmalloc(sizeof *plan);
    const cudaError_t e =
        i8_v1_int32_prepare(plan, p->M, p->N, p->K, (const int8_t *)p->d_a, p->lda,
                            (const int8_t *)p->d_b, p->ldb, (int *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, i8_v1_int32_unsupported(p->M, p->N, p->K));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v1_int32_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                     cudaStream_t stream)
{
    const i8_v1_int32_plan *plan = (const i8_v1_int32_plan *)p->plan;
    TC_CUDA_CHECK(i8_v1_int32_run(plan, (int)p->alpha, (int)p->beta, stream));
}

/* ---- v2_dp4a_smem ---------------------------------------------------------------------------- */
extern "C" const char *hook_v2_dp4a_smem_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    i8_v2_dp4a_smem_plan *plan = (i8_v2_dp4a_smem_plan *)tc_xmalloc(sizeof *plan);
    const cudaError_t e =
        i8_v2_dp4a_smem_prepare(plan, p->M, p->N, p->K, (const int8_t *)p->d_a, p->lda,
                                (const int8_t *)p->d_b, p->ldb, (int *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, i8_v2_dp4a_smem_unsupported(p->M, p->N, p->K));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v2_dp4a_smem_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                         cudaStream_t stream)
{
    const i8_v2_dp4a_smem_plan *plan = (const i8_v2_dp4a_smem_plan *)p->plan;
    TC_CUDA_CHECK(i8_v2_dp4a_smem_run(plan, (int)p->alpha, (int)p->beta, stream));
}

/* ---- v3_dp4a_regblock ------------------------------------------------------------------------ */
extern "C" const char *hook_v3_dp4a_regblock_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    i8_v3_dp4a_regblock_plan *plan = (i8_v3_dp4a_regblock_plan *)tc_xmalloc(sizeof *plan);
    const cudaError_t e =
        i8_v3_dp4a_regblock_prepare(plan, p->M, p->N, p->K, (const int8_t *)p->d_a, p->lda,
                                    (const int8_t *)p->d_b, p->ldb, (int *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, i8_v3_dp4a_regblock_unsupported(p->M, p->N, p->K));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v3_dp4a_regblock_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                             cudaStream_t stream)
{
    const i8_v3_dp4a_regblock_plan *plan = (const i8_v3_dp4a_regblock_plan *)p->plan;
    TC_CUDA_CHECK(i8_v3_dp4a_regblock_run(plan, (int)p->alpha, (int)p->beta, stream));
}

/* ---- v4_wmma_s8 ------------------------------------------------------------------------------ */
extern "C" const char *hook_v4_wmma_s8_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    i8_v4_wmma_s8_plan *plan = (i8_v4_wmma_s8_plan *)tc_xmalloc(sizeof *plan);
    const cudaError_t e =
        i8_v4_wmma_s8_prepare(plan, p->M, p->N, p->K, (const int8_t *)p->d_a, p->lda,
                              (const int8_t *)p->d_b, p->ldb, (int *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, i8_v4_wmma_s8_unsupported(p->M, p->N, p->K));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v4_wmma_s8_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                       cudaStream_t stream)
{
    const i8_v4_wmma_s8_plan *plan = (const i8_v4_wmma_s8_plan *)p->plan;
    TC_CUDA_CHECK(i8_v4_wmma_s8_run(plan, (int)p->alpha, (int)p->beta, stream));
}

/* ---- v5_mma_s8 ------------------------------------------------------------------------------- */
extern "C" const char *hook_v5_mma_s8_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    i8_v5_mma_s8_plan *plan = (i8_v5_mma_s8_plan *)tc_xmalloc(sizeof *plan);
    const cudaError_t e =
        i8_v5_mma_s8_prepare(plan, p->M, p->N, p->K, (const int8_t *)p->d_a, p->lda,
                             (const int8_t *)p->d_b, p->ldb, (int *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, i8_v5_mma_s8_unsupported(p->M, p->N, p->K));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v5_mma_s8_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                      cudaStream_t stream)
{
    const i8_v5_mma_s8_plan *plan = (const i8_v5_mma_s8_plan *)p->plan;
    TC_CUDA_CHECK(i8_v5_mma_s8_run(plan, (int)p->alpha, (int)p->beta, stream));
}

/* ---- v6_wgmma_s8 and v7_wgmma_s8_wide (sm_90a): the same prepare and launch but for the rung's
 * functions. The plan is 128-byte aligned (it holds tensor maps); forced (--test): a persistent
 * grid of one cluster, which walks every unit. */
template <class Plan>
static const char *prepare_wgmma_rung(
    tc_gemm_problem *p,
    cudaError_t (*prepare_clusters)(Plan *, unsigned, int, int, int, const int8_t *, long,
                                    const int8_t *, long, int *, long),
    const char *(*unsupported)(int, int, int, const int8_t *, long, const int8_t *, long))
{
    Plan *plan = (Plan *)tma_host_calloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const int8_t *A = (const int8_t *)p->d_a, *B = (const int8_t *)p->d_b;
    const cudaError_t e = prepare_clusters(plan, p->force == 1 ? 1 : 0, p->M, p->N, p->K, A, p->lda,
                                           B, p->ldb, (int *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, unsupported(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}

extern "C" const char *hook_v6_wgmma_s8_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return prepare_wgmma_rung<i8_v6_wgmma_s8_plan>(p, i8_v6_wgmma_s8_prepare_clusters,
                                                   i8_v6_wgmma_s8_unsupported);
}
extern "C" void hook_v6_wgmma_s8_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                        cudaStream_t stream)
{
    const i8_v6_wgmma_s8_plan *plan = (const i8_v6_wgmma_s8_plan *)p->plan;
    TC_CUDA_CHECK(i8_v6_wgmma_s8_run(plan, (int)p->alpha, (int)p->beta, stream));
}

extern "C" const char *hook_v7_wgmma_s8_wide_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return prepare_wgmma_rung<i8_v7_wgmma_s8_wide_plan>(p, i8_v7_wgmma_s8_wide_prepare_clusters,
                                                        i8_v7_wgmma_s8_wide_unsupported);
}
extern "C" void hook_v7_wgmma_s8_wide_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                             cudaStream_t stream)
{
    const i8_v7_wgmma_s8_wide_plan *plan = (const i8_v7_wgmma_s8_wide_plan *)p->plan;
    TC_CUDA_CHECK(i8_v7_wgmma_s8_wide_run(plan, (int)p->alpha, (int)p->beta, stream));
}
