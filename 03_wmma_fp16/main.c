/* 03_wmma_fp16/main.c - the host driver of the WMMA FP16 GEMM ladder.
 *
 * The variant table below is the whole chapter as the tools see it: --list prints it, --test
 * runs every row on the test matrix (odd sizes, alpha/beta != (1, 0)), --bench times every row
 * at 4096^3 and 8192^3 next to cuBLAS in the same layout, precision and run. Each rung's kernel
 * and plain launcher is its own file (v1_naive.cuh .. v5_dbuf.cuh); hooks.cu binds them to the
 * rows.
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
/* the arithmetic --test checks bit for bit on an sm_90 GPU (tc_gemm_emulation): every rung keeps
 * one chain of mma_sync per element of C over all of K, each a k = 16 f16 instruction */
static const tc_gemm_emulation chain_f16 = {.model = "f16f32", .cc = 90, .k_run = 0};
/* A rung: what every rung shares, then its own fields */
#define RUNG(...)                                                                                  \
    {.precision = "f16f32", .a_layout = ROW, .b_layout = ROW, .c_layout = ROW,                     \
     .problem = "FP16 GEMM", .baseline = "cublas_f16f32", .release = hook_release_plan,            \
     .emulation = &chain_f16, __VA_ARGS__}

/* the run-time choice --test forces (tc_gemm_variant.forced_names): v5_dbuf's ring depth */
static const char *const v5_stages[] = {"5stages", "3stages"};

/* The variant table: --list, --variant, --test and --bench all come from it. */
static const tc_gemm_variant variants[] = {
    {.name = "cublas_f16f32", .precision = "f16f32", .min_cc = 70,
     .a_layout = ROW, .b_layout = ROW, .c_layout = ROW, .problem = "FP16 GEMM",
     .prepare = tc_cublas_prepare, .launch = tc_cublas_launch, .release = tc_cublas_release,
     .impl = &tc_cublas_f16f32,
     .description = "cuBLAS, f16 in, f32 accumulate and out (the baseline)"},
    RUNG(.name = "v1_naive",    .min_cc = 70, .mult_m = 16, .mult_n = 16, .mult_k = 16,
         .align_ab = {.ptr = 32, .ld = 16}, .align_c = {.ptr = 32, .ld = 16},
         .prepare = hook_v1_naive_prepare, .launch = hook_v1_naive_launch,
         .description = "one warp per 16x16 tile, fragments from global memory"),
    RUNG(.name = "v2_smem",     .min_cc = 70,
         .prepare = hook_v2_smem_prepare, .launch = hook_v2_smem_launch,
         .description = "64x64 block tile in shared memory, one fragment per warp"),
    RUNG(.name = "v3_regblock", .min_cc = 70,
         .prepare = hook_v3_regblock_prepare, .launch = hook_v3_regblock_launch,
         .description = "128x128 tile, 64x32 warp tiles (4x2 fragments), padded smem"),
    RUNG(.name = "v4_pipeline", .min_cc = 80,
         .prepare = hook_v4_pipeline_prepare, .launch = hook_v4_pipeline_launch,
         .description = "v3 + 4-stage cp.async pipeline, one barrier per k-tile"),
    RUNG(.name = "v5_dbuf",     .min_cc = 80,
         .prepare = hook_v5_dbuf_prepare, .launch = hook_v5_dbuf_launch,
         .n_forced = 2, .forced_names = v5_stages,
         .description = "128x256 tile, 64x64 warps, fragments double-buffered, grouped"),
};
// clang-format on

int main(int argc, char **argv)
{
    static const tc_gemm_chapter chapter = {
        .name = "03_wmma_fp16",
        .summary = "the WMMA FP16 GEMM ladder: naive, shared memory, register blocking, cp.async "
                   "pipeline",
        .variants = variants,
        .n_variants = TC_COUNT(variants),
        .min_cc = 70,
        .init = tc_cublas_chapter_init,
    };
    return tc_gemm_main(argc, argv, &chapter);
}
