/* 04_wmma_tf32/wmma_tf32.cu - the WMMA TF32 ladder, and 3xTF32: FP32 accuracy on tensor cores.
 *
 * What it teaches
 *   TF32 is how tensor cores multiply f32 data: each operand keeps f32's sign and 8-bit exponent
 *   but only 10 of its 23 mantissa bits (19 bits used in a 32-bit container), the products are
 *   exact, and they are summed in f32. For f32 data the only change from an SGEMM is therefore
 *   one rounding per input, relative error at most 2^-11, and the speed of the tensor cores.
 *   The ladder v1..v4 feeds WMMA's TF32 shape (m16n16k8) the way chapter 03 fed its FP16 shape;
 *   v5 then spends three tensor-core products per product to get the lost bits back (3xTF32).
 *
 * Problem and layout (every variant)
 *   C = alpha * A * B + beta * C, A M x K row-major (lda), B K x N row-major (ldb), C M x N
 *   row-major (ldc), all f32 in memory. beta == 0 never reads C. The kernels convert their inputs
 *   with wmma::__float_to_tf32 (cvt.rna.tf32.f32: to nearest, ties away from zero), so any f32
 *   data is correct input: v1 every fragment element it loads (round_to_tf32), v2..v4 every
 *   element once, in shared memory (round_stage), v5 in its split. The test driver checks
 *   v1..v4 against a reference built from the same data rounded that way on the host (precision
 *   row "tf32"), so the conversion in the kernel is tested too. v5 is checked against the f32
 *   data.
 *   v1 needs M, N multiples of 16 and K a multiple of 8 (it loads fragments straight from global
 *   memory, and a fragment is always a whole 16x8 or 8x16 tile), 32-byte aligned matrices and
 *   leading dimensions multiples of 4 (tf32_v1_prepare skips other layouts); v2..v5 take any
 *   M, N, K: loads
 *   outside the matrix are zero-filled in shared memory and the epilogue stores only elements
 *   inside C. When a matrix's rows are 16-byte aligned (pointer 16-byte aligned, leading
 *   dimension and row length multiples of 4 floats) tiles move as 16-byte vectors; otherwise
 *   element by element (correct, slower).
 *
 * Minimum: sm_80 (TF32 WMMA and cp.async). CUDA 12.x or 13.x.
 *
 * Build and run
 *   make                                            # build/bin/04_wmma_tf32
 *   build/bin/04_wmma_tf32                          # the ladder and the accuracy table at 4096^3
 *   build/bin/04_wmma_tf32 --inputs wide            # the same on inputs spread over 2^16
 *   build/bin/04_wmma_tf32 --variant v5_3xtf32 --size 8192x8192x8192
 *   build/bin/04_wmma_tf32 --test                   # every variant, odd sizes, alpha/beta
 *
 * The rungs
 *   v1_naive     One warp per 16x16 tile of C; each k-step of 8 loads a 16x8 A fragment and an
 *                8x16 B fragment straight from global memory, rounds them to TF32 and multiplies.
 *                TF32 elements are 4 bytes: per flop the operands are twice chapter 03's bytes,
 *                and every element of A is fetched N/16 times, of B M/16 times.
 *   v2_smem      The textbook shared-memory kernel: a block of 8 warps copies a 128x32 tile of A
 *                and a 32x64 tile of B into shared memory, and every warp computes a 32x32 tile
 *                of C (2x2 accumulator fragments) from it: an A fragment feeds 2 mmas, a B
 *                fragment 2. Shared rows are padded so that fragment loads do not collide in a
 *                bank: TF32 fragments are loaded element by element (4-byte loads, no ldmatrix),
 *                an A fragment reads 8 rows x 4 columns at once (rows 4 banks apart: 36 floats a
 *                row), a B fragment 4 rows x 8 columns (rows 8 banks apart: 72 floats a row).
 *                Loads are synchronous: global -> registers -> shared; each thread then rounds
 *                the chunks it stored to TF32 in place (round_stage), then a barrier.
 *   v3_pipeline  cp.async (sm_80) copies global -> shared without registers, and a 3-stage ring
 *                keeps k-tiles t+1 and t+2 in flight while the tensor cores work on tile t: one
 *                barrier per k-tile, and the loads no longer stall the mmas. The block tile grows
 *                to 128x128 and the warp tile to 64x32 (4x2 fragments), so a fragment load feeds
 *                more mmas; k-tiles are 16 floats deep (64-byte rows, chapter 03's 32 halves),
 *                and at 55.5 KiB and at most 128 registers (the launch bound) two blocks share
 *                an SM. Each thread rounds its own chunks of a stage to TF32 once they have
 *                landed, before the barrier that publishes the stage. Moving that rounding out
 *                of the fragments into shared memory cut its instructions but did not make it
 *                faster (NOTES.md has the measurements and what limits the ladder).
 *   v4_dbuf      Fragments double-buffered in registers, as chapter 03's v5: while the tensor
 *                cores multiply one set of fragments, the next k-step's set is loaded, and the
 *                barrier for k-tile t+1 moves before the last k-step of t. A 64x64 warp tile
 *                (16 mma_syncs per 8 fragment loads) in a 128x256 block tile, 3 stages of
 *                16-deep k-tiles, blocks grouped by 8 block-rows for L2 reuse; nearly every
 *                register a thread may have, so one block (8 warps) per SM, to v3's two. Stage
 *                t+1 is rounded to TF32 in the last k-step of t, before the early barrier (on
 *                sm_90 ptxas interleaves it with mmas). The early barrier's place is a speed
 *                choice; correctness needs only that a stage is not refilled before every warp
 *                has read it (chapter 03's README draws the timeline).
 *   v5_3xtf32    3xTF32 on v3's pipeline. Each f32 input is split into two TF32 values,
 *                big = tf32(x) and small = tf32(x - big) (x - big is exact in f32), so
 *                x = big + small + r with |small| <= 2^-11 |x| and |r| <= 2^-23 |x|: together
 *                they hold 22 of x's 24 significant bits. Then
 *                    a*b ~ big_a*big_b + big_a*small_b + small_a*big_b        (3 tensor-core mmas)
 *                Why small_a*small_b can go: it is at most 2^-22 |a b|, the size of the error
 *                f32 itself makes when it adds that product to a running sum (half an ulp of
 *                the sum, 2^-24 of a sum usually larger than the product). A fourth mma, a third
 *                more work, would correct an error no larger than f32's own. With r, every
 *                product is within 2^-21 |a b| of the exact one (tests/test_convert.c checks the
 *                bound), and these errors add up like a random walk: f32-level accuracy.
 *                Where the sum must stay f32: first, the accumulator fragments are f32, never
 *                narrower, because the small terms live 11 bits below the big one and only f32's
 *                24 bits hold both. Second, the long sum over K must round to nearest: the tensor
 *                core truncates (rounds toward zero) the f32 sum at every HMMA instruction,
 *                which on sm_80 and sm_90 is HMMA.1684 (k = 4: four per mma_sync), and over the
 *                3K/4 such steps of a K-long product that bias would cost more than the split
 *                gains.
 *                So the tensor cores sum one k-tile (16 products, small terms first: 6 mma_syncs
 *                per fragment) into a fresh accumulator, and the CUDA cores add that partial sum
 *                to the running f32 sum with round-to-nearest adds. The price is a second set of
 *                accumulators (64 more registers for a 64x32 warp tile), one block per SM, 5
 *                stages to keep the loads ahead. Three times v3's mmas; the aim is to beat FP32
 *                on the CUDA cores at FP32's accuracy. The accuracy is there (below the SGEMM's
 *                error); the speed is not yet (the README's table, NOTES.md's history).
 */
