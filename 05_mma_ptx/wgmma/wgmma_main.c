/* 05_mma_ptx/wgmma/wgmma_main.c - the host driver of the Hopper GEMM ladder, part 2 of chapter 05.
 * Every rung needs sm_90a code (its row's .target): on any other GPU the rungs report skipped
 * with the reason, and the cuBLAS rows still run.
 *
 * The variant table below is the whole ladder as the tools see it: --list prints it, --test runs
 * every row on the test matrix (odd sizes, alpha/beta != (1, 0), padded and offset operands),
 * --bench times every row at 4096^3 and 8192^3 next to cuBLAS in the same layout, precision and
 * run. Two tracks, each numbered on its own:
 *   f16/bf16  v1_wgmma .. v6_streamk, f16 inputs ("FP16 GEMM") and bf16 inputs ("BF16 GEMM",
 *             names with _bf16), against cuBLAS;
 *   FP8       fp8_v1_promote .. fp8_v4_tmastore, e4m3 and e5m2 inputs ("FP8 GEMM"), against
 *             cuBLASLt's e4m3 (it has no e5m2 x e5m2); block-scaled fp8_v5_blockscaled ..
 *             fp8_v9_scale_loads (1x128 scales of A, 128x128 of B; C in f32 or bf16), against
 *             per-tensor cuBLASLt, with cuBLASLt's block-scaled mode beside them.
 * Each rung's kernel and plain launcher is its own file (the table's comments name them);
 * hooks_f16.cu and hooks_fp8_v*.cu (one per FP8 rung) bind them to the rows.
 *
 * Layout of every row: A row-major, B column-major, C row-major f32 ("RCR" in --list), as in
 * part 1 (05_mma_gemm), so the two ladders and their cuBLAS rows compare directly.
 *
 * Build and run
 *   make && build/bin/05_wgmma_gemm                  # the ladder at 4096^3
 *   build/bin/05_wgmma_gemm --list                   # the variants and their constraints
 *   build/bin/05_wgmma_gemm --variant v4_cluster --size 8192x8192x8192
 *   build/bin/05_wgmma_gemm --bench                  # CSV rows for make bench
 *   build/bin/05_wgmma_probe --test                  # the wgmma/TMA unit tests these rely on
 */
#include "cublas_gemm.h"
#include "wgmma_gemm.h"

// clang-format off
#define ROW TC_ROW_MAJOR
#define COL TC_COL_MAJOR
/* the TMA reads A and B: 16-byte aligned starts and row pitches */
#define TMA_ALIGN {.ptr = 16, .ld = 16}
/* what every row of a track shares; each row then names its rung, hooks and description */
#define F16_ROW  .precision = "f16f32",  .min_cc = 90, .target = "90a", .a_layout = ROW, \
                 .b_layout = COL, .c_layout = ROW, .problem = "FP16 GEMM", \
                 .baseline = "cublas_f16f32", \
                 .impl = &wgmma_in_f16
#define BF16_ROW .precision = "bf16f32", .min_cc = 90, .target = "90a", .a_layout = ROW, \
                 .b_layout = COL, .c_layout = ROW, .problem = "BF16 GEMM", \
                 .baseline = "cublas_bf16f32", \
                 .impl = &wgmma_in_bf16
/* v2 and up read A and B with the TMA: K a multiple of 8 (16-byte rows) */
#define TMA_16BIT .mult_k = 8, .align_ab = TMA_ALIGN
/* an FP8 rung: K a multiple of 16 (16-byte rows for the TMA) */
#define FP8_ROW  .min_cc = 90, .target = "90a", .a_layout = ROW, .b_layout = COL, .c_layout = ROW, \
                 .problem = "FP8 GEMM", .baseline = "cublaslt_e4m3f32", .mult_k = 16, \
                 .align_ab = TMA_ALIGN, .release = hook_release_plan
/* a block-scaled FP8 rung: K a multiple of 128 (one scale per k-tile) */
#define FP8_SCALED_ROW .min_cc = 90, .target = "90a", .a_layout = ROW, .b_layout = COL, \
                 .c_layout = ROW, .problem = "FP8 GEMM", .baseline = "cublaslt_e4m3f32", \
                 .mult_k = 128, .align_ab = TMA_ALIGN, .release = hook_release_plan, \
                 .scaling = TC_GEMM_SCALING_BLOCK128
