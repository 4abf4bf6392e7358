/* 01_cublas_tensor_op/main.c - turning tensor cores on from cuBLAS, and what each choice costs.
 *
 * What it teaches
 *   A cuBLAS user never writes a kernel, yet decides whether the tensor cores run: through the
 *   data types of A, B and C, the compute type (cublasComputeType_t), and the math mode of the
 *   handle. This program runs one GEMM, C = A*B, in every mode that matters on a tensor-core GPU
 *   and prints, side by side, its speed and its error against an FP64 reference computed on the
 *   CPU from the same inputs. That table is the lesson (README.md explains it).
 *
 * Layout (the same for every mode, so only the mode changes): A row-major M x K, B column-major
 *   K x N, C column-major M x N. In cuBLAS's column-major terms that is the "TN" GEMM
 *   (op(A) = A^T of a K x M matrix): both operands are contiguous along K, the layout the tensor
 *   cores consume and the only one cuBLASLt's FP8 path accepts.
 *
 * Variants (one per mode; `--list` prints the table)
 *   f32_pedantic   COMPUTE_32F_PEDANTIC + PEDANTIC_MATH: FP32 FMAs on the CUDA cores. The
 *                  baseline every other row is compared with.
 *   f32_default    COMPUTE_32F with the default math mode: still FP32 on CUDA cores. cuBLAS
 *                  never lowers FP32 precision unless asked. The one outside switch NVIDIA
 *                  documents is NVIDIA_TF32_OVERRIDE=0, which forbids TF32 in every library
 *                  (the harness warns whenever the variable is set).
 *   tf32_compute   COMPUTE_32F_FAST_TF32: inputs rounded to TF32 (10-bit mantissa) inside the
 *                  library, products on tensor cores, FP32 accumulate. Asked per call.
 *   tf32_mathmode  COMPUTE_32F + cublasSetMathMode(CUBLAS_TF32_TENSOR_OP_MATH): the same, asked
 *                  once per handle (how frameworks flip it globally).
 *   f32_fast_16f   COMPUTE_32F_FAST_16F: f32 data, f16 tensor-core products inside.
 *   f32_fast_16bf  COMPUTE_32F_FAST_16BF: f32 data, bf16 tensor-core products inside.
 *   f16_f32        f16 A, B; f32 C; COMPUTE_32F: the mixed-precision workhorse.
 *   f16_f16        f16 everything, COMPUTE_16F: half the output bytes, f16 accumulation error.
 *   bf16_f32       bf16 A, B; f32 C: f16's speed with f32's exponent range.
 *   i8_i32         int8 A, B; int32 C; COMPUTE_32I: exact integer results (IMMA). cuBLAS
 *                  answers CUBLAS_STATUS_NOT_SUPPORTED unless lda and ldb are multiples of 4;
 *                  in this layout that means K a multiple of 4 (probed on cuBLAS 13.1).
 *   e4m3_f32       FP8 E4M3 A, B; f32 C; through cublasLtMatmul (sm_89+, TN only, dimensions
 *                  multiples of 16).
 *
 * Minimum: sm_75 for the chapter; each mode names its own minimum (TF32 and BF16 need sm_80,
 *   INT8 tensor cores sm_75, FP8 sm_89). CUDA 13.x (compiled here; sm_75 and newer) or 12.x
 *   (expected to work, not compiled here; the only toolkit for sm_70).
 *
 * Build and run
 *   make                                  # builds build/bin/01_cublas_tensor_op
 *   build/bin/01_cublas_tensor_op         # every mode at 4096^3: speed and error side by side
 *   build/bin/01_cublas_tensor_op --test  # every mode on the test matrix, checked on the CPU
 *   build/bin/01_cublas_tensor_op --bench # 4096^3, 8192^3 and the alignment rows, as CSV
 */
#include "cublas_gemm.h"

/* hand-aligned tables */
// clang-format off
#define ROW TC_ROW_MAJOR
#define COL TC_COL_MAJOR

/* the data types of A, B and C, the compute type and the handle's math mode of each variant */
static const tc_cublas_mode m_f32_pedantic = {
    .a_type = CUDA_R_32F, .b_type = CUDA_R_32F, .c_type = CUDA_R_32F,
    .compute = CUBLAS_COMPUTE_32F_PEDANTIC, .math_mode = CUBLAS_PEDANTIC_MATH};
static const tc_cublas_mode m_f32_default = {
    .a_type = CUDA_R_32F, .b_type = CUDA_R_32F, .c_type = CUDA_R_32F,
    .compute = CUBLAS_COMPUTE_32F, .math_mode = CUBLAS_DEFAULT_MATH};
static const tc_cublas_mode m_tf32_compute = {
    .a_type = CUDA_R_32F, .b_type = CUDA_R_32F, .c_type = CUDA_R_32F,
    .compute = CUBLAS_COMPUTE_32F_FAST_TF32, .math_mode = CUBLAS_DEFAULT_MATH};
