/* common/cublas_gemm.c - see cublas_gemm.h. */
#include "cublas_gemm.h"

#include "check.h"
#include "convert.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const tc_cublas_mode tc_cublas_f64 = {.a_type = CUDA_R_64F,
                                      .b_type = CUDA_R_64F,
                                      .c_type = CUDA_R_64F,
                                      .compute = CUBLAS_COMPUTE_64F,
                                      .math_mode = CUBLAS_DEFAULT_MATH};
const tc_cublas_mode tc_cublas_f32 = {.a_type = CUDA_R_32F,
                                      .b_type = CUDA_R_32F,
                                      .c_type = CUDA_R_32F,
                                      .compute = CUBLAS_COMPUTE_32F_PEDANTIC,
                                      .math_mode = CUBLAS_PEDANTIC_MATH};
const tc_cublas_mode tc_cublas_tf32 = {.a_type = CUDA_R_32F,
                                       .b_type = CUDA_R_32F,
                                       .c_type = CUDA_R_32F,
                                       .compute = CUBLAS_COMPUTE_32F_FAST_TF32,
                                       .math_mode = CUBLAS_DEFAULT_MATH};
const tc_cublas_mode tc_cublas_f16f32 = {.a_type = CUDA_R_16F,
                                         .b_type = CUDA_R_16F,
                                         .c_type = CUDA_R_32F,
                                         .compute = CUBLAS_COMPUTE_32F,
                                         .math_mode = CUBLAS_DEFAULT_MATH};
const tc_cublas_mode tc_cublas_bf16f32 = {.a_type = CUDA_R_16BF,
                                          .b_type = CUDA_R_16BF,
                                          .c_type = CUDA_R_32F,
                                          .compute = CUBLAS_COMPUTE_32F,
                                          .math_mode = CUBLAS_DEFAULT_MATH};
const tc_cublas_mode tc_cublas_e4m3f32 = {.a_type = CUDA_R_8F_E4M3,
                                          .b_type = CUDA_R_8F_E4M3,
                                          .c_type = CUDA_R_32F,
                                          .compute = CUBLAS_COMPUTE_32F,
                                          .math_mode = CUBLAS_DEFAULT_MATH,
                                          .use_lt = 1};
const tc_cublas_mode tc_cublas_e4m3f32_b128 = {.a_type = CUDA_R_8F_E4M3,
                                               .b_type = CUDA_R_8F_E4M3,
                                               .c_type = CUDA_R_32F,
                                               .compute = CUBLAS_COMPUTE_32F,
                                               .math_mode = CUBLAS_DEFAULT_MATH,
                                               .use_lt = 1,
                                               .block_scaled = 1};
const tc_cublas_mode tc_cublas_e4m3bf16_b128 = {.a_type = CUDA_R_8F_E4M3,
                                                .b_type = CUDA_R_8F_E4M3,
                                                .c_type = CUDA_R_16BF,
                                                .compute = CUBLAS_COMPUTE_32F,
                                                .math_mode = CUBLAS_DEFAULT_MATH,
                                                .use_lt = 1,
                                                .block_scaled = 1};
const tc_cublas_mode tc_cublas_i8i32 = {.a_type = CUDA_R_8I,
                                        .b_type = CUDA_R_8I,
                                        .c_type = CUDA_R_32I,
                                        .compute = CUBLAS_COMPUTE_32I,
                                        .math_mode = CUBLAS_DEFAULT_MATH};

/* One handle per process, made on first use (in prepare, outside any timed region). */
static cublasHandle_t handle;
static cublasLtHandle_t lt_handle;
static void *workspace;
static const size_t workspace_bytes = 32u << 20;

/* At exit (before the CUDA runtime tears the context down: its own handler was registered
 * earlier, so it runs later), so that compute-sanitizer's leak check sees nothing left. */
static void release_handles(void)
{
    cublasLtDestroy(lt_handle);
    cublasDestroy(handle);
    cudaFree(workspace);
}