#include "wmma_tf32.h"

#include "tiles.cuh"

#include <stdint.h>

#include <mma.h>

using namespace nvcuda;

/* The WMMA TF32 shape: A fragments are 16x8, B fragments 8x16, accumulators 16x16 (f32). */
constexpr int WMMA_M = 16, WMMA_N = 16, WMMA_K = 8;

typedef wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, wmma::precision::tf32,
                       wmma::row_major>
    a_fragment;
typedef wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, wmma::precision::tf32,
                       wmma::row_major>
    b_fragment;
typedef wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc_fragment;

/* load_matrix_sync of a TF32 fragment loads the f32 bits as they are; the tensor core would
 * ignore (truncate) the 13 low mantissa bits. Rounding every element first makes the input
 * error a proper rounding (at most half a TF32 ulp, 2^-11 relative) instead of a truncation.
 * Only v1 rounds its fragments (it loads them from global memory); v2..v4 round each element
 * once in shared memory (round_own_chunks_tf32), and their fragments arrive as TF32. */
template <class Frag> __device__ __forceinline__ void round_to_tf32(Frag &f)
{
#pragma unroll
    for (int i = 0; i < f.num_elements; i++) f.x[i] = wmma::__float_to_tf32(f.x[i]);
}

/* Fragment loads from shared memory. For f16 fragments (chapter 03) nvcc proves that the pointer
 * given to load_matrix_sync points into shared memory and emits `wmma.load ... .shared.f16`; for
 * TF32 fragments it does not (CUDA 13.0): the PTX says `wmma.load.a.sync.aligned.row.m16n16k8.tf32`
 * with no state space, and ptxas turns every element into a generic LD.E with a 64-bit address of
 * its own (seen in v4's SASS on sm_90: LD.E and IMAD.WIDE, no LDS; NOTES.md). These two
 * functions issue the same PTX instruction with `.shared` written out and a 32-bit shared address.
 * Destination register i of wmma.load is fragment element x[i] (what load_matrix_sync does), and
 * --test checks the result of every variant that uses them. "memory": the load must not move
 * across the barriers and cp.async waits that make the tile valid. */
__device__ __forceinline__ void load_a_shared(a_fragment &f, const float *p, unsigned ldm)
{
    static_assert(a_fragment::num_elements == 4, "wmma.load.a m16n16k8 tf32 writes 4 registers");
    const unsigned addr = (unsigned)__cvta_generic_to_shared(p);
    unsigned r0, r1, r2, r3;
    asm volatile("wmma.load.a.sync.aligned.row.m16n16k8.shared.tf32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr), "r"(ldm)
                 : "memory");
    f.x[0] = __uint_as_float(r0), f.x[1] = __uint_as_float(r1);
    f.x[2] = __uint_as_float(r2), f.x[3] = __uint_as_float(r3);
}

__device__ __forceinline__ void load_b_shared(b_fragment &f, const float *p, unsigned ldm)
{
    static_assert(b_fragment::num_elements == 4, "wmma.load.b m16n16k8 tf32 writes 4 registers");
    const unsigned addr = (unsigned)__cvta_generic_to_shared(p);
    unsigned r0, r1, r2, r3;
    asm volatile("wmma.load.b.sync.aligned.row.m16n16k8.shared.tf32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr), "r"(ldm)
                 : "memory");
    f.x[0] = __uint_as_float(r0), f.x[1] = __uint_as_float(r1);
    f.x[2] = __uint_as_float(r2), f.x[3] = __uint_as_float(r3);
}

