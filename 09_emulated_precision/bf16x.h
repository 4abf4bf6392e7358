/* 09_emulated_precision/bf16x.h - the launchers of bf16x.cu (v3_bf16xN: an FP32 GEMM from bf16
 * tensor-core products), as hooks of the GEMM driver's variant table. A M x K row-major, B K x N
 * column-major, C M x N row-major, all f32. The variant's impl points to its largest diagonal
 * (3: 3 products, 4: 6 products, 6: all 9). */
#ifndef BF16X_H
#define BF16X_H

#include "check.h"
#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const int bf_terms_3, bf_terms_6, bf_terms_9; /* the impl of a variant row */

const char *bf_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void bf_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
void bf_release(const tc_gemm_variant *v, tc_gemm_problem *p);
/* v4_bf16xN_fast (sm_90a): the same words on a wgmma GEMM that adds each k-tile's partial sum to
 * an f32 total on the CUDA cores (impl: bf_terms_6 or bf_terms_9); release: bf_release */
const char *bf_fast_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void bf_fast_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