#define E4M3 .precision = "e4m3f32", .impl = &wgmma_in_e4m3, .emulation = &promoted_e4m3
#define E5M2 .precision = "e5m2f32", .impl = &wgmma_in_e5m2, .emulation = &promoted_e5m2, \
             .description = "the same with e5m2 inputs (compared with cuBLASLt's e4m3)"
#define CUBLAS_ROW .min_cc = 80, .a_layout = ROW, .b_layout = COL, .c_layout = ROW, \
                   .prepare = tc_cublas_prepare, .launch = tc_cublas_launch, \
                   .release = tc_cublas_release

/* the arithmetic --test checks bit for bit on an sm_90 GPU (tc_gemm_emulation, chapter 08's
 * record): f16 and bf16 rungs keep one chain of wgmma over all of K (v6 is left out: where its
 * last round splits depends on the GPU's SM count); the FP8 rungs promote every k-tile (128) */
static const tc_gemm_emulation chain_f16 = {.model = "wg_f16f32", .cc = 90, .k_run = 0};
static const tc_gemm_emulation chain_bf16 = {.model = "wg_bf16f32", .cc = 90, .k_run = 0};
static const tc_gemm_emulation promoted_e4m3 = {.model = "wg_e4m3f32", .cc = 90, .k_run = 128};
static const tc_gemm_emulation promoted_e5m2 = {.model = "wg_e5m2f32", .cc = 90, .k_run = 128};
/* block-scaled: each k-tile's sum times its scales, fma'd into the total (tc_gemm_emulation) */
static const tc_gemm_emulation scaled_e4m3 = {.model = "wg_e4m3f32", .cc = 90, .k_run = 128};

#define F16_CHAIN  F16_ROW, .emulation = &chain_f16   /* a row --test checks bit for bit */
#define BF16_CHAIN BF16_ROW, .emulation = &chain_bf16

/* the run-time choices --test forces (tc_gemm_variant.forced_names) */
static const char *const one_cluster[] = {"1cluster"};
static const char *const streamk_grids[] = {"7clusters", "1cluster"};
static const char *const fp8_widths[] = {"128wide", "144wide", "1cluster"};
#define FORCE_ONE   .n_forced = 1, .forced_names = one_cluster   /* a persistent grid of 1 */
#define FORCE_GRID  .n_forced = 2, .forced_names = streamk_grids /* split, and a grid of 1 */
#define FORCE_WIDTH .n_forced = 3, .forced_names = fp8_widths    /* each width, a grid of 1 */

/* the descriptions, one per rung (f16 and bf16 rows share them) */
#define V1_WHAT "wgmma m64n128k16, 128x128, cp.async 3-stage ring, swizzle by hand"
#define V2_WHAT "v1 with TMA loads, 4-stage mbarrier ring, one wgmma group in flight"
#define V3_WHAT "128x256, producer warpgroup + 2 consumers (m64n256k16), setmaxnreg"
#define V4_WHAT "v3 persistent (a block per SM walks tiles), clusters of 2, B multicast"
#define V5_WHAT "v4 with C out through TMA stores of 64x32 boxes, two buffers per consumer"
#define V6_WHAT "v5 with the last round's k-tiles shared evenly by all clusters (stream-K)"

