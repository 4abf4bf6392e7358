/* 05_mma_ptx/wgmma/hooks_fp8.cu - the FP8 rungs of the Hopper ladder as hooks of the GEMM driver
 * (wgmma_gemm.h), e4m3 or e5m2 inputs as the variant's impl says: each prepare() makes its rung's
 * plan with the rung's plain prepare function (outside the timed region), each launch() runs it,
 * hook_release_plan (hooks_f16.cu) frees it. A problem a rung cannot take is reported as skipped
 * with the rung's own reason. The kernels are in the rung files; nothing here is the lesson.
 *
 *   fp8_v1_promote  fp8_v1_promote.cuh           fp8_v3_wide      fp8_v3_wide.cuh
 *   fp8_v2_pairs    fp8_v2_pairs.cuh             fp8_v4_tmastore  fp8_v4_tmastore.cuh
 *   fp8_v5_blockscaled  fp8_v5_blockscaled.cuh  fp8_v6_scales_tma  fp8_v6_scales_tma.cuh
 *   fp8_v7_scale_spans  fp8_v7_scale_spans.cuh  fp8_v8_tmastore    fp8_v8_tmastore.cuh
 *   fp8_v9_scale_loads  fp8_v9_scale_loads.cuh
 *   (block-scaled: the problem's scales) */
#include "wgmma_gemm.h"

#include "fp8_v1_promote.cuh"
#include "fp8_v2_pairs.cuh"
#include "fp8_v3_wide.cuh"
#include "fp8_v4_tmastore.cuh"
#include "fp8_v5_blockscaled.cuh"
#include "fp8_v6_scales_tma.cuh"
#include "fp8_v7_scale_spans.cuh"
#include "fp8_v8_tmastore.cuh"
#include "fp8_v9_scale_loads.cuh"
#include "gemm_hooks.h"

#include <stdlib.h>

static bool is_e5m2(const tc_gemm_variant *v)
{
    return *(const wgmma_input *)v->impl == WGMMA_IN_E5M2;
}

/* A plan in host memory that holds CUtensorMaps (128-byte aligned), or NULL */
template <class Plan> static Plan *new_plan() { return (Plan *)tma_host_calloc(sizeof(Plan)); }

/* ---- fp8_v1_promote ----------------------------------------------------------------------------- */
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

