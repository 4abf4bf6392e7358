/* 05_mma_ptx/wgmma/hooks_f16.cu - the f16/bf16 rungs of the Hopper ladder as hooks of the GEMM
 * driver (wgmma_gemm.h): each prepare() makes its rung's plan with the rung's plain prepare
 * function (outside the timed region: tensor maps, the shared-memory opt-in, the grid), each
 * launch() runs it, release() frees it. A problem a rung cannot take is reported as skipped with
 * the rung's own reason. The kernels are in the rung files; nothing here is the lesson.
 *
 *   v1_wgmma     v1_wgmma.cuh                   v4_cluster   common/wgmma_v4_cluster.cuh
 *   v2_tma       v2_tma.cuh                     v5_tmastore  v5_tmastore.cuh
 *   v3_warpspec  v3_warpspec.cuh                v6_streamk   v6_streamk.cuh (and stream_k.h) */
#include "wgmma_gemm.h"

#include "gemm_hooks.h"
#include "v1_wgmma.cuh"
#include "v2_tma.cuh"
#include "v3_warpspec.cuh"
#include "v5_tmastore.cuh"
#include "v6_streamk.cuh"
#include "wgmma_v4_cluster.cuh"

#include <stdlib.h>

const wgmma_input wgmma_in_f16 = WGMMA_IN_F16, wgmma_in_bf16 = WGMMA_IN_BF16;
const wgmma_input wgmma_in_e4m3 = WGMMA_IN_E4M3, wgmma_in_e5m2 = WGMMA_IN_E5M2;

static bool is_bf16(const tc_gemm_variant *v)
{
    return *(const wgmma_input *)v->impl == WGMMA_IN_BF16;
}

/* A plan in host memory that holds CUtensorMaps (128-byte aligned), or NULL */
template <class Plan> static Plan *new_plan() { return (Plan *)tma_host_calloc(sizeof(Plan)); }

extern "C" void hook_release_plan(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    free(p->plan);
    p->plan = NULL;
}

/* ---- v1_wgmma ------------------------------------------------------------------------------- */
template <class T> static const char *prepare_v1(tc_gemm_problem *p)
{
    wgmma_v1_wgmma_plan *plan = new_plan<wgmma_v1_wgmma_plan>();
    if (!plan) return "out of host memory";
    const cudaError_t e =
        wgmma_v1_wgmma_prepare<T>(plan, p->M, p->N, p->K, (const T *)p->d_a, p->lda,
                                  (const T *)p->d_b, p->ldb, (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, wgmma_v1_wgmma_unsupported<T>(p->M, p->N, p->K));
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_v1_wgmma_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_bf16(v) ? prepare_v1<__nv_bfloat16>(p) : prepare_v1<__half>(p);
}
extern "C" void hook_v1_wgmma_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                     cudaStream_t stream)
{
    const wgmma_v1_wgmma_plan *plan = (const wgmma_v1_wgmma_plan *)p->plan;
    TC_CUDA_CHECK(is_bf16(v) ? wgmma_v1_wgmma_run<__nv_bfloat16>(plan, p->alpha, p->beta, stream)
                             : wgmma_v1_wgmma_run<__half>(plan, p->alpha, p->beta, stream));
}

