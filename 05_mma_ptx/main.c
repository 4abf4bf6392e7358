/* 05_mma_ptx/main.c - the host driver of the mma.sync GEMM ladder (kernels in mma_gemm.cu).
 *
 * The variant table below is the whole ladder as the tools see it: --list prints it, --test runs
 * every row on the test matrix (odd sizes, alpha/beta != (1, 0)), --bench times every row at
 * 4096^3 and 8192^3 next to cuBLAS in the same layout, precision and run. The ladder runs twice:
 * f16 inputs (problem "FP16 GEMM") and bf16 inputs ("BF16 GEMM"), the same kernels.
 *
 * Layout of every row: A row-major, B column-major, C row-major f32 ("RCR" in --list).
 *
 * Build and run
 *   make && build/bin/05_mma_gemm                    # the ladder at 4096^3
 *   build/bin/05_mma_gemm --list                     # the variants and their constraints
 *   build/bin/05_mma_gemm --variant v5_dbuf --size 8192x8192x8192
 *   build/bin/05_mma_gemm --bench                    # CSV rows for make bench
 *   build/bin/05_mma_probe                           # the mma.sync ceiling these are judged by
 */
#include "cublas_gemm.h"
#include "mma_gemm.h"

// clang-format off
#define ROW TC_ROW_MAJOR
#define COL TC_COL_MAJOR
/* A cuBLAS baseline, a rung of the f16 ladder, its bf16 twin (NAME "_bf16"): what each shares,
 * then its own fields */
#define CUBLAS(...)                                                                                \
    {.min_cc = 80, .a_layout = ROW, .b_layout = COL, .c_layout = ROW,                              \
     .prepare = tc_cublas_prepare, .launch = tc_cublas_launch, .release = tc_cublas_release,       \
     __VA_ARGS__}
#define F16(NAME, ...)                                                                             \
    {.name = NAME, .precision = "f16f32", .min_cc = 80, .a_layout = ROW, .b_layout = COL,         \
     .c_layout = ROW, .problem = "FP16 GEMM", .baseline = "cublas_f16f32", .impl = &mma_in_f16,   \
     __VA_ARGS__}
#define BF16(NAME, ...)                                                                            \
    {.name = NAME "_bf16", .precision = "bf16f32", .min_cc = 80, .a_layout = ROW, .b_layout = COL,\
     .c_layout = ROW, .problem = "BF16 GEMM", .baseline = "cublas_bf16f32", .impl = &mma_in_bf16, \
     __VA_ARGS__}
#define LADDER(X)                                                                                  \
    X("v1_hand",     .launch = mma_v1_launch,                                                      \
      .description = "128x128, 64x32 warps, fragments by hand from plain smem"),                   \
    X("v2_ldmatrix", .launch = mma_v2_launch,                                                      \
      .description = "v1 with ldmatrix.x4 fragments (plain smem: 4-way conflicts)"),               \
    X("v3_swizzle",  .launch = mma_v3_launch,                                                      \
      .description = "v2 with an XOR-swizzled smem layout: no bank conflicts"),                    \
    X("v4_pipeline", .prepare = mma_v4_prepare, .launch = mma_v4_launch,                           \
      .description = "128x256, 64x64 warps, 4-stage cp.async ring, 1 barrier/k-tile"),             \
    X("v5_dbuf",     .prepare = mma_v5_prepare, .launch = mma_v5_launch,                           \
      .description = "v4 + double-buffered fragments, early barrier, grouped order"),              \
    X("v6_epilogue", .prepare = mma_v6_prepare, .launch = mma_v6_launch,                           \
      .description = "v5 + epilogue through smem, 16-byte stores of C")

static const tc_gemm_variant variants[] = {
    CUBLAS(.name = "cublas_f16f32",  .precision = "f16f32",  .problem = "FP16 GEMM",
           .impl = &tc_cublas_f16f32,
           .description = "cuBLAS, f16 in, f32 accumulate and out (the f16 baseline)"),
    LADDER(F16),
    CUBLAS(.name = "cublas_bf16f32", .precision = "bf16f32", .problem = "BF16 GEMM",
           .impl = &tc_cublas_bf16f32,
           .description = "cuBLAS, bf16 in, f32 accumulate and out (the bf16 baseline)"),
    LADDER(BF16),
};
// clang-format on

int main(int argc, char **argv)
{
    static const tc_gemm_chapter chapter = {
        .name = "05_mma_gemm",
        .summary =
            "the mma.sync GEMM ladder (f16 and bf16 in, f32 out): by hand, ldmatrix, swizzle, "
            "cp.async pipeline, double-buffered fragments",
        .variants = variants,
        .n_variants = TC_COUNT(variants),
        .min_cc = 80,
        .init = tc_cublas_chapter_init,
    };
    return tc_gemm_main(argc, argv, &chapter);
}
