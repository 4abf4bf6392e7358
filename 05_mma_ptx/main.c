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
#define CUBLAS(name, desc, prec, problem, mode)                                                    \
    {name, desc, prec, 80, 1, 1, 1, ROW, COL, ROW, problem, NULL, tc_cublas_prepare,              \
     tc_cublas_launch, tc_cublas_release, &mode}
#define F16(name, desc, prepare, launch)                                                           \
    {name, desc, "f16f32", 80, 1, 1, 1, ROW, COL, ROW, "FP16 GEMM", "cublas_f16f32", prepare,     \
     launch, NULL, &mma_in_f16}
#define BF16(name, desc, prepare, launch)                                                          \
    {name "_bf16", desc, "bf16f32", 80, 1, 1, 1, ROW, COL, ROW, "BF16 GEMM", "cublas_bf16f32",    \
     prepare, launch, NULL, &mma_in_bf16}
#define LADDER(X)                                                                                  \
    X("v1_hand",     "128x128, 64x32 warps, fragments by hand from plain smem",   NULL,           \
      mma_v1_launch),                                                                              \
    X("v2_ldmatrix", "v1 with ldmatrix.x4 fragments (plain smem: 4-way conflicts)", NULL,        \
      mma_v2_launch),                                                                              \
    X("v3_swizzle",  "v2 with an XOR-swizzled smem layout: no bank conflicts",    NULL,           \
      mma_v3_launch),                                                                              \
    X("v4_pipeline", "128x256, 64x64 warps, 4-stage cp.async ring, 1 barrier/k-tile",            \
      mma_v4_prepare, mma_v4_launch),                                                              \
    X("v5_dbuf",     "v4 + double-buffered fragments, early barrier, grouped order",             \
      mma_v5_prepare, mma_v5_launch),                                                              \
    X("v6_epilogue", "v5 + epilogue through smem, 16-byte stores of C",                           \
      mma_v6_prepare, mma_v6_launch)

/* The variant table: --list, --variant, --test and --bench all come from it. */
static const tc_gemm_variant variants[] = {
    CUBLAS("cublas_f16f32", "cuBLAS, f16 in, f32 accumulate and out (the f16 baseline)",
           "f16f32", "FP16 GEMM", tc_cublas_f16f32),
    LADDER(F16),
    CUBLAS("cublas_bf16f32", "cuBLAS, bf16 in, f32 accumulate and out (the bf16 baseline)",
           "bf16f32", "BF16 GEMM", tc_cublas_bf16f32),
    LADDER(BF16),
};
// clang-format on

static const int bench_sizes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}};

int main(int argc, char **argv)
{
    static const tc_gemm_chapter chapter = {
        "05_mma_gemm",
        "the mma.sync GEMM ladder (f16 and bf16 in, f32 out): by hand, ldmatrix, swizzle, "
        "cp.async pipeline, double-buffered fragments",
        variants,
        (int)(sizeof variants / sizeof variants[0]),
        "all",
        4096,
        4096,
        4096,
        bench_sizes,
        (int)(sizeof bench_sizes / sizeof bench_sizes[0]),
        NULL,
        0,
        80,
        tc_cublas_chapter_init,
        NULL,
    };
    return tc_gemm_main(argc, argv, &chapter);
}
