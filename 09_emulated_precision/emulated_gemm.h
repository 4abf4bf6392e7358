/* 09_emulated_precision/emulated_gemm.h - chapter 09's rungs as hooks of the GEMM driver's variant
 * table (common/gemm_driver.h): hooks.cu binds each row of main.c's table to its rung's plain
 * launcher (v1_dmma.cuh .. v9_ozaki2_onepass.cuh). Every row: A M x K row-major, B K x N column-major
 * (stored N x K, K-contiguous), C M x N row-major; f64 for v1, v2, v5 and v6, f32 for v3 and v4. */
#ifndef EMULATED_GEMM_H
#define EMULATED_GEMM_H

#include "check.h"
#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The impl of a variant row: v2_ozaki_sN, its slice count s; v5_ozaki2_nN and v6_ozaki2_fused_nN,
 * its moduli count n and integer bits k; v3_bf16xN and v4_bf16xN_fast, their word products (3, 6 or 9) */
extern const int oz_slices_6, oz_slices_7, oz_slices_8;
typedef struct {
    int moduli, bits;
} oz2_variant;
extern const oz2_variant oz2_n14, oz2_n15, oz2_n16;
extern const int bf_products_3, bf_products_6, bf_products_9;

/* the chapter's init hook: the cuBLAS handle of the int8 and bf16 GEMMs (the chapter_ctx) */
void *hook_chapter_init(const tc_device_info *dev, FILE *info);
void hook_chapter_fini(void *ctx);

const char *hook_v1_dmma_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v1_dmma_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v1_dmma16_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v1_dmma16_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v2_ozaki_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v2_ozaki_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v3_bf16x_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v3_bf16x_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v4_bf16x_fast_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v4_bf16x_fast_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream);
const char *hook_v5_ozaki2_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v5_ozaki2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
const char *hook_v6_ozaki2_fused_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v6_ozaki2_fused_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                 cudaStream_t stream);
/* v6's exact check against ozaki_model.c (its row's check_state) */
const char *hook_v6_ozaki2_fused_check(const tc_gemm_variant *v, const tc_gemm_problem *p);
const char *hook_v7_ozaki2_deep_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v7_ozaki2_deep_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                cudaStream_t stream);
const char *hook_v7_ozaki2_deep_check(const tc_gemm_variant *v, const tc_gemm_problem *p);
const char *hook_v8_ozaki2_frac_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v8_ozaki2_frac_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                cudaStream_t stream);
const char *hook_v8_ozaki2_frac_check(const tc_gemm_variant *v, const tc_gemm_problem *p);
const char *hook_v9_ozaki2_onepass_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void hook_v9_ozaki2_onepass_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                   cudaStream_t stream);
const char *hook_v9_ozaki2_onepass_check(const tc_gemm_variant *v, const tc_gemm_problem *p);
/* frees the plan a prepare() stored: v1_dmma, v1_dmma16 */
void hook_release_plan(const tc_gemm_variant *v, tc_gemm_problem *p);
/* frees the plan and its device workspace: v2, v3, v4, v5, v6 */
void hook_release_workspace(const tc_gemm_variant *v, tc_gemm_problem *p);

#ifdef __cplusplus
}
#endif
#endif