/* ---- v2_tma --------------------------------------------------------------------------------- */
template <class T> static const char *prepare_v2(tc_gemm_problem *p)
{
    wgmma_v2_tma_plan *plan = new_plan<wgmma_v2_tma_plan>();
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    const cudaError_t e = wgmma_v2_tma_prepare<T>(plan, p->M, p->N, p->K, A, p->lda, B, p->ldb,
                                                  (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, wgmma_v2_tma_unsupported<T>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_v2_tma_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_bf16(v) ? prepare_v2<__nv_bfloat16>(p) : prepare_v2<__half>(p);
}
extern "C" void hook_v2_tma_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                   cudaStream_t stream)
{
    const wgmma_v2_tma_plan *plan = (const wgmma_v2_tma_plan *)p->plan;
    TC_CUDA_CHECK(is_bf16(v) ? wgmma_v2_tma_run<__nv_bfloat16>(plan, p->alpha, p->beta, stream)
                             : wgmma_v2_tma_run<__half>(plan, p->alpha, p->beta, stream));
}

/* ---- v3_warpspec ---------------------------------------------------------------------------- */
template <class T> static const char *prepare_v3(tc_gemm_problem *p)
{
    wgmma_v3_warpspec_plan *plan = new_plan<wgmma_v3_warpspec_plan>();
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    const cudaError_t e = wgmma_v3_warpspec_prepare<T>(plan, p->M, p->N, p->K, A, p->lda, B, p->ldb,
                                                       (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(
            e, wgmma_v3_warpspec_unsupported<T>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_v3_warpspec_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_bf16(v) ? prepare_v3<__nv_bfloat16>(p) : prepare_v3<__half>(p);
}
extern "C" void hook_v3_warpspec_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                        cudaStream_t stream)
{
    const wgmma_v3_warpspec_plan *plan = (const wgmma_v3_warpspec_plan *)p->plan;
    TC_CUDA_CHECK(is_bf16(v) ? wgmma_v3_warpspec_run<__nv_bfloat16>(plan, p->alpha, p->beta, stream)
                             : wgmma_v3_warpspec_run<__half>(plan, p->alpha, p->beta, stream));
}

/* ---- v4_cluster ----------------------------------------------------------------------------- */
template <class T> static const char *prepare_v4(tc_gemm_problem *p)
{
    wgmma_v4_cluster_plan *plan = new_plan<wgmma_v4_cluster_plan>();
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    /* forced (--test): a grid of one cluster, which then walks every unit */
    const cudaError_t e =
        wgmma_v4_cluster_prepare_clusters<T>(plan, p->force == 1 ? 1 : 0, p->M, p->N, p->K, A,
                                             p->lda, B, p->ldb, (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e,
                           wgmma_v4_cluster_unsupported<T>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_v4_cluster_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_bf16(v) ? prepare_v4<__nv_bfloat16>(p) : prepare_v4<__half>(p);
}
extern "C" void hook_v4_cluster_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                       cudaStream_t stream)
{
    const wgmma_v4_cluster_plan *plan = (const wgmma_v4_cluster_plan *)p->plan;
    TC_CUDA_CHECK(is_bf16(v) ? wgmma_v4_cluster_run<__nv_bfloat16>(plan, p->alpha, p->beta, stream)
                             : wgmma_v4_cluster_run<__half>(plan, p->alpha, p->beta, stream));
}

/* ---- v5_tmastore ---------------------------------------------------------------------------- */
template <class T> static const char *prepare_v5(tc_gemm_problem *p)
{
    wgmma_v5_tmastore_plan *plan = new_plan<wgmma_v5_tmastore_plan>();
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    /* forced (--test): a grid of one cluster, which then walks every unit */
    const cudaError_t e =
        wgmma_v5_tmastore_prepare_clusters<T>(plan, p->force == 1 ? 1 : 0, p->M, p->N, p->K, A,
                                              p->lda, B, p->ldb, (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(
            e, wgmma_v5_tmastore_unsupported<T>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_v5_tmastore_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_bf16(v) ? prepare_v5<__nv_bfloat16>(p) : prepare_v5<__half>(p);
}
extern "C" void hook_v5_tmastore_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                        cudaStream_t stream)
{
    const wgmma_v5_tmastore_plan *plan = (const wgmma_v5_tmastore_plan *)p->plan;
    TC_CUDA_CHECK(is_bf16(v) ? wgmma_v5_tmastore_run<__nv_bfloat16>(plan, p->alpha, p->beta, stream)
                             : wgmma_v5_tmastore_run<__half>(plan, p->alpha, p->beta, stream));
}

/* ---- v6_streamk: the plan and its workspace (allocated and zeroed here, once) ---------------- */
template <class T> static const char *prepare_v6(tc_gemm_problem *p)
{
    wgmma_v6_streamk_plan *plan = new_plan<wgmma_v6_streamk_plan>();
    if (!plan) return "out of host memory";
    const T *A = (const T *)p->d_a, *B = (const T *)p->d_b;
    const char *why = wgmma_v6_streamk_unsupported<T>(p->M, p->N, p->K, A, p->lda, B, p->ldb);
    size_t bytes = 0;
    void *ws = NULL;
    cudaError_t e =
        why ? cudaErrorNotSupported : wgmma_v6_streamk_workspace_size<T>(p->M, p->N, &bytes);
    if (e == cudaSuccess) e = cudaMalloc(&ws, bytes);
    if (e == cudaSuccess) e = cudaMemset(ws, 0, bytes);
    /* the launches go to the caller's stream, which may not wait for the legacy one */
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    /* forced (--test): a grid of 7 clusters (the last round split on most multi-unit cases,
     * whatever the GPU) or of 1 (every unit walked by one cluster, no split) */
    const unsigned clusters = p->force == 1 ? 7 : p->force == 2 ? 1 : 0;
    if (e == cudaSuccess)
        e = wgmma_v6_streamk_prepare_clusters<T>(plan, clusters, p->M, p->N, p->K, A, p->lda, B,
                                                 p->ldb, (float *)p->d_c, p->ldc, ws, bytes);
    if (e != cudaSuccess) {
        if (ws) TC_CUDA_CHECK(cudaFree(ws));
        free(plan);
        return hook_status(e, why);
    }
    p->plan = plan;
    return NULL;
}
extern "C" const char *hook_v6_streamk_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_bf16(v) ? prepare_v6<__nv_bfloat16>(p) : prepare_v6<__half>(p);
}
extern "C" void hook_v6_streamk_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                       cudaStream_t stream)
{
    const wgmma_v6_streamk_plan *plan = (const wgmma_v6_streamk_plan *)p->plan;
    TC_CUDA_CHECK(is_bf16(v) ? wgmma_v6_streamk_run<__nv_bfloat16>(plan, p->alpha, p->beta, stream)
                             : wgmma_v6_streamk_run<__half>(plan, p->alpha, p->beta, stream));
}
/* every launch leaves the workspace's flags at 0 (the finisher lowers each one it waited for) */
extern "C" const char *hook_v6_streamk_check_state(const tc_gemm_variant *v,
                                                   const tc_gemm_problem *p)
{
    static char why[96];
    const wgmma_v6_streamk_plan *plan = (const wgmma_v6_streamk_plan *)p->plan;
    int *flags = (int *)malloc(plan->grid * sizeof *flags);
    if (!flags) return "out of host memory";
    TC_CUDA_CHECK(
        cudaMemcpy(flags, plan->flags, plan->grid * sizeof *flags, cudaMemcpyDeviceToHost));
    unsigned raised = 0;
    for (unsigned b = 0; b < plan->grid; b++) raised += flags[b] != 0;
    free(flags);
    if (!raised) return NULL;
    snprintf(why, sizeof why, "%u of the %u blocks' stream-K flags are still raised", raised,
             plan->grid);
    return why;
}
extern "C" void hook_v6_streamk_release(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    wgmma_v6_streamk_plan *plan = (wgmma_v6_streamk_plan *)p->plan;
    if (plan) TC_CUDA_CHECK(cudaFree(plan->ws)); /* the workspace starts at the slots */
    hook_release_plan(v, p);
}
