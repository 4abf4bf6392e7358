/* 05_mma_ptx/mma/mma_gemm.h - the mma.sync ladder's rungs as hooks of the GEMM driver's variant
 * table (common/gemm_driver.h): hooks.cu binds the rungs v1..v6 to the plain launcher of each
 * rung file (v1_hand.cuh .. v5_dbuf.cuh in this folder; v6_epilogue: common/mma_v6_epilogue.cuh).
 * Every variant computes C = alpha*A*B + beta*C with A row-major M x K, B column-major K x N (both
 * K-contiguous), C row-major M x N f32; A and B f16 or bf16, as the variant's impl says (a
 * pointer to mma_in_f16 or mma_in_bf16). */
#ifndef MMA_GEMM_H
#define MMA_GEMM_H

#include "check.h"
#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { MMA_IN_F16, MMA_IN_BF16 } mma_input;
extern const mma_input mma_in_f16, mma_in_bf16; /* the impl of a variant row */

const char *hook_v1_hand_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v1_hand_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v2_ldmatrix_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v2_ldmatrix_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                             cudaStream_t stream);
const char *hook_v3_swizzle_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v3_swizzle_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                            cudaStream_t stream);
const char *hook_v4_pipeline_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v4_pipeline_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                             cudaStream_t stream);
const char *hook_v5_dbuf_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v5_dbuf_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v6_epilogue_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v6_epilogue_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                             cudaStream_t stream);

/* frees the plan a prepare() stored (every rung) */
void hook_release_plan(const tc_gemm_variant *v, tc_gemm_problem *p);

#ifdef __cplusplus
}
#endif
#endif
