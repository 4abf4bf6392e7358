/* 03_wmma_fp16/wmma_tiles.cuh - what the rungs of chapter 03's WMMA ladder share and what is no
 * rung's lesson (CUDA C++, device code and two host helpers):
 *   - the WMMA shape (WMMA_M/N/K) and the fragment types of f16 in, f32 accumulate;
 *   - store_tile: the epilogue of v2..v5, one 16x16 accumulator through a shared scratch tile;
 *   - tile_config: every constant of the block/warp/fragment tile hierarchy of v3..v5, with a
 *     static_assert for each divisibility and for the 32-byte alignment of fragment pointers;
 *   - a warp tile's fragment loads (load_fragments), its mmas (warp_tile_mma_step), both over a
 *     k-tile (warp_tile_mma), zeroing (zero_accumulators) and epilogue (warp_tile_store);
 *   - on the host: which operands may move in 16-byte vectors (wmma_vec_flags).
 * The tile loads into shared memory, the cp.async wrappers, the tile order of a 1-D grid, the
 * shared-memory opt-in and whether a tile's shared memory fits (smem_fits) come from
 * common/gemm_tiles.cuh. No harness header: a rung file with this
 * header and common/gemm_tiles.cuh (and cp_async.cuh) builds in any program. */
#ifndef WMMA_TILES_CUH
#define WMMA_TILES_CUH

#include "gemm_tiles.cuh"

#include <cuda_fp16.h>
#include <mma.h>
#include <stdint.h>

namespace wmma = nvcuda::wmma; /* wmma::fragment etc.; no using-directive in a header */

/* The WMMA shape: every fragment is a 16x16 tile, every mma_sync a 16x16x16 product. */
constexpr int WMMA_M = 16, WMMA_N = 16, WMMA_K = 16;

typedef wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> a_fragment;
typedef wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> b_fragment;
typedef wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc_fragment;

/* The epilogue of v2..v5: C = alpha*acc + beta*C for one warp's 16x16 accumulator at
 * (row0, col0). The fragment's element-to-lane mapping is unspecified, so it goes through a
 * 16x16 f32 scratch tile in shared memory (store_matrix_sync). Then lane l owns 4 consecutive
 * elements of rows l/4 and l/4 + 8: four lanes cover a 64-byte row segment, so every store
 * instruction writes whole 32-byte sectors, as 16-byte vectors when the row allows it. */
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

/* One block-tile configuration of v3..v5. Each warp owns a WARP_M x WARP_N tile of C, held as
 * FRAG_M x FRAG_N accumulator fragments; the block tile is WARPS_M x WARPS_N warp tiles. Shared
 * rows are padded by SKEW halves (16 bytes): a row of the A tile is then 80 bytes and of the B
 * tile 272 (or 528) bytes, so the 8 rows of 16 bytes that one 8x8 piece of a fragment load
 * touches land in 8 different groups of 4 banks. */
template <int BLOCK_M_, int BLOCK_N_, int BLOCK_K_, int WARPS_M_, int WARPS_N_, int STAGES_>
struct tile_config {
    static constexpr int BLOCK_M = BLOCK_M_, BLOCK_N = BLOCK_N_, BLOCK_K = BLOCK_K_;
    static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, STAGES = STAGES_;
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int WARP_M = BLOCK_M / WARPS_M, WARP_N = BLOCK_N / WARPS_N;
    static constexpr int FRAG_M = WARP_M / WMMA_M, FRAG_N = WARP_N / WMMA_N;
    static constexpr int SKEW = 8;
    static constexpr int A_ROW = BLOCK_K + SKEW, B_ROW = BLOCK_N + SKEW; /* in halves */
    static constexpr int A_STAGE = BLOCK_M * A_ROW, B_STAGE = BLOCK_K * B_ROW;
    static constexpr size_t SMEM_BYTES = (size_t)STAGES * (A_STAGE + B_STAGE) * sizeof(half);
    static_assert(BLOCK_M % WARPS_M == 0 && BLOCK_N % WARPS_N == 0, "warps tile the block");
    static_assert(WARP_M % WMMA_M == 0 && WARP_N % WMMA_N == 0, "fragments tile the warp");
    static_assert(BLOCK_K % WMMA_K == 0, "the k-tile is whole WMMA steps");
    /* load_matrix_sync needs 32-byte aligned fragment pointers: every fragment starts 16 rows
     * (or 16 columns) past another, and every stage 32-byte aligned */
    static_assert((WMMA_M * A_ROW * sizeof(half)) % 32 == 0 && (A_STAGE * sizeof(half)) % 32 == 0,
                  "A fragments 32-byte aligned");
    static_assert((WMMA_K * B_ROW * sizeof(half)) % 32 == 0 && (B_STAGE * sizeof(half)) % 32 == 0,
                  "B fragments 32-byte aligned");
    /* the epilogue's per-warp scratch tiles reuse the operand buffers */
    static_assert(SMEM_BYTES >= (size_t)WARPS_M * WARPS_N * WMMA_M * WMMA_N * sizeof(float),
                  "room for the epilogue scratch");
};

/* The warp's FRAG_M A fragments and FRAG_N B fragments of the 16-wide k-step at column kk of the
 * shared tiles (WMMA compiles each load to one ldmatrix.x4: NOTES.md has the SASS). */
template <class T>
static __device__ __forceinline__ void
load_fragments(a_fragment (&a)[T::FRAG_M], b_fragment (&b)[T::FRAG_N], const half *sA,
               const half *sB, int warp_m, int warp_n, int kk)
{
#pragma unroll
    for (int i = 0; i < T::FRAG_M; i++)
        wmma::load_matrix_sync(a[i], sA + (warp_m * T::WARP_M + i * WMMA_M) * T::A_ROW + kk,
                               T::A_ROW);
#pragma unroll
    for (int j = 0; j < T::FRAG_N; j++)
        wmma::load_matrix_sync(b[j], sB + kk * T::B_ROW + warp_n * T::WARP_N + j * WMMA_N,
                               T::B_ROW);
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

/* The math of one k-tile (v3, v4): for each 16-wide k-step, load the fragments, then multiply. */
template <class T>
static __device__ __forceinline__ void warp_tile_mma(acc_fragment (&acc)[T::FRAG_M][T::FRAG_N],
                                                     const half *sA, const half *sB, int warp_m,
                                                     int warp_n)
{
    a_fragment a[T::FRAG_M];
    b_fragment b[T::FRAG_N];
#pragma unroll
    for (int kk = 0; kk < T::BLOCK_K; kk += WMMA_K) {
        load_fragments<T>(a, b, sA, sB, warp_m, warp_n, kk);
        warp_tile_mma_step<T>(acc, a, b);
    }
}

/* The epilogue: the operand buffers are free after a barrier; each warp takes a 1 KiB scratch. */
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
/* Which operands may move in 16-byte vectors (rows_vectorizable, common/gemm_tiles.cuh): A (M x K)
 * and B (K x N) are halves, C (M x N) floats. */
static inline vec_flags wmma_vec_flags(int N, int K, const half *A, long lda, const half *B,
                                       long ldb, const float *C, long ldc)
{
    return {rows_vectorizable(A, lda, K, sizeof(half)), rows_vectorizable(B, ldb, N, sizeof(half)),
            rows_vectorizable(C, ldc, N, sizeof(float))};
}

#endif /* WMMA_TILES_CUH */
