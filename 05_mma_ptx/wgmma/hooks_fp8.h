/* 05_mma_ptx/wgmma/hooks_fp8.h - what the FP8 rungs' hook files (hooks_fp8_v1_promote.cu ..
 * hooks_fp8_v9_scale_loads.cu) share: the row's input type, a plan in host memory that can hold
 * CUtensorMaps, and the block-scaled rungs' choice of types and their prepare(). Host code; one
 * hook file per rung, so that a change to one rung recompiles that rung alone (make, and each
 * mutant of make mutants). Nothing here is the lesson. */
#ifndef WGMMA_HOOKS_FP8_H
#define WGMMA_HOOKS_FP8_H

#include "gemm_hooks.h"
#include "wgmma_gemm.h"

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <stdlib.h>

static inline bool is_e5m2(const tc_gemm_variant *v)
{
    return *(const wgmma_input *)v->impl == WGMMA_IN_E5M2;
}

/* A plan in host memory that holds CUtensorMaps (128-byte aligned), or NULL */
template <class Plan> static Plan *new_plan() { return (Plan *)tma_host_calloc(sizeof(Plan)); }

/* C's type is the row's precision's output: f32, or bf16 */
static inline bool bf16_out(const tc_gemm_problem *p) { return p->prec->out == TC_BF16; }

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

#endif /* WGMMA_HOOKS_FP8_H */