/* The 3xTF32 split, in place: big holds x on entry and tf32(x) on return, small gets
 * tf32(x - big). x - big is exact in f32 (the two are within a factor of 2 of each other). */
template <class Frag> __device__ __forceinline__ void split_tf32(Frag &big, Frag &small)
{
#pragma unroll
    for (int i = 0; i < big.num_elements; i++) {
        const float x = big.x[i];
        const float hi = wmma::__float_to_tf32(x);
        big.x[i] = hi;
        small.x[i] = wmma::__float_to_tf32(x - hi);
    }
}

/* Rounds, in place, the 16-byte chunks of a ROWS x COLS shared tile (row stride SROW) that this
 * thread copied: load_tile_sync and load_tile_async (common/gemm_tiles.cuh) give chunk
 * threadIdx.x + i * THREADS to this thread, in both their vector and their per-element paths, so
 * once this thread's cp.async groups have landed (cp_async_wait_group), its own chunks are
 * complete and visible to it without a barrier; the barrier that follows publishes the rounded
 * tile. Every element is rounded once per block instead of once per warp that loads it into a
 * fragment (4 warps read each element of an A tile in v3 and v4, 2 each element of a B tile), and
 * the fragment loads that follow need no conversion. The stored value must be the exact TF32
 * value, so on sm_90 each element costs three instructions (the two of a rounding in registers
 * plus a mask of the 13 low bits). NOTES.md records what this did to the speed of v2..v4. */
template <int ROWS, int COLS, int THREADS, int SROW>
__device__ __forceinline__ void round_own_chunks_tf32(float *s)
{
    constexpr int CHUNKS = ROWS * COLS / VEC4;
    static_assert(COLS % VEC4 == 0 && SROW % VEC4 == 0, "whole 16-byte chunks, 16-byte aligned");
#pragma unroll
    for (int i = 0; i < (CHUNKS + THREADS - 1) / THREADS; i++) {
        const int chunk = threadIdx.x + i * THREADS;
        if (CHUNKS % THREADS != 0 && chunk >= CHUNKS) break;
        float4 *p = (float4 *)(s + chunk / (COLS / VEC4) * SROW + chunk % (COLS / VEC4) * VEC4);
        float4 v = *p;
        v.x = wmma::__float_to_tf32(v.x), v.y = wmma::__float_to_tf32(v.y);
        v.z = wmma::__float_to_tf32(v.z), v.w = wmma::__float_to_tf32(v.w);
        *p = v;
    }
}

/* ================================================================================================
 * v1: one warp per 16x16 output tile, fragments straight from global memory
 * ============================================================================================== */
constexpr int V1_WARPS_M = 2, V1_WARPS_N = 4; /* 8 warps: a 32x64 patch of C per block */

__global__ void __launch_bounds__(32 * V1_WARPS_M * V1_WARPS_N)
    tf32_v1_naive(int M, int N, int K, const float *__restrict__ A, int lda,
                  const float *__restrict__ B, int ldb, float *__restrict__ C, int ldc, float alpha,
                  float beta)
{
    const int warp = threadIdx.x / 32;
    const int tile_m = (blockIdx.y * V1_WARPS_M + warp / V1_WARPS_N) * WMMA_M;
    const int tile_n = (blockIdx.x * V1_WARPS_N + warp % V1_WARPS_N) * WMMA_N;
    if (tile_m >= M || tile_n >= N) return; /* whole warps leave: M, N are multiples of 16 */

    a_fragment a;
    b_fragment b;
    acc_fragment acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += WMMA_K) {
        wmma::load_matrix_sync(a, A + (size_t)tile_m * lda + k, lda);
        wmma::load_matrix_sync(b, B + (size_t)k * ldb + tile_n, ldb);
        round_to_tf32(a);
        round_to_tf32(b);
        wmma::mma_sync(acc, a, b, acc);
    }
    /* C = alpha*acc + beta*C. Scaling every element of a fragment is legal although the
     * element-to-lane mapping is unspecified: the same operation is applied to all of them,
     * and c (loaded with the same layout) has the same mapping as acc. */
    float *c_tile = C + (size_t)tile_m * ldc + tile_n;
    if (beta != 0.0f) {
        acc_fragment c;
        wmma::load_matrix_sync(c, c_tile, ldc, wmma::mem_row_major);
        for (int i = 0; i < acc.num_elements; i++) acc.x[i] = alpha * acc.x[i] + beta * c.x[i];
    } else {
        for (int i = 0; i < acc.num_elements; i++) acc.x[i] *= alpha;
    }
    wmma::store_matrix_sync(c_tile, acc, ldc, wmma::mem_row_major);
}

/* load_matrix_sync and store_matrix_sync need 32-byte aligned fragment pointers and ldm a
 * multiple of 4 floats. Fragments start at multiples of 16 rows and of 8 (A) or 16 (B, C)
 * columns, so that holds when the matrices start 32-byte aligned and lda, ldb, ldc are
 * multiples of 4. */
