/* 09_emulated_precision/hooks.cu - the rungs of chapter 09 as hooks of the GEMM driver
 * (emulated_gemm.h): each prepare() makes its rung's plan with the rung's plain prepare function
 * (outside the timed region: the checks, the shared-memory opt-in, the workspace, the tensor
 * maps, the chunk of K), each launch() runs it, release() frees it. The kernels, the cuBLAS calls
 * and the lesson are in the rung files; nothing here is the lesson.
 *
 *   v1_dmma          v1_dmma.cuh                 v4_bf16xN_fast   v4_bf16x_fast.cuh
 *   v1_dmma16        v1_dmma16.cuh               v5_ozaki2_nN     v5_ozaki2.cuh
 *   v2_ozaki_sN      v2_ozaki.cuh                v6_ozaki2_fused_nN  v6_ozaki2_fused.cuh
 *   v3_bf16xN        v3_bf16x.cuh                v7_ozaki2_deep_nN   v7_ozaki2_deep.cuh
 *                                                v8_ozaki2_frac_nN   v8_ozaki2_frac.cuh
 *                                                v9_ozaki2_onepass_nN  v9_ozaki2_onepass.cuh
 *                                                (what v2, v5 to v9 share: ozaki_parts.cuh;
 *                                                 v2, v3, v5: cublas_status.cuh)
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
 * the chunk of both schemes as well. The fused rungs (v6 to v9) also choose their persistent grid,
 * forced to one cluster ("1cluster"). The other rungs choose nothing.
 *
 * The fused rungs' exact check (their rows' check_state, run by --test after the tolerance check):
 * the exponents and residues its launch left in the workspace, and C bit for bit, against
 * ozaki_model.c (oz2_fused_mismatches for v6 and v7, oz2_frac_mismatches for v8 and v9), at the test
 * matrix's sizes. */
#include <cublas_v2.h> /* before check.h (through emulated_gemm.h): TC_CUBLAS_CHECK */

#include "emulated_gemm.h"

#include "gemm_hooks.h"
#include "v1_dmma.cuh"
#include "v1_dmma16.cuh"
#include "v2_ozaki.cuh"
#include "v3_bf16x.cuh"
#include "v4_bf16x_fast.cuh"
#include "v5_ozaki2.cuh"
#include "v6_ozaki2_fused.cuh"
#include "v7_ozaki2_deep.cuh"
#include "v8_ozaki2_frac.cuh"
#include "v9_ozaki2_onepass.cuh"

#include <type_traits>

#include <stdio.h>
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

/* ---- v6_ozaki2_fused_nN --------------------------------------------------------------------- */
/* The choices --test forces (main.c's forced_fused): 1 the chunk of K (OZ_FORCED_KC, so that the
 * chunks' f64 sums run), 2 a grid of one cluster (so that a cluster walks every unit, the ring's
 * phases running on across units, chunks and moduli) */
constexpr int OZ_FORCE_CHUNK = 1, OZ_FORCE_ONE_CLUSTER = 2;

/* The functions of a fused rung's plain launcher that its hooks call (v6 to v9) */
template <class Plan> struct fused_rung {
    cudaError_t (*workspace_size_forced)(long, int, int, int, int, int, size_t *);
    const char *(*unsupported_forced)(long, int, int, int, int, int);
    cudaError_t (*prepare_forced)(Plan *, long, unsigned, int, int, int, int, int, const double *,
                                  long, const double *, long, double *, long, void *, size_t);
    cudaError_t (*run)(const Plan *, double, double, cudaStream_t);
};
static const fused_rung<oz_v6_ozaki2_fused_plan> v6_fused = {
    .workspace_size_forced = oz_v6_ozaki2_fused_workspace_size_forced,
    .unsupported_forced = oz_v6_ozaki2_fused_unsupported_forced,
    .prepare_forced = oz_v6_ozaki2_fused_prepare_forced,
    .run = oz_v6_ozaki2_fused_run};
static const fused_rung<oz_v7_ozaki2_deep_plan> v7_deep = {
    .workspace_size_forced = oz_v7_ozaki2_deep_workspace_size_forced,
    .unsupported_forced = oz_v7_ozaki2_deep_unsupported_forced,
    .prepare_forced = oz_v7_ozaki2_deep_prepare_forced,
    .run = oz_v7_ozaki2_deep_run};
static const fused_rung<oz_v8_ozaki2_frac_plan> v8_frac = {
    .workspace_size_forced = oz_v8_ozaki2_frac_workspace_size_forced,
    .unsupported_forced = oz_v8_ozaki2_frac_unsupported_forced,
    .prepare_forced = oz_v8_ozaki2_frac_prepare_forced,
    .run = oz_v8_ozaki2_frac_run};
static const fused_rung<oz_v9_ozaki2_onepass_plan> v9_onepass = {
    .workspace_size_forced = oz_v9_ozaki2_onepass_workspace_size_forced,
    .unsupported_forced = oz_v9_ozaki2_onepass_unsupported_forced,
    .prepare_forced = oz_v9_ozaki2_onepass_prepare_forced,
    .run = oz_v9_ozaki2_onepass_run};

