/* 04_wmma_tf32/wgmma_tf32.cu - TF32 at Hopper's speed: wgmma with k = 8 (v7), and 3xTF32 on it
 * (v8).
 * sm_90a code; the file is built for every target of the chapter, and on anything but the sm_90a
 * pass the kernels are empty (TC_SM90A), so prepare() checks that the GPU runs the sm_90a code.
 *
 * What it teaches
 *   WMMA's only TF32 shape, m16n16k8, compiles to HMMA.1684: k = 4 per tensor-core instruction,
 *   the slow way to feed a tensor core (NOTES.md has the SASS). Hopper's own TF32 path is wgmma
 *   m64nNk8 (HGMMA ... TF32): 64 x N x 8 per instruction, operands read by the tensor cores
 *   straight from shared memory. Chapter 05 part 2 built the pipeline for f16 and bf16; every
 *   piece of it counts bytes, not elements, so it serves tf32 unchanged: one k-tile is a
 *   128-byte row of 32 f32 values instead of 64 halves, one wgmma reads 32 bytes of each row
 *   (k = 8 instead of 16). v7 is chapter 05's v4_cluster rung (common/wgmma_v4_cluster.cuh)
 *   instantiated for float; v8 adds the 3xTF32 split of v5 to it.
 *
 * Problem and layout: C = alpha * A * B + beta * C, A M x K row-major (lda), B K x N
 *   column-major (ldb: the distance between columns), C M x N row-major f32 (ldc). TF32 wgmma has
 *   no transposed form: both operands must be K-major, so B is column-major here (the rungs v0..v5
 *   take a row-major B), and the baselines run cuBLAS in the same layout.
 *
 * The rungs
 *   v7_wgmma_tf32  Chapter 05's v4_cluster for float: a producer warpgroup issues TMA copies
 *                  into a 4-stage ring of 128 x 256 tiles, two consumer warpgroups issue
 *                  m64n256k8 wgmma, blocks are persistent and paired in clusters that multicast
 *                  B. The f32 data go to the tensor cores as they are: a tf32 operand is read
 *                  from f32 bits and the 13 low bits are ignored, i.e. the inputs are truncated
 *                  (round toward zero) rather than rounded to nearest as v1..v5 and cuBLAS do.
 *                  Rounding would need a pass over A and B before the GEMM, because the tensor
 *                  cores, not the threads, read the operands. Tolerance row tf32_rz: the host
 *                  truncates the reference's inputs the same way. Sizes: the TMA's rules, K and
 *                  the leading dimensions multiples of 4, 16-byte aligned bases.
 *   v8_3xtf32_fast 3xTF32 as v5 (x = big + small, big = tf32(x) and small = tf32(x - big), both
 *                  to nearest; three products, small x small dropped), on wgmma. The split
 *                  cannot happen in registers (wgmma reads shared memory), so a pass over A and
 *                  B first writes big and small to a workspace (split_3xtf32), packed with
 *                  leading dimension K rounded up to 4: any size and alignment of the inputs
 *                  works. The GEMM is common/wgmma_multiword.cuh with two words: each stage of
 *                  the ring holds four tiles (A big, A small, B big, B small); per k-step a
 *                  consumer issues small_a x big_b, big_a x small_b, big_a x big_b. As in v5
 *                  the tensor cores sum only one k-tile (32 values, 96 products) into a fresh
 *                  partial accumulator, and the CUDA cores add it to the
 *                  f32 total, rounding to nearest. A warpgroup waits for its partial before the
 *                  add (ptxas serialises every wgmma of a kernel that reads the registers of one
 *                  in flight); the other consumer warpgroup's wgmma run meanwhile. Tiles of
 *                  128 x 128 (two sets of 64 accumulators per thread) and 3 stages of 64 KiB;
 *                  one tile per block, no cluster. The split pass is part of the timed GEMM.
 *
 * Minimum: sm_90a (Hopper) and a build with 90 in SM; CUDA 12.x or 13.x. */
#include "wgmma_tf32.h"

#include "gemm_hooks.h"
#include "wgmma_multiword.cuh"
#include "wgmma_v4_cluster.cuh"

#include <stdint.h>
#include <stdlib.h>

constexpr int GROUP_M = 8;

/* ================================================================================================
 * v7: chapter 05's v4_cluster rung (common/wgmma_v4_cluster.cuh) with float (tf32) operands
 * ============================================================================================== */
extern "C" const char *tf32_v7_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    wgmma_v4_cluster_plan *plan = (wgmma_v4_cluster_plan *)tma_host_calloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const float *A = (const float *)p->d_a, *B = (const float *)p->d_b;
    const cudaError_t e = wgmma_v4_cluster_prepare<float>(plan, p->M, p->N, p->K, A, p->lda, B,
                                                          p->ldb, (float *)p->d_c, p->ldc);
    if (e != cudaSuccess) {
        free(plan);
        return hook_status(
            e, wgmma_v4_cluster_unsupported<float>(p->M, p->N, p->K, A, p->lda, B, p->ldb));
    }
    p->plan = plan;
    return NULL;
}
extern "C" void tf32_v7_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    TC_CUDA_CHECK(wgmma_v4_cluster_run<float>((const wgmma_v4_cluster_plan *)p->plan, p->alpha,
                                              p->beta, stream));
}
extern "C" void tf32_v7_release(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    free(p->plan);
    p->plan = NULL;
}

