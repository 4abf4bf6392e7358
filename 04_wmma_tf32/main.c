/* 04_wmma_tf32/main.c - the host driver of chapter 04: FP32 on the CUDA cores (sgemm.cu), the
 * WMMA TF32 ladder and 3xTF32 (one file per rung, v1_naive.cuh .. v5_3xtf32.cuh, bound to the
 * table by hooks.cu), each next to cuBLAS in the same precision; part 2 (FAST.md): TF32 with
 * k = 8 on mma.sync (v6, mma_tf32.cu) and on Hopper's wgmma (v7), and 3xTF32 on wgmma (v8,
 * wgmma_tf32.cu), with B column-major and cuBLAS in that layout.
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
 *   TF32 GEMM (B K-major), FP32 GEMM (B K-major)
 *              part 2's rows: v6, v7 feed the raw f32 data to the tensor cores, which truncate
 *              it (row tf32_rz: the host truncates the reference's inputs the same way); v8
 *              splits it as v5 does (row 3xtf32).
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
#include "mma_tf32.h"
#include "sgemm.h"
#include "wgmma_tf32.h"
#include "wmma_tf32.h"

// clang-format off
#define ROW TC_ROW_MAJOR
/* A rung, a cuBLAS baseline: what each shares, then its own fields */
#define RUNG(...)                                                                                  \
    {.min_cc = 80, .a_layout = ROW, .b_layout = ROW, .c_layout = ROW, __VA_ARGS__}
#define CUBLAS(...)                                                                                \
    {.min_cc = 80, .a_layout = ROW, .b_layout = ROW, .c_layout = ROW,                              \
     .prepare = tc_cublas_prepare, .launch = tc_cublas_launch, .release = tc_cublas_release,       \
     __VA_ARGS__}

/* part 2's layout: B column-major (K-major), as tf32 wgmma requires; the cuBLAS rows in the same
 * layout are those rungs' baselines */
#define COL TC_COL_MAJOR
#define RUNG_KMAJOR(...) {.a_layout = ROW, .b_layout = COL, .c_layout = ROW, __VA_ARGS__}
#define CUBLAS_KMAJOR(...)                                                                         \
    {.min_cc = 80, .a_layout = ROW, .b_layout = COL, .c_layout = ROW,                              \
     .prepare = tc_cublas_prepare, .launch = tc_cublas_launch, .release = tc_cublas_release,       \
     __VA_ARGS__}

/* the arithmetic --test checks bit for bit on an sm_90 GPU (tc_gemm_emulation): the TF32 rungs
 * keep one chain of instructions per element of C over all of K (WMMA's m16n16k8 is two k = 4
 * HMMA.1684 in SASS: the record's k = 8 fit with k and block 4, tf32f32_k4) (the values as the row
 * rounds them: to nearest by the kernel, or truncated by the tensor core); v8 sums its three
 * word products of each k-tile of 32 in one chain (small x big, big x small, big x big per
 * k-step) and adds the k-tiles in f32 */
static const tc_gemm_emulation chain_wmma_tf32 = {.model = "tf32f32_k4", .cc = 90, .k_run = 0};
static const tc_gemm_emulation chain_tf32 = {.model = "tf32f32", .cc = 90, .k_run = 0};
static const tc_gemm_emulation chain_wg_tf32 = {.model = "wg_tf32f32", .cc = 90, .k_run = 0};
static const int v8_products[] = {1, 0, 0, 1, 0, 0};
static const tc_gemm_emulation v8_words = {.model = "wg_tf32f32", .cc = 90, .k_run = 32,
                                           .words = TC_GEMM_WORDS_TF32X2, .pairs = v8_products,
                                           .n_pairs = 3};

