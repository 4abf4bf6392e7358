/* 09_emulated_precision/hooks.cu - the rungs of chapter 09 as hooks of the GEMM driver
 * (emulated_gemm.h): each prepare() makes its rung's plan with the rung's plain prepare function
 * (outside the timed region: the checks, the shared-memory opt-in, the workspace, the tensor
 * maps, the chunk of K), each launch() runs it, release() frees it. The kernels, the cuBLAS calls
 * and the lesson are in the rung files; nothing here is the lesson.
 *
 *   v1_dmma          v1_dmma.cuh                 v4_bf16xN_fast   v4_bf16x_fast.cuh
 *   v1_dmma16        v1_dmma16.cuh               v5_ozaki2_nN     v5_ozaki2.cuh
 *   v2_ozaki_sN      v2_ozaki.cuh                (what v2 and v5 share: ozaki_parts.cuh;
 *   v3_bf16xN        v3_bf16x.cuh                 v2, v3, v5: cublas_status.cuh)
 *
 * A problem a rung cannot take is reported as skipped with the rung's own reason, except where
 * the row's own parameters are refused (v2's slice count, v5's moduli and bits: a bad row, a
 * failure). The cuBLAS-based rungs share the chapter's cuBLAS handle (the chapter_ctx); each rung
 * with a workspace gets one of the size its _workspace_size() asks, allocated here once per plan.
 *
 * Every run-time choice is forceable (tc_gemm_variant.forced_names, main.c): the Ozaki rungs
 * choose the chunk of K (the largest whose int32 sums are exact, or for v5 whose CRT range holds
 * the sum), and --test forces chunks of OZ_FORCED_KC ("kc64"), so that the loop over chunks and
 * their f64 sum run at the test matrix's K too. TC_OZAKI_KC (environment, a multiple of 16) caps
 * the chunk of both schemes as well. The other rungs choose nothing. */
#include <cublas_v2.h> /* before check.h (through emulated_gemm.h): TC_CUBLAS_CHECK */

#include "emulated_gemm.h"

#include "gemm_hooks.h"
#include "v1_dmma.cuh"
#include "v1_dmma16.cuh"
#include "v2_ozaki.cuh"
#include "v3_bf16x.cuh"
#include "v4_bf16x_fast.cuh"
#include "v5_ozaki2.cuh"

#include <stdlib.h>

const int oz_slices_6 = 6, oz_slices_7 = 7, oz_slices_8 = 8;
const oz2_variant oz2_n14 = {.moduli = 14, .bits = 48}, oz2_n15 = {.moduli = 15, .bits = 51},
                  oz2_n16 = {.moduli = 16, .bits = 52};
const int bf_products_3 = 3, bf_products_6 = 6, bf_products_9 = 9;

/* ---- the chapter's cuBLAS handle ------------------------------------------------------------ */
typedef struct {
    cublasHandle_t handle;
} hook_ctx;

extern "C" void *hook_chapter_init(const tc_device_info *dev, FILE *info)
{
    (void)dev, (void)info;
    hook_ctx *c = (hook_ctx *)calloc(1, sizeof *c);
    if (!c) return NULL;
    TC_CUBLAS_CHECK(cublasCreate(&c->handle));
    return c;
}

extern "C" void hook_chapter_fini(void *ctx)
{
    hook_ctx *c = (hook_ctx *)ctx;
    if (!c) return;
    cublasDestroy(c->handle);
    free(c);
}

static cublasHandle_t hook_handle(const tc_gemm_problem *p)
{
    return ((const hook_ctx *)p->chapter_ctx)->handle;
}

/* ---- plans ---------------------------------------------------------------------------------- */
extern "C" void hook_release_plan(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    free(p->plan);
    p->plan = NULL;
}

/* A rung's plan beside its device workspace; the workspace first, so that
 * hook_release_workspace frees any of them */
template <class Plan> struct hook_ws_plan {
    void *workspace;
    Plan plan;
};

extern "C" void hook_release_workspace(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    void **h = (void **)p->plan; /* &hook_ws_plan<Plan>::workspace */
    if (!h) return;
    cudaFree(*h);
    free(h);
    p->plan = NULL;
}

/* A hook_ws_plan with a workspace of `bytes`, stored in p->plan (host memory aligned for the
 * CUtensorMaps a plan may hold); NULL when an allocation failed, with *why: `oom` (a skip) when
 * the device has too little memory */
