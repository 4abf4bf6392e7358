/* common/cublas_gemm.h - cuBLAS and cuBLASLt GEMM as a variant of the GEMM driver.
 *
 * Chapter 01 is built from these; every other GEMM chapter uses one of them as the baseline row
 * of its bench ("cuBLAS on the same GPU, same precision, same size, same run"). The handle, the
 * cuBLASLt plan and the workspace are created in prepare(), outside the timed region. */
#ifndef TC_CUBLAS_GEMM_H
#define TC_CUBLAS_GEMM_H

#include "gemm_driver.h"

#include <cublasLt.h>
#include <cublas_v2.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    cudaDataType a_type, b_type, c_type;
    cublasComputeType_t compute;
    cublasMath_t math_mode; /* set on the handle before the call */
    int use_lt;             /* 1: cublasLtMatmul (FP8 needs it), 0: cublasGemmEx */
    /* the emulation strategy set on the handle for this mode (cuBLAS 13: an emulated compute
     * type or math mode emulates only when cuBLAS's heuristic says so, unless EAGER): 0 for
     * CUBLAS_EMULATION_STRATEGY_DEFAULT, 2 for EAGER */
    int emulation_strategy;
    /* 1: block-scaled FP8 (tc_gemm_problem's scales, TC_GEMM_SCALING_BLOCK128): A's 1 x 128
     * scales as cuBLASLt's VEC128_32F mode, B's 128 x 128 ones as BLK128x128_32F (cuBLASLt 12.9
     * and later, sm_90); the row is skipped with cuBLASLt's status when it has no kernel */
    int block_scaled;
} tc_cublas_mode;

/* Ready-made modes for the baselines of later chapters (C = A*B in any layouts). */
extern const tc_cublas_mode tc_cublas_f64;     /* FP64, COMPUTE_64F (DGEMM: FP64 tensor cores) */
extern const tc_cublas_mode tc_cublas_f32;     /* FP32 pedantic: CUDA cores, no tensor cores */
extern const tc_cublas_mode tc_cublas_tf32;    /* COMPUTE_32F_FAST_TF32 */
extern const tc_cublas_mode tc_cublas_f16f32;  /* f16 in, f32 accumulate and out */
extern const tc_cublas_mode tc_cublas_bf16f32; /* bf16 in, f32 accumulate and out */
extern const tc_cublas_mode tc_cublas_i8i32;   /* int8 in, int32 accumulate and out */
extern const tc_cublas_mode tc_cublas_e4m3f32; /* fp8 e4m3 in, f32 out, cublasLtMatmul (TN) */
/* the same, block-scaled: 1 x 128 scales of A, 128 x 128 scales of B */
extern const tc_cublas_mode tc_cublas_e4m3f32_b128;
extern const tc_cublas_mode tc_cublas_e4m3bf16_b128; /* the same with C in bf16 */

/* Variant hooks: impl must point to a tc_cublas_mode. */
const char *tc_cublas_prepare(const tc_gemm_variant *v, tc_gemm_problem *p);
void tc_cublas_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
void tc_cublas_release(const tc_gemm_variant *v, tc_gemm_problem *p);

/* "cuBLAS 13.1.0, cuBLASLt 130100" as an info line. */
void tc_cublas_print_version(FILE *f);
/* A tc_gemm_chapter init hook for chapters whose only library is cuBLAS: prints the version. */
void *tc_cublas_chapter_init(const tc_device_info *dev, FILE *info);
/* The same for a tc_program (common/program.h): prints the version. */
void tc_cublas_program_init(const tc_args *a, const tc_device_info *dev, FILE *info);

#ifdef __cplusplus
}
#endif
#endif
