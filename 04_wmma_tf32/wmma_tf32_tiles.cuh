/* 04_wmma_tf32/wmma_tf32_tiles.cuh - what the rungs of chapter 04's WMMA TF32 ladder share and what
 * is no rung's lesson (CUDA C++, device code and two host helpers):
 *   - the WMMA TF32 shape (WMMA_M/N/K = 16/16/8) and its fragment types, f32 accumulate;
 *   - load_a_shared, load_b_shared: fragment loads from shared memory in inline PTX that say
 *     `.shared` (nvcc's load_matrix_sync of a TF32 fragment does not);
 *   - round_own_chunks_tf32 and round_stage: the rounding to TF32 of v2..v4, once per element,
 *     in shared memory, by the thread that copied it;
 *   - tile_config: every constant of the block/warp/fragment tile hierarchy of v2..v5, with a
 *     static_assert for each divisibility, the padding that keeps fragment loads out of bank
 *     conflicts, and the 32-byte alignment of fragment pointers;
 *   - a warp tile's fragment loads (load_fragments), its mmas (warp_tile_mma_step), both over a
 *     k-tile (warp_tile_mma), zeroing (zero_accumulators) and the epilogue (store_tile,
 *     warp_tile_store);
 *   - on the host: which operands may move in 16-byte vectors (f32_vec_flags).
 * The tile loads into shared memory, the cp.async wrappers, the tile order of a 1-D grid, the
 * shared-memory opt-in and whether a tile's shared memory fits (smem_fits) come from
 * common/gemm_tiles.cuh. No harness header: a rung file with this
 * header and common/gemm_tiles.cuh (and cp_async.cuh) builds in any program. */
#ifndef WMMA_TF32_TILES_CUH
#define WMMA_TF32_TILES_CUH

#include "gemm_tiles.cuh"

#include <mma.h>
#include <stdint.h>

namespace wmma = nvcuda::wmma; /* wmma::fragment etc.; no using-directive in a header */

/* The WMMA TF32 shape: A fragments are 16x8, B fragments 8x16, accumulators 16x16 (f32). */
constexpr int WMMA_M = 16, WMMA_N = 16, WMMA_K = 8;

typedef wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, wmma::precision::tf32,
                       wmma::row_major>
    a_fragment;
typedef wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, wmma::precision::tf32,
                       wmma::row_major>
    b_fragment;
typedef wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc_fragment;

/* f32 elements per 16-byte chunk (the unit in which common/gemm_tiles.cuh copies tiles) */
constexpr int CHUNK_FLOATS = 4;

/* Fragment loads from shared memory. For f16 fragments (chapter 03) nvcc proves that the pointer
 * given to load_matrix_sync points into shared memory and emits `wmma.load ... .shared.f16`; for
 * TF32 fragments it does not (CUDA 13.0): the PTX says `wmma.load.a.sync.aligned.row.m16n16k8.tf32`
 * with no state space, and ptxas turns every element into a generic LD.E with a 64-bit address of
 * its own (seen in v4's SASS on sm_90: LD.E and IMAD.WIDE, no LDS; NOTES.md). These two
 * functions issue the same PTX instruction with `.shared` written out and a 32-bit shared address.
 * Destination register i of wmma.load is fragment element x[i] (what load_matrix_sync does), and
 * --test checks the result of every variant that uses them. "memory": the load must not move
 * across the barriers and cp.async waits that make the tile valid. */
static __device__ __forceinline__ void load_a_shared(a_fragment &f, const float *p, unsigned ldm)
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

static __device__ __forceinline__ void load_b_shared(b_fragment &f, const float *p, unsigned ldm)
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

/* Rounds, in place, the 16-byte chunks of a ROWS x COLS shared tile (row stride SROW) that this
 * thread copied: load_tile_sync and load_tile_async (common/gemm_tiles.cuh) give chunk
 * threadIdx.x + i * THREADS to this thread, in both their vector and their per-element paths, so
 * once this thread's cp.async groups have landed (cp_async_wait_group), its own chunks are
 * complete and visible to it without a barrier; the barrier that follows publishes the rounded
 * tile. Every element is rounded once per block instead of once per warp that loads it into a
 * fragment (4 warps read each element of an A tile in v3 and v4, 2 each element of a B tile), and
 * the fragment loads that follow need no conversion. wmma::__float_to_tf32 is cvt.rna.tf32.f32:
 * to nearest, ties away from zero. The stored value must be the exact TF32 value, so on sm_90
 * each element costs three instructions (the two of a rounding in registers plus a mask of the 13
 * low bits). NOTES.md records what this did to the speed of v2..v4. */