static void ensure_handles(void)
{
    if (handle) return;
    atexit(release_handles);
    TC_CUBLAS_CHECK(cublasCreate(&handle));
    TC_CUBLAS_CHECK(cublasLtCreate(&lt_handle));
    TC_CUDA_CHECK(cudaMalloc(&workspace, workspace_bytes));
    TC_CUBLAS_CHECK(cublasSetWorkspace(handle, workspace, workspace_bytes));
}

void tc_cublas_print_version(FILE *f)
{
    int major = 0, minor = 0, patch = 0;
    cublasGetProperty(MAJOR_VERSION, &major);
    cublasGetProperty(MINOR_VERSION, &minor);
    cublasGetProperty(PATCH_LEVEL, &patch);
    tc_info_line(f, "cuBLAS", "%d.%d.%d (cuBLASLt %zu)", major, minor, patch, cublasLtGetVersion());
}

void *tc_cublas_chapter_init(const tc_device_info *dev, FILE *info)
{
    (void)dev;
    tc_cublas_print_version(info);
    return NULL;
}

void tc_cublas_program_init(const tc_args *a, const tc_device_info *dev, FILE *info)
{
    (void)a, (void)dev;
    tc_cublas_print_version(info);
}

/* The library is column-major. A row-major matrix is the column-major storage of its transpose,
 * so each operand's layout becomes a transpose flag. A row-major C is produced as the
 * column-major C^T = B^T A^T: swap the operands and the roles of M and N. */
typedef struct {
    cublasOperation_t op1, op2;
    int m, n;
    const void *x1, *x2;
    cudaDataType t1, t2;
    int ld1, ld2;
} col_major_call;

static col_major_call to_col_major(const tc_cublas_mode *mode, const tc_gemm_problem *p)
{
    col_major_call c;
    if (p->c_layout == TC_COL_MAJOR) {
        c.op1 = p->a_layout == TC_ROW_MAJOR ? CUBLAS_OP_T : CUBLAS_OP_N;
        c.op2 = p->b_layout == TC_ROW_MAJOR ? CUBLAS_OP_T : CUBLAS_OP_N;
        c.m = p->M, c.n = p->N;
        c.x1 = p->d_a, c.x2 = p->d_b;
        c.t1 = mode->a_type, c.t2 = mode->b_type;
        c.ld1 = (int)p->lda, c.ld2 = (int)p->ldb;
    } else {
        c.op1 = p->b_layout == TC_ROW_MAJOR ? CUBLAS_OP_N : CUBLAS_OP_T;
        c.op2 = p->a_layout == TC_ROW_MAJOR ? CUBLAS_OP_N : CUBLAS_OP_T;
        c.m = p->N, c.n = p->M;
        c.x1 = p->d_b, c.x2 = p->d_a;
        c.t1 = mode->b_type, c.t2 = mode->a_type;
        c.ld1 = (int)p->ldb, c.ld2 = (int)p->lda;
    }
    return c;
}

/* cuBLASLt plan for the FP8 path: descriptors and the heuristic's first algorithm. */
typedef struct {
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo;
    int swap; /* C row-major: computed as C^T = B^T A^T, the operands swapped */
} lt_plan;