static const tc_cublas_mode m_tf32_mathmode = {
    .a_type = CUDA_R_32F, .b_type = CUDA_R_32F, .c_type = CUDA_R_32F,
    .compute = CUBLAS_COMPUTE_32F, .math_mode = CUBLAS_TF32_TENSOR_OP_MATH};
static const tc_cublas_mode m_fast_16f = {
    .a_type = CUDA_R_32F, .b_type = CUDA_R_32F, .c_type = CUDA_R_32F,
    .compute = CUBLAS_COMPUTE_32F_FAST_16F, .math_mode = CUBLAS_DEFAULT_MATH};
static const tc_cublas_mode m_fast_16bf = {
    .a_type = CUDA_R_32F, .b_type = CUDA_R_32F, .c_type = CUDA_R_32F,
    .compute = CUBLAS_COMPUTE_32F_FAST_16BF, .math_mode = CUBLAS_DEFAULT_MATH};
static const tc_cublas_mode m_f16_f32 = {
    .a_type = CUDA_R_16F, .b_type = CUDA_R_16F, .c_type = CUDA_R_32F,
    .compute = CUBLAS_COMPUTE_32F, .math_mode = CUBLAS_DEFAULT_MATH};
static const tc_cublas_mode m_f16_f16 = {
    .a_type = CUDA_R_16F, .b_type = CUDA_R_16F, .c_type = CUDA_R_16F,
    .compute = CUBLAS_COMPUTE_16F, .math_mode = CUBLAS_DEFAULT_MATH};
static const tc_cublas_mode m_bf16_f32 = {
    .a_type = CUDA_R_16BF, .b_type = CUDA_R_16BF, .c_type = CUDA_R_32F,
    .compute = CUBLAS_COMPUTE_32F, .math_mode = CUBLAS_DEFAULT_MATH};
static const tc_cublas_mode m_i8_i32 = {
    .a_type = CUDA_R_8I, .b_type = CUDA_R_8I, .c_type = CUDA_R_32I,
    .compute = CUBLAS_COMPUTE_32I, .math_mode = CUBLAS_DEFAULT_MATH};

/* FP64 and the emulation switches of cuBLAS 13: an FP64 GEMM from fixed-point integer products,
 * an FP32 GEMM from BF16 products. With the DEFAULT strategy cuBLAS emulates only where its
 * heuristic expects a gain; EAGER asks for emulation whenever it is possible. */
static const tc_cublas_mode m_f64_pedantic = {
    .a_type = CUDA_R_64F, .b_type = CUDA_R_64F, .c_type = CUDA_R_64F,
    .compute = CUBLAS_COMPUTE_64F_PEDANTIC, .math_mode = CUBLAS_PEDANTIC_MATH};
#if CUBLAS_VER_MAJOR >= 13
static const tc_cublas_mode m_f64_fixedpoint = {
    .a_type = CUDA_R_64F, .b_type = CUDA_R_64F, .c_type = CUDA_R_64F,
    .compute = CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, .math_mode = CUBLAS_DEFAULT_MATH};
static const tc_cublas_mode m_f64_fixedpoint_eager = {
    .a_type = CUDA_R_64F, .b_type = CUDA_R_64F, .c_type = CUDA_R_64F,
    .compute = CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, .math_mode = CUBLAS_DEFAULT_MATH,
    .emulation_strategy = CUBLAS_EMULATION_STRATEGY_EAGER};
static const tc_cublas_mode m_f32_bf16x9_eager = {
    .a_type = CUDA_R_32F, .b_type = CUDA_R_32F, .c_type = CUDA_R_32F,
    .compute = CUBLAS_COMPUTE_32F_EMULATED_16BFX9, .math_mode = CUBLAS_DEFAULT_MATH,
    .emulation_strategy = CUBLAS_EMULATION_STRATEGY_EAGER};
#endif

/* A variant: what every mode shares, then its own fields (name, description, precision,
 * min_cc, size multiples when it has any, impl: its mode). */
#define MODE(...)                                                                                  \
    {.a_layout = ROW, .b_layout = COL, .c_layout = COL, .problem = "cuBLAS modes",                 \
     .baseline = "f32_pedantic", .prepare = tc_cublas_prepare, .launch = tc_cublas_launch,         \
     .release = tc_cublas_release, __VA_ARGS__}

