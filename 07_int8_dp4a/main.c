/* 07_int8_dp4a/main.c - the host driver of the INT8 GEMM ladder (one file per rung: v1_int32.cuh
 * .. v7_wgmma_s8_wide.cuh, bound to this table by hooks.cu).
 *
 * The variant table below is the whole ladder as the tools see it: --list prints it, --test runs
 * every row on the driver's test matrix (odd sizes, K not a multiple of 4, alpha = 2 and
 * beta = -1, padded leading dimensions, pointers one byte off), --bench times every row at 4096^3
 * and 8192^3 next to cuBLAS int8 in the same layout and run. The check is exact: an int8 GEMM
 * with int32 accumulation has one right answer.
 *
 * Layout of every row: A row-major, B column-major (K-contiguous: "TN", what IMMA wants), C
 * row-major int32 ("RCR" in --list). Besides cuBLAS int8 (the baseline of every row), one more
 * library row: cuBLAS SGEMM on the same int8 values converted to f32 (exact as long as the
 * partial sums stay below 2^24), the "why integers" comparison.
 *
 * Build and run
 *   make && build/bin/07_int8_gemm                   # the ladder at 4096^3
 *   build/bin/07_int8_gemm --list                    # the variants and their constraints
 *   build/bin/07_int8_gemm --variant v5_mma_s8 --size 8192x8192x8192
 *   build/bin/07_int8_gemm --bench                   # CSV rows for make bench
 *   build/bin/07_dp4a_basics                         # the ceilings these are judged by
 */
#include "cublas_gemm.h"
#include "int8_gemm.h"

#include <stdlib.h>
#include <string.h>

/* ---- cuBLAS SGEMM on the int8 data as f32 -----------------------------------------------------
 * The driver gives the variant int8 A and B (precision row "i8f32": int8 storage, f32 output).
 * prepare() converts them to f32 copies once, outside the timed region; launch() runs cuBLAS
 * FP32 (pedantic: CUDA cores, no TF32) on the copies, with the problem's layouts, leading
 * dimensions, alpha, beta and C. */
typedef struct {
    tc_gemm_variant v;
    tc_gemm_problem q;
    float *a, *b;
} sgemm_plan;

static size_t stored_elems(tc_layout layout, long rows, long cols, long ld)
{
    return (size_t)(layout == TC_ROW_MAJOR ? rows : cols) * (size_t)ld;
}

static const char *sgemm_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    sgemm_plan *plan = (sgemm_plan *)tc_xmalloc(sizeof *plan);
    memset(plan, 0, sizeof *plan);
    plan->v = *v;
    plan->v.impl = &tc_cublas_f32;
    plan->v.precision = "f32";
    plan->q = *p;
    plan->q.prec = tc_precision_get("f32");
    const size_t na = stored_elems(p->a_layout, p->M, p->K, p->lda);
    const size_t nb = stored_elems(p->b_layout, p->K, p->N, p->ldb);
    TC_CUDA_CHECK(cudaMalloc((void **)&plan->a, na * sizeof(float)));
    TC_CUDA_CHECK(cudaMalloc((void **)&plan->b, nb * sizeof(float)));
    i8_to_f32_launch((const int8_t *)p->d_a, plan->a, na, 0);
    i8_to_f32_launch((const int8_t *)p->d_b, plan->b, nb, 0);
    TC_LAUNCH_CHECK();
    TC_CUDA_CHECK(cudaDeviceSynchronize());
    plan->q.d_a = plan->a, plan->q.d_b = plan->b;
    p->plan = plan;
    return tc_cublas_prepare(&plan->v, &plan->q); /* the handle, outside the timed region */
}

static void sgemm_launch(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream)
{
    (void)v;
    sgemm_plan *plan = (sgemm_plan *)p->plan;
    tc_cublas_launch(&plan->v, &plan->q, stream);
}

static void sgemm_release(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    (void)v;
    sgemm_plan *plan = (sgemm_plan *)p->plan;
    if (!plan) return;
    tc_cublas_release(&plan->v, &plan->q);
    TC_CUDA_CHECK(cudaFree(plan->a));
    TC_CUDA_CHECK(cudaFree(plan->b));
    free(plan);
    p->plan = NULL;
}

// clang-format off
#define ROW TC_ROW_MAJOR
#define COL TC_COL_MAJOR
/* A row: what every row shares, then its own fields; a rung: int8 in, int32 out, against cuBLAS,
 * its plan freed by hook_release_plan (hooks.cu) */