static const tc_gemm_variant variants[] = {
    /* f16 in, f32 accumulate and out                                     rung file */
    {.name = "cublas_f16f32", .precision = "f16f32", .problem = "FP16 GEMM", CUBLAS_ROW,
     .impl = &tc_cublas_f16f32,
     .description = "cuBLAS, f16 in, f32 accumulate and out (the f16 baseline)"},
    {.name = "v1_wgmma", F16_CHAIN, .description = V1_WHAT,                 /* wgmma/v1_wgmma.cuh */
     .prepare = hook_v1_wgmma_prepare, .launch = hook_v1_wgmma_launch, .release = hook_release_plan},
    {.name = "v2_tma", F16_CHAIN, TMA_16BIT, .description = V2_WHAT,        /* wgmma/v2_tma.cuh */
     .prepare = hook_v2_tma_prepare, .launch = hook_v2_tma_launch, .release = hook_release_plan},
    {.name = "v3_warpspec", F16_CHAIN, TMA_16BIT, .description = V3_WHAT,   /* wgmma/v3_warpspec.cuh */
     .prepare = hook_v3_warpspec_prepare, .launch = hook_v3_warpspec_launch,
     .release = hook_release_plan},
    {.name = "v4_cluster", F16_CHAIN, TMA_16BIT, .description = V4_WHAT,    /* common/wgmma_v4_cluster.cuh */
     .prepare = hook_v4_cluster_prepare, .launch = hook_v4_cluster_launch,
     .release = hook_release_plan, FORCE_ONE},
    {.name = "v5_tmastore", F16_CHAIN, TMA_16BIT, .description = V5_WHAT,   /* wgmma/v5_tmastore.cuh */
     .prepare = hook_v5_tmastore_prepare, .launch = hook_v5_tmastore_launch,
     .release = hook_release_plan, FORCE_ONE},
    {.name = "v6_streamk", F16_ROW, TMA_16BIT, .description = V6_WHAT,      /* wgmma/v6_streamk.cuh */
     .prepare = hook_v6_streamk_prepare, .launch = hook_v6_streamk_launch,
     .release = hook_v6_streamk_release, FORCE_GRID,
     .check_state = hook_v6_streamk_check_state},

    /* bf16 in: the same rungs */
    {.name = "cublas_bf16f32", .precision = "bf16f32", .problem = "BF16 GEMM", CUBLAS_ROW,
     .impl = &tc_cublas_bf16f32,
     .description = "cuBLAS, bf16 in, f32 accumulate and out (the bf16 baseline)"},
    {.name = "v1_wgmma_bf16", BF16_CHAIN, .description = V1_WHAT,
     .prepare = hook_v1_wgmma_prepare, .launch = hook_v1_wgmma_launch, .release = hook_release_plan},
    {.name = "v2_tma_bf16", BF16_CHAIN, TMA_16BIT, .description = V2_WHAT,
     .prepare = hook_v2_tma_prepare, .launch = hook_v2_tma_launch, .release = hook_release_plan},
    {.name = "v3_warpspec_bf16", BF16_CHAIN, TMA_16BIT, .description = V3_WHAT,
     .prepare = hook_v3_warpspec_prepare, .launch = hook_v3_warpspec_launch,
     .release = hook_release_plan},
    {.name = "v4_cluster_bf16", BF16_CHAIN, TMA_16BIT, .description = V4_WHAT,
     .prepare = hook_v4_cluster_prepare, .launch = hook_v4_cluster_launch,
     .release = hook_release_plan, FORCE_ONE},
    {.name = "v5_tmastore_bf16", BF16_CHAIN, TMA_16BIT, .description = V5_WHAT,
     .prepare = hook_v5_tmastore_prepare, .launch = hook_v5_tmastore_launch,
     .release = hook_release_plan, FORCE_ONE},
    {.name = "v6_streamk_bf16", BF16_ROW, TMA_16BIT, .description = V6_WHAT,
     .prepare = hook_v6_streamk_prepare, .launch = hook_v6_streamk_launch,
     .release = hook_v6_streamk_release, FORCE_GRID,
     .check_state = hook_v6_streamk_check_state},

    /* FP8 (e4m3, e5m2) in, f32 accumulate and out */
    {.name = "cublaslt_e4m3f32", .precision = "e4m3f32", .min_cc = 89, .a_layout = ROW,
     .b_layout = COL, .c_layout = ROW, .problem = "FP8 GEMM",
     .mult_m = 16, .mult_n = 16, .mult_k = 16, .align_ab = TMA_ALIGN,
     .align_c = {.ptr = 16, .ld = 64}, /* cuBLASLt FP8: every ld a multiple of 16 elements */
     .prepare = tc_cublas_prepare, .launch = tc_cublas_launch, .release = tc_cublas_release,
     .impl = &tc_cublas_e4m3f32,
     .description = "cuBLASLt, fp8 e4m3 in, f32 out (the fp8 baseline; it has no e5m2 x e5m2)"},
    {.name = "fp8_v1_promote_e4m3", FP8_ROW, E4M3,                          /* wgmma/fp8_v1_promote.cuh */
     .description = "v4 for fp8: wgmma m64n128k32, 128x128, f32 promotion per k-tile",
     .prepare = hook_fp8_v1_promote_prepare, .launch = hook_fp8_v1_promote_launch, FORCE_ONE},
    {.name = "fp8_v1_promote_e5m2", FP8_ROW, E5M2,
     .prepare = hook_fp8_v1_promote_prepare, .launch = hook_fp8_v1_promote_launch, FORCE_ONE},
    {.name = "fp8_v2_pairs_e4m3", FP8_ROW, E4M3,                            /* wgmma/fp8_v2_pairs.cuh */
     .description = "fp8_v1 with two partial sums in turn: one k-tile on the tensor cores "
                    "while the last is added",
     .prepare = hook_fp8_v2_pairs_prepare, .launch = hook_fp8_v2_pairs_launch, FORCE_ONE},
    {.name = "fp8_v2_pairs_e5m2", FP8_ROW, E5M2,
     .prepare = hook_fp8_v2_pairs_prepare, .launch = hook_fp8_v2_pairs_launch, FORCE_ONE},
    {.name = "fp8_v3_wide_e4m3", FP8_ROW, E4M3,                             /* wgmma/fp8_v3_wide.cuh */
     .description = "fp8_v2 on 128x144 tiles (m64n144k32) where they fill the last round "
                    "better, else 128x128",
     .prepare = hook_fp8_v3_wide_prepare, .launch = hook_fp8_v3_wide_launch, FORCE_WIDTH},
    {.name = "fp8_v3_wide_e5m2", FP8_ROW, E5M2,
     .prepare = hook_fp8_v3_wide_prepare, .launch = hook_fp8_v3_wide_launch, FORCE_WIDTH},
    {.name = "fp8_v4_tmastore_e4m3", FP8_ROW, E4M3,                         /* wgmma/fp8_v4_tmastore.cuh */
     .description = "fp8_v3 with C out through TMA stores, its 6 stages kept",
     .prepare = hook_fp8_v4_tmastore_prepare, .launch = hook_fp8_v4_tmastore_launch, FORCE_WIDTH},
    {.name = "fp8_v4_tmastore_e5m2", FP8_ROW, E5M2,
     .prepare = hook_fp8_v4_tmastore_prepare, .launch = hook_fp8_v4_tmastore_launch, FORCE_WIDTH},

    /* block-scaled FP8 (e4m3 with f32 scales per 1x128 slice of A, 128x128 block of B): compared
     * with per-tensor cuBLASLt above (the target), cuBLASLt's own block-scaled mode beside it */
    {.name = "cublaslt_e4m3f32_b128", .precision = "e4m3f32_b128", .min_cc = 90, .a_layout = ROW,
     .b_layout = COL, .c_layout = ROW, .problem = "FP8 GEMM", .baseline = "cublaslt_e4m3f32",
     .mult_m = 16, .mult_n = 16, .mult_k = 128, .align_ab = TMA_ALIGN,
     .align_c = {.ptr = 16, .ld = 64}, .scaling = TC_GEMM_SCALING_BLOCK128,
     .prepare = tc_cublas_prepare, .launch = tc_cublas_launch, .release = tc_cublas_release,
     .impl = &tc_cublas_e4m3f32_b128,
     .description = "cuBLASLt, block-scaled e4m3 (VEC128 scales of A, BLK128x128 of B), f32 out"},
    {.name = "fp8_v5_blockscaled_e4m3", FP8_SCALED_ROW,                 /* wgmma/fp8_v5_blockscaled.cuh */
     .precision = "e4m3f32_b128", .impl = &wgmma_in_e4m3, .emulation = &scaled_e4m3,
     .description = "fp8_v2 block-scaled: each k-tile's sum times its 1x128 and 128x128 scales",
     .prepare = hook_fp8_v5_blockscaled_prepare, .launch = hook_fp8_v5_blockscaled_launch,
     FORCE_ONE},
    {.name = "fp8_v6_scales_tma_e4m3", FP8_SCALED_ROW,                  /* wgmma/fp8_v6_scales_tma.cuh */
     .precision = "e4m3f32_b128", .impl = &wgmma_in_e4m3, .emulation = &scaled_e4m3,
     .description = "fp8_v5 with the scales brought by the TMA with each stage",
     .prepare = hook_fp8_v6_scales_tma_prepare, .launch = hook_fp8_v6_scales_tma_launch,
     FORCE_ONE},
    {.name = "fp8_v7_scale_spans_e4m3", FP8_SCALED_ROW,                 /* wgmma/fp8_v7_scale_spans.cuh */
     .precision = "e4m3f32_b128", .impl = &wgmma_in_e4m3, .emulation = &scaled_e4m3,
     .description = "fp8_v6 with the scales of 4 k-tiles in one copy per operand",
     .prepare = hook_fp8_v7_scale_spans_prepare, .launch = hook_fp8_v7_scale_spans_launch,
     FORCE_ONE},
    {.name = "fp8_v8_tmastore_e4m3", FP8_SCALED_ROW,                    /* wgmma/fp8_v8_tmastore.cuh */
     .precision = "e4m3f32_b128", .impl = &wgmma_in_e4m3, .emulation = &scaled_e4m3,
     .description = "fp8_v7 with C out through TMA stores (f32 C, beta == 0)",
     .prepare = hook_fp8_v8_tmastore_prepare, .launch = hook_fp8_v8_tmastore_launch,
     FORCE_ONE},
    {.name = "fp8_v9_scale_loads_e4m3", FP8_SCALED_ROW,                 /* wgmma/fp8_v9_scale_loads.cuh */
     .precision = "e4m3f32_b128", .impl = &wgmma_in_e4m3, .emulation = &scaled_e4m3,
     .description = "fp8_v8 with no scale copies: each thread loads its scales, 2 k-tiles ahead",
     .prepare = hook_fp8_v9_scale_loads_prepare, .launch = hook_fp8_v9_scale_loads_launch,
     FORCE_ONE},
    /* the same with C in bf16, as training code stores activations */
    {.name = "cublaslt_e4m3bf16_b128", .precision = "e4m3bf16_b128", .min_cc = 90,
     .a_layout = ROW, .b_layout = COL, .c_layout = ROW, .problem = "FP8 GEMM",
     .baseline = "cublaslt_e4m3f32", .mult_m = 16, .mult_n = 16, .mult_k = 128,
     .align_ab = TMA_ALIGN, .align_c = {.ptr = 16, .ld = 32}, .scaling = TC_GEMM_SCALING_BLOCK128,
     .prepare = tc_cublas_prepare, .launch = tc_cublas_launch, .release = tc_cublas_release,
     .impl = &tc_cublas_e4m3bf16_b128,
     .description = "cuBLASLt, block-scaled e4m3 as above, C in bf16"},
    {.name = "fp8_v5_blockscaled_e4m3_to_bf16", FP8_SCALED_ROW,
     .precision = "e4m3bf16_b128", .impl = &wgmma_in_e4m3, .emulation = &scaled_e4m3,
     .description = "fp8_v5 with C in bf16 (the f32 result rounded once, to nearest even)",
     .prepare = hook_fp8_v5_blockscaled_prepare, .launch = hook_fp8_v5_blockscaled_launch,
     FORCE_ONE},
    {.name = "fp8_v6_scales_tma_e4m3_to_bf16", FP8_SCALED_ROW,
     .precision = "e4m3bf16_b128", .impl = &wgmma_in_e4m3, .emulation = &scaled_e4m3,
     .description = "fp8_v6 with C in bf16",
     .prepare = hook_fp8_v6_scales_tma_prepare, .launch = hook_fp8_v6_scales_tma_launch,
     FORCE_ONE},
    {.name = "fp8_v7_scale_spans_e4m3_to_bf16", FP8_SCALED_ROW,
     .precision = "e4m3bf16_b128", .impl = &wgmma_in_e4m3, .emulation = &scaled_e4m3,
     .description = "fp8_v7 with C in bf16",
     .prepare = hook_fp8_v7_scale_spans_prepare, .launch = hook_fp8_v7_scale_spans_launch,
     FORCE_ONE},
    {.name = "fp8_v8_tmastore_e4m3_to_bf16", FP8_SCALED_ROW,
     .precision = "e4m3bf16_b128", .impl = &wgmma_in_e4m3, .emulation = &scaled_e4m3,
     .description = "fp8_v8 with C in bf16 (fp8_v7's direct epilogue)",
     .prepare = hook_fp8_v8_tmastore_prepare, .launch = hook_fp8_v8_tmastore_launch,
     FORCE_ONE},
    {.name = "fp8_v9_scale_loads_e4m3_to_bf16", FP8_SCALED_ROW,
     .precision = "e4m3bf16_b128", .impl = &wgmma_in_e4m3, .emulation = &scaled_e4m3,
     .description = "fp8_v9 with C in bf16",
     .prepare = hook_fp8_v9_scale_loads_prepare, .launch = hook_fp8_v9_scale_loads_launch,
     FORCE_ONE},
};
// clang-format on

