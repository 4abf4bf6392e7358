/* 04_wmma_tf32/mma_tf32.cu - v6_mma_tf32: the TF32 GEMM with PTX mma.sync m16n8k8 instead of
 * WMMA, on chapter 05's cp.async pipeline.
 *
 * What it teaches
 *   Why WMMA's TF32 is slow. WMMA's TF32 shape, m16n16k8, compiles to four HMMA.1684.F32.TF32:
 *   the SASS instruction under it has k = 4 (NOTES.md, "What the SASS shows"). For the same flops
 *   that is four times the tensor-core instructions of chapter 03's f16 HMMA.16816, each of which
 *   has to be fed; the two k = 4 halves of every mma_sync accumulate into the same registers (a
 *   dependent pair); and WMMA's TF32 fragments are loaded one 4-byte element at a time.
 *
 *   What k = 8 changes. PTX mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 is one
 *   HMMA.1688.F32.TF32: 16 x 8 x 8 multiply-adds, twice an HMMA.1684, with independent
 *   accumulators for every 16x8 tile of C and the fragment layout the PTX ISA documents
 *   (common/mma_sync.cuh, mma_m16n8k8_tf32f32). That layout is what lets chapter 05's machinery,
 *   ldmatrix fragments and all, serve TF32 unchanged.
 *
 *   How ldmatrix loads 32-bit fragments. ldmatrix is a 16-bit instruction: it moves 8x8 tiles of
 *   16-bit words, and lane 4r + c receives words 2c and 2c + 1 of row r. A tf32 value is two
 *   adjacent words of a row, so a tile of 8 rows x 16 bytes is 8 rows x 4 tf32 values, and lane
 *   4r + c receives value c of row r, whole: exactly the m16n8k8 map, in which lane (g, t) holds
 *   k = t (a[0], a[1], b[0]) and k = t + 4 (a[2], a[3], b[1]) of rows g and g + 8. These are the
 *   bytes that hold an m16n8k16 f16 fragment (bytes 4t .. 4t+3 of each row, in the first and the
 *   second 16 bytes of a 32-byte k-step), so ldmatrix.x4 without .trans, at chapter 05's
 *   addresses, loads tf32 fragments from K-major tiles: rows of A, and columns of B, with k
 *   contiguous. A row-major B (n contiguous) would need ldmatrix .trans, which transposes 16-bit
 *   words and would split each 32-bit value between two lanes. Hence B column-major (K-major)
 *   here, as in chapter 05, and the baseline cublas_tf32_kmajor in the same layout.
 *
 * Problem and layout
 *   C = alpha * A * B + beta * C, A M x K row-major (lda), B K x N column-major (ldb: the distance
 *   between columns), C M x N row-major (ldc), all f32 in memory. beta == 0 never reads C. Any M,
 *   N, K >= 1 (K below 2^30) and any alignment: tile loads outside the matrix are zero-filled,
 *   stores are guarded; rows of A and B move as 16-byte vectors when the pointer is 16-byte
 *   aligned and lda (ldb) and K are multiples of 4, one 16-bit word at a time otherwise (correct,
 *   slow); C is stored in 16-byte pieces when its pointer and ldc allow it.
 *   The operands reach the tensor core as raw f32 bits, with no cvt.rna: the tensor core ignores
 *   their 13 low mantissa bits (truncation toward zero, up to one tf32 ulp, 2^-10 relative, where
 *   rounding would be half of that). Rounding would cost a pass over every tile (v2..v4's
 *   round_own_chunks_tf32). The precision row "tf32_rz" (common/verify.c) builds the reference
 *   from inputs truncated the same way: it multiplies exactly the values the tensor core does.
 *
 * The kernel
 *   Chapter 05's rung v6_epilogue (common/mma_v6_epilogue.cuh), called through its plain
 *   launcher with T = float: a 4-stage cp.async ring, fragments double-buffered in registers, the
 *   barrier for k-tile t+1 before the last k-step of t, blocks walked in bands of 8 block-rows,
 *   the epilogue through shared memory. It counts k in 16-bit words, the unit of the K-major tile
 *   (common/kmajor_tile.cuh), so for float only four things change, all outside the kernel's
 *   code: a 16-byte chunk is 4 floats, not 8 halves; a k-tile of BK = 32 words is 16 floats, two
 *   k-steps of 8; the mma is m16n8k8 tf32 (mma_f32<float>, common/mma_parts.cuh); and the vector
 *   rule is K, lda, ldb multiples of 4. Its prepare function doubles K, lda and ldb into words.
 *
 *   Configuration, 05's v5/v6: a 128x256 block tile, 8 warps of 64x64 (4 x 8 mma tiles: 32 HMMA
 *   per 8 ldmatrix.x4 per k-step), k-tiles of 32 words (16 floats: 64-byte rows, the 4-chunk XOR
 *   swizzle that keeps ldmatrix and cp.async conflict-free), 4 stages of (128 + 256) x 64 bytes,
 *   96 KiB. A k-tile is then chapter 05's k-tile instruction for instruction (the same bytes, the
 *   same ldmatrix, as many mmas), and since tf32 runs at half the f16 rate on sm_80 and sm_90 an
 *   HMMA.1688 TF32 keeps the tensor pipe as long as an HMMA.16816 f16: the stage depth that hides
 *   the copies there should hide them here, with twice the bytes per flop to fetch. BK = 64 words
 *   (32 floats, 128-byte rows, 3 stages, 144 KiB) would halve the barriers per flop; it is
 *   chapter 05's exercise 4.
 *
 * Minimum: sm_80 (tf32 mma.sync, cp.async). CUDA 12.x or 13.x.
 *
 * Build and run
 *   make && build/bin/04_wmma_tf32 --variant v6_mma_tf32 --size 8192x8192x8192
 *   build/bin/04_wmma_tf32 --variant cublas_tf32_kmajor --size 8192x8192x8192   # its baseline
 */