/* The variant table: --list, --variant, --test and --bench all come from it. */
static const tc_gemm_variant variants[] = {
    MODE(.name = "f32_pedantic",  .precision = "f32",      .min_cc = 75, .impl = &m_f32_pedantic,
         .description = "FP32 on CUDA cores, COMPUTE_32F_PEDANTIC (the baseline)"),
    MODE(.name = "f32_default",   .precision = "f32",      .min_cc = 75, .impl = &m_f32_default,
         .description = "FP32, COMPUTE_32F, default math mode (still CUDA cores)"),
    MODE(.name = "tf32_compute",  .precision = "f32_tf32", .min_cc = 80, .impl = &m_tf32_compute,
         .description = "f32 data, COMPUTE_32F_FAST_TF32 (TF32 tensor cores)"),
    MODE(.name = "tf32_mathmode", .precision = "f32_tf32", .min_cc = 80, .impl = &m_tf32_mathmode,
         .description = "f32 data, COMPUTE_32F + CUBLAS_TF32_TENSOR_OP_MATH"),
    MODE(.name = "f32_fast_16f",  .precision = "f32_f16",  .min_cc = 75, .impl = &m_fast_16f,
         .description = "f32 data, COMPUTE_32F_FAST_16F (f16 tensor cores)"),
    MODE(.name = "f32_fast_16bf", .precision = "f32_bf16", .min_cc = 80, .impl = &m_fast_16bf,
         .description = "f32 data, COMPUTE_32F_FAST_16BF (bf16 tensor cores)"),
    MODE(.name = "f16_f32",       .precision = "f16f32",   .min_cc = 75, .impl = &m_f16_f32,
         .description = "f16 A,B -> f32 C, COMPUTE_32F"),
    MODE(.name = "f16_f16",       .precision = "f16f16",   .min_cc = 75, .impl = &m_f16_f16,
         .description = "f16 A,B -> f16 C, COMPUTE_16F (f16 accumulate)"),
    MODE(.name = "bf16_f32",      .precision = "bf16f32",  .min_cc = 80, .impl = &m_bf16_f32,
         .description = "bf16 A,B -> f32 C, COMPUTE_32F"),
    MODE(.name = "i8_i32",        .precision = "i8i32",    .min_cc = 75, .impl = &m_i8_i32,
         .mult_k = 4, .align_ab = {.ptr = 4, .ld = 4},
         .description = "int8 A,B -> int32 C, COMPUTE_32I (exact)"),
    MODE(.name = "e4m3_f32",      .precision = "e4m3f32",  .min_cc = 89, .impl = &tc_cublas_e4m3f32,
         .mult_m = 16, .mult_n = 16, .mult_k = 16, .align_ab = {.ptr = 16, .ld = 16},
         .align_c = {.ptr = 16, .ld = 64}, /* cuBLASLt: every ld a multiple of 16 elements */
         .description = "fp8 e4m3 A,B -> f32 C, cublasLtMatmul (TN only)"),
    MODE(.name = "f64",           .precision = "f64",      .min_cc = 75, .impl = &tc_cublas_f64,
         .description = "f64 A,B,C, COMPUTE_64F (DGEMM)"),
    MODE(.name = "f64_pedantic",  .precision = "f64",      .min_cc = 75, .impl = &m_f64_pedantic,
         .description = "f64 A,B,C, COMPUTE_64F_PEDANTIC"),
#if CUBLAS_VER_MAJOR >= 13
    MODE(.name = "f64_emu_default", .precision = "f64",    .min_cc = 75, .impl = &m_f64_fixedpoint,
         .description = "f64, COMPUTE_64F_EMULATED_FIXEDPOINT, default strategy"),
    MODE(.name = "f64_emu_eager", .precision = "f64",      .min_cc = 75,
         .impl = &m_f64_fixedpoint_eager,
         .description = "f64 emulated with int8 products: FIXEDPOINT, EAGER strategy"),
    MODE(.name = "f32_bf16x9_eager", .precision = "f32",   .min_cc = 80,
         .impl = &m_f32_bf16x9_eager,
         .description = "f32, COMPUTE_32F_EMULATED_16BFX9, EAGER strategy"),
#endif
};

/* The alignment lesson: the same f16 GEMM with K odd (rows of A and B no longer 16-byte
 * aligned), with a leading dimension one element too long, and with pointers 2 bytes past an
 * aligned address. Each row is compared with the aligned 8192^3 f16_f32 row of the same run. */
static const tc_gemm_bench_extra bench_extras[] = {
    {.variant = "f16_f32",      .label = "f16_f32_K-1",      .baseline = "f16_f32",
     .M = 8192, .N = 8192, .K = 8191},
    {.variant = "f16_f32",      .label = "f16_f32_ld+1",     .baseline = "f16_f32",
     .M = 8192, .N = 8192, .K = 8192, .ld_pad = 1},
    {.variant = "f16_f32",      .label = "f16_f32_ptr+2B",   .baseline = "f16_f32",
     .M = 8192, .N = 8192, .K = 8192, .offset_elems = 1},
    {.variant = "tf32_compute", .label = "tf32_compute_K-1", .baseline = "tf32_compute",
     .M = 8192, .N = 8192, .K = 8191},
};
// clang-format on

int main(int argc, char **argv)
{
    static const tc_gemm_chapter chapter = {
        .name = "01_cublas_tensor_op",
        .summary = "cuBLAS math modes and compute types: speed and error of every tensor-core path",
        .variants = variants,
        .n_variants = TC_COUNT(variants),
        .bench_extras = bench_extras,
        .n_bench_extras = TC_COUNT(bench_extras),
        .min_cc = 75,
        .init = tc_cublas_chapter_init,
    };
    return tc_gemm_main(argc, argv, &chapter);
}