static const tc_gemm_variant variants[] = {
    CUBLAS(.name = "cublas_f32",  .precision = "f32",      .problem = "FP32 GEMM",
           .impl = &tc_cublas_f32,
           .description = "cuBLAS FP32 pedantic: FMAs on the CUDA cores (FP32 baseline)"),
    RUNG(.name = "v0_sgemm",      .precision = "f32",      .problem = "FP32 GEMM",
         .baseline = "cublas_f32",  .launch = sgemm_v0_launch,
         .description = "CUDA cores: 128x128 tile, 8x8 per thread, double-buffered smem"),
    CUBLAS(.name = "cublas_tf32", .precision = "f32_tf32", .problem = "TF32 GEMM",
           .impl = &tc_cublas_tf32,
           .description = "cuBLAS COMPUTE_32F_FAST_TF32: TF32 tensor cores (TF32 baseline)"),
    RUNG(.name = "v1_naive",      .precision = "tf32",     .problem = "TF32 GEMM",
         .baseline = "cublas_tf32", .mult_m = 16, .mult_n = 16, .mult_k = 8,
         .align_ab = {.ptr = 32, .ld = 16}, .align_c = {.ptr = 32, .ld = 16},
         .prepare = hook_v1_naive_prepare, .launch = hook_v1_naive_launch,
         .release = hook_release_plan, .emulation = &chain_wmma_tf32,
         .description = "one warp per 16x16 tile, fragments from global memory"),
    RUNG(.name = "v2_smem",       .precision = "tf32",     .problem = "TF32 GEMM",
         .baseline = "cublas_tf32", .prepare = hook_v2_smem_prepare,
         .launch = hook_v2_smem_launch, .release = hook_release_plan, .emulation = &chain_wmma_tf32,
         .description = "128x64 block tile, 32x32 warp tiles, padded smem, sync loads"),
    RUNG(.name = "v3_pipeline",   .precision = "tf32",     .problem = "TF32 GEMM",
         .baseline = "cublas_tf32", .prepare = hook_v3_pipeline_prepare,
         .launch = hook_v3_pipeline_launch, .release = hook_release_plan, .emulation = &chain_wmma_tf32,
         .description = "128x128 tile, 64x32 warp tiles, 3-stage cp.async pipeline"),
    RUNG(.name = "v4_dbuf",       .precision = "tf32",     .problem = "TF32 GEMM",
         .baseline = "cublas_tf32", .prepare = hook_v4_dbuf_prepare,
         .launch = hook_v4_dbuf_launch, .release = hook_release_plan, .emulation = &chain_wmma_tf32,
         .description = "128x256 tile, 64x64 warps, fragments double-buffered, grouped"),
    RUNG(.name = "v5_3xtf32",     .precision = "3xtf32",   .problem = "FP32 GEMM",
         .baseline = "cublas_f32",  .prepare = hook_v5_3xtf32_prepare,
         .launch = hook_v5_3xtf32_launch, .release = hook_release_plan,
         .description = "3xTF32 on v3's pipeline: f32 accuracy from three TF32 products"),
    CUBLAS_KMAJOR(.name = "cublas_tf32_kmajor", .precision = "f32_tf32",
                  .problem = "TF32 GEMM (B K-major)", .impl = &tc_cublas_tf32,
                  .description = "cuBLAS TF32 with B column-major (K-major): the baseline of the k = 8 rungs"),
    RUNG_KMAJOR(.name = "v6_mma_tf32", .precision = "tf32_rz", .problem = "TF32 GEMM (B K-major)",
                .min_cc = 80, .baseline = "cublas_tf32_kmajor",
                .prepare = tf32_v6_prepare, .launch = tf32_v6_launch, .release = tf32_v6_release,
                .emulation = &chain_tf32,
                .description = "mma.sync m16n8k8 tf32 (k = 8), 05's cp.async pipeline, B K-major"),
    CUBLAS_KMAJOR(.name = "cublas_f32_kmajor", .precision = "f32", .problem = "FP32 GEMM (B K-major)",
                  .impl = &tc_cublas_f32,
                  .description = "cuBLAS FP32 pedantic, B column-major (v8's baseline)"),
    RUNG_KMAJOR(.name = "v7_wgmma_tf32", .precision = "tf32_rz", .problem = "TF32 GEMM (B K-major)",
                .min_cc = 90, .target = "90a", .baseline = "cublas_tf32_kmajor", .mult_k = 4,
                .align_ab = {.ptr = 16, .ld = 16},
                .prepare = tf32_v7_prepare, .launch = tf32_v7_launch, .release = tf32_v7_release,
                .emulation = &chain_wg_tf32,
                .description = "sm_90a: wgmma m64n256k8 tf32 (truncated inputs), 05's v4 pipeline"),
    RUNG_KMAJOR(.name = "v8_3xtf32_fast", .precision = "3xtf32", .problem = "FP32 GEMM (B K-major)",
                .min_cc = 90, .target = "90a", .baseline = "cublas_f32_kmajor",
                .prepare = tf32_v8_prepare, .launch = tf32_v8_launch, .release = tf32_v8_release,
                .emulation = &v8_words,
                .description = "sm_90a: 3xTF32 on wgmma: a split pass, 3 products, f32 flush per k-tile"),
};
// clang-format on

int main(int argc, char **argv)
{
    static const tc_gemm_chapter chapter = {
        .name = "04_wmma_tf32",
        .summary =
            "FP32 on CUDA cores, the WMMA TF32 ladder, and 3xTF32 (f32 accuracy on tensor cores)",
        .variants = variants,
        .n_variants = TC_COUNT(variants),
        .min_cc = 80,
        .init = tc_cublas_chapter_init,
    };
    return tc_gemm_main(argc, argv, &chapter);
}