extern "C" const char *tf32_v1_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    if ((uintptr_t)p->d_a % 32 || (uintptr_t)p->d_b % 32 || (uintptr_t)p->d_c % 32 || p->lda % 4 ||
        p->ldb % 4 || p->ldc % 4)
        return TC_GEMM_SKIP "v1_naive needs A, B, C 32-byte aligned and lda, ldb, ldc multiples "
                            "of 4";
    return NULL;
}

extern "C" void tf32_v1_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    /* tf32_v1_prepare checked the alignment load_matrix_sync needs */
    dim3 block(32 * V1_WARPS_M * V1_WARPS_N);
    dim3 grid((p->N + WMMA_N * V1_WARPS_N - 1) / (WMMA_N * V1_WARPS_N),
              (p->M + WMMA_M * V1_WARPS_M - 1) / (WMMA_M * V1_WARPS_M));
    tf32_v1_naive<<<grid, block, 0, stream>>>(p->M, p->N, p->K, (const float *)p->d_a, (int)p->lda,
                                              (const float *)p->d_b, (int)p->ldb, (float *)p->d_c,
                                              (int)p->ldc, p->alpha, p->beta);
}

/* ================================================================================================
 * Shared pieces of v2..v5: block-tile configurations, fragment loads, the epilogue
 * ============================================================================================== */

/* One block-tile configuration. Each warp owns a WARP_M x WARP_N tile of C, held as
 * FRAG_M x FRAG_N accumulator fragments; the block tile is WARPS_M x WARPS_N warp tiles, and
 * STAGES k-tiles of BLOCK_K are in shared memory at once. MIN_BLOCKS is the occupancy asked of
 * the compiler (__launch_bounds__): 2 caps the registers at 128 per thread.
 *
 * Padding. A TF32 fragment is loaded element by element. In the layout of PTX mma.m16n8k8.tf32,
 * which WMMA's m16n16k8 fragments are assumed to follow (the README shows it; WMMA itself does
 * not specify it), lane l = 4g + t holds A elements (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)
 * of its 16x8 tile, and B elements (t, g) and (t + 4, g) of each 8x8 half of its 8x16 tile. One
 * 4-byte load instruction of an A fragment thus reads 8 rows x 4 columns: conflict-free when
 * consecutive rows start 4 banks apart (A_ROW = 4 mod 8, e.g. 20 or 36); one of a B fragment
 * reads 4 rows x 8 columns: conflict-free when rows start 8 banks apart (B_ROW = 8 mod 16, e.g.
 * 72 or 136). Both paddings also keep rows 16-byte aligned for cp.async. */
template <int BLOCK_M_, int BLOCK_N_, int BLOCK_K_, int WARPS_M_, int WARPS_N_, int STAGES_,
          int MIN_BLOCKS_>
struct tile_config {
    static constexpr int BLOCK_M = BLOCK_M_, BLOCK_N = BLOCK_N_, BLOCK_K = BLOCK_K_;
    static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, STAGES = STAGES_;
    static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int WARP_M = BLOCK_M / WARPS_M, WARP_N = BLOCK_N / WARPS_N;
    static constexpr int FRAG_M = WARP_M / WMMA_M, FRAG_N = WARP_N / WMMA_N;
    static constexpr int KSTEPS = BLOCK_K / WMMA_K;
    static constexpr int A_SKEW = 4, B_SKEW = 8;
    static constexpr int A_ROW = BLOCK_K + A_SKEW, B_ROW = BLOCK_N + B_SKEW; /* in floats */
    static constexpr int A_STAGE = BLOCK_M * A_ROW, B_STAGE = BLOCK_K * B_ROW;
    static constexpr size_t SMEM_BYTES = (size_t)STAGES * (A_STAGE + B_STAGE) * sizeof(float);
    static_assert(BLOCK_M % WARPS_M == 0 && BLOCK_N % WARPS_N == 0, "warps tile the block");
    static_assert(WARP_M % WMMA_M == 0 && WARP_N % WMMA_N == 0, "fragments tile the warp");
    static_assert(BLOCK_K % WMMA_K == 0, "the k-tile is whole WMMA steps");
    static_assert(A_ROW % 8 == 4, "A fragment loads: rows 4 banks apart (see above)");
    static_assert(B_ROW % 16 == 8, "B fragment loads: rows 8 banks apart (see above)");
    /* load_matrix_sync needs 32-byte aligned fragment pointers and a leading dimension that is
     * a multiple of 16 bytes: fragments start 16 rows (A) or 8 rows (B) apart, k-steps 8 floats
     * and fragment columns 16 floats apart, and every stage 32-byte aligned */
    static_assert(A_ROW % 4 == 0 && B_ROW % 4 == 0, "ldm a multiple of 16 bytes");
    static_assert((WMMA_M * A_ROW * sizeof(float)) % 32 == 0 && (A_STAGE * sizeof(float)) % 32 == 0,
                  "A fragments 32-byte aligned");
    static_assert((WMMA_K * B_ROW * sizeof(float)) % 32 == 0 && (B_STAGE * sizeof(float)) % 32 == 0,
                  "B fragments 32-byte aligned");
    /* the epilogue's per-warp scratch tiles reuse the operand buffers */
    static_assert(SMEM_BYTES >= (size_t)WARPS_M * WARPS_N * WMMA_M * WMMA_N * sizeof(float),
                  "room for the epilogue scratch");
};

/* The warp's FRAG_M A fragments and FRAG_N B fragments of the 8-wide k-step at column kk of the
 * shared tiles, as loaded (f32 bits). */
