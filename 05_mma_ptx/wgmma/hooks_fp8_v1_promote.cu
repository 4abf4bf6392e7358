/* 05_mma_ptx/wgmma/hooks_fp8_v1_promote.cu - the hooks of fp8_v1_promote, a per-tensor rung
 * (fp8_v1_promote.cuh), for the GEMM driver (wgmma_gemm.h), e4m3 or e5m2 inputs as the variant's
 * impl says: prepare() makes the rung's plan with its plain prepare function (outside the timed
 * region), launch() runs it, hook_release_plan (hooks_f16.cu) frees it. A problem the rung cannot
 * take is reported as skipped with the rung's own reason. The kernel is in the rung file; nothing
 * here is the lesson. */
#include "hooks_fp8.h"

#include "fp8_v1_promote.cuh"

template <class T> static const char *prepare_fp8_v1(tc_gemm_problem *p)
{
    wgmma_fp8_v1_promote_plan *plan = new_plan<wgmma_fp8_v1_promote_plan>();
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    /* forced (--test): a grid of one cluster, which then walks every unit */
    const cudaError_t e =
        wgmma_fp8_v1_promote_prepare_clusters<T>(plan, p->force == 1 ? 1 : 0, p->M, p->N, p->K, A,
                                                 p->lda, B, p->ldb, (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(
            e, wgmma_fp8_v1_promote_unsupported<T>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_fp8_v1_promote_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_e5m2(v) ? prepare_fp8_v1<__nv_fp8_e5m2>(p) : prepare_fp8_v1<__nv_fp8_e4m3>(p);
}
extern "C" void hook_fp8_v1_promote_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                           cudaStream_t stream)
{
    const wgmma_fp8_v1_promote_plan *plan = (const wgmma_fp8_v1_promote_plan *)p->plan;
    TC_CUDA_CHECK(is_e5m2(v)
                      ? wgmma_fp8_v1_promote_run<__nv_fp8_e5m2>(plan, p->alpha, p->beta, stream)
                      : wgmma_fp8_v1_promote_run<__nv_fp8_e4m3>(plan, p->alpha, p->beta, stream));
}
