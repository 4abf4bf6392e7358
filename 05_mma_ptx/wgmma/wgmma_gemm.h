/* 05_mma_ptx/wgmma/wgmma_gemm.h - the Hopper ladder's rungs as hooks of the GEMM driver's variant
 * table (common/gemm_driver.h): hooks_f16.cu binds the f16/bf16 rungs v1..v6,
 * hooks_fp8_v1_promote.cu .. hooks_fp8_v9_scale_loads.cu the FP8 rungs fp8_v1..fp8_v9 (a file
 * each), each to the plain launcher of its rung file (v4_cluster: common/wgmma_v4_cluster.cuh;
 * the others in this folder). Every variant computes
 * C = alpha*A*B + beta*C with A row-major M x K, B column-major K x N (both K-contiguous), C
 * row-major M x N f32; A and B are f16, bf16, e4m3 or e5m2 as the variant's impl says (a pointer
 * to wgmma_in_f16, wgmma_in_bf16, wgmma_in_e4m3 or wgmma_in_e5m2). */
#ifndef WGMMA_GEMM_H
#define WGMMA_GEMM_H

#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { WGMMA_IN_F16, WGMMA_IN_BF16, WGMMA_IN_E4M3, WGMMA_IN_E5M2 } wgmma_input;
/* the impl of a variant row */
extern const wgmma_input wgmma_in_f16, wgmma_in_bf16, wgmma_in_e4m3, wgmma_in_e5m2;

/* the f16/bf16 track (hooks_f16.cu) */
const char *hook_v1_wgmma_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v1_wgmma_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v2_tma_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v2_tma_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v3_warpspec_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v3_warpspec_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                             cudaStream_t stream);
const char *hook_v4_cluster_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v4_cluster_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                            cudaStream_t stream);
const char *hook_v5_tmastore_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v5_tmastore_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                             cudaStream_t stream);
const char *hook_v6_streamk_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v6_streamk_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                            cudaStream_t stream);
void hook_v6_streamk_release(const tc_gemm_variant *v, tc_gemm_problem *p);
const char *hook_v6_streamk_check_state(const tc_gemm_variant *v, const tc_gemm_problem *p);

/* the FP8 track (hooks_fp8_v1_promote.cu .. hooks_fp8_v9_scale_loads.cu) */
const char *hook_fp8_v1_promote_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_fp8_v1_promote_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                cudaStream_t stream);
const char *hook_fp8_v2_pairs_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_fp8_v2_pairs_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                              cudaStream_t stream);
const char *hook_fp8_v3_wide_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_fp8_v3_wide_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                             cudaStream_t stream);
const char *hook_fp8_v4_tmastore_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
const char *hook_fp8_v6_scales_tma_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_fp8_v6_scales_tma_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                   cudaStream_t stream);
const char *hook_fp8_v7_scale_spans_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_fp8_v7_scale_spans_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                    cudaStream_t stream);
const char *hook_fp8_v8_tmastore_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_fp8_v8_tmastore_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                 cudaStream_t stream);
const char *hook_fp8_v9_scale_loads_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_fp8_v9_scale_loads_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                 cudaStream_t stream);
const char *hook_fp8_v5_blockscaled_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_fp8_v5_blockscaled_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                    cudaStream_t stream);
void hook_fp8_v4_tmastore_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                 cudaStream_t stream);

/* frees the plan a prepare() stored (every rung but v6, whose release frees its workspace too) */
void hook_release_plan(const tc_gemm_variant *v, tc_gemm_problem *p);

#ifdef __cplusplus
}
#endif
#endif