template <class T>
__device__ __forceinline__ void load_fragments(a_fragment (&a)[T::FRAG_M],
                                               b_fragment (&b)[T::FRAG_N], const float *sA,
                                               const float *sB, int warp_m, int warp_n, int kk)
{
#pragma unroll
    for (int i = 0; i < T::FRAG_M; i++)
        load_a_shared(a[i], sA + (warp_m * T::WARP_M + i * WMMA_M) * T::A_ROW + kk, T::A_ROW);
#pragma unroll
    for (int j = 0; j < T::FRAG_N; j++)
        load_b_shared(b[j], sB + kk * T::B_ROW + warp_n * T::WARP_N + j * WMMA_N, T::B_ROW);
}

/* One stage of the ring (an A tile and a B tile), this thread's chunks rounded to TF32: v2..v4
 * round their operands once, in shared memory, before the barrier that publishes them. */
template <class T> __device__ __forceinline__ void round_stage(float *sA, float *sB)
{
    round_own_chunks_tf32<T::BLOCK_M, T::BLOCK_K, T::THREADS, T::A_ROW>(sA);
    round_own_chunks_tf32<T::BLOCK_K, T::BLOCK_N, T::THREADS, T::B_ROW>(sB);
}

/* FRAG_M x FRAG_N mma_syncs: every A fragment meets every B fragment */
template <class T>
__device__ __forceinline__ void warp_tile_mma_step(acc_fragment (&acc)[T::FRAG_M][T::FRAG_N],
                                                   const a_fragment (&a)[T::FRAG_M],
                                                   const b_fragment (&b)[T::FRAG_N])
{
#pragma unroll
    for (int i = 0; i < T::FRAG_M; i++)
#pragma unroll
        for (int j = 0; j < T::FRAG_N; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
}

/* The math of one k-tile (v2, v3): for each 8-wide k-step, load the fragments, then multiply. */
template <class T>
__device__ __forceinline__ void warp_tile_mma(acc_fragment (&acc)[T::FRAG_M][T::FRAG_N],
                                              const float *sA, const float *sB, int warp_m,
                                              int warp_n)
{
    a_fragment a[T::FRAG_M];
    b_fragment b[T::FRAG_N];
#pragma unroll
    for (int kk = 0; kk < T::BLOCK_K; kk += WMMA_K) {
        load_fragments<T>(a, b, sA, sB, warp_m, warp_n, kk); /* TF32 already (rounded in smem) */
        warp_tile_mma_step<T>(acc, a, b);
    }
}

/* The math of one k-tile in 3xTF32 (v5). The tensor cores sum the k-tile's products into a
 * fresh accumulator `part` (their f32 sum is truncated at every mma, but only over one k-tile);
 * then the CUDA cores add part to the running sum acc with round-to-nearest f32 adds. Within a
 * k-step, the three mmas of every fragment are issued term by term, so consecutive mmas are
 * independent; the small terms go first. */
template <class T>
__device__ __forceinline__ void warp_tile_mma_3xtf32(acc_fragment (&acc)[T::FRAG_M][T::FRAG_N],
                                                     const float *sA, const float *sB, int warp_m,
                                                     int warp_n)
{
    acc_fragment part[T::FRAG_M][T::FRAG_N];
#pragma unroll
    for (int i = 0; i < T::FRAG_M; i++)
#pragma unroll
        for (int j = 0; j < T::FRAG_N; j++) wmma::fill_fragment(part[i][j], 0.0f);
    a_fragment a_big[T::FRAG_M], a_small[T::FRAG_M];
    b_fragment b_big[T::FRAG_N], b_small[T::FRAG_N];
#pragma unroll
    for (int kk = 0; kk < T::BLOCK_K; kk += WMMA_K) {
        load_fragments<T>(a_big, b_big, sA, sB, warp_m, warp_n, kk);
#pragma unroll
        for (int i = 0; i < T::FRAG_M; i++) split_tf32(a_big[i], a_small[i]);
#pragma unroll
        for (int j = 0; j < T::FRAG_N; j++) split_tf32(b_big[j], b_small[j]);
        warp_tile_mma_step<T>(part, a_small, b_big); /* small_a * big_b */
        warp_tile_mma_step<T>(part, a_big, b_small); /* big_a * small_b */
        warp_tile_mma_step<T>(part, a_big, b_big);   /* big_a * big_b */
    }
    /* acc and part are accumulators of one shape: the same element-to-lane mapping */
#pragma unroll
    for (int i = 0; i < T::FRAG_M; i++)
#pragma unroll
        for (int j = 0; j < T::FRAG_N; j++)
#pragma unroll
            for (int e = 0; e < acc[i][j].num_elements; e++) acc[i][j].x[e] += part[i][j].x[e];
}

/* The epilogue: C = alpha*acc + beta*C for one warp's 16x16 accumulator at (row0, col0). The
 * fragment's element-to-lane mapping is unspecified, so it goes through a 16x16 f32 scratch tile
 * in shared memory (store_matrix_sync). Then lane l owns 4 consecutive elements of rows l/4 and
 * l/4 + 8: four lanes cover a 64-byte row segment, so every store instruction writes whole
 * 32-byte sectors, as 16-byte vectors when the row allows it. */
__device__ __forceinline__ void store_tile(const acc_fragment &acc, float *scratch,
                                           float *__restrict__ C, long ldc, int row0, int col0,
                                           int M, int N, float alpha, float beta, bool vec)
{
    const int lane = threadIdx.x % 32;
    wmma::store_matrix_sync(scratch, acc, WMMA_N, wmma::mem_row_major);
    __syncwarp();
    const int c = lane % 4 * 4, gc = col0 + c;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int r = lane / 4 + 8 * h, gr = row0 + r;
        if (gr >= M) continue;
        float *dst = C + (size_t)gr * ldc + gc;
        const float *src = scratch + r * WMMA_N + c;
        if (vec && gc + 4 <= N) {
            float4 x = *(const float4 *)src;
            x.x *= alpha, x.y *= alpha, x.z *= alpha, x.w *= alpha;
            if (beta != 0.0f) {
                const float4 y = *(const float4 *)dst;
                x.x += beta * y.x, x.y += beta * y.y, x.z += beta * y.z, x.w += beta * y.w;
            }
            *(float4 *)dst = x;
        } else {
            for (int e = 0; e < 4 && gc + e < N; e++)
                dst[e] = alpha * src[e] + (beta != 0.0f ? beta * dst[e] : 0.0f);
        }
    }
    __syncwarp(); /* the scratch tile is reused for the warp's next fragment */
}

