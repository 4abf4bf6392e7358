/* 05_mma_ptx/wgmma_gemm.h - the launchers of wgmma_gemm.cu (part 2 of chapter 05, sm_90a), as hooks
 * of the GEMM driver's variant table (common/gemm_driver.h). Every variant computes
 * C = alpha*A*B + beta*C with A row-major M x K, B column-major K x N (both K-contiguous), C
 * row-major M x N f32; A and B f16 or bf16, as the variant's impl says (a pointer to wgmma_in_f16
 * or wgmma_in_bf16). */
#ifndef WGMMA_GEMM_H
#define WGMMA_GEMM_H

#include "check.h"
#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { WGMMA_IN_F16, WGMMA_IN_BF16 } wgmma_input;
extern const wgmma_input wgmma_in_f16, wgmma_in_bf16; /* the impl of a variant row */

const char *wgmma_v1_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v1_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *wgmma_v2_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *wgmma_v3_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v3_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *wgmma_v4_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v4_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
/* frees what the prepare() of v2..v4 made (the tensor maps and the grid) */
void wgmma_release(const tc_gemm_variant *v, tc_gemm_problem *p);

#ifdef __cplusplus
}
#endif
#endif
