/* 04_wmma_tf32/sgemm.h - the launcher of sgemm.cu (v0, FP32 on CUDA cores) as a hook of the GEMM
 * driver's variant table (common/gemm_driver.h). C = alpha*A*B + beta*C, A, B and C f32,
 * all row-major. */
#ifndef SGEMM_H
#define SGEMM_H

#include "check.h"
#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

void sgemm_v0_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