/* Each warp stores its tile through a 1 KiB scratch carved from the (then free) operand buffers. */
template <class T>
__device__ __forceinline__ void warp_tile_store(const acc_fragment (&acc)[T::FRAG_M][T::FRAG_N],
                                                unsigned char *smem, float *__restrict__ C,
                                                long ldc, int tile_m, int tile_n, int M, int N,
                                                float alpha, float beta, bool vec)
{
    const int warp = threadIdx.x / 32;
    float *scratch = (float *)smem + warp * WMMA_M * WMMA_N;
#pragma unroll
    for (int i = 0; i < T::FRAG_M; i++)
#pragma unroll
        for (int j = 0; j < T::FRAG_N; j++)
            store_tile(acc[i][j], scratch, C, ldc, tile_m + i * WMMA_M, tile_n + j * WMMA_N, M, N,
                       alpha, beta, vec);
}

template <class T>
__device__ __forceinline__ void zero_accumulators(acc_fragment (&acc)[T::FRAG_M][T::FRAG_N])
{
#pragma unroll
    for (int i = 0; i < T::FRAG_M; i++)
#pragma unroll
        for (int j = 0; j < T::FRAG_N; j++) wmma::fill_fragment(acc[i][j], 0.0f);
}

/* ================================================================================================
 * v2: the textbook shared-memory kernel: 128x64 block tile, 32x32 warp tiles, synchronous loads
 * ============================================================================================== */
using V2 = tile_config<128, 64, 32, 4, 2, 1, 2>; /* 27 KiB of shared memory */

template <class T>
__global__ void __launch_bounds__(T::THREADS, T::MIN_BLOCKS)
    tf32_smem(int M, int N, int K, const float *__restrict__ A, long lda,
              const float *__restrict__ B, long ldb, float *__restrict__ C, long ldc, float alpha,
              float beta, vec_flags vec)
{
    extern __shared__ __align__(128) unsigned char smem[];
    float *sA = (float *)smem, *sB = sA + T::A_STAGE;
    const int warp = threadIdx.x / 32;
    const int warp_m = warp / T::WARPS_N, warp_n = warp % T::WARPS_N;
    const int block_m = blockIdx.y * T::BLOCK_M, block_n = blockIdx.x * T::BLOCK_N;

    acc_fragment acc[T::FRAG_M][T::FRAG_N];
    zero_accumulators<T>(acc);
    for (int k0 = 0; k0 < K; k0 += T::BLOCK_K) {
        load_tile_sync<float, T::BLOCK_M, T::BLOCK_K, T::THREADS, T::A_ROW>(sA, A, lda, block_m, k0,
                                                                            M, K, vec.a);
        load_tile_sync<float, T::BLOCK_K, T::BLOCK_N, T::THREADS, T::B_ROW>(sB, B, ldb, k0, block_n,
                                                                            K, N, vec.b);
        round_stage<T>(sA, sB);
        __syncthreads(); /* the tiles are complete (and TF32) */
        warp_tile_mma<T>(acc, sA, sB, warp_m, warp_n);
        __syncthreads(); /* every warp is done with the tiles before they are overwritten */
    }
    warp_tile_store<T>(acc, smem, C, ldc, block_m + warp_m * T::WARP_M,
                       block_n + warp_n * T::WARP_N, M, N, alpha, beta, vec.c);
}

/* ================================================================================================
 * v3, v5: the cp.async pipeline (v5: with the 3xTF32 math)
 * ============================================================================================== */
