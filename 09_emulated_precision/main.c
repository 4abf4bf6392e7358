/* 09_emulated_precision/main.c - the host driver of chapter 09: FP64 GEMMs on tensor cores, the
 * FP64 ones (v1_dmma) and emulated with int8 ones (v2_ozaki_sN, N int8 slices per value), next to
 * cuBLAS DGEMM in the same layout; and FP32 GEMMs from bf16 tensor cores (v3_bf16xN, 3 bf16 words
 * per value, N word products), next to cuBLAS SGEMM.
 *
 * Every row: A row-major, B column-major, C row-major ("RCR" in --list); f64 for the FP64 GEMM
 * rows, f32 for the FP32 ones. The reference of every check is more accurate than f64 (the GEMM
 * driver's compensated Dot2 for f64 data), so an FP64 result is judged against something better
 * than itself. Tolerance rows: f64 (DGEMM,
 * DMMA: one rounding per product), f64_ozN (the scheme's truncation bound) and bf16xN (the
 * dropped word products), all in common/verify.c.
 *
 * Each row's hooks (hooks.cu) call its rung's plain launcher: v1_dmma.cuh, v1_dmma16.cuh,
 * v2_ozaki.cuh, v3_bf16x.cuh, v4_bf16x_fast.cuh, v5_ozaki2.cuh, v6_ozaki2_fused.cuh to
 * v9_ozaki2_onepass.cuh (the int8 products of Ozaki II fused into one wgmma kernel, sm_90a, with
 * an exact check against ozaki_model.c).
 *
 * Build and run
 *   make && build/bin/09_emulated_precision           # every row at 4096^3, errors included
 *   build/bin/09_emulated_precision --list            # the variants
 *   build/bin/09_emulated_precision --test            # every row on the test matrix
 *   build/bin/09_emulated_precision --bench           # CSV rows for make bench
 */
#include "cublas_gemm.h"
#include "emulated_gemm.h"

// clang-format off
#define ROW TC_ROW_MAJOR
#define COL TC_COL_MAJOR
#define RUNG_AT(CC, ...) {.min_cc = CC, .a_layout = ROW, .b_layout = COL, .c_layout = ROW,       \
                          .problem = "FP64 GEMM", .baseline = "cublas_f64", __VA_ARGS__}
#define RUNG(...) RUNG_AT(80, __VA_ARGS__)
#define BF16X_ROW(NAME, ROWNAME, IMPL, ...)                                                        \
    {.name = NAME, .precision = ROWNAME, .a_layout = ROW, .b_layout = COL, .c_layout = ROW,       \
     .problem = "FP32 GEMM", .baseline = "cublas_f32", .impl = IMPL,                              \
     .release = hook_release_workspace, __VA_ARGS__}
#define BF16X(NAME, ROWNAME, IMPL, ...)                                                            \
    BF16X_ROW(NAME, ROWNAME, IMPL, .min_cc = 80, .prepare = hook_v3_bf16x_prepare,                \
              .launch = hook_v3_bf16x_launch, __VA_ARGS__)
#define BF16X_FAST(NAME, ROWNAME, IMPL, ...)                                                       \
    BF16X_ROW(NAME, ROWNAME, IMPL, .min_cc = 90, .target = "90a",                                 \
              .prepare = hook_v4_bf16x_fast_prepare, .launch = hook_v4_bf16x_fast_launch,         \
              __VA_ARGS__)
/* the run-time choice --test forces: K cut into chunks of 64 (the chunk loop and its f64 sum) */
static const char *const forced_chunk[] = {"kc64"};
#define OZAKI(NAME, ROWNAME, IMPL, ...)                                                            \
    RUNG(.name = NAME, .precision = ROWNAME, .impl = IMPL, .prepare = hook_v2_ozaki_prepare,       \
         .launch = hook_v2_ozaki_launch, .release = hook_release_workspace, .n_forced = 1,         \
         .forced_names = forced_chunk, __VA_ARGS__)
#define OZAKI2(NAME, ROWNAME, IMPL, ...)                                                           \
    RUNG(.name = NAME, .precision = ROWNAME, .impl = IMPL, .prepare = hook_v5_ozaki2_prepare,      \
         .launch = hook_v5_ozaki2_launch, .release = hook_release_workspace, .n_forced = 1,        \
         .forced_names = forced_chunk, __VA_ARGS__)
/* the fused rungs' (v6 to v9) choices --test forces: K in chunks of 64, and a persistent grid of
 * one cluster */
static const char *const forced_fused[] = {"kc64", "1cluster"};
#define OZAKI2_FUSED(NAME, ROWNAME, IMPL, ...)                                                     \
    RUNG_AT(90, .name = NAME, .precision = ROWNAME, .impl = IMPL, .target = "90a",                \
            .prepare = hook_v6_ozaki2_fused_prepare, .launch = hook_v6_ozaki2_fused_launch,       \
            .release = hook_release_workspace, .check_state = hook_v6_ozaki2_fused_check,         \
            .n_forced = 2, .forced_names = forced_fused, __VA_ARGS__)
