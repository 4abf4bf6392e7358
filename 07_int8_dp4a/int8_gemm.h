/* 07_int8_dp4a/int8_gemm.h - the launchers of int8_gemm.cu, as hooks of the GEMM driver's variant
 * table (common/gemm_driver.h). Every variant computes C = alpha*A*B + beta*C with A row-major
 * M x K int8, B column-major K x N int8 (stored N x K, K-contiguous: the layout the int8 tensor
 * cores want), C row-major M x N int32, with integer alpha and beta (the driver's float scalars
 * converted to int) and int32 arithmetic that wraps around modulo 2^32. */
#ifndef INT8_GEMM_H
#define INT8_GEMM_H

#include "check.h"
#include "gemm_driver.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void i8_v1_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
void i8_v2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
void i8_v3_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *i8_v4_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void i8_v4_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *i8_v5_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void i8_v5_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);

/* dst[i] = (float)src[i] for i < n: the int8 data as f32 for the SGEMM comparison row */
void i8_to_f32_launch(const int8_t *src, float *dst, size_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
