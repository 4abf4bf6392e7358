/* 05_mma_ptx/wgmma/hooks_fp8_v8_tmastore.cu - the hooks of fp8_v8_tmastore, a block-scaled rung
 * (fp8_v8_tmastore.cuh), for the GEMM driver (wgmma_gemm.h), e4m3 or e5m2 inputs as the variant's
 * impl says: prepare() makes the rung's plan with its plain prepare function (outside the timed
 * region), launch() runs it, hook_release_plan (hooks_f16.cu) frees it. A problem the rung cannot
 * take is reported as skipped with the rung's own reason. The kernel is in the rung file; nothing
 * here is the lesson. */
#include "hooks_fp8.h"

#include "fp8_v8_tmastore.cuh"

template <class T, class OutT> static const char *prepare_fp8_v8(tc_gemm_problem *p)
{
    return prepare_block_scaled_rung<wgmma_fp8_v8_tmastore_plan, T, OutT>(
        p, wgmma_fp8_v8_tmastore_prepare_clusters<T, OutT>,
        wgmma_fp8_v8_tmastore_unsupported<T, OutT>);
}
extern "C" const char *hook_fp8_v8_tmastore_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return with_block_scaled_types(
        v, p, [p](auto in, auto out) { return prepare_fp8_v8<decltype(in), decltype(out)>(p); });
}
extern "C" void hook_fp8_v8_tmastore_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                            cudaStream_t stream)
{
    const wgmma_fp8_v8_tmastore_plan *plan = (const wgmma_fp8_v8_tmastore_plan *)p->plan;
    TC_CUDA_CHECK(with_block_scaled_types(v, p, [=](auto in, auto out) {
        return wgmma_fp8_v8_tmastore_run<decltype(in), decltype(out)>(plan, p->alpha, p->beta,
                                                                      stream);
    }));
}