/* The FP8 GEMMs of a transformer layer (M = 4096 tokens; N, K of DeepSeek-V3's projections),
 * per-tensor and block-scaled, each compared with per-tensor cuBLASLt at the same size */
#define FP8_SHAPE(m, n, k)                                                                         \
    {.variant = "cublaslt_e4m3f32", .label = "cublaslt_e4m3f32", .baseline = "cublaslt_e4m3f32", \
     .M = m, .N = n, .K = k},                                                                      \
    {.variant = "fp8_v4_tmastore_e4m3", .label = "fp8_v4_tmastore_e4m3",                           \
     .baseline = "cublaslt_e4m3f32", .M = m, .N = n, .K = k},                                      \
    {.variant = "cublaslt_e4m3f32_b128", .label = "cublaslt_e4m3f32_b128",                         \
     .baseline = "cublaslt_e4m3f32", .M = m, .N = n, .K = k},                                      \
    {.variant = "fp8_v5_blockscaled_e4m3", .label = "fp8_v5_blockscaled_e4m3",                     \
     .baseline = "cublaslt_e4m3f32", .M = m, .N = n, .K = k},                                      \
    {.variant = "fp8_v6_scales_tma_e4m3", .label = "fp8_v6_scales_tma_e4m3",                       \
     .baseline = "cublaslt_e4m3f32", .M = m, .N = n, .K = k},                                      \
    {.variant = "fp8_v7_scale_spans_e4m3", .label = "fp8_v7_scale_spans_e4m3",                     \
     .baseline = "cublaslt_e4m3f32", .M = m, .N = n, .K = k},                                      \
    {.variant = "fp8_v8_tmastore_e4m3", .label = "fp8_v8_tmastore_e4m3",                           \
     .baseline = "cublaslt_e4m3f32", .M = m, .N = n, .K = k},                                      \
    {.variant = "fp8_v9_scale_loads_e4m3", .label = "fp8_v9_scale_loads_e4m3",                     \
     .baseline = "cublaslt_e4m3f32", .M = m, .N = n, .K = k}