template <class Plan>
static hook_ws_plan<Plan> *new_ws_plan(tc_gemm_problem *p, size_t bytes, const char *oom,
                                       const char **why)
{
    hook_ws_plan<Plan> *h = (hook_ws_plan<Plan> *)tma_host_calloc(sizeof *h);
    if (!h) {
        *why = "out of host memory";
        return NULL;
    }
    p->plan = h;
    if (cudaMalloc(&h->workspace, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        h->workspace = NULL;
        hook_release_workspace(NULL, p);
        *why = oom;
        return NULL;
    }
    return h;
}

/* The chunk of K the Ozaki rows force (forced_names "kc64"): the largest chunk the int32 sums
 * allow is longer than every K of the test matrix, so without it the loop over chunks and their
 * f64 sum would run once only */
constexpr long OZ_FORCED_KC = 64;
static_assert(OZ_FORCED_KC % OZ_KC_ALIGN == 0, "a forced chunk is a whole number of slices");

/* TC_OZAKI_KC's cap on the chunk of K (a multiple of 16), or 0 when it is unset or not one */
static long env_kc_cap(void)
{
    const char *cap = getenv("TC_OZAKI_KC");
    return cap && atol(cap) >= OZ_KC_ALIGN && atol(cap) % OZ_KC_ALIGN == 0 ? atol(cap) : 0;
}

/* ---- v1_dmma -------------------------------------------------------------------------------- */
extern "C" const char *hook_v1_dmma_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    dmma_v1_dmma_plan *plan = (dmma_v1_dmma_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const cudaError_t e =
        dmma_v1_dmma_prepare(plan, p->M, p->N, p->K, (const double *)p->d_a, p->lda,
                             (const double *)p->d_b, p->ldb, (double *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, dmma_v1_dmma_unsupported(p->M, p->N, p->K));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v1_dmma_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                    cudaStream_t stream)
{
    TC_CUDA_CHECK(dmma_v1_dmma_run((const dmma_v1_dmma_plan *)p->plan, p->alpha, p->beta, stream));
}

/* ---- v1_dmma16 ------------------------------------------------------------------------------ */
extern "C" const char *hook_v1_dmma16_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    /* the row's target "90" (sm_90 code) is checked by the driver before this runs; the rung's
     * launcher checks it again for callers outside the driver */
    dmma_v1_dmma16_plan *plan = (dmma_v1_dmma16_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const cudaError_t e =
        dmma_v1_dmma16_prepare(plan, p->M, p->N, p->K, (const double *)p->d_a, p->lda,
                               (const double *)p->d_b, p->ldb, (double *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(e, dmma_v1_dmma16_unsupported(p->M, p->N, p->K));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void hook_v1_dmma16_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                      cudaStream_t stream)
{
    TC_CUDA_CHECK(
        dmma_v1_dmma16_run((const dmma_v1_dmma16_plan *)p->plan, p->alpha, p->beta, stream));
}

/* ---- v2_ozaki_sN ---------------------------------------------------------------------------- */
extern "C" const char *hook_v2_ozaki_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    if (!p->chapter_ctx) return "out of host memory";
    const int s = *(const int *)v->impl;
    size_t bytes = 0;
    const cudaError_t e = oz_v2_ozaki_workspace_size(s, p->M, p->N, p->K, &bytes);
    if (e == cudaErrorNotSupported) /* the driver has checked the GPU: a refusal is a bad row */
        return oz_v2_ozaki_unsupported(s, p->M, p->N, p->K);
    TC_CUDA_CHECK(e);
    const char *why = NULL;
    hook_ws_plan<oz_v2_ozaki_plan> *h = new_ws_plan<oz_v2_ozaki_plan>(
        p, bytes, TC_GEMM_SKIP "not enough device memory for the slices", &why);
    if (!h) return why;
    /* the chunk of K: chosen by the launcher, capped by TC_OZAKI_KC and, forced by --test, by
     * OZ_FORCED_KC (the smaller cap wins) */
    long kc_cap = env_kc_cap();
    if (p->force == 1 && (kc_cap == 0 || OZ_FORCED_KC < kc_cap)) kc_cap = OZ_FORCED_KC;
    TC_CUDA_CHECK(oz_v2_ozaki_prepare_chunk(&h->plan, kc_cap, s, p->M, p->N, p->K,
                                            (const double *)p->d_a, p->lda, (const double *)p->d_b,
                                            p->ldb, (double *)p->d_c, p->ldc, h->workspace, bytes,
                                            hook_handle(p)));
    return NULL;
}
extern "C" void hook_v2_ozaki_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                     cudaStream_t stream)
{
    const hook_ws_plan<oz_v2_ozaki_plan> *h = (const hook_ws_plan<oz_v2_ozaki_plan> *)p->plan;
    TC_CUDA_CHECK(oz_v2_ozaki_run(&h->plan, p->alpha, p->beta, stream));
}

/* ---- v3_bf16xN ------------------------------------------------------------------------------ */
extern "C" const char *hook_v3_bf16x_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    if (!p->chapter_ctx) return "out of host memory";
    const int products = *(const int *)v->impl;
    size_t bytes = 0;
    TC_CUDA_CHECK(bf_v3_bf16x_workspace_size(p->M, p->N, p->K, &bytes));
    const char *why = NULL;
    hook_ws_plan<bf_v3_bf16x_plan> *h = new_ws_plan<bf_v3_bf16x_plan>(
        p, bytes, TC_GEMM_SKIP "not enough device memory for the bf16 words", &why);
    if (!h) return why;
    const cudaError_t e = bf_v3_bf16x_prepare(
        &h->plan, products, p->M, p->N, p->K, (const float *)p->d_a, p->lda, (const float *)p->d_b,
        p->ldb, (float *)p->d_c, p->ldc, h->workspace, bytes, hook_handle(p));
    if (e != cudaSuccess) {
        hook_release_workspace(v, p);
        return hook_status(e, bf_v3_bf16x_unsupported(products, p->M, p->N, p->K));
    }
    return NULL;
}
extern "C" void hook_v3_bf16x_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                     cudaStream_t stream)
{
    const hook_ws_plan<bf_v3_bf16x_plan> *h = (const hook_ws_plan<bf_v3_bf16x_plan> *)p->plan;
    TC_CUDA_CHECK(bf_v3_bf16x_run(&h->plan, p->alpha, p->beta, stream));
}

