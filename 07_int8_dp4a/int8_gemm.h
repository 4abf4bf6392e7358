/* 07_int8_dp4a/int8_gemm.h - the INT8 GEMM ladder's rungs as hooks of the GEMM driver's variant
 * table (common/gemm_driver.h): hooks.cu binds each rung (v1_int32.cuh .. v7_wgmma_s8_wide.cuh) to its
 * plain launcher. Every variant computes C = alpha*A*B + beta*C with A row-major M x K int8, B
 * column-major K x N int8 (stored N x K, K-contiguous: the layout the int8 tensor cores want), C
 * row-major M x N int32, with integer alpha and beta (the driver's float scalars converted to
 * int) and int32 arithmetic that wraps around modulo 2^32. */
#ifndef INT8_GEMM_H
#define INT8_GEMM_H

#include "check.h"
#include "gemm_driver.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* hooks.cu */
const char *hook_v1_int32_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v1_int32_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v2_dp4a_smem_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v2_dp4a_smem_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                              cudaStream_t stream);
const char *hook_v3_dp4a_regblock_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v3_dp4a_regblock_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                  cudaStream_t stream);
const char *hook_v4_wmma_s8_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v4_wmma_s8_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                            cudaStream_t stream);
const char *hook_v5_mma_s8_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v5_mma_s8_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v6_wgmma_s8_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v6_wgmma_s8_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                             cudaStream_t stream);
const char *hook_v7_wgmma_s8_wide_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v7_wgmma_s8_wide_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                  cudaStream_t stream);
/* frees the plan a prepare() stored (every rung) */
void hook_release_plan(const tc_gemm_variant *v, tc_gemm_problem *p);

/* i8_to_f32.cu: dst[i] = (float)src[i] for i < n, the int8 data as f32 for the SGEMM comparison
 * row */
void i8_to_f32_launch(const int8_t *src, float *dst, size_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
