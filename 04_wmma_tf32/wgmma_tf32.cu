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
 *   (k = 8 instead of 16). v7 is that pipeline (common/wgmma_pipeline.cuh) instantiated for
 *   float; v8 adds the 3xTF32 split of v5 to it.
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
 *                  works. Each stage of the ring then holds four tiles (A big, A small, B big,
 *                  B small); per k-step a consumer issues small_a x big_b, big_a x small_b,
 *                  big_a x big_b. As in v5 the tensor cores sum only one k-tile (32 values, 96
 *                  products) into a fresh partial accumulator, and the CUDA cores add it to the
 *                  f32 total, rounding to nearest. A warpgroup waits for its partial before the
 *                  add (ptxas serialises every wgmma of a kernel that reads the registers of one
 *                  in flight); the other consumer warpgroup's wgmma run meanwhile. Tiles of
 *                  128 x 128 (two sets of 64 accumulators per thread) and 3 stages of 64 KiB;
 *                  one tile per block, no cluster. The split pass is part of the timed GEMM.
 *
 * Minimum: sm_90a (Hopper) and a build with 90 in SM; CUDA 12.x or 13.x. */
#include "wgmma_tf32.h"

#include "wgmma_pipeline.cuh"

#include <stdint.h>
#include <stdlib.h>

constexpr int GROUP_M = 8;

/* ================================================================================================
 * v7: chapter 05's warp-specialised pipeline with float (tf32) operands
 * ============================================================================================== */
typedef wg_config<256, 4, 2> V7; /* 128 x 256 tiles, 4 stages of 48 KiB */
constexpr int V7_CLUSTER = 2;

extern "C" const char *tf32_v7_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return ws_prepare<float, V7, true, V7_CLUSTER, GROUP_M>(p);
}
extern "C" void tf32_v7_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    ws_launch<float, V7, true, V7_CLUSTER, GROUP_M>(p, stream);
}
extern "C" void tf32_v7_release(const tc_gemm_variant *v, tc_gemm_problem *p) { ws_release(p); }

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

/* The stage layout of v8: A big, A small, B big, B small, each tile 128-byte rows. The members are
 * those ring<> and the kernel read (as in wg_config). */
template <int BN_, int STAGES_> struct x3_config {
    static constexpr int BN = BN_, STAGES = STAGES_, CONSUMERS = 2;
    static constexpr int BM = WG_M * CONSUMERS;
    static constexpr int ACC = BN / 2;
    static constexpr int A_TILE = BM * ROW_BYTES, B_TILE = BN * ROW_BYTES;
    static constexpr int A_BYTES = 2 * A_TILE, B_BYTES = 2 * B_TILE; /* big, then small */
    static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
    static constexpr int BARRIER_BYTES = 2 * STAGES * 8;
    static constexpr size_t SMEM_BYTES = (size_t)STAGES * STAGE_BYTES + BARRIER_BYTES + 1024;
    static_assert(BN == 128 || BN == 256, "wgmma_op is instantiated for n128 and n256");
    static_assert(A_TILE % 1024 == 0 && B_TILE % 1024 == 0,
                  "every tile starts at a swizzle atom (8 rows x 128 bytes)");
    static_assert(STAGES >= 2, "a ring needs two stages");
    static_assert(PRODUCER_REGS * WG_THREADS + CONSUMER_REGS * WG_THREADS * CONSUMERS <= 65536,
                  "the register file holds the producer's and the consumers' registers");
};
typedef x3_config<128, 3> V8;

/* One k-tile of the three products into a fresh partial sum d (its first wgmma overwrites d):
 * per k-step of 8, the two small terms first, then big x big. */
template <class Cfg>
__device__ __forceinline__ void x3_k_tile(float (&d)[Cfg::ACC], uint32_t a_big, uint32_t a_small,
                                          uint32_t b_big, uint32_t b_small)
{
    wgmma_fence_operand(d);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < KSTEPS; kk++) {
        const int o = kk * KSTEP_BYTES;
        wgmma_op<float, Cfg::BN>::run(d, wgmma_desc_sw128(a_small + o), wgmma_desc_sw128(b_big + o),
                                      kk == 0 ? 0 : 1);
        wgmma_op<float, Cfg::BN>::run(d, wgmma_desc_sw128(a_big + o), wgmma_desc_sw128(b_small + o),
                                      1);
        wgmma_op<float, Cfg::BN>::run(d, wgmma_desc_sw128(a_big + o), wgmma_desc_sw128(b_big + o),
                                      1);
    }
    wgmma_commit_group();
    wgmma_fence_operand(d);
}

template <int ACC>
__device__ __forceinline__ void add_partial(float (&acc)[ACC], float (&part)[ACC])
{
    wgmma_fence_operand(part);
#pragma unroll
    for (int i = 0; i < ACC; i++) acc[i] += part[i];
}