/* ---- v4_bf16xN_fast ------------------------------------------------------------------------- */
extern "C" const char *hook_v4_bf16x_fast_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    const int products = *(const int *)v->impl;
    size_t bytes = 0;
    TC_CUDA_CHECK(bf_v4_bf16x_fast_workspace_size(p->M, p->N, p->K, &bytes));
    const char *why = NULL;
    hook_ws_plan<bf_v4_bf16x_fast_plan> *h = new_ws_plan<bf_v4_bf16x_fast_plan>(
        p, bytes, TC_GEMM_SKIP "not enough device memory for the bf16 words", &why);
    if (!h) return why;
    const cudaError_t e = bf_v4_bf16x_fast_prepare(
        &h->plan, products, p->M, p->N, p->K, (const float *)p->d_a, p->lda, (const float *)p->d_b,
        p->ldb, (float *)p->d_c, p->ldc, h->workspace, bytes);
    if (e != cudaSuccess) {
        hook_release_workspace(v, p);
        return hook_status(e, bf_v4_bf16x_fast_unsupported(products, p->M, p->N, p->K));
    }
    return NULL;
}
extern "C" void hook_v4_bf16x_fast_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                          cudaStream_t stream)
{
    const hook_ws_plan<bf_v4_bf16x_fast_plan> *h =
        (const hook_ws_plan<bf_v4_bf16x_fast_plan> *)p->plan;
    TC_CUDA_CHECK(bf_v4_bf16x_fast_run(&h->plan, p->alpha, p->beta, stream));
}

/* ---- v5_ozaki2_nN --------------------------------------------------------------------------- */
extern "C" const char *hook_v5_ozaki2_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    if (!p->chapter_ctx) return "out of host memory";
    const oz2_variant *var = (const oz2_variant *)v->impl;
    size_t bytes = 0;
    cudaError_t e = oz_v5_ozaki2_workspace_size(var->moduli, var->bits, p->M, p->N, p->K, &bytes);
    if (e == cudaErrorNotSupported) /* the driver has checked the GPU: a refusal is a bad row */
        return oz_v5_ozaki2_unsupported(var->moduli, var->bits, p->M, p->N, p->K);
    TC_CUDA_CHECK(e);
    const char *why = NULL;
    hook_ws_plan<oz_v5_ozaki2_plan> *h = new_ws_plan<oz_v5_ozaki2_plan>(
        p, bytes, TC_GEMM_SKIP "not enough device memory for the residues", &why);
    if (!h) return why;
    /* the chunk of K: chosen by the launcher, forced by --test, or capped by TC_OZAKI_KC */
    long kc_cap = env_kc_cap();
    if (p->force == 1) kc_cap = OZ_FORCED_KC;
    TC_CUDA_CHECK(oz_v5_ozaki2_prepare_chunk(&h->plan, kc_cap, var->moduli, var->bits, p->M, p->N,
                                             p->K, (const double *)p->d_a, p->lda,
                                             (const double *)p->d_b, p->ldb, (double *)p->d_c,
                                             p->ldc, h->workspace, bytes, hook_handle(p)));
    return NULL;
}
extern "C" void hook_v5_ozaki2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                      cudaStream_t stream)
{
    const hook_ws_plan<oz_v5_ozaki2_plan> *h = (const hook_ws_plan<oz_v5_ozaki2_plan> *)p->plan;
    TC_CUDA_CHECK(oz_v5_ozaki2_run(&h->plan, p->alpha, p->beta, stream));
}
