/* 05_mma_ptx/mma_gemm.h - the launchers of mma_gemm.cu, as hooks of the GEMM driver's variant
 * table (common/gemm_driver.h). Every variant computes C = alpha*A*B + beta*C with A row-major
 * M x K, B column-major K x N (both K-contiguous), C row-major M x N f32; A and B f16 or bf16,
 * as the variant's impl says (a pointer to mma_in_f16 or mma_in_bf16). */
#ifndef MMA_GEMM_H
#define MMA_GEMM_H

#include "check.h"
#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { MMA_IN_F16, MMA_IN_BF16 } mma_input;
extern const mma_input mma_in_f16, mma_in_bf16; /* the impl of a variant row */

void mma_v1_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
void mma_v2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
void mma_v3_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *mma_v4_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void mma_v4_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *mma_v5_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void mma_v5_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *mma_v6_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void mma_v6_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