/* ================================================================================================
 * v8: 3xTF32. First the split, then the GEMM of the three products.
 * ============================================================================================== */

/* tf32 to nearest, ties away from zero (cvt.rna, as wmma::__float_to_tf32), returned as the exact
 * tf32 value: the 13 low bits cleared */
static __device__ __forceinline__ float tf32_rna(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return __uint_as_float(r & 0xffffe000u);
}

/* rows x K values of src (leading dimension ld) -> big and small, rows x kp (kp >= K; the columns
 * K..kp-1 get zeros). x - big is exact in f32 (the two are within a factor of 2). */
__global__ void split_3xtf32(const float *__restrict__ src, long ld, int rows, int K, int kp,
                             float *__restrict__ big, float *__restrict__ small)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= kp) return;
    for (long r = blockIdx.y; r < rows; r += gridDim.y) {
        const float x = k < K ? src[r * ld + k] : 0.0f;
        const float hi = tf32_rna(x);
        big[r * kp + k] = hi;
        small[r * kp + k] = tf32_rna(x - hi);
    }
}

/* v8's ring: A big, A small, B big, B small per stage (words 0 and 1), 128 x 128 tiles, 3 stages of
 * 64 KiB; per k-step small_a x big_b, big_a x small_b, big_a x big_b */
typedef mw_config<2, 128, 3> V8;
typedef word_pairs<1, 0, 0, 1, 0, 0> V8_PRODUCTS;

/* ---- v8's host side ------------------------------------------------------------------------- */
typedef struct {
    mw_maps<2> maps; /* a[0] = A big, a[1] = A small, b[0] = B big, b[1] = B small */
    float *work;     /* A big, A small (M x kp each), B big, B small (N x kp each) */
    long kp;
} x3_plan;

extern "C" const char *tf32_v8_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    const char *why = hook_status(mw_kernel_ready<float, V8, V8_PRODUCTS, GROUP_M>(),
                                  "the wgmma GEMM of the words needs sm_90a code (a Hopper GPU, "
                                  "90 in SM) and the shared memory of its tile");
    if (why) return why;
    const long kp = (p->K + 3) / 4 * 4; /* the TMA's 16-byte row rule */
    const size_t bytes = 2 * (size_t)(p->M + p->N) * (size_t)kp * sizeof(float);
    x3_plan *plan = (x3_plan *)tma_host_calloc(sizeof *plan);
    if (!plan) return "out of host memory";
    if (cudaMalloc(&plan->work, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        free(plan);
        return TC_GEMM_SKIP "not enough device memory for the split operands";
    }
    float *a_big = plan->work, *a_small = a_big + (size_t)p->M * kp;
    float *b_big = a_small + (size_t)p->M * kp, *b_small = b_big + (size_t)p->N * kp;
    const CUtensorMapDataType f32 = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    TC_CUDA_CHECK(tma_map_kmajor(&plan->maps.a[0], a_big, f32, p->M, p->K, kp, V8::BM));
    TC_CUDA_CHECK(tma_map_kmajor(&plan->maps.a[1], a_small, f32, p->M, p->K, kp, V8::BM));
    TC_CUDA_CHECK(tma_map_kmajor(&plan->maps.b[0], b_big, f32, p->N, p->K, kp, V8::BN));
    TC_CUDA_CHECK(tma_map_kmajor(&plan->maps.b[1], b_small, f32, p->N, p->K, kp, V8::BN));
    plan->kp = kp;
    p->plan = plan;
    return NULL;
}

static void launch_split(const float *src, long ld, int rows, int K, long kp, float *big,
                         float *small, cudaStream_t stream)
{
    const dim3 block(256), grid((unsigned)((kp + 255) / 256), rows < 65535 ? rows : 65535);
    split_3xtf32<<<grid, block, 0, stream>>>(src, ld, rows, K, (int)kp, big, small);
}

extern "C" void tf32_v8_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    const x3_plan *plan = (const x3_plan *)p->plan;
    const long kp = plan->kp;
    float *a_big = plan->work, *a_small = a_big + (size_t)p->M * kp;
    float *b_big = a_small + (size_t)p->M * kp, *b_small = b_big + (size_t)p->N * kp;
    launch_split((const float *)p->d_a, p->lda, p->M, p->K, kp, a_big, a_small, stream);
    launch_split((const float *)p->d_b, p->ldb, p->N, p->K, kp, b_big, b_small, stream);
    TC_CUDA_CHECK((mw_launch<float, V8, V8_PRODUCTS, GROUP_M>(
        plan->maps, p->M, p->N, p->K, (float *)p->d_c, p->ldc, p->alpha, p->beta, stream)));
}

extern "C" void tf32_v8_release(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    x3_plan *plan = (x3_plan *)p->plan;
    if (plan) TC_CUDA_CHECK(cudaFree(plan->work));
    free(plan);
    p->plan = NULL;
}