#define OZAKI2_DEEP(NAME, ROWNAME, IMPL, ...)                                                      \
    RUNG_AT(90, .name = NAME, .precision = ROWNAME, .impl = IMPL, .target = "90a",                \
            .prepare = hook_v7_ozaki2_deep_prepare, .launch = hook_v7_ozaki2_deep_launch,         \
            .release = hook_release_workspace, .check_state = hook_v7_ozaki2_deep_check,          \
            .n_forced = 2, .forced_names = forced_fused, __VA_ARGS__)
#define OZAKI2_FRAC(NAME, ROWNAME, IMPL, ...)                                                      \
    RUNG_AT(90, .name = NAME, .precision = ROWNAME, .impl = IMPL, .target = "90a",                \
            .prepare = hook_v8_ozaki2_frac_prepare, .launch = hook_v8_ozaki2_frac_launch,         \
            .release = hook_release_workspace, .check_state = hook_v8_ozaki2_frac_check,          \
            .n_forced = 2, .forced_names = forced_fused, __VA_ARGS__)
/* v9 makes the exponents itself (a block's reduction): --test draws its inputs wide, so that they
 * vary (on uniform data nearly every exponent is 0 and a wrong merge would pass) */
#define OZAKI2_ONEPASS(NAME, ROWNAME, IMPL, ...)                                                   \
    RUNG_AT(90, .name = NAME, .precision = ROWNAME, .impl = IMPL, .target = "90a",                \
            .prepare = hook_v9_ozaki2_onepass_prepare, .launch = hook_v9_ozaki2_onepass_launch,   \
            .release = hook_release_workspace, .check_state = hook_v9_ozaki2_onepass_check,       \
            .n_forced = 2, .forced_names = forced_fused, .wide_test_inputs = 1, __VA_ARGS__)

/* the arithmetic --test checks bit for bit on an sm_90 GPU (tc_gemm_emulation): v4's words
 * (bf16 to nearest even, word 0 the largest) and their products per k-step, smallest first, as
 * v4_bf16x_fast.cuh issues them, summed in one chain per k-tile of 64, the k-tiles added in f32 */
static const int x6_products[] = {2, 0, 0, 2, 1, 1, 1, 0, 0, 1, 0, 0};
static const int x9_products[] = {2, 2, 2, 1, 1, 2, 2, 0, 0, 2, 1, 1, 1, 0, 0, 1, 0, 0};
static const tc_gemm_emulation x6_words = {.model = "wg_bf16f32", .cc = 90, .k_run = 64,
                                           .words = TC_GEMM_WORDS_BF16X3, .pairs = x6_products,
                                           .n_pairs = 6};
static const tc_gemm_emulation x9_words = {.model = "wg_bf16f32", .cc = 90, .k_run = 64,
                                           .words = TC_GEMM_WORDS_BF16X3, .pairs = x9_products,
                                           .n_pairs = 9};