template <class T, int GROUP_M, bool THREE_TF32>
__global__ void __launch_bounds__(T::THREADS, T::MIN_BLOCKS)
    tf32_pipeline(int M, int N, int K, const float *__restrict__ A, long lda,
                  const float *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                  float alpha, float beta, vec_flags vec)
{
    static_assert(T::STAGES >= 2, "a pipeline needs at least two stages");
    extern __shared__ __align__(128) unsigned char smem[];
    float *sA = (float *)smem, *sB = sA + T::STAGES * T::A_STAGE;
    const int warp = threadIdx.x / 32;
    const int warp_m = warp / T::WARPS_N, warp_n = warp % T::WARPS_N;
    int tm, tn;
    block_tile_coords<GROUP_M>((M + T::BLOCK_M - 1) / T::BLOCK_M, (N + T::BLOCK_N - 1) / T::BLOCK_N,
                               &tm, &tn);
    const int block_m = tm * T::BLOCK_M, block_n = tn * T::BLOCK_N;
    const int k_tiles = (K + T::BLOCK_K - 1) / T::BLOCK_K;

    acc_fragment acc[T::FRAG_M][T::FRAG_N];
    zero_accumulators<T>(acc);

    /* Stage s of the ring holds k-tile t when t % STAGES == s. */
    auto load_stage = [&](int t) {
        const int s = t % T::STAGES;
        load_tile_async<float, T::BLOCK_M, T::BLOCK_K, T::THREADS, T::A_ROW>(
            sA + s * T::A_STAGE, A, lda, block_m, t * T::BLOCK_K, M, K, vec.a);
        load_tile_async<float, T::BLOCK_K, T::BLOCK_N, T::THREADS, T::B_ROW>(
            sB + s * T::B_STAGE, B, ldb, t * T::BLOCK_K, block_n, K, N, vec.b);
    };
    /* Prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each (empty groups past the
     * end keep the count that wait_group relies on). */
#pragma unroll
    for (int t = 0; t < T::STAGES - 1; t++) {
        if (t < k_tiles) load_stage(t);
        cp_async_commit_group();
    }
    for (int t = 0; t < k_tiles; t++) {
        /* k-tile t has landed once at most STAGES-2 younger groups are pending; the barrier
         * makes every thread's copies visible, and tells everyone that all warps are done with
         * k-tile t-1, whose stage is refilled next. */
        cp_async_wait_group<T::STAGES - 2>();
        if constexpr (!THREE_TF32) /* 3xTF32 splits the f32 values itself */
            round_stage<T>(sA + t % T::STAGES * T::A_STAGE, sB + t % T::STAGES * T::B_STAGE);
        __syncthreads();
        if (t + T::STAGES - 1 < k_tiles) load_stage(t + T::STAGES - 1);
        cp_async_commit_group();
        const int s = t % T::STAGES;
        if constexpr (THREE_TF32)
            warp_tile_mma_3xtf32<T>(acc, sA + s * T::A_STAGE, sB + s * T::B_STAGE, warp_m, warp_n);
        else
            warp_tile_mma<T>(acc, sA + s * T::A_STAGE, sB + s * T::B_STAGE, warp_m, warp_n);
    }
    cp_async_wait_group<0>();
    __syncthreads(); /* the operand buffers become the epilogue's scratch */
    warp_tile_store<T>(acc, smem, C, ldc, block_m + warp_m * T::WARP_M,
                       block_n + warp_n * T::WARP_N, M, N, alpha, beta, vec.c);
}

/* ================================================================================================
 * v4: fragments double-buffered in registers
 * ================================================================================================
 * In v3 every k-step loads its fragments and then multiplies them: the mmas wait for the shared
 * loads at every step, and at every k-tile the warps first meet at the barrier. Here each warp
 * holds two sets of fragments: while the tensor cores multiply set `cur`, the loads for the next
 * k-step fill set `nxt`. The barrier that makes k-tile t+1 visible moves into k-tile t, before
 * its last k-step, so even the first loads of t+1 overlap the last mmas of t. */
template <class T, int GROUP_M>
__global__ void __launch_bounds__(T::THREADS, T::MIN_BLOCKS)
    tf32_pipeline_dbuf(int M, int N, int K, const float *__restrict__ A, long lda,
                       const float *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                       float alpha, float beta, vec_flags vec)
{
    static_assert(T::STAGES >= 3, "loading k-tile t+1 while t is read needs three stages");
    static_assert(T::KSTEPS % 2 == 0, "fragment buffers alternate within and across k-tiles");
    extern __shared__ __align__(128) unsigned char smem[];
    float *sA = (float *)smem, *sB = sA + T::STAGES * T::A_STAGE;
    const int warp = threadIdx.x / 32;
    const int warp_m = warp / T::WARPS_N, warp_n = warp % T::WARPS_N;
    int tm, tn;
    block_tile_coords<GROUP_M>((M + T::BLOCK_M - 1) / T::BLOCK_M, (N + T::BLOCK_N - 1) / T::BLOCK_N,
                               &tm, &tn);
    const int block_m = tm * T::BLOCK_M, block_n = tn * T::BLOCK_N;
    const int k_tiles = (K + T::BLOCK_K - 1) / T::BLOCK_K;

    acc_fragment acc[T::FRAG_M][T::FRAG_N];
    zero_accumulators<T>(acc);
    a_fragment a[2][T::FRAG_M]; /* two sets: one being multiplied, one being loaded */
    b_fragment b[2][T::FRAG_N];

    auto load_stage = [&](int t) {
        const int s = t % T::STAGES;
        load_tile_async<float, T::BLOCK_M, T::BLOCK_K, T::THREADS, T::A_ROW>(
            sA + s * T::A_STAGE, A, lda, block_m, t * T::BLOCK_K, M, K, vec.a);
        load_tile_async<float, T::BLOCK_K, T::BLOCK_N, T::THREADS, T::B_ROW>(
            sB + s * T::B_STAGE, B, ldb, t * T::BLOCK_K, block_n, K, N, vec.b);
    };
#pragma unroll
    for (int t = 0; t < T::STAGES - 1; t++) {
        if (t < k_tiles) load_stage(t);
        cp_async_commit_group();
    }
    cp_async_wait_group<T::STAGES - 2>();
    round_stage<T>(sA, sB);
    __syncthreads();
    load_fragments<T>(a[0], b[0], sA, sB, warp_m, warp_n, 0);

    for (int t = 0; t < k_tiles; t++) {
        const int s = t % T::STAGES;
#pragma unroll
        for (int ks = 0; ks < T::KSTEPS; ks++) {
            const int cur = ks % 2, nxt = 1 - cur;
            if (ks == T::KSTEPS - 1) {
                /* groups committed: STAGES-1 + t; k-tile t+1 is group t+1 */
                cp_async_wait_group<T::STAGES - 3>();
                const int s1 = (t + 1) % T::STAGES;
                if (t + 1 < k_tiles) round_stage<T>(sA + s1 * T::A_STAGE, sB + s1 * T::B_STAGE);
                __syncthreads();
                if (t + T::STAGES - 1 < k_tiles) load_stage(t + T::STAGES - 1);
                cp_async_commit_group();
                if (t + 1 < k_tiles)
                    load_fragments<T>(a[nxt], b[nxt], sA + s1 * T::A_STAGE, sB + s1 * T::B_STAGE,
                                      warp_m, warp_n, 0);
            } else {
                load_fragments<T>(a[nxt], b[nxt], sA + s * T::A_STAGE, sB + s * T::B_STAGE, warp_m,
                                  warp_n, (ks + 1) * WMMA_K);
            }
            warp_tile_mma_step<T>(acc, a[cur], b[cur]);
        }
    }
    cp_async_wait_group<0>();
    __syncthreads();
    warp_tile_store<T>(acc, smem, C, ldc, block_m + warp_m * T::WARP_M,
                       block_n + warp_n * T::WARP_N, M, N, alpha, beta, vec.c);
}

