/* 05_mma_ptx/mma/main.c - the host driver of the mma.sync GEMM ladder, part 1 of chapter 05.
 *
 * The variant table below is the whole ladder as the tools see it: --list prints it, --test runs
 * every row on the test matrix (odd sizes, alpha/beta != (1, 0)), --bench times every row at
 * 4096^3 and 8192^3 next to cuBLAS in the same layout, precision and run. The ladder runs twice:
 * f16 inputs (problem "FP16 GEMM") and bf16 inputs ("BF16 GEMM", names with _bf16), the same
 * kernels. Each rung's kernel and plain launcher is its own file (the table's comments name
 * them); hooks.cu binds them to the rows.
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
/* the arithmetic --test checks bit for bit on an sm_90 GPU (tc_gemm_emulation): every rung keeps
 * one chain of m16n8k16 mma per element of C over all of K */
static const tc_gemm_emulation chain_f16 = {.model = "f16f32", .cc = 90, .k_run = 0};
static const tc_gemm_emulation chain_bf16 = {.model = "bf16f32", .cc = 90, .k_run = 0};
/* what every row of a ladder shares; each row then names its rung, hooks and description */
#define F16_ROW  .precision = "f16f32",  .min_cc = 80, .a_layout = ROW, .b_layout = COL, \
                 .c_layout = ROW, .problem = "FP16 GEMM", .baseline = "cublas_f16f32", \
                 .impl = &mma_in_f16, .release = hook_release_plan, .emulation = &chain_f16
#define BF16_ROW .precision = "bf16f32", .min_cc = 80, .a_layout = ROW, .b_layout = COL, \
                 .c_layout = ROW, .problem = "BF16 GEMM", .baseline = "cublas_bf16f32", \
                 .impl = &mma_in_bf16, .release = hook_release_plan, .emulation = &chain_bf16
#define CUBLAS_ROW .min_cc = 80, .a_layout = ROW, .b_layout = COL, .c_layout = ROW, \
                   .prepare = tc_cublas_prepare, .launch = tc_cublas_launch, \
                   .release = tc_cublas_release

/* the descriptions, one per rung (f16 and bf16 rows share them) */
#define V1_WHAT "128x128, 64x32 warps, fragments by hand from plain smem"
#define V2_WHAT "v1 with ldmatrix.x4 fragments (plain smem: 4-way conflicts)"
#define V3_WHAT "v2 with an XOR-swizzled smem layout: no bank conflicts"
#define V4_WHAT "128x256, 64x64 warps, 4-stage cp.async ring, 1 barrier/k-tile"
#define V5_WHAT "v4 + double-buffered fragments, early barrier, grouped order"
#define V6_WHAT "v5 + epilogue through smem, 16-byte stores of C"

static const tc_gemm_variant variants[] = {
    /* f16 in, f32 accumulate and out                                     rung file */
    {.name = "cublas_f16f32", .precision = "f16f32", .problem = "FP16 GEMM", CUBLAS_ROW,
     .impl = &tc_cublas_f16f32,
     .description = "cuBLAS, f16 in, f32 accumulate and out (the f16 baseline)"},
    {.name = "v1_hand", F16_ROW, .description = V1_WHAT,                    /* mma/v1_hand.cuh */
     .prepare = hook_v1_hand_prepare, .launch = hook_v1_hand_launch},
    {.name = "v2_ldmatrix", F16_ROW, .description = V2_WHAT,                /* mma/v2_ldmatrix.cuh */
     .prepare = hook_v2_ldmatrix_prepare, .launch = hook_v2_ldmatrix_launch},
    {.name = "v3_swizzle", F16_ROW, .description = V3_WHAT,                 /* mma/v3_swizzle.cuh */
     .prepare = hook_v3_swizzle_prepare, .launch = hook_v3_swizzle_launch},
    {.name = "v4_pipeline", F16_ROW, .description = V4_WHAT,                /* mma/v4_pipeline.cuh */
     .prepare = hook_v4_pipeline_prepare, .launch = hook_v4_pipeline_launch},
    {.name = "v5_dbuf", F16_ROW, .description = V5_WHAT,                    /* mma/v5_dbuf.cuh */
     .prepare = hook_v5_dbuf_prepare, .launch = hook_v5_dbuf_launch},
    {.name = "v6_epilogue", F16_ROW, .description = V6_WHAT,                /* common/mma_v6_epilogue.cuh */
     .prepare = hook_v6_epilogue_prepare, .launch = hook_v6_epilogue_launch},

    /* bf16 in: the same rungs */
    {.name = "cublas_bf16f32", .precision = "bf16f32", .problem = "BF16 GEMM", CUBLAS_ROW,
     .impl = &tc_cublas_bf16f32,
     .description = "cuBLAS, bf16 in, f32 accumulate and out (the bf16 baseline)"},
    {.name = "v1_hand_bf16", BF16_ROW, .description = V1_WHAT,
     .prepare = hook_v1_hand_prepare, .launch = hook_v1_hand_launch},
    {.name = "v2_ldmatrix_bf16", BF16_ROW, .description = V2_WHAT,
     .prepare = hook_v2_ldmatrix_prepare, .launch = hook_v2_ldmatrix_launch},
    {.name = "v3_swizzle_bf16", BF16_ROW, .description = V3_WHAT,
     .prepare = hook_v3_swizzle_prepare, .launch = hook_v3_swizzle_launch},
    {.name = "v4_pipeline_bf16", BF16_ROW, .description = V4_WHAT,
     .prepare = hook_v4_pipeline_prepare, .launch = hook_v4_pipeline_launch},
    {.name = "v5_dbuf_bf16", BF16_ROW, .description = V5_WHAT,
     .prepare = hook_v5_dbuf_prepare, .launch = hook_v5_dbuf_launch},
    {.name = "v6_epilogue_bf16", BF16_ROW, .description = V6_WHAT,
     .prepare = hook_v6_epilogue_prepare, .launch = hook_v6_epilogue_launch},
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