#define INT8(...)                                                                                  \
    {.a_layout = ROW, .b_layout = COL, .c_layout = ROW, .problem = "INT8 GEMM", __VA_ARGS__}
#define RUNG(...)                                                                                  \
    INT8(.precision = "i8i32", .baseline = "cublas_i8i32", .release = hook_release_plan,           \
         __VA_ARGS__)

/* the run-time choice --test forces: v6's and v7's persistent grid of one cluster (every unit
 * walked) */
static const char *const one_cluster[] = {"1cluster"};

static const tc_gemm_variant variants[] = {
    INT8(.name = "cublas_i8i32", .precision = "i8i32", .min_cc = 75, .mult_k = 4,
         .align_ab = {.ptr = 4, .ld = 4}, .prepare = tc_cublas_prepare,
         .launch = tc_cublas_launch, .release = tc_cublas_release, .impl = &tc_cublas_i8i32,
         .description = "cuBLAS, int8 in, int32 accumulate and out (IMMA; the baseline)"),
    INT8(.name = "cublas_sgemm", .precision = "i8f32", .min_cc = 75, .baseline = "cublas_i8i32",
         .prepare = sgemm_prepare, .launch = sgemm_launch, .release = sgemm_release,
         .description = "cuBLAS FP32 SGEMM (CUDA cores) on the same values as f32: why integers"),
    RUNG(.name = "v1_int32",         .min_cc = 75,
         .prepare = hook_v1_int32_prepare, .launch = hook_v1_int32_launch,
         .description = "textbook 16x16 smem tiles, one output per thread, int32 IMAD"),
    RUNG(.name = "v2_dp4a_smem",     .min_cc = 75,
         .prepare = hook_v2_dp4a_smem_prepare, .launch = hook_v2_dp4a_smem_launch,
         .description = "16x16 tiles of 64-byte k, one output per thread, __dp4a on words"),
    RUNG(.name = "v3_dp4a_regblock", .min_cc = 75,
         .prepare = hook_v3_dp4a_regblock_prepare, .launch = hook_v3_dp4a_regblock_launch,
         .description = "128x128 tile, 8x8 outputs per thread, k-major smem, LDS.128"),
    RUNG(.name = "v4_wmma_s8",       .min_cc = 80,
         .prepare = hook_v4_wmma_s8_prepare, .launch = hook_v4_wmma_s8_launch,
         .description = "WMMA s8 16x16x16, 128x128, k-slab smem, 4-stage cp.async"),
    RUNG(.name = "v5_mma_s8",        .min_cc = 80,
         .prepare = hook_v5_mma_s8_prepare, .launch = hook_v5_mma_s8_launch,
         .description = "mma.sync m16n8k32 + ldmatrix, swizzle, 128x256, dbuf fragments"),
    RUNG(.name = "v6_wgmma_s8",      .min_cc = 90, .target = "90a", .mult_k = 16,
         .align_ab = {.ptr = 16, .ld = 16},
         .prepare = hook_v6_wgmma_s8_prepare, .launch = hook_v6_wgmma_s8_launch,
         .n_forced = 1, .forced_names = one_cluster,
         .description = "wgmma m64n128k32 s8, TMA ring, warp-specialised, persistent, clusters"),
    RUNG(.name = "v7_wgmma_s8_wide", .min_cc = 90, .target = "90a", .mult_k = 16,
         .align_ab = {.ptr = 16, .ld = 16},
         .prepare = hook_v7_wgmma_s8_wide_prepare, .launch = hook_v7_wgmma_s8_wide_launch,
         .n_forced = 1, .forced_names = one_cluster,
         .description = "v6 on 128x256 tiles: wgmma m64n256k32 s8, 4 stages of 48 KiB"),
};
// clang-format on

int main(int argc, char **argv)
{
    static const tc_gemm_chapter chapter = {
        .name = "07_int8_gemm",
        .summary = "the INT8 GEMM ladder (int8 in, int32 out, exact): int32 multiply-add, __dp4a, "
                   "register-blocked __dp4a, WMMA s8, mma.sync m16n8k32, wgmma",
        .variants = variants,
        .n_variants = TC_COUNT(variants),
        .min_cc = 75,
        .init = tc_cublas_chapter_init,
    };
    return tc_gemm_main(argc, argv, &chapter);
}
