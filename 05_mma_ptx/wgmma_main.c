/* 05_mma_ptx/wgmma_main.c - the host driver of the Hopper GEMM ladder (kernels in wgmma_gemm.cu),
 * part 2 of chapter 05. sm_90a only: on any other GPU the program exits 77 with one line.
 *
 * The variant table below is the whole ladder as the tools see it: --list prints it, --test runs
 * every row on the test matrix (odd sizes, alpha/beta != (1, 0), padded and offset operands),
 * --bench times every row at 4096^3 and 8192^3 next to cuBLAS in the same layout, precision and
 * run. The ladder runs twice: f16 inputs ("FP16 GEMM") and bf16 inputs ("BF16 GEMM").
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
#define CUBLAS(name, desc, prec, problem, mode)                                                    \
    {name, desc, prec, 80, 1, 1, 1, ROW, COL, ROW, problem, NULL, tc_cublas_prepare,              \
     tc_cublas_launch, tc_cublas_release, &mode}
/* mult_k: 1 for v1 (cp.async takes anything), 8 for the TMA rungs (16-byte rows) */
#define F16(name, desc, mult_k, prepare, launch, release)                                          \
    {name, desc, "f16f32", 90, 1, 1, mult_k, ROW, COL, ROW, "FP16 GEMM", "cublas_f16f32",        \
     prepare, launch, release, &wgmma_in_f16}
#define BF16(name, desc, mult_k, prepare, launch, release)                                         \
    {name "_bf16", desc, "bf16f32", 90, 1, 1, mult_k, ROW, COL, ROW, "BF16 GEMM",                \
     "cublas_bf16f32", prepare, launch, release, &wgmma_in_bf16}
#define LADDER(X)                                                                                  \
    X("v1_wgmma",      "wgmma m64n128k16, 128x128, cp.async 3-stage ring, swizzle by hand", 1,   \
      wgmma_v1_prepare, wgmma_v1_launch, NULL),                                                    \
    X("v2_tma",        "v1 with TMA loads, 4-stage mbarrier ring, one wgmma group in flight", 8, \
      wgmma_v2_prepare, wgmma_v2_launch, wgmma_release),                                           \
    X("v3_warpspec",   "128x256, producer warpgroup + 2 consumers (m64n256k16), setmaxnreg", 8,  \
      wgmma_v3_prepare, wgmma_v3_launch, wgmma_release),                                           \
    X("v4_cluster",    "v3 persistent (a block per SM walks tiles), clusters of 2, B multicast", \
      8, wgmma_v4_prepare, wgmma_v4_launch, wgmma_release)

/* The variant table: --list, --variant, --test and --bench all come from it. */
static const tc_gemm_variant variants[] = {
    CUBLAS("cublas_f16f32", "cuBLAS, f16 in, f32 accumulate and out (the f16 baseline)",
           "f16f32", "FP16 GEMM", tc_cublas_f16f32),
    LADDER(F16),
    CUBLAS("cublas_bf16f32", "cuBLAS, bf16 in, f32 accumulate and out (the bf16 baseline)",
           "bf16f32", "BF16 GEMM", tc_cublas_bf16f32),
    LADDER(BF16),
};
// clang-format on

static const int bench_sizes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}};

int main(int argc, char **argv)
{
    static const tc_gemm_chapter chapter = {
        "05_wgmma_gemm",
        "the Hopper GEMM ladder (f16 and bf16 in, f32 out): wgmma, TMA, warp specialisation, "
        "persistent, clusters (sm_90a)",
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
        90,
        wgmma_chapter_init,
        NULL,
    };
    return tc_gemm_main(argc, argv, &chapter);
}
