/* 09_emulated_precision/ozaki.h - the launchers of ozaki.cu (v2_ozaki_sN: FP64 GEMM from int8
 * tensor cores), as hooks of the GEMM driver's variant table (common/gemm_driver.h). A is M x K
 * row-major, B is K x N column-major, C is M x N row-major, all f64. The variant's impl points to
 * its slice count (an int, 3 .. OZ_MAX_SLICES). */
#ifndef OZAKI_H
#define OZAKI_H

#include "check.h"
#include "gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const int oz_slices_6, oz_slices_7, oz_slices_8; /* the impl of a variant row */

/* the chapter's init hook: the cuBLAS handle the int8 (and bf16) GEMMs run on (the chapter_ctx) */
void *oz_chapter_init(const tc_device_info *dev, FILE *info);
void oz_chapter_fini(void *ctx);
/* that handle, as a void pointer to a cublasHandle_t's value (cast it back in C++ code) */
void *oz_cublas_handle(void *chapter_ctx);

/* v5_ozaki2_nN (scheme II): the variant's impl points to its moduli count and integer bits; the
 * hooks call the rung's plain launcher (v5_ozaki2.cuh) */
typedef struct {
    int moduli, bits;
} oz2_variant;
extern const oz2_variant oz2_n14, oz2_n15, oz2_n16;

const char *oz_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void oz_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
void oz_release(const tc_gemm_variant *v, tc_gemm_problem *p);
const char *oz2_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void oz2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
void oz2_release(const tc_gemm_variant *v, tc_gemm_problem *p);

#ifdef __cplusplus
}
#endif
#endif