template <class Plan>
static const char *fused_prepare(const fused_rung<Plan> &rung, const tc_gemm_variant *v,
                                 tc_gemm_problem *p)
{
    const oz2_variant *var = (const oz2_variant *)v->impl;
    long kc_cap = env_kc_cap();
    if (p->force == OZ_FORCE_CHUNK) kc_cap = OZ_FORCED_KC;
    size_t bytes = 0;
    cudaError_t e =
        rung.workspace_size_forced(kc_cap, var->moduli, var->bits, p->M, p->N, p->K, &bytes);
    /* the driver has checked the GPU and the row's n and k: what is left to refuse is a valid
     * problem too large for the TMA's 32-bit coordinates (at this chunk), a skip */
    if (e != cudaSuccess)
        return hook_status(
            e, rung.unsupported_forced(kc_cap, var->moduli, var->bits, p->M, p->N, p->K));
    const char *why = NULL;
    hook_ws_plan<Plan> *h =
        new_ws_plan<Plan>(p, bytes, TC_GEMM_SKIP "not enough device memory for the residues", &why);
    if (!h) return why;
    e = rung.prepare_forced(&h->plan, kc_cap, p->force == OZ_FORCE_ONE_CLUSTER ? 1 : 0, var->moduli,
                            var->bits, p->M, p->N, p->K, (const double *)p->d_a, p->lda,
                            (const double *)p->d_b, p->ldb, (double *)p->d_c, p->ldc, h->workspace,
                            bytes);
    if (e != cudaSuccess) {
        hook_release_workspace(v, p);
        return hook_status(
            e, rung.unsupported_forced(kc_cap, var->moduli, var->bits, p->M, p->N, p->K));
    }
    return NULL;
}
template <class Plan>
static void fused_launch(const fused_rung<Plan> &rung, const tc_gemm_problem *p,
                         cudaStream_t stream)
{
    const hook_ws_plan<Plan> *h = (const hook_ws_plan<Plan> *)p->plan;
    TC_CUDA_CHECK(rung.run(&h->plan, p->alpha, p->beta, stream));
}
extern "C" const char *hook_v6_ozaki2_fused_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return fused_prepare(v6_fused, v, p);
}
extern "C" void hook_v6_ozaki2_fused_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                            cudaStream_t stream)
{
    fused_launch(v6_fused, p, stream);
}
extern "C" const char *hook_v7_ozaki2_deep_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return fused_prepare(v7_deep, v, p);
}
extern "C" void hook_v7_ozaki2_deep_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                           cudaStream_t stream)
{
    fused_launch(v7_deep, p, stream);
}
extern "C" const char *hook_v8_ozaki2_frac_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return fused_prepare(v8_frac, v, p);
}
extern "C" void hook_v8_ozaki2_frac_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                           cudaStream_t stream)
{
    fused_launch(v8_frac, p, stream);
}
extern "C" const char *hook_v9_ozaki2_onepass_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return fused_prepare(v9_onepass, v, p);
}
extern "C" void hook_v9_ozaki2_onepass_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                              cudaStream_t stream)
{
    fused_launch(v9_onepass, p, stream);
}

/* The exact check's limit: (M + N) K values copied back and modelled */
constexpr long OZ_EXACT_MAX_VALUES = 1L << 24;

/* NULL when the residues of row `row` of x (rows x K, ld), every chunk and modulus, are the
 * model's (oz2_scale, oz2_residue) in the plan's layout res, else what differs (in why) */
template <class Plan>
static const char *fused_residues_differ(const Plan *plan, const int8_t *res, const double *x,
                                         long ld, long rows, long row, int e, char *why,
                                         size_t size)
{
    const oz2_consts *c = &plan->args.c;
    const long kcp = plan->kcp, planes = plan->chunks * c->n;
    int8_t *got = (int8_t *)malloc((size_t)(planes * kcp));
    if (!got) return "out of host memory";
    TC_CUDA_CHECK(
        cudaMemcpy2D(got, kcp, res + row * kcp, rows * kcp, kcp, planes, cudaMemcpyDeviceToHost));
    const char *bad = NULL;
    for (long q = 0; q < planes && !bad; q++)
        for (long jj = 0; jj < kcp && !bad; jj++) {
            const long chunk = q / c->n, l = q % c->n, k = chunk * plan->kc + jj;
            const int want = jj < plan->kc && k < plan->K
                                 ? oz2_residue(oz2_scale(x[row * ld + k], e, plan->bits), c->m[l])
                                 : 0;
            if (got[q * kcp + jj] != want) {
                snprintf(why, size,
                         "exact check: the residue of row %ld, k = %ld modulo %d is %d, "
                         "the model's %d (chunk %ld)",
                         row, k, c->m[l], got[q * kcp + jj], want, chunk);
                bad = why;
            }
        }
    free(got);
    return bad;
}

/* The rungs whose CRT sum is the fraction form (ozaki_model.h's oz2_frac_*): their plans carry
 * args.fr, the others args.f */
