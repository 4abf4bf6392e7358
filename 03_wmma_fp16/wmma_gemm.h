/* 03_wmma_fp16/wmma_gemm.h - the WMMA ladder's rungs as hooks of the GEMM driver's variant table
 * (common/gemm_driver.h): hooks.cu binds each rung's plain launcher (v1_naive.cuh .. v5_dbuf.cuh,
 * one file per rung) to the table in main.c. Every variant computes C = alpha*A*B + beta*C with
 * A, B f16 and C f32, all row-major. */
#ifndef WMMA_GEMM_H
#define WMMA_GEMM_H

#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

const char *hook_v1_naive_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v1_naive_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v2_smem_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v2_smem_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v3_regblock_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v3_regblock_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                             cudaStream_t stream);
const char *hook_v4_pipeline_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v4_pipeline_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                             cudaStream_t stream);
const char *hook_v5_dbuf_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v5_dbuf_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
/* every rung's release: frees the plan its prepare made */
void hook_release_plan(const tc_gemm_variant *v, tc_gemm_problem *p);

#ifdef __cplusplus
}
#endif
#endif