template <class Cfg, int GROUP>
__global__ void __launch_bounds__((Cfg::CONSUMERS + 1) * WG_THREADS, 1)
    gemm_3xtf32(int M, int N, int K, const __grid_constant__ CUtensorMap map_a_big,
                const __grid_constant__ CUtensorMap map_a_small,
                const __grid_constant__ CUtensorMap map_b_big,
                const __grid_constant__ CUtensorMap map_b_small, float *__restrict__ C, long ldc,
                float alpha, float beta, bool vec2)
{
#if TC_SM90A
    constexpr int BK = wg_bk<float>(); /* 32 f32 values per k-tile */
    extern __shared__ unsigned char smem_raw[];
    const ring<Cfg> r(align_1024(smem_raw));
    if (threadIdx.x == 0) r.init(Cfg::CONSUMERS * 4);
    __syncthreads();
    int tm, tn;
    block_tile_coords<GROUP>((M + Cfg::BM - 1) / Cfg::BM, (N + Cfg::BN - 1) / Cfg::BN, &tm, &tn);
    const int m0 = tm * Cfg::BM, n0 = tn * Cfg::BN;
    const int k_tiles = (K + BK - 1) / BK;
    const int wg = threadIdx.x / WG_THREADS;

    if (wg == 0) {
        setmaxnreg_dec<PRODUCER_REGS>();
        if (threadIdx.x == 0)
            for (int t = 0; t < k_tiles; t++) {
                const int s = t % Cfg::STAGES;
                if (t >= Cfg::STAGES) mbar_wait(&r.empty[s], (t / Cfg::STAGES - 1) % 2);
                mbar_arrive_expect_tx(&r.full[s], Cfg::STAGE_BYTES);
                tma_load_2d(r.a(s), &map_a_big, &r.full[s], t * BK, m0);
                tma_load_2d(r.a(s) + Cfg::A_TILE, &map_a_small, &r.full[s], t * BK, m0);
                tma_load_2d(r.b(s), &map_b_big, &r.full[s], t * BK, n0);
                tma_load_2d(r.b(s) + Cfg::B_TILE, &map_b_small, &r.full[s], t * BK, n0);
            }
        __syncwarp();
    } else {
        setmaxnreg_inc<CONSUMER_REGS>();
        const int cw = wg - 1; /* this consumer's 64 rows of the tile */
        float acc[Cfg::ACC], part[Cfg::ACC];
#pragma unroll
        for (int i = 0; i < Cfg::ACC; i++) acc[i] = 0.0f;
        for (int t = 0; t < k_tiles; t++) {
            const int s = t % Cfg::STAGES;
            mbar_wait(&r.full[s], t / Cfg::STAGES % 2);
            const uint32_t a = smem_u32(r.a(s)) + cw * WG_M * ROW_BYTES;
            const uint32_t b = smem_u32(r.b(s));
            x3_k_tile<Cfg>(part, a, a + Cfg::A_TILE, b, b + Cfg::B_TILE);
            /* the partial must be complete before the CUDA cores read it: no group stays in
             * flight across the add (reading the registers of a pending wgmma would make ptxas
             * serialise every wgmma of the kernel). The other consumer warpgroup keeps the tensor
             * cores busy meanwhile. */
            wgmma_wait_group<0>();
            release_stage<1>(&r.empty[s]);
            add_partial(acc, part);
        }
        epilogue_direct<Cfg::ACC>(acc, C, ldc, m0 + cw * WG_M, n0, M, N, alpha, beta, vec2);
    }
#endif
}

/* ---- v8's host side ------------------------------------------------------------------------- */
typedef struct {
    CUtensorMap a_big, a_small, b_big, b_small;
    float *work; /* A big, A small (M x kp each), B big, B small (N x kp each) */
    long kp;
    unsigned grid;
} x3_plan;

extern "C" const char *tf32_v8_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    const void *kernel = (const void *)gemm_3xtf32<V8, GROUP_M>;
    const char *why = wgmma_kernel_unsupported(kernel);
    if (why) return why;
    why = allow_smem(kernel, V8::SMEM_BYTES);
    if (why) return why;
    const long kp = (p->K + 3) / 4 * 4; /* the TMA's 16-byte row rule */
    const size_t bytes = 2 * (size_t)(p->M + p->N) * (size_t)kp * sizeof(float);
    x3_plan *plan = (x3_plan *)calloc(1, sizeof *plan);
    if (!plan) return "out of host memory";
    if (cudaMalloc(&plan->work, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        free(plan);
        return TC_GEMM_SKIP "not enough device memory for the split operands";
    }
    float *a_big = plan->work, *a_small = a_big + (size_t)p->M * kp;
    float *b_big = a_small + (size_t)p->M * kp, *b_small = b_big + (size_t)p->N * kp;
    const CUtensorMapDataType f32 = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    plan->a_big = tma_map_kmajor(a_big, f32, p->M, p->K, kp, V8::BM);
    plan->a_small = tma_map_kmajor(a_small, f32, p->M, p->K, kp, V8::BM);
    plan->b_big = tma_map_kmajor(b_big, f32, p->N, p->K, kp, V8::BN);
    plan->b_small = tma_map_kmajor(b_small, f32, p->N, p->K, kp, V8::BN);
    plan->kp = kp;
    plan->grid = tile_count(p, V8::BM, V8::BN);
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
    gemm_3xtf32<V8, GROUP_M>
        <<<plan->grid, (V8::CONSUMERS + 1) * WG_THREADS, V8::SMEM_BYTES, stream>>>(
            p->M, p->N, p->K, plan->a_big, plan->a_small, plan->b_big, plan->b_small,
            (float *)p->d_c, p->ldc, p->alpha, p->beta, wg_c_vec2(p));
}

extern "C" void tf32_v8_release(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    x3_plan *plan = (x3_plan *)p->plan;
    if (plan) TC_CUDA_CHECK(cudaFree(plan->work));
    free(plan);
    p->plan = NULL;
}