/* ================================================================================================
 * The configurations and launchers
 * ============================================================================================== */
/* Every configuration fits in 99 KiB of shared memory, the most a block may have on sm_86 and
 * sm_89 (sm_80: 163 KiB, sm_90: 227 KiB), so the chapter runs on every GPU from sm_80 up; two v3
 * blocks share an SM of sm_80 or sm_90. */
// clang-format off
/*                       BLOCK_M BLOCK_N BLOCK_K WARPS_M WARPS_N STAGES MIN_BLOCKS   smem      */
using V3 = tile_config<  128,    128,    16,     2,      4,      3,     2>;     /* 55.5 KiB */
using V4 = tile_config<  128,    256,    16,     2,      4,      3,     1>;     /* 79.5 KiB */
using V5 = tile_config<  128,    128,    16,     2,      4,      5,     1>;     /* 92.5 KiB */
// clang-format on
static_assert(V3::SMEM_BYTES <= 99 * 1024 && V4::SMEM_BYTES <= 99 * 1024 &&
                  V5::SMEM_BYTES <= 99 * 1024,
              "every block fits the smallest shared memory of an sm_80+ GPU");
constexpr int V3_GROUP_M = 1, V4_GROUP_M = 8, V5_GROUP_M = 8;

extern "C" void tf32_v2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    static_assert(V2::SMEM_BYTES <= 48 * 1024, "v2 needs no shared-memory opt-in");
    dim3 grid((p->N + V2::BLOCK_N - 1) / V2::BLOCK_N, (p->M + V2::BLOCK_M - 1) / V2::BLOCK_M);
    tf32_smem<V2><<<grid, V2::THREADS, V2::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, (const float *)p->d_a, p->lda, (const float *)p->d_b, p->ldb,
        (float *)p->d_c, p->ldc, p->alpha, p->beta, vector_paths(p));
}

extern "C" const char *tf32_v3_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return allow_smem((const void *)tf32_pipeline<V3, V3_GROUP_M, false>, V3::SMEM_BYTES);
}

extern "C" void tf32_v3_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    tf32_pipeline<V3, V3_GROUP_M, false>
        <<<tile_count(p, V3::BLOCK_M, V3::BLOCK_N), V3::THREADS, V3::SMEM_BYTES, stream>>>(
            p->M, p->N, p->K, (const float *)p->d_a, p->lda, (const float *)p->d_b, p->ldb,
            (float *)p->d_c, p->ldc, p->alpha, p->beta, vector_paths(p));
}

extern "C" const char *tf32_v4_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return allow_smem((const void *)tf32_pipeline_dbuf<V4, V4_GROUP_M>, V4::SMEM_BYTES);
}

extern "C" void tf32_v4_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    tf32_pipeline_dbuf<V4, V4_GROUP_M>
        <<<tile_count(p, V4::BLOCK_M, V4::BLOCK_N), V4::THREADS, V4::SMEM_BYTES, stream>>>(
            p->M, p->N, p->K, (const float *)p->d_a, p->lda, (const float *)p->d_b, p->ldb,
            (float *)p->d_c, p->ldc, p->alpha, p->beta, vector_paths(p));
}

extern "C" const char *tf32_v5_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return allow_smem((const void *)tf32_pipeline<V5, V5_GROUP_M, true>, V5::SMEM_BYTES);
}

extern "C" void tf32_v5_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    tf32_pipeline<V5, V5_GROUP_M, true>
        <<<tile_count(p, V5::BLOCK_M, V5::BLOCK_N), V5::THREADS, V5::SMEM_BYTES, stream>>>(
            p->M, p->N, p->K, (const float *)p->d_a, p->lda, (const float *)p->d_b, p->ldb,
            (float *)p->d_c, p->ldc, p->alpha, p->beta, vector_paths(p));
}