const char *tc_cublas_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    const tc_cublas_mode *mode = (const tc_cublas_mode *)v->impl;
    ensure_handles();
    /* int8 GEMMs: cuBLAS answers NOT_SUPPORTED unless lda, ldb are multiples of 4 (probed on
     * cuBLAS 13.1) and, we assume, the pointers 4-byte aligned */
    if (mode->compute == CUBLAS_COMPUTE_32I || mode->compute == CUBLAS_COMPUTE_32I_PEDANTIC)
        if (p->lda % 4 || p->ldb % 4 || (uintptr_t)p->d_a % 4 || (uintptr_t)p->d_b % 4)
            return TC_GEMM_SKIP "cuBLAS int8 needs lda, ldb multiples of 4 and 4-byte aligned A, B";
    if (!mode->use_lt) return NULL;
    if ((uintptr_t)p->d_a % 16 || (uintptr_t)p->d_b % 16 || (uintptr_t)p->d_c % 16 || p->lda % 16 ||
        p->ldb % 16 || p->ldc % 16)
        return TC_GEMM_SKIP "cuBLASLt FP8 needs 16-byte aligned A, B, C and leading dimensions "
                            "multiples of 16";

    /* FP8 on Hopper and Ada: only the "TN" form, i.e. both operands K-contiguous (A row-major,
     * B column-major). A row-major C is the column-major C^T = B^T A^T, again TN with the
     * operands swapped. */
    if (p->a_layout != TC_ROW_MAJOR || p->b_layout != TC_COL_MAJOR)
        return "cuBLASLt FP8 needs A row-major and B column-major (TN)";
    lt_plan *plan = (lt_plan *)tc_xmalloc(sizeof *plan);
    plan->swap = p->c_layout == TC_ROW_MAJOR;
    const long m = plan->swap ? p->N : p->M, n = plan->swap ? p->M : p->N;
    const long ld1 = plan->swap ? p->ldb : p->lda, ld2 = plan->swap ? p->lda : p->ldb;
    cublasOperation_t opT = CUBLAS_OP_T, opN = CUBLAS_OP_N;
    TC_CUBLAS_CHECK(cublasLtMatmulDescCreate(&plan->desc, mode->compute, CUDA_R_32F));
    TC_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof opT));
    TC_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_TRANSB, &opN, sizeof opN));
    if (mode->block_scaled) {
        /* the library's A is our B when C is row-major (swap), and its B our A */
#if CUBLAS_VER_MAJOR > 12 || (CUBLAS_VER_MAJOR == 12 && CUBLAS_VER_MINOR >= 9)
        const int32_t vec128 = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F,
                      blk128 = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
        const int32_t mode_1 = plan->swap ? blk128 : vec128, mode_2 = plan->swap ? vec128 : blk128;
        const void *scale_1 = plan->swap ? p->d_scale_b : p->d_scale_a,
                   *scale_2 = plan->swap ? p->d_scale_a : p->d_scale_b;
        TC_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(
            plan->desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode_1, sizeof mode_1));
        TC_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(
            plan->desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode_2, sizeof mode_2));
        TC_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(
            plan->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_1, sizeof scale_1));
        TC_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(
            plan->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_2, sizeof scale_2));
#else
        cublasLtMatmulDescDestroy(plan->desc);
        free(plan);
        return TC_GEMM_SKIP "block-scaled FP8 needs cuBLASLt 12.9 or later";
#endif
    }
    TC_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->la, plan->swap ? mode->b_type : mode->a_type,
                                               (uint64_t)p->K, (uint64_t)m, ld1));
    TC_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->lb, plan->swap ? mode->a_type : mode->b_type,
                                               (uint64_t)p->K, (uint64_t)n, ld2));
    TC_CUBLAS_CHECK(
        cublasLtMatrixLayoutCreate(&plan->lc, mode->c_type, (uint64_t)m, (uint64_t)n, p->ldc));
    cublasLtMatmulPreference_t pref;
    TC_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    TC_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes, sizeof workspace_bytes));
    /* the heuristic assumes 256-byte aligned matrices unless told otherwise: tell it what the
     * pointers are (the library's A is our B when swapped), so that a C 16 bytes off gets an
     * algorithm that takes it instead of one that refuses it at launch */
    const void *lib_a = plan->swap ? p->d_b : p->d_a, *lib_b = plan->swap ? p->d_a : p->d_b;
    const struct {
        cublasLtMatmulPreferenceAttributes_t attr;
        const void *ptr;
    } aligns[] = {{.attr = CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, .ptr = lib_a},
                  {.attr = CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, .ptr = lib_b},
                  {.attr = CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, .ptr = p->d_c},
                  {.attr = CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, .ptr = p->d_c}};
    for (size_t i = 0; i < sizeof aligns / sizeof aligns[0]; i++) {
        uint32_t bytes = 256;
        while (bytes > 1 && (uintptr_t)aligns[i].ptr % bytes) bytes /= 2;
        TC_CUBLAS_CHECK(
            cublasLtMatmulPreferenceSetAttribute(pref, aligns[i].attr, &bytes, sizeof bytes));
    }
    cublasLtMatmulHeuristicResult_t heur;
    int found = 0;
    cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt_handle, plan->desc, plan->la, plan->lb,
                                                       plan->lc, plan->lc, pref, 1, &heur, &found);
    TC_CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref));
    p->plan = plan;
    if (mode->block_scaled && (st != CUBLAS_STATUS_SUCCESS || found == 0)) {
        static char why[160];
        snprintf(why, sizeof why,
                 TC_GEMM_SKIP "cuBLASLt has no block-scaled FP8 algorithm here (its heuristic: "
                              "%s, %d found)",
                 cublasGetStatusName(st), found);
        return why;
    }
    if (st != CUBLAS_STATUS_SUCCESS || found == 0)
        return TC_GEMM_SKIP "cuBLASLt has no FP8 algorithm for this layout (dimensions and leading "
                            "dimensions multiples of 16, 16-byte aligned pointers)";
    plan->algo = heur.algo;
    return NULL;
}

