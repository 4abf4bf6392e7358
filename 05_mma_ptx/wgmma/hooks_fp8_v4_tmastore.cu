/* 05_mma_ptx/wgmma/hooks_fp8_v4_tmastore.cu - the hooks of fp8_v4_tmastore, a per-tensor rung
 * (fp8_v4_tmastore.cuh), for the GEMM driver (wgmma_gemm.h), e4m3 or e5m2 inputs as the variant's
 * impl says: prepare() makes the rung's plan with its plain prepare function (outside the timed
 * region), launch() runs it, hook_release_plan (hooks_f16.cu) frees it. A problem the rung cannot
 * take is reported as skipped with the rung's own reason. The kernel is in the rung file; nothing
 * here is the lesson. */
#include "hooks_fp8.h"

#include "fp8_v4_tmastore.cuh"

template <class T> static const char *prepare_fp8_v4(tc_gemm_problem *p)
{
    wgmma_fp8_v4_tmastore_plan *plan = new_plan<wgmma_fp8_v4_tmastore_plan>();
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    /* forced (--test): 128- or 144-wide tiles, whatever the problem's last round prefers, or a
     * grid of one cluster (which then walks every unit) at the width prepare() chooses */
    const int width = p->force == 1 ? 128 : p->force == 2 ? 144 : 0;
    const cudaError_t e = wgmma_fp8_v4_tmastore_prepare_forced<T>(
        plan, width, p->force == 3 ? 1 : 0, p->M, p->N, p->K, A, p->lda, B, p->ldb, (float *)p->d_c,
        p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(
            e, wgmma_fp8_v4_tmastore_unsupported<T>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_fp8_v4_tmastore_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_e5m2(v) ? prepare_fp8_v4<__nv_fp8_e5m2>(p) : prepare_fp8_v4<__nv_fp8_e4m3>(p);
}
extern "C" void hook_fp8_v4_tmastore_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                            cudaStream_t stream)
{
    const wgmma_fp8_v4_tmastore_plan *plan = (const wgmma_fp8_v4_tmastore_plan *)p->plan;
    TC_CUDA_CHECK(is_e5m2(v)
                      ? wgmma_fp8_v4_tmastore_run<__nv_fp8_e5m2>(plan, p->alpha, p->beta, stream)
                      : wgmma_fp8_v4_tmastore_run<__nv_fp8_e4m3>(plan, p->alpha, p->beta, stream));
}
