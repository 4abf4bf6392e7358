/* 04_wmma_tf32/wmma_tf32.h - the WMMA TF32 ladder's rungs as hooks of the GEMM driver's variant
 * table (common/gemm_driver.h): hooks.cu binds each rung's plain launcher (v1_naive.cuh ..
 * v5_3xtf32.cuh, one file per rung) to the table in main.c. Every variant computes
 * C = alpha*A*B + beta*C with A, B and C f32 in memory, all row-major; v1..v4 multiply TF32
 * values, v5 (3xTF32) f32 values. */
#ifndef WMMA_TF32_H
#define WMMA_TF32_H

#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

const char *hook_v1_naive_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v1_naive_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v2_smem_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v2_smem_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v3_pipeline_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v3_pipeline_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                             cudaStream_t stream);
const char *hook_v4_dbuf_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v4_dbuf_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v5_3xtf32_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v5_3xtf32_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
/* every rung's release: frees the plan its prepare made */
void hook_release_plan(const tc_gemm_variant *v, tc_gemm_problem *p);

#ifdef __cplusplus
}
#endif
#endif
