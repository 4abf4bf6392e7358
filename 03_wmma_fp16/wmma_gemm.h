/* 03_wmma_fp16/wmma_gemm.h - the launchers of wmma_gemm.cu, as hooks of the GEMM driver's variant
 * table (common/gemm_driver.h). Every variant computes C = alpha*A*B + beta*C with A, B f16 and
 * C f32, all row-major. */
#ifndef WMMA_GEMM_H
#define WMMA_GEMM_H

#include "check.h"
#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

const char *wmma_v1_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wmma_v1_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
void wmma_v2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *wmma_v3_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wmma_v3_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *wmma_v4_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wmma_v4_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *wmma_v5_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wmma_v5_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
