/* 04_wmma_tf32/main.c - the host driver of chapter 04: FP32 on the CUDA cores (sgemm.cu), the
 * WMMA TF32 ladder and 3xTF32 (wmma_tf32.cu), each next to cuBLAS in the same precision.
 *
 * The variant table below is the whole chapter as the tools see it: --list prints it, --test
 * runs every row on the test matrix (odd sizes, alpha/beta != (1, 0)), --bench times every row
 * at 4096^3 and 8192^3. Two problems, two baselines:
 *   FP32 GEMM  f32 data, an f32-accurate result: cuBLAS FP32 (pedantic: CUDA cores), v0, and
 *              v5 (3xTF32: tensor cores, f32 accuracy), all checked against the FP64 product of
 *              the f32 inputs;
 *   TF32 GEMM  f32 data multiplied as TF32: cuBLAS COMPUTE_32F_FAST_TF32 (which rounds inside
 *              the library: precision row f32_tf32) and v1..v4 (row tf32): the driver uploads
 *              the raw f32 data, the kernels round it with cvt.rna.tf32.f32, and the reference
 *              is built from the same data rounded the same way on the host, so it multiplies
 *              exactly the values the tensor cores multiply (and tests the kernels' rounding).
 * The default run prints, for every row, the error against the reference (rel_err) and against
 * the FP64 product of the f32 data (vs_f32data): the accuracy table of the README, once with
 * uniform inputs and once with --inputs wide.
 *
 * Build and run
 *   make && build/bin/04_wmma_tf32                   # the ladder and its errors at 4096^3
 *   build/bin/04_wmma_tf32 --inputs wide             # ... on inputs spread over 2^16
 *   build/bin/04_wmma_tf32 --list                    # the variants and their constraints
 *   build/bin/04_wmma_tf32 --bench                   # CSV rows for make bench
 */
#include "cublas_gemm.h"
#include "sgemm.h"
#include "wmma_tf32.h"

// clang-format off
#define ROW TC_ROW_MAJOR
#define RUNG(name, desc, prec, mult_mn, mult_k, problem, baseline, prepare, launch)                \
    {name, desc, prec, 80, mult_mn, mult_mn, mult_k, ROW, ROW, ROW, problem, baseline,             \
     prepare, launch, NULL, NULL}
#define CUBLAS(name, desc, prec, problem, mode)                                                    \
    {name, desc, prec, 80, 1, 1, 1, ROW, ROW, ROW, problem, NULL,                                  \
     tc_cublas_prepare, tc_cublas_launch, tc_cublas_release, &mode}

/* The variant table: --list, --variant, --test and --bench all come from it. A baseline row
 * comes before the rows measured against it (the default table divides by its rate). */
static const tc_gemm_variant variants[] = {
    CUBLAS("cublas_f32",  "cuBLAS FP32 pedantic: FMAs on the CUDA cores (FP32 baseline)", "f32",
           "FP32 GEMM", tc_cublas_f32),
    RUNG("v0_sgemm",    "CUDA cores: 128x128 tile, 8x8 per thread, double-buffered smem",  "f32",
         1, 1, "FP32 GEMM", "cublas_f32", NULL, sgemm_v0_launch),
    CUBLAS("cublas_tf32", "cuBLAS COMPUTE_32F_FAST_TF32: TF32 tensor cores (TF32 baseline)", "f32_tf32",
           "TF32 GEMM", tc_cublas_tf32),
    RUNG("v1_naive",    "one warp per 16x16 tile, fragments from global memory",          "tf32",
         16, 8, "TF32 GEMM", "cublas_tf32", tf32_v1_prepare, tf32_v1_launch),
    RUNG("v2_smem",     "128x64 block tile, 32x32 warp tiles, padded smem, sync loads",   "tf32",
         1, 1, "TF32 GEMM", "cublas_tf32", NULL, tf32_v2_launch),
    RUNG("v3_pipeline", "128x128 tile, 64x32 warp tiles, 3-stage cp.async pipeline",      "tf32",
         1, 1, "TF32 GEMM", "cublas_tf32", tf32_v3_prepare, tf32_v3_launch),
    RUNG("v4_dbuf",     "128x256 tile, 64x64 warps, fragments double-buffered, grouped",  "tf32",
         1, 1, "TF32 GEMM", "cublas_tf32", tf32_v4_prepare, tf32_v4_launch),
    RUNG("v5_3xtf32",   "3xTF32 on v3's pipeline: f32 accuracy from three TF32 products", "3xtf32",
         1, 1, "FP32 GEMM", "cublas_f32", tf32_v5_prepare, tf32_v5_launch),
};
// clang-format on

static const int bench_sizes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}};

int main(int argc, char **argv)
{
    static const tc_gemm_chapter chapter = {
        "04_wmma_tf32",
        "FP32 on CUDA cores, the WMMA TF32 ladder, and 3xTF32 (f32 accuracy on tensor cores)",
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
