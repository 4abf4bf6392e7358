/* 04_wmma_tf32/wgmma_tf32.h - the launchers of wgmma_tf32.cu (Hopper, sm_90a), as hooks of the GEMM
 * driver's variant table (common/gemm_driver.h). A is M x K row-major, B is K x N column-major
 * (K-major: tf32 wgmma reads both operands along k), C is M x N row-major f32. v7 multiplies the
 * f32 data as TF32 (the tensor core ignores the 13 low bits), v8 (3xTF32) f32 values. */
#ifndef WGMMA_TF32_H
#define WGMMA_TF32_H

#include "check.h"
#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

const char *tf32_v7_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void tf32_v7_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
void tf32_v7_release(const tc_gemm_variant *v, tc_gemm_problem *p);
const char *tf32_v8_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void tf32_v8_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
void tf32_v8_release(const tc_gemm_variant *v, tc_gemm_problem *p);

#ifdef __cplusplus
}
#endif
#endif