/* ---- fp8_v2_pairs ----------------------------------------------------------------------------- */
template <class T> static const char *prepare_fp8_v2(tc_gemm_problem *p)
{
    wgmma_fp8_v2_pairs_plan *plan = new_plan<wgmma_fp8_v2_pairs_plan>();
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    /* forced (--test): a grid of one cluster, which then walks every unit */
    const cudaError_t e =
        wgmma_fp8_v2_pairs_prepare_clusters<T>(plan, p->force == 1 ? 1 : 0, p->M, p->N, p->K, A,
                                               p->lda, B, p->ldb, (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(
            e, wgmma_fp8_v2_pairs_unsupported<T>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_fp8_v2_pairs_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_e5m2(v) ? prepare_fp8_v2<__nv_fp8_e5m2>(p) : prepare_fp8_v2<__nv_fp8_e4m3>(p);
}
extern "C" void hook_fp8_v2_pairs_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                         cudaStream_t stream)
{
    const wgmma_fp8_v2_pairs_plan *plan = (const wgmma_fp8_v2_pairs_plan *)p->plan;
    TC_CUDA_CHECK(is_e5m2(v)
                      ? wgmma_fp8_v2_pairs_run<__nv_fp8_e5m2>(plan, p->alpha, p->beta, stream)
                      : wgmma_fp8_v2_pairs_run<__nv_fp8_e4m3>(plan, p->alpha, p->beta, stream));
}

/* ---- fp8_v3_wide ----------------------------------------------------------------------------- */
template <class T> static const char *prepare_fp8_v3(tc_gemm_problem *p)
{
    wgmma_fp8_v3_wide_plan *plan = new_plan<wgmma_fp8_v3_wide_plan>();
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    /* forced (--test): 128- or 144-wide tiles, whatever the problem's last round prefers, or a
     * grid of one cluster (which then walks every unit) at the width prepare() chooses */
    const int width = p->force == 1 ? 128 : p->force == 2 ? 144 : 0;
    const cudaError_t e =
        wgmma_fp8_v3_wide_prepare_forced<T>(plan, width, p->force == 3 ? 1 : 0, p->M, p->N, p->K, A,
                                            p->lda, B, p->ldb, (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(
            e, wgmma_fp8_v3_wide_unsupported<T>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_fp8_v3_wide_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_e5m2(v) ? prepare_fp8_v3<__nv_fp8_e5m2>(p) : prepare_fp8_v3<__nv_fp8_e4m3>(p);
}
extern "C" void hook_fp8_v3_wide_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                        cudaStream_t stream)
{
    const wgmma_fp8_v3_wide_plan *plan = (const wgmma_fp8_v3_wide_plan *)p->plan;
    TC_CUDA_CHECK(is_e5m2(v)
                      ? wgmma_fp8_v3_wide_run<__nv_fp8_e5m2>(plan, p->alpha, p->beta, stream)
                      : wgmma_fp8_v3_wide_run<__nv_fp8_e4m3>(plan, p->alpha, p->beta, stream));
}

/* ---- fp8_v4_tmastore ----------------------------------------------------------------------------- */
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

/* ---- fp8_v5_blockscaled ------------------------------------------------------------------------ */
/* C's type is the row's precision's output: f32, or bf16 */
static bool bf16_out(const tc_gemm_problem *p) { return p->prec->out == TC_BF16; }

/* f(input, output) with values of the row's two types (e4m3 or e5m2 in, f32 or bf16 out): a
 * block-scaled row's instantiation, chosen once for its prepare and its launch */
template <class F>
static auto with_block_scaled_types(const tc_gemm_variant *v, const tc_gemm_problem *p, F f)
{
    if (is_e5m2(v))
        return bf16_out(p) ? f(__nv_fp8_e5m2(), __nv_bfloat16()) : f(__nv_fp8_e5m2(), float());
    return bf16_out(p) ? f(__nv_fp8_e4m3(), __nv_bfloat16()) : f(__nv_fp8_e4m3(), float());
}

/* The prepare() of a block-scaled rung (fp8_v5 .. fp8_v9): its plan from the rung's
 * prepare_clusters, or the rung's reason (unsupported) why not. Forced (--test): a grid of one
 * cluster, which then walks every unit */
template <class Plan, class T, class OutT>
static const char *prepare_block_scaled_rung(
    tc_gemm_problem *p,
    cudaError_t (*prepare_clusters)(Plan *, unsigned, int, int, int, const T *, long, const float *,
                                    long, const T *, long, const float *, long, OutT *, long),
    const char *(*unsupported)(int, int, int, const T *, long, const float *, long, const T *, long,
                               const float *, long))
{
    Plan *plan = new_plan<Plan>();
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    const cudaError_t e = prepare_clusters(plan, p->force == 1 ? 1 : 0, p->M, p->N, p->K, A, p->lda,
                                           p->d_scale_a, p->ld_scale_a, B, p->ldb, p->d_scale_b,
                                           p->ld_scale_b, (OutT *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, unsupported(p->M, p->N, p->K, A, p->lda, p->d_scale_a, p->ld_scale_a,
                                          B, p->ldb, p->d_scale_b, p->ld_scale_b));
    }
    p->plan = plan;
    return NULL;
}

template <class T, class OutT> static const char *prepare_fp8_v5(tc_gemm_problem *p)
{
    return prepare_block_scaled_rung<wgmma_fp8_v5_blockscaled_plan, T, OutT>(
        p, wgmma_fp8_v5_blockscaled_prepare_clusters<T, OutT>,
        wgmma_fp8_v5_blockscaled_unsupported<T, OutT>);
}
extern "C" const char *hook_fp8_v5_blockscaled_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return with_block_scaled_types(
        v, p, [p](auto in, auto out) { return prepare_fp8_v5<decltype(in), decltype(out)>(p); });
}
extern "C" void hook_fp8_v5_blockscaled_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                               cudaStream_t stream)
{
    const wgmma_fp8_v5_blockscaled_plan *plan = (const wgmma_fp8_v5_blockscaled_plan *)p->plan;
    TC_CUDA_CHECK(with_block_scaled_types(v, p, [=](auto in, auto out) {
        return wgmma_fp8_v5_blockscaled_run<decltype(in), decltype(out)>(plan, p->alpha, p->beta,
                                                                         stream);
    }));
}

/* ---- fp8_v6_scales_tma ------------------------------------------------------------------------- */
template <class T, class OutT> static const char *prepare_fp8_v6(tc_gemm_problem *p)
{
    return prepare_block_scaled_rung<wgmma_fp8_v6_scales_tma_plan, T, OutT>(
        p, wgmma_fp8_v6_scales_tma_prepare_clusters<T, OutT>,
        wgmma_fp8_v6_scales_tma_unsupported<T, OutT>);
}
extern "C" const char *hook_fp8_v6_scales_tma_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return with_block_scaled_types(
        v, p, [p](auto in, auto out) { return prepare_fp8_v6<decltype(in), decltype(out)>(p); });
}
extern "C" void hook_fp8_v6_scales_tma_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                              cudaStream_t stream)
{
    const wgmma_fp8_v6_scales_tma_plan *plan = (const wgmma_fp8_v6_scales_tma_plan *)p->plan;
    TC_CUDA_CHECK(with_block_scaled_types(v, p, [=](auto in, auto out) {
        return wgmma_fp8_v6_scales_tma_run<decltype(in), decltype(out)>(plan, p->alpha, p->beta,
                                                                        stream);
    }));
}