template <class Plan> struct frac_form : std::false_type {
};
template <> struct frac_form<oz_v8_ozaki2_frac_plan> : std::true_type {
};
template <> struct frac_form<oz_v9_ozaki2_onepass_plan> : std::true_type {
};

/* C against the rung's model, bit for bit: v6's and v7's arithmetic (oz2_fused_mismatches), or
 * the fraction form of v8 and v9 (oz2_frac_mismatches) */
template <class Plan>
static long model_mismatches(const Plan *plan, const tc_gemm_problem *p, const double *a,
                             const double *b, const double *c, char *why, size_t size)
{
    if constexpr (frac_form<Plan>::value)
        return oz2_frac_mismatches(&plan->args.c, &plan->args.fr, plan->bits, plan->kc, p->M, p->N,
                                   p->K, a, p->lda, b, p->ldb, c, p->ldc, p->alpha, why, size);
    else
        return oz2_fused_mismatches(&plan->args.c, &plan->args.f, plan->bits, plan->kc, p->M, p->N,
                                    p->K, a, p->lda, b, p->ldb, c, p->ldc, p->alpha, why, size);
}

template <class Plan> static const char *fused_check(const tc_gemm_problem *p)
{
    static char why[400];
    const Plan *plan = &((const hook_ws_plan<Plan> *)p->plan)->plan;
    const long M = p->M, N = p->N, K = p->K;
    /* beta != 0: C before the call is gone (the tolerance check has judged it); a large problem
     * is checked by the tolerance alone */
    if (p->beta != 0 || (M + N) * K > OZ_EXACT_MAX_VALUES) return NULL;
    double *a = (double *)malloc(sizeof(double) * (size_t)(M * p->lda));
    double *b = (double *)malloc(sizeof(double) * (size_t)(N * p->ldb));
    double *c = (double *)malloc(sizeof(double) * (size_t)(M * p->ldc));
    int *ea = (int *)malloc(sizeof(int) * (size_t)(M + N)), *eb = ea + M;
    const char *bad = NULL;
    if (!a || !b || !c || !ea) bad = "out of host memory";
    if (!bad) {
        TC_CUDA_CHECK(
            cudaMemcpy(a, p->d_a, sizeof(double) * (size_t)(M * p->lda), cudaMemcpyDeviceToHost));
        TC_CUDA_CHECK(
            cudaMemcpy(b, p->d_b, sizeof(double) * (size_t)(N * p->ldb), cudaMemcpyDeviceToHost));
        TC_CUDA_CHECK(
            cudaMemcpy(c, p->d_c, sizeof(double) * (size_t)(M * p->ldc), cudaMemcpyDeviceToHost));
        TC_CUDA_CHECK(cudaMemcpy(ea, plan->ea, sizeof(int) * (size_t)M, cudaMemcpyDeviceToHost));
        TC_CUDA_CHECK(cudaMemcpy(eb, plan->eb, sizeof(int) * (size_t)N, cudaMemcpyDeviceToHost));
        /* the exponents, then the residues of the first and last rows of A and columns of B */
        for (long i = 0; i < M && !bad; i++)
            if (ea[i] != oz_exponent(a + i * p->lda, K, 1))
                bad = "exact check: an exponent of A's rows is not the model's (oz_exponent)";
        for (long j = 0; j < N && !bad; j++)
            if (eb[j] != oz_exponent(b + j * p->ldb, K, 1))
                bad = "exact check: an exponent of B's columns is not the model's (oz_exponent)";
        const long rows_a[2] = {0, M - 1}, cols_b[2] = {0, N - 1};
        for (int q = 0; q < 2 && !bad; q++) {
            bad = fused_residues_differ(plan, plan->ares, a, p->lda, M, rows_a[q], ea[rows_a[q]],
                                        why, sizeof why);
            if (!bad)
                bad = fused_residues_differ(plan, plan->bres, b, p->ldb, N, cols_b[q],
                                            eb[cols_b[q]], why, sizeof why);
        }
        /* C, bit for bit */
        if (!bad && model_mismatches(plan, p, a, b, c, why, sizeof why) != 0) bad = why;
    }
    free(a), free(b), free(c), free(ea);
    return bad;
}
extern "C" const char *hook_v6_ozaki2_fused_check(const tc_gemm_variant *v,
                                                  const tc_gemm_problem *p)
{
    return fused_check<oz_v6_ozaki2_fused_plan>(p);
}
extern "C" const char *hook_v7_ozaki2_deep_check(const tc_gemm_variant *v, const tc_gemm_problem *p)
{
    return fused_check<oz_v7_ozaki2_deep_plan>(p);
}
extern "C" const char *hook_v8_ozaki2_frac_check(const tc_gemm_variant *v, const tc_gemm_problem *p)
{
    return fused_check<oz_v8_ozaki2_frac_plan>(p);
}
extern "C" const char *hook_v9_ozaki2_onepass_check(const tc_gemm_variant *v,
                                                    const tc_gemm_problem *p)
{
    return fused_check<oz_v9_ozaki2_onepass_plan>(p);
}