void tc_cublas_release(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    (void)v;
    lt_plan *plan = (lt_plan *)p->plan;
    if (!plan) return;
    cublasLtMatrixLayoutDestroy(plan->la);
    cublasLtMatrixLayoutDestroy(plan->lb);
    cublasLtMatrixLayoutDestroy(plan->lc);
    cublasLtMatmulDescDestroy(plan->desc);
    free(plan);
    p->plan = NULL;
}

void tc_cublas_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream)
{
    const tc_cublas_mode *mode = (const tc_cublas_mode *)v->impl;
    if (mode->use_lt) {
        const lt_plan *plan = (const lt_plan *)p->plan;
        TC_CUBLAS_CHECK(
            cublasLtMatmul(lt_handle, plan->desc, &p->alpha, plan->swap ? p->d_b : p->d_a, plan->la,
                           plan->swap ? p->d_a : p->d_b, plan->lb, &p->beta, p->d_c, plan->lc,
                           p->d_c, plan->lc, &plan->algo, workspace, workspace_bytes, stream));
        return;
    }
    TC_CUBLAS_CHECK(cublasSetStream(handle, stream));
    TC_CUBLAS_CHECK(cublasSetMathMode(handle, mode->math_mode));
#if CUBLAS_VER_MAJOR >= 13
    TC_CUBLAS_CHECK(
        cublasSetEmulationStrategy(handle, (cublasEmulationStrategy_t)mode->emulation_strategy));
#endif
    col_major_call c = to_col_major(mode, p);
    /* alpha and beta have the compute type's scalar type */
    int32_t ia = (int32_t)p->alpha, ib = (int32_t)p->beta;
    uint16_t ha = tc_f32_to_f16(p->alpha), hb = tc_f32_to_f16(p->beta);
    double da = p->alpha, db = p->beta;
    const void *alpha = &p->alpha, *beta = &p->beta;
    if (mode->compute == CUBLAS_COMPUTE_32I || mode->compute == CUBLAS_COMPUTE_32I_PEDANTIC)
        alpha = &ia, beta = &ib;
    else if (mode->compute == CUBLAS_COMPUTE_16F || mode->compute == CUBLAS_COMPUTE_16F_PEDANTIC)
        alpha = &ha, beta = &hb;
    else if (mode->c_type == CUDA_R_64F) /* COMPUTE_64F, _PEDANTIC, _EMULATED_FIXEDPOINT */
        alpha = &da, beta = &db;
    TC_CUBLAS_CHECK(cublasGemmEx(handle, c.op1, c.op2, c.m, c.n, p->K, alpha, c.x1, c.t1, c.ld1,
                                 c.x2, c.t2, c.ld2, beta, p->d_c, mode->c_type, (int)p->ldc,
                                 mode->compute, CUBLAS_GEMM_DEFAULT));
}