/* ---- fp8_v7_scale_spans ------------------------------------------------------------------------- */
template <class T, class OutT> static const char *prepare_fp8_v7(tc_gemm_problem *p)
{
    return prepare_block_scaled_rung<wgmma_fp8_v7_scale_spans_plan, T, OutT>(
        p, wgmma_fp8_v7_scale_spans_prepare_clusters<T, OutT>,
        wgmma_fp8_v7_scale_spans_unsupported<T, OutT>);
}
extern "C" const char *hook_fp8_v7_scale_spans_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return with_block_scaled_types(
        v, p, [p](auto in, auto out) { return prepare_fp8_v7<decltype(in), decltype(out)>(p); });
}
extern "C" void hook_fp8_v7_scale_spans_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                               cudaStream_t stream)
{
    const wgmma_fp8_v7_scale_spans_plan *plan = (const wgmma_fp8_v7_scale_spans_plan *)p->plan;
    TC_CUDA_CHECK(with_block_scaled_types(v, p, [=](auto in, auto out) {
        return wgmma_fp8_v7_scale_spans_run<decltype(in), decltype(out)>(plan, p->alpha, p->beta,
                                                                         stream);
    }));
}

/* ---- fp8_v8_tmastore ------------------------------------------------------------------------- */
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

/* ---- fp8_v9_scale_loads ---------------------------------------------------------------------- */
template <class T, class OutT> static const char *prepare_fp8_v9(tc_gemm_problem *p)
{
    return prepare_block_scaled_rung<wgmma_fp8_v9_scale_loads_plan, T, OutT>(
        p, wgmma_fp8_v9_scale_loads_prepare_clusters<T, OutT>,
        wgmma_fp8_v9_scale_loads_unsupported<T, OutT>);
}
extern "C" const char *hook_fp8_v9_scale_loads_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return with_block_scaled_types(
        v, p, [p](auto in, auto out) { return prepare_fp8_v9<decltype(in), decltype(out)>(p); });
}
extern "C" void hook_fp8_v9_scale_loads_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                               cudaStream_t stream)
{
    const wgmma_fp8_v9_scale_loads_plan *plan = (const wgmma_fp8_v9_scale_loads_plan *)p->plan;
    TC_CUDA_CHECK(with_block_scaled_types(v, p, [=](auto in, auto out) {
        return wgmma_fp8_v9_scale_loads_run<decltype(in), decltype(out)>(plan, p->alpha, p->beta,
                                                                         stream);
    }));
}
