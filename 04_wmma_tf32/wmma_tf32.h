/* 04_wmma_tf32/wmma_tf32.h - the launchers of wmma_tf32.cu, as hooks of the GEMM driver's variant
 * table (common/gemm_driver.h). Every variant computes C = alpha*A*B + beta*C with A, B and C
 * f32 in memory, all row-major; v1..v4 multiply TF32 values, v5 (3xTF32) f32 values. */
#ifndef WMMA_TF32_H
#define WMMA_TF32_H

#include "check.h"
#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

const char *tf32_v1_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void tf32_v1_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
void tf32_v2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *tf32_v3_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void tf32_v3_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *tf32_v4_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void tf32_v4_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *tf32_v5_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void tf32_v5_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