static const tc_gemm_variant variants[] = {
    {.name = "cublas_f64", .precision = "f64", .min_cc = 80, .a_layout = ROW, .b_layout = COL,
     .c_layout = ROW, .problem = "FP64 GEMM", .impl = &tc_cublas_f64,
     .prepare = tc_cublas_prepare, .launch = tc_cublas_launch, .release = tc_cublas_release,
     .description = "cuBLAS DGEMM, COMPUTE_64F (the baseline)"},
    RUNG(.name = "v1_dmma", .precision = "f64", .prepare = hook_v1_dmma_prepare,
         .launch = hook_v1_dmma_launch, .release = hook_release_plan,
         .description = "FP64 tensor cores: mma.sync m8n8k4 f64, 64x64 tile, cp.async 3 stages"),
    RUNG_AT(90, .name = "v1_dmma16", .precision = "f64", .target = "90",
            .prepare = hook_v1_dmma16_prepare, .launch = hook_v1_dmma16_launch,
            .release = hook_release_plan,
            .description = "sm_90: mma.sync m16n8k16 f64 (DMMA.16x8x16), 64x64 tile, 3 stages"),
    OZAKI("v2_ozaki_s6", "f64_oz6", &oz_slices_6,
          .description = "Ozaki: 6 int8 slices per value, 6 int8 GEMMs (cuBLAS), f64 sums"),
    OZAKI("v2_ozaki_s7", "f64_oz7", &oz_slices_7,
          .description = "Ozaki: 7 int8 slices per value, 7 int8 GEMMs (cuBLAS), f64 sums"),
    OZAKI("v2_ozaki_s8", "f64_oz8", &oz_slices_8,
          .description = "Ozaki: 8 int8 slices per value, 8 int8 GEMMs (cuBLAS), f64 sums"),
    OZAKI2("v5_ozaki2_n14", "f64_oz2n14", &oz2_n14,
           .description = "Ozaki II: 48-bit integers, 14 moduli, 14 int8 GEMMs, CRT in 128-bit fixed point"),
    OZAKI2("v5_ozaki2_n15", "f64_oz2n15", &oz2_n15,
           .description = "Ozaki II: 51-bit integers, 15 moduli, 15 int8 GEMMs, CRT in 128-bit fixed point"),
    OZAKI2("v5_ozaki2_n16", "f64_oz2n16", &oz2_n16,
           .description = "Ozaki II: 52-bit integers, 16 moduli, 16 int8 GEMMs, CRT in 128-bit fixed point"),
    OZAKI2_FUSED("v6_ozaki2_fused_n14", "f64_oz2n14", &oz2_n14,
           .description = "sm_90a: Ozaki II, 14 moduli on one wgmma kernel, CRT per tile on chip"),
    OZAKI2_FUSED("v6_ozaki2_fused_n15", "f64_oz2n15", &oz2_n15,
           .description = "sm_90a: Ozaki II, 15 moduli on one wgmma kernel, CRT per tile on chip"),
    OZAKI2_FUSED("v6_ozaki2_fused_n16", "f64_oz2n16", &oz2_n16,
           .description = "sm_90a: Ozaki II, 16 moduli on one wgmma kernel, CRT per tile on chip"),
    OZAKI2_DEEP("v7_ozaki2_deep_n14", "f64_oz2n14", &oz2_n14,
           .description = "sm_90a: v6 with the CRT sums' middle word in registers, a ring of 5 stages"),
    OZAKI2_DEEP("v7_ozaki2_deep_n15", "f64_oz2n15", &oz2_n15,
           .description = "sm_90a: v6 with the CRT sums' middle word in registers, a ring of 5 stages"),
    OZAKI2_DEEP("v7_ozaki2_deep_n16", "f64_oz2n16", &oz2_n16,
           .description = "sm_90a: v6 with the CRT sums' middle word in registers, a ring of 5 stages"),
    OZAKI2_FRAC("v8_ozaki2_frac_n14", "f64_oz2n14", &oz2_n14,
           .description = "sm_90a: v7 with the CRT sum in the fraction form: the int32 sums unreduced"),
    OZAKI2_FRAC("v8_ozaki2_frac_n15", "f64_oz2n15", &oz2_n15,
           .description = "sm_90a: v7 with the CRT sum in the fraction form: the int32 sums unreduced"),
    OZAKI2_FRAC("v8_ozaki2_frac_n16", "f64_oz2n16", &oz2_n16,
           .description = "sm_90a: v7 with the CRT sum in the fraction form: the int32 sums unreduced"),
    OZAKI2_ONEPASS("v9_ozaki2_onepass_n14", "f64_oz2n14", &oz2_n14,
           .description = "sm_90a: v8 with the exponents and residues made in one pass over A and B"),
    OZAKI2_ONEPASS("v9_ozaki2_onepass_n15", "f64_oz2n15", &oz2_n15,
           .description = "sm_90a: v8 with the exponents and residues made in one pass over A and B"),
    OZAKI2_ONEPASS("v9_ozaki2_onepass_n16", "f64_oz2n16", &oz2_n16,
           .description = "sm_90a: v8 with the exponents and residues made in one pass over A and B"),
    {.name = "cublas_f32", .precision = "f32", .min_cc = 80, .a_layout = ROW, .b_layout = COL,
     .c_layout = ROW, .problem = "FP32 GEMM", .impl = &tc_cublas_f32,
     .prepare = tc_cublas_prepare, .launch = tc_cublas_launch, .release = tc_cublas_release,
     .description = "cuBLAS SGEMM, COMPUTE_32F_PEDANTIC (CUDA cores; the f32 baseline)"},
    BF16X("v3_bf16x3", "bf16x3", &bf_products_3,
          .description = "f32 as 3 bf16 words, 3 word products (2 bf16 GEMMs), f32 accumulate"),
    BF16X("v3_bf16x6", "bf16x6", &bf_products_6,
          .description = "f32 as 3 bf16 words, 6 word products (3 bf16 GEMMs), f32 accumulate"),
    BF16X("v3_bf16x9", "bf16x9", &bf_products_9,
          .description = "f32 as 3 bf16 words, all 9 word products (5 bf16 GEMMs)"),
    BF16X_FAST("v4_bf16x6_fast", "bf16x6", &bf_products_6, .emulation = &x6_words,
          .description = "sm_90a: the 3 words on wgmma, 6 products, f32 total per k-tile of 64"),
    BF16X_FAST("v4_bf16x9_fast", "bf16x9", &bf_products_9, .emulation = &x9_words,
          .description = "sm_90a: the 3 words on wgmma, 9 products, f32 total per k-tile of 64"),
};
// clang-format on

static void *chapter_init(const tc_device_info *dev, FILE *info)
{
    tc_cublas_print_version(info);
    return hook_chapter_init(dev, info);
}

int main(int argc, char **argv)
{
    static const tc_gemm_chapter chapter = {
        .name = "09_emulated_precision",
        .summary = "FP64 on tensor cores: the FP64 tensor cores (DMMA) and FP64 emulated with "
                   "int8 tensor cores (Ozaki), next to cuBLAS DGEMM",
        .variants = variants,
        .n_variants = TC_COUNT(variants),
        .min_cc = 80,
        .init = chapter_init,
        .fini = hook_chapter_fini,
    };
    return tc_gemm_main(argc, argv, &chapter);
}
