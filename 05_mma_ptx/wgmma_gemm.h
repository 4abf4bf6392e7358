/* 05_mma_ptx/wgmma_gemm.h - the launchers of wgmma_gemm.cu and wgmma_fp8.cu (part 2 of chapter
 * 05, sm_90a), as hooks of the GEMM driver's variant table (common/gemm_driver.h). Every variant
 * computes C = alpha*A*B + beta*C with A row-major M x K, B column-major K x N (both
 * K-contiguous), C row-major M x N f32; A and B f16 or bf16 (v1..v4, v7, v10, v11) or fp8 (v5,
 * v6, v8, v9, v12), as the variant's impl says (a pointer to wgmma_in_f16, wgmma_in_bf16,
 * wgmma_in_e4m3 or wgmma_in_e5m2). */
#ifndef WGMMA_GEMM_H
#define WGMMA_GEMM_H

#include "check.h"
#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { WGMMA_IN_F16, WGMMA_IN_BF16, WGMMA_IN_E4M3, WGMMA_IN_E5M2 } wgmma_input;
/* the impl of a variant row */
extern const wgmma_input wgmma_in_f16, wgmma_in_bf16, wgmma_in_e4m3, wgmma_in_e5m2;

const char *wgmma_v1_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v1_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *wgmma_v2_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *wgmma_v3_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v3_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *wgmma_v4_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v4_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
/* v5: fp8 (e4m3 or e5m2), v4's pipeline with 128 x 128 tiles and an f32 promotion per k-tile */
const char *wgmma_v5_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v5_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *wgmma_v6_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v6_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
/* v7: f16/bf16, v4 with a stream-K last round */
const char *wgmma_v7_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v7_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
/* v8, v9: fp8, v6 on 128- or 144-wide tiles; v9 stores C through shared memory */
const char *wgmma_v8_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v8_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *wgmma_v9_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v9_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
/* v10, v11 (f16/bf16): v4 and v7 with C out through TMA stores; v12 (fp8): v8 with them */
const char *wgmma_v10_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v10_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *wgmma_v11_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v11_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *wgmma_v12_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void wgmma_v12_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
/* frees what the prepare() of v2..v12 made (the tensor maps, the grid, stream-K's memory) */
void wgmma_release(const tc_gemm_variant *v, tc_gemm_problem *p);

#ifdef __cplusplus
}
#endif
#endif