#include "mma_tf32.h"

#include "gemm_hooks.h"
#include "mma_v6_epilogue.cuh"

#include <stdint.h>
#include <stdlib.h>

typedef mma_v6_config V6;                                /* BK in 16-bit words: 16 floats */
constexpr int WORDS_PER_FLOAT = words_per_elem<float>(); /* the kernel's unit of k: 16 bits */
constexpr int BK_FLOATS = V6::BK / WORDS_PER_FLOAT;

static_assert(WORDS_PER_FLOAT == 2, "an f32 value is two 16-bit words");
static_assert(V6::BK % WORDS_PER_FLOAT == 0, "a k-tile row holds whole floats");
static_assert(BK_FLOATS % mma_f32<float>::K == 0, "a k-tile is whole k = 8 steps");
static_assert(V6::KSTEPS * mma_f32<float>::K == BK_FLOATS, "one m16n8k8 per 32-byte k-step");
static_assert(16 / sizeof(float) == 4, "a 16-byte chunk is 4 floats: vectors need K, ld % 4");

/* v6: chapter 05's v6_epilogue (common/mma_v6_epilogue.cuh) with float (tf32) operands; the plan
 * (the problem in 16-bit words, the vector paths, the grid) is made once, outside the timed
 * region */
extern "C" const char *tf32_v6_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    mma_v6_epilogue_plan *plan = (mma_v6_epilogue_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const float *A = (const float *)p->d_a, *B = (const float *)p->d_b;
    const cudaError_t e = mma_v6_epilogue_prepare<float>(plan, p->M, p->N, p->K, A, p->lda, B,
                                                         p->ldb, (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(
            e, mma_v6_epilogue_unsupported<float>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}

extern "C" void tf32_v6_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    TC_CUDA_CHECK(mma_v6_epilogue_run<float>((const mma_v6_epilogue_plan *)p->plan, p->alpha,
                                             p->beta, stream));
}

extern "C" void tf32_v6_release(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    free(p->plan);
    p->plan = NULL;
}