/* The error that block scaling buys: the best per-tensor and block-scaled rungs and cuBLASLt's two
 * modes on skewed inputs (one exponent in -8..8 per 1 x 128 slice of A and 128 x 128 block of B),
 * whose rel_err_vs_data compares them; rates against per-tensor cuBLASLt on the same inputs */
#define FP8_SKEWED(variant_name)                                                                   \
    {                                                                                              \
        .variant = variant_name, .label = variant_name "_skewed",                                  \
        .baseline = "cublaslt_e4m3f32_skewed", .M = 4096, .N = 4096, .K = 4096,                    \
        .inputs = TC_INPUTS_SKEWED                                                                 \
    }
static const tc_gemm_bench_extra bench_extras[] = {
    FP8_SHAPE(4096, 7168, 16384),        FP8_SHAPE(4096, 4096, 7168),
    FP8_SHAPE(4096, 2112, 7168),         FP8_SHAPE(4096, 24576, 1536),
    FP8_SKEWED("cublaslt_e4m3f32"),      FP8_SKEWED("fp8_v4_tmastore_e4m3"),
    FP8_SKEWED("cublaslt_e4m3f32_b128"), FP8_SKEWED("fp8_v8_tmastore_e4m3"),
};

int main(int argc, char **argv)
{
    static const tc_gemm_chapter chapter = {
        .name = "05_wgmma_gemm",
        .summary = "the Hopper GEMM ladder (f16, bf16 and fp8 in, f32 out): wgmma, TMA, warp "
                   "specialisation, persistent, clusters, TMA stores, stream-K (sm_90a)",
        .variants = variants,
        .n_variants = TC_COUNT(variants),
        .bench_extras = bench_extras,
        .n_bench_extras = TC_COUNT(bench_extras),
        .min_cc = 80, /* the cuBLAS rows; the rungs' rows need sm_90a (.target) */
        .init = tc_cublas_chapter_init,
    };
    return tc_gemm_main(argc, argv, &chapter);
}
