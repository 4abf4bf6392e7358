/* 04_wmma_tf32/mma_tf32.h - the hooks of mma_tf32.cu (v6_mma_tf32) for the GEMM
 * driver's variant table (common/gemm_driver.h). It computes C = alpha*A*B + beta*C with A
 * row-major M x K, B column-major K x N (both K-contiguous: "K-major"), C row-major M x N, all
 * f32 in memory; A and B are multiplied as tf32 (their 13 low mantissa bits ignored). */
#ifndef MMA_TF32_H
#define MMA_TF32_H

#include "check.h"
#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

const char *tf32_v6_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void tf32_v6_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
void tf32_v6_release(const tc_gemm_variant *v, tc_gemm_problem *p);

#ifdef __cplusplus
}
#endif
#endif
