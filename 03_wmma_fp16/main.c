/* 03_wmma_fp16/main.c - the host driver of the WMMA FP16 GEMM ladder (kernels in wmma_gemm.cu).
 *
 * The variant table below is the whole chapter as the tools see it: --list prints it, --test
 * runs every row on the test matrix (odd sizes, alpha/beta != (1, 0)), --bench times every row
 * at 4096^3 and 8192^3 next to cuBLAS in the same layout, precision and run.
 *
 * Build and run
 *   make && build/bin/03_wmma_fp16                   # the ladder at 4096^3
 *   build/bin/03_wmma_fp16 --list                    # the variants and their constraints
 *   build/bin/03_wmma_fp16 --bench                   # CSV rows for make bench
 */
#include "cublas_gemm.h"
#include "wmma_gemm.h"

// clang-format off
#define ROW TC_ROW_MAJOR
#define RUNG(name, desc, cc, mult, prepare, launch)                                                \
    {name, desc, "f16f32", cc, mult, mult, mult, ROW, ROW, ROW, "FP16 GEMM", "cublas_f16f32",      \
     prepare, launch, NULL, NULL}

/* The variant table: --list, --variant, --test and --bench all come from it. */
static const tc_gemm_variant variants[] = {
    {"cublas_f16f32", "cuBLAS, f16 in, f32 accumulate and out (the baseline)", "f16f32", 70,
     1, 1, 1, ROW, ROW, ROW, "FP16 GEMM", NULL, tc_cublas_prepare, tc_cublas_launch,
     tc_cublas_release, &tc_cublas_f16f32},
    RUNG("v1_naive",    "one warp per 16x16 tile, fragments from global memory",       70, 16,
         wmma_v1_prepare, wmma_v1_launch),
    RUNG("v2_smem",     "64x64 block tile in shared memory, one fragment per warp",   70, 1,
         NULL, wmma_v2_launch),
    RUNG("v3_regblock", "128x128 tile, 64x32 warp tiles (4x2 fragments), padded smem", 70, 1,
         wmma_v3_prepare, wmma_v3_launch),
    RUNG("v4_pipeline", "v3 + 4-stage cp.async pipeline, one barrier per k-tile",      80, 1,
         wmma_v4_prepare, wmma_v4_launch),
    RUNG("v5_dbuf",     "128x256 tile, 64x64 warps, fragments double-buffered, grouped", 80, 1,
         wmma_v5_prepare, wmma_v5_launch),
};
// clang-format on

static const int bench_sizes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}};

int main(int argc, char **argv)
{
    static const tc_gemm_chapter chapter = {
        "03_wmma_fp16",
        "the WMMA FP16 GEMM ladder: naive, shared memory, register blocking, cp.async pipeline",
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
        70,
        tc_cublas_chapter_init,
        NULL,
    };
    return tc_gemm_main(argc, argv, &chapter);
}
