/* 05_mma_ptx/wgmma_main.c - the host driver of the Hopper GEMM ladder (kernels in wgmma_gemm.cu
 * and wgmma_fp8.cu), part 2 of chapter 05. sm_90a only: on any other GPU the program exits 77
 * with one line.
 *
 * The variant table below is the whole ladder as the tools see it: --list prints it, --test runs
 * every row on the test matrix (odd sizes, alpha/beta != (1, 0), padded and offset operands),
 * --bench times every row at 4096^3 and 8192^3 next to cuBLAS in the same layout, precision and
 * run. The ladder runs twice: f16 inputs ("FP16 GEMM") and bf16 inputs ("BF16 GEMM"); v5 runs
 * it with fp8 inputs ("FP8 GEMM": e4m3 and e5m2) next to cuBLASLt's e4m3.
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

/* sm_90a code runs on compute capability 9.0 only ("a": not forward compatible). */
static void *wgmma_chapter_init(const tc_device_info *dev, FILE *info)
{
    if (dev->cc != 90)
        tc_skip("05_wgmma_gemm", "wgmma and TMA code is built for sm_90a only; %s is sm_%d",
                dev->name, dev->cc);
    return tc_cublas_chapter_init(dev, info);
}

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
    {.name = NAME, .precision = "f16f32", .min_cc = 90, .a_layout = ROW, .b_layout = COL,         \
     .c_layout = ROW, .problem = "FP16 GEMM", .baseline = "cublas_f16f32",                        \
     .impl = &wgmma_in_f16, __VA_ARGS__}
#define BF16(NAME, ...)                                                                            \
    {.name = NAME "_bf16", .precision = "bf16f32", .min_cc = 90, .a_layout = ROW, .b_layout = COL,\
     .c_layout = ROW, .problem = "BF16 GEMM", .baseline = "cublas_bf16f32",                       \
     .impl = &wgmma_in_bf16, __VA_ARGS__}
/* the TMA reads A and B: 16-byte aligned starts and row pitches */
#define TMA_ALIGN {.ptr = 16, .ld = 16}
/* an fp8 rung: K a multiple of 16 (rows of A and B 16 bytes apart for the TMA) */
#define FP8(NAME, PRECISION, IMPL, ...)                                                            \
    {.name = NAME, .precision = PRECISION, .min_cc = 90, .a_layout = ROW, .b_layout = COL,        \
     .c_layout = ROW, .problem = "FP8 GEMM", .baseline = "cublaslt_e4m3f32", .impl = IMPL,        \
     .mult_k = 16, .align_ab = TMA_ALIGN, .release = wgmma_release, __VA_ARGS__}
/* an fp8 rung, e4m3 then e5m2 inputs (both against cuBLASLt's e4m3 baseline) */
#define FP8_RUNG(vn, DESCRIPTION)                                                                  \
    FP8(#vn "_fp8_e4m3", "e4m3f32", &wgmma_in_e4m3, .prepare = wgmma_##vn##_prepare,              \
        .launch = wgmma_##vn##_launch, .description = DESCRIPTION),                               \
    FP8(#vn "_fp8_e5m2", "e5m2f32", &wgmma_in_e5m2, .prepare = wgmma_##vn##_prepare,              \
        .launch = wgmma_##vn##_launch,                                                            \
        .description = "the same with e5m2 inputs (compared with cuBLASLt's e4m3)")
/* a TMA rung (v2 and up) of the f16/bf16 ladder: K a multiple of 8, 16-byte rows, tensor maps
 * to free */
#define TMA_RUNG(vn)                                                                               \
    .mult_k = 8, .align_ab = TMA_ALIGN, .prepare = wgmma_##vn##_prepare,                          \
    .launch = wgmma_##vn##_launch, .release = wgmma_release
#define LADDER(X)                                                                                  \
    X("v1_wgmma",    .prepare = wgmma_v1_prepare, .launch = wgmma_v1_launch,                       \
      .description = "wgmma m64n128k16, 128x128, cp.async 3-stage ring, swizzle by hand"),         \
    X("v2_tma", TMA_RUNG(v2),                                                                      \
      .description = "v1 with TMA loads, 4-stage mbarrier ring, one wgmma group in flight"),       \
    X("v3_warpspec", TMA_RUNG(v3),                                                                 \
      .description = "128x256, producer warpgroup + 2 consumers (m64n256k16), setmaxnreg"),        \
    X("v4_cluster", TMA_RUNG(v4),                                                                  \
      .description = "v3 persistent (a block per SM walks tiles), clusters of 2, B multicast"),    \
    X("v7_streamk", TMA_RUNG(v7),                                                                  \
      .description =                                                                             \
          "v4 with the last round's k-tiles shared evenly by all clusters (stream-K)"),           \
    X("v10_tmastore", TMA_RUNG(v10),                                                               \
      .description = "v4 with C out through TMA stores of 64x32 boxes, two buffers per consumer"), \
    X("v11_tmastore_sk", TMA_RUNG(v11),                                                            \
      .description = "v7 (stream-K) with the TMA-store epilogue")

static const tc_gemm_variant variants[] = {
    CUBLAS(.name = "cublas_f16f32",  .precision = "f16f32",  .problem = "FP16 GEMM",
           .impl = &tc_cublas_f16f32,
           .description = "cuBLAS, f16 in, f32 accumulate and out (the f16 baseline)"),
    LADDER(F16),
    CUBLAS(.name = "cublas_bf16f32", .precision = "bf16f32", .problem = "BF16 GEMM",
           .impl = &tc_cublas_bf16f32,
           .description = "cuBLAS, bf16 in, f32 accumulate and out (the bf16 baseline)"),
    LADDER(BF16),
    {.name = "cublaslt_e4m3f32", .precision = "e4m3f32", .min_cc = 89, .a_layout = ROW,
     .b_layout = COL, .c_layout = ROW, .problem = "FP8 GEMM",
     .mult_m = 16, .mult_n = 16, .mult_k = 16, .align_ab = TMA_ALIGN,
     .align_c = {.ptr = 16, .ld = 64}, /* cuBLASLt FP8: every ld a multiple of 16 elements */
     .prepare = tc_cublas_prepare, .launch = tc_cublas_launch, .release = tc_cublas_release,
     .impl = &tc_cublas_e4m3f32,
     .description = "cuBLASLt, fp8 e4m3 in, f32 out (the fp8 baseline; it has no e5m2 x e5m2)"},
    FP8_RUNG(v5, "v4 for fp8: wgmma m64n128k32 e4m3, 128x128, f32 promotion per k-tile"),
    FP8_RUNG(v6,
             "v5 with two partial sums in turn: one k-tile on the tensor cores "
             "while the last is added"),
    FP8_RUNG(v8,
             "v6 on 128x144 tiles (m64n144k32) where they fill the last round "
             "better, else 128x128"),
    FP8_RUNG(v9, "v8 with C staged in shared memory, copied out while the next tile runs"),
    FP8_RUNG(v12, "v8 with the TMA-store epilogue, 6 stages kept"),
};
// clang-format on

int main(int argc, char **argv)
{
    static const tc_gemm_chapter chapter = {
        .name = "05_wgmma_gemm",
        .summary =
            "the Hopper GEMM ladder (f16 and bf16 in, f32 out): wgmma, TMA, warp specialisation, "
            "persistent, clusters (sm_90a)",
        .variants = variants,
        .n_variants = TC_COUNT(variants),
        .min_cc = 90,
        .init = wgmma_chapter_init,
    };
    return tc_gemm_main(argc, argv, &chapter);
}
