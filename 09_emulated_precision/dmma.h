/* 09_emulated_precision/dmma.h - the launchers of dmma.cu (v1_dmma: FP64 GEMM on the FP64 tensor
 * cores, mma.sync m8n8k4 f64; v1_dmma16: m16n8k16 f64 on sm_90), as hooks of the GEMM driver's
 * variant table. A M x K row-major, B K x N column-major, C M x N row-major, all f64. */
#ifndef DMMA_H
#define DMMA_H

#include "check.h"
#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

const char *dmma_v1_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void dmma_v1_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
/* v1_dmma16: mma.sync m16n8k16 f64 (sm_90), 64 x 64 tile */
const char *dmma16_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void dmma16_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