template <int ROWS, int COLS, int THREADS, int SROW>
static __device__ __forceinline__ void round_own_chunks_tf32(float *s)
{
    constexpr int CHUNKS = ROWS * COLS / CHUNK_FLOATS;
    static_assert(COLS % CHUNK_FLOATS == 0 && SROW % CHUNK_FLOATS == 0,
                  "whole 16-byte chunks, 16-byte aligned");
#pragma unroll
    for (int i = 0; i < (CHUNKS + THREADS - 1) / THREADS; i++) {
        const int chunk = threadIdx.x + i * THREADS;
        if (CHUNKS % THREADS != 0 && chunk >= CHUNKS) break;
        float4 *p = (float4 *)(s + chunk / (COLS / CHUNK_FLOATS) * SROW +
                               chunk % (COLS / CHUNK_FLOATS) * CHUNK_FLOATS);
        float4 v = *p;
        v.x = wmma::__float_to_tf32(v.x), v.y = wmma::__float_to_tf32(v.y);
        v.z = wmma::__float_to_tf32(v.z), v.w = wmma::__float_to_tf32(v.w);
        *p = v;
    }
}

/* One block-tile configuration of v2..v5. Each warp owns a WARP_M x WARP_N tile of C, held as
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
static __device__ __forceinline__ void
load_fragments(a_fragment (&a)[T::FRAG_M], b_fragment (&b)[T::FRAG_N], const float *sA,
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
template <class T> static __device__ __forceinline__ void round_stage(float *sA, float *sB)
{
    round_own_chunks_tf32<T::BLOCK_M, T::BLOCK_K, T::THREADS, T::A_ROW>(sA);
    round_own_chunks_tf32<T::BLOCK_K, T::BLOCK_N, T::THREADS, T::B_ROW>(sB);
}

/* FRAG_M x FRAG_N mma_syncs: every A fragment meets every B fragment */
template <class T>
static __device__ __forceinline__ void warp_tile_mma_step(acc_fragment (&acc)[T::FRAG_M][T::FRAG_N],
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
static __device__ __forceinline__ void warp_tile_mma(acc_fragment (&acc)[T::FRAG_M][T::FRAG_N],
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

/* The epilogue: C = alpha*acc + beta*C for one warp's 16x16 accumulator at (row0, col0). The
 * fragment's element-to-lane mapping is unspecified, so it goes through a 16x16 f32 scratch tile
 * in shared memory (store_matrix_sync). Then lane l owns 4 consecutive elements of rows l/4 and
 * l/4 + 8: four lanes cover a 64-byte row segment, so every store instruction writes whole
 * 32-byte sectors, as 16-byte vectors when the row allows it. */
static __device__ __forceinline__ void store_tile(const acc_fragment &acc, float *scratch,
                                                  float *__restrict__ C, long ldc, int row0,
                                                  int col0, int M, int N, float alpha, float beta,
                                                  bool vec)
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
static __device__ __forceinline__ void
warp_tile_store(const acc_fragment (&acc)[T::FRAG_M][T::FRAG_N], unsigned char *smem,
                float *__restrict__ C, long ldc, int tile_m, int tile_n, int M, int N, float alpha,
                float beta, bool vec)
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

/* acc = 0, fragment by fragment */
template <class T>
static __device__ __forceinline__ void zero_accumulators(acc_fragment (&acc)[T::FRAG_M][T::FRAG_N])
{
#pragma unroll
    for (int i = 0; i < T::FRAG_M; i++)
#pragma unroll
        for (int j = 0; j < T::FRAG_N; j++) wmma::fill_fragment(acc[i][j], 0.0f);
}

/* ---- the host side --------------------------------------------------------------------------- */
/* Which operands may move in 16-byte vectors (rows_vectorizable, common/gemm_tiles.cuh): A (M x K),
 * B (K x N) and C (M x N) are all f32. */
static inline vec_flags f32_vec_flags(int N, int K, const float *A, long lda, const float *B,
                                      long ldb, const float *C, long ldc)
{
    return {rows_vectorizable(A, lda, K, sizeof(float)),
            rows_vectorizable(B, ldb, N, sizeof(float)),
            rows_vectorizable(C, ldc, N, sizeof(float))};
}

#endif /* WMMA_TF32_TILES_CUH */
