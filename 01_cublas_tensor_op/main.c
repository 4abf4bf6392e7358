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
 *                  never lowers FP32 precision unless asked (or unless NVIDIA_TF32_OVERRIDE=1).
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
 * Minimum: sm_70 for the chapter; each mode names its own minimum (TF32 and BF16 need sm_80,
 *   INT8 tensor cores sm_75, FP8 sm_89). CUDA 12.x or 13.x.
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

static const tc_cublas_mode m_f32_pedantic = {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                              CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_PEDANTIC_MATH, 0};
static const tc_cublas_mode m_f32_default = {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F,
                                             CUBLAS_DEFAULT_MATH, 0};
static const tc_cublas_mode m_tf32_compute = {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                              CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_DEFAULT_MATH, 0};
static const tc_cublas_mode m_tf32_mathmode = {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                               CUBLAS_COMPUTE_32F, CUBLAS_TF32_TENSOR_OP_MATH, 0};
static const tc_cublas_mode m_fast_16f = {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                          CUBLAS_COMPUTE_32F_FAST_16F, CUBLAS_DEFAULT_MATH, 0};
static const tc_cublas_mode m_fast_16bf = {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                           CUBLAS_COMPUTE_32F_FAST_16BF, CUBLAS_DEFAULT_MATH, 0};
static const tc_cublas_mode m_f16_f32 = {CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F,
                                         CUBLAS_DEFAULT_MATH, 0};
static const tc_cublas_mode m_f16_f16 = {CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F,
                                         CUBLAS_DEFAULT_MATH, 0};
static const tc_cublas_mode m_bf16_f32 = {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F,
                                          CUBLAS_DEFAULT_MATH, 0};
static const tc_cublas_mode m_i8_i32 = {CUDA_R_8I, CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I,
                                        CUBLAS_DEFAULT_MATH, 0};
static const tc_cublas_mode m_e4m3_f32 = {CUDA_R_8F_E4M3, CUDA_R_8F_E4M3, CUDA_R_32F,
                                          CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH, 1};

#define MODE(name, desc, prec, cc, mult_mn, mult_k, mode)                                          \
    {name, desc, prec, cc, mult_mn, mult_mn, mult_k, ROW, COL, COL, "cuBLAS modes", "f32_pedantic",\
     tc_cublas_prepare, tc_cublas_launch, tc_cublas_release, &mode}

/* The variant table: --list, --variant, --test and --bench all come from it. */
static const tc_gemm_variant variants[] = {
    MODE("f32_pedantic", "FP32 on CUDA cores, COMPUTE_32F_PEDANTIC (the baseline)", "f32", 70, 1, 1,
         m_f32_pedantic),
    MODE("f32_default", "FP32, COMPUTE_32F, default math mode (still CUDA cores)", "f32", 70, 1, 1,
         m_f32_default),
    MODE("tf32_compute", "f32 data, COMPUTE_32F_FAST_TF32 (TF32 tensor cores)", "f32_tf32", 80, 1, 1,
         m_tf32_compute),
    MODE("tf32_mathmode", "f32 data, COMPUTE_32F + CUBLAS_TF32_TENSOR_OP_MATH", "f32_tf32", 80, 1, 1,
         m_tf32_mathmode),
    MODE("f32_fast_16f", "f32 data, COMPUTE_32F_FAST_16F (f16 tensor cores)", "f32_f16", 70, 1, 1,
         m_fast_16f),
    MODE("f32_fast_16bf", "f32 data, COMPUTE_32F_FAST_16BF (bf16 tensor cores)", "f32_bf16", 80, 1, 1,
         m_fast_16bf),
    MODE("f16_f32", "f16 A,B -> f32 C, COMPUTE_32F", "f16f32", 70, 1, 1, m_f16_f32),
    MODE("f16_f16", "f16 A,B -> f16 C, COMPUTE_16F (f16 accumulate)", "f16f16", 70, 1, 1, m_f16_f16),
    MODE("bf16_f32", "bf16 A,B -> f32 C, COMPUTE_32F", "bf16f32", 80, 1, 1, m_bf16_f32),
    MODE("i8_i32", "int8 A,B -> int32 C, COMPUTE_32I (exact)", "i8i32", 75, 1, 4, m_i8_i32),
    MODE("e4m3_f32", "fp8 e4m3 A,B -> f32 C, cublasLtMatmul (TN only)", "e4m3f32", 89, 16, 16,
         m_e4m3_f32),
};

// clang-format on

static const int bench_sizes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}};

/* The alignment lesson: the same f16 GEMM with K odd (rows of A and B no longer 16-byte
 * aligned), with a leading dimension one element too long, and with pointers 2 bytes past an
 * aligned address. Each row is compared with the aligned 8192^3 f16_f32 row of the same run. */
static const tc_gemm_bench_extra bench_extras[] = {
    {"f16_f32", "f16_f32_K-1", "f16_f32", 8192, 8192, 8191, 0, 0},
    {"f16_f32", "f16_f32_ld+1", "f16_f32", 8192, 8192, 8192, 1, 0},
    {"f16_f32", "f16_f32_ptr+2B", "f16_f32", 8192, 8192, 8192, 0, 1},
    {"tf32_compute", "tf32_compute_K-1", "tf32_compute", 8192, 8192, 8191, 0, 0},
};

int main(int argc, char **argv)
{
    static const tc_gemm_chapter chapter = {
        "01_cublas_tensor_op",
        "cuBLAS math modes and compute types: speed and error of every tensor-core path",
        variants,
        (int)(sizeof variants / sizeof variants[0]),
        "all",
        4096,
        4096,
        4096,
        bench_sizes,
        (int)(sizeof bench_sizes / sizeof bench_sizes[0]),
        bench_extras,
        (int)(sizeof bench_extras / sizeof bench_extras[0]),
        70,
        tc_cublas_chapter_init,
        NULL,
    };
    return tc_gemm_main(argc, argv, &chapter);
}
