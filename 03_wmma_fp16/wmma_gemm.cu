/* 03_wmma_fp16/wmma_gemm.cu - the WMMA FP16 GEMM ladder: f16 inputs, f32 accumulate and output.
 *
 * What it teaches
 *   WMMA (nvcuda::wmma, <mma.h>) is the C++ face of the tensor cores: a warp loads 16x16 tiles
 *   of A and B into opaque "fragments", mma_sync multiplies them into a 16x16 f32 accumulator
 *   fragment, and store_matrix_sync writes it out. The math is one line; the speed comes from
 *   feeding it. Each rung below changes one thing about how the operands reach the fragments.
 *
 * Problem and layout (every variant)
 *   C = alpha * A * B + beta * C, A M x K row-major (lda), B K x N row-major (ldb), C M x N
 *   row-major (ldc), A and B f16, C f32, products accumulated in f32. beta == 0 never reads C.
 *   v1 needs M, N, K multiples of 16 (it loads fragments straight from global memory, and a
 *   fragment is always a whole 16x16 tile); v2..v5 take any M, N, K: loads outside the matrix
 *   are zero-filled in shared memory and the epilogue stores only elements inside C. When a
 *   matrix's rows are 16-byte aligned (pointer 16-byte aligned, leading dimension a multiple of
 *   8 halves) tiles move in 16-byte vectors; otherwise element by element (correct, slower).
 *
 * Minimum: sm_70 for v1..v3 (WMMA f16), sm_80 for v4, v5 (cp.async). CUDA 12.x or 13.x.
 *
 * Build and run
 *   make                                            # build/bin/03_wmma_fp16
 *   build/bin/03_wmma_fp16                          # the ladder at 4096^3 with cuBLAS beside it
 *   build/bin/03_wmma_fp16 --variant v4_pipeline --size 8192x8192x8192
 *   build/bin/03_wmma_fp16 --test                   # every variant, odd sizes, alpha/beta
 *
 * The rungs
 *   v1_naive     One warp per 16x16 tile of C; each k-step loads an A and a B fragment straight
 *                from global memory. Every element of A is fetched N/16 times and every element
 *                of B M/16 times; the L1 and L2 caches catch some of it, the rest is DRAM
 *                traffic, and the tensor cores wait on it.
 *   v2_smem      A block of 16 warps computes a 64x64 tile of C. The block copies a 64x32 tile
 *                of A and a 32x64 tile of B into shared memory once and all warps load their
 *                fragments from there: global traffic drops 4x. Each warp still owns a single
 *                16x16 accumulator, so every fragment it loads feeds only one mma, and the rows
 *                of the tiles are 64 or 128 bytes apart, so the 8 rows a fragment load touches
 *                fall into the same banks (bank conflicts).
 *   v3_regblock  Register blocking: 8 warps, each owning a 64x32 warp tile (4x2 accumulator
 *                fragments), in a 128x128 block tile. An A fragment now feeds 2 mmas and a B
 *                fragment 4, so shared-memory traffic per mma falls about 3x. Rows of the
 *                shared tiles are padded by 8 halves (16 bytes), which moves consecutive rows
 *                to different banks. Tiles still travel global -> registers -> shared, and
 *                the warps wait at a barrier for every tile.
 *   v4_pipeline  cp.async (sm_80): copies go global -> shared without passing through
 *                registers, and a 4-stage ring of tiles is kept in flight, so the loads for
 *                k-tile t+3 run while the tensor cores work on tile t. One barrier per k-tile.
 *   v5_dbuf      Software pipelining inside the warp: two sets of fragments in registers, the
 *                next k-step's loads issued before the current k-step's mmas, and the barrier
 *                for k-tile t+1 moved before the last k-step of tile t. Two fragment sets need
 *                a warp tile whose mmas outnumber its loads, so warps own 64x64 (4x4 fragments)
 *                in a 128x256 block tile (less L2 traffic per flop too), 5 stages, and blocks
 *                are launched in groups of 8 block-rows so that neighbours share tiles in L2.
 */
#include "wmma_gemm.h"

#include "gemm_hooks.h"

#include <cuda_fp16.h>
#include <mma.h>
#include <stdint.h>

using namespace nvcuda;

/* The WMMA shape: every fragment is a 16x16 tile, every mma_sync a 16x16x16 product. */
constexpr int WMMA_M = 16, WMMA_N = 16, WMMA_K = 16;

/* ================================================================================================
 * v1: one warp per 16x16 output tile, fragments straight from global memory
 * ============================================================================================== */
constexpr int V1_WARPS_M = 2, V1_WARPS_N = 4; /* 8 warps: a 32x64 patch of C per block */

__global__ void __launch_bounds__(32 * V1_WARPS_M * V1_WARPS_N)
    wmma_v1_naive(int M, int N, int K, const half *__restrict__ A, int lda,
                  const half *__restrict__ B, int ldb, float *__restrict__ C, int ldc, float alpha,
                  float beta)
{
    const int warp = threadIdx.x / 32;
    const int tile_m = (blockIdx.y * V1_WARPS_M + warp / V1_WARPS_N) * WMMA_M;
    const int tile_n = (blockIdx.x * V1_WARPS_N + warp % V1_WARPS_N) * WMMA_N;
    if (tile_m >= M || tile_n >= N) return; /* whole warps leave: M, N are multiples of 16 */

    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += WMMA_K) {
        wmma::load_matrix_sync(a, A + (size_t)tile_m * lda + k, lda);
        wmma::load_matrix_sync(b, B + (size_t)k * ldb + tile_n, ldb);
        wmma::mma_sync(acc, a, b, acc);
    }
    /* C = alpha*acc + beta*C. Scaling every element of a fragment is legal although the
     * element-to-lane mapping is unspecified: the same operation is applied to all of them,
     * and c (loaded with the same layout) has the same mapping as acc. */
    float *c_tile = C + (size_t)tile_m * ldc + tile_n;
    if (beta != 0.0f) {
        wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> c;
        wmma::load_matrix_sync(c, c_tile, ldc, wmma::mem_row_major);
        for (int i = 0; i < acc.num_elements; i++) acc.x[i] = alpha * acc.x[i] + beta * c.x[i];
    } else {
        for (int i = 0; i < acc.num_elements; i++) acc.x[i] *= alpha;
    }
    wmma::store_matrix_sync(c_tile, acc, ldc, wmma::mem_row_major);
}

/* load_matrix_sync and store_matrix_sync need 32-byte aligned fragment pointers and ldm a
 * multiple of 8 halves or 4 floats. Fragments start at multiples of 16 rows and 16 columns, so
 * that holds when the matrices start 32-byte aligned and lda, ldb are multiples of 8, ldc of 4. */
extern "C" const char *wmma_v1_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    if ((uintptr_t)p->d_a % 32 || (uintptr_t)p->d_b % 32 || (uintptr_t)p->d_c % 32 || p->lda % 8 ||
        p->ldb % 8 || p->ldc % 4)
        return TC_GEMM_SKIP "v1_naive needs A, B, C 32-byte aligned, lda and ldb multiples of 8, "
                            "ldc of 4";
    return NULL;
}

extern "C" void wmma_v1_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    /* wmma_v1_prepare checked the alignment load_matrix_sync needs */
    dim3 block(32 * V1_WARPS_M * V1_WARPS_N);
    dim3 grid((p->N + WMMA_N * V1_WARPS_N - 1) / (WMMA_N * V1_WARPS_N),
              (p->M + WMMA_M * V1_WARPS_M - 1) / (WMMA_M * V1_WARPS_M));
    wmma_v1_naive<<<grid, block, 0, stream>>>(p->M, p->N, p->K, (const half *)p->d_a, (int)p->lda,
                                              (const half *)p->d_b, (int)p->ldb, (float *)p->d_c,
                                              (int)p->ldc, p->alpha, p->beta);
}

/* ================================================================================================
 * Shared pieces of v2..v5: tile loads into shared memory and the epilogue
 * ============================================================================================== */

/* The epilogue of v2..v5: C = alpha*acc + beta*C for one warp's 16x16 accumulator at
 * (row0, col0). The fragment's element-to-lane mapping is unspecified, so it goes through a
 * 16x16 f32 scratch tile in shared memory (store_matrix_sync). Then lane l owns 4 consecutive
 * elements of rows l/4 and l/4 + 8: four lanes cover a 64-byte row segment, so every store
 * instruction writes whole 32-byte sectors, as 16-byte vectors when the row allows it. */
typedef wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc_fragment;

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

/* Which operands may move in 16-byte vectors (common/gemm_tiles.cuh): A and B are halves, C
 * floats. */
static vec_flags vector_paths(const tc_gemm_problem *p)
{
    return vector_paths(p, sizeof(half), sizeof(float));
}

/* ================================================================================================
 * v2: shared-memory block tiles, one accumulator fragment per warp
 * ============================================================================================== */
constexpr int V2_BLOCK_M = 64, V2_BLOCK_N = 64, V2_BLOCK_K = 32;
constexpr int V2_WARPS_M = V2_BLOCK_M / WMMA_M, V2_WARPS_N = V2_BLOCK_N / WMMA_N; /* 4 x 4 */
constexpr int V2_THREADS = 32 * V2_WARPS_M * V2_WARPS_N;                          /* 512 */
static_assert(V2_BLOCK_K % WMMA_K == 0, "the k-tile is whole WMMA steps");

__global__ void __launch_bounds__(V2_THREADS)
    wmma_v2_smem(int M, int N, int K, const half *__restrict__ A, long lda,
                 const half *__restrict__ B, long ldb, float *__restrict__ C, long ldc, float alpha,
                 float beta, vec_flags vec)
{
    /* Unpadded: a row of the A tile is 64 bytes, of the B tile 128 bytes. 32-byte alignment is
     * what load_matrix_sync requires of every fragment pointer. */
    __shared__ __align__(32) half sA[V2_BLOCK_M * V2_BLOCK_K];
    __shared__ __align__(32) half sB[V2_BLOCK_K * V2_BLOCK_N];
    __shared__ __align__(32) float scratch[V2_WARPS_M * V2_WARPS_N][WMMA_M * WMMA_N];

    const int warp = threadIdx.x / 32;
    const int warp_m = warp / V2_WARPS_N, warp_n = warp % V2_WARPS_N;
    const int block_m = blockIdx.y * V2_BLOCK_M, block_n = blockIdx.x * V2_BLOCK_N;

    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> b;
    acc_fragment acc;
    wmma::fill_fragment(acc, 0.0f);

    for (int k0 = 0; k0 < K; k0 += V2_BLOCK_K) {
        load_tile_sync<half, V2_BLOCK_M, V2_BLOCK_K, V2_THREADS, V2_BLOCK_K>(sA, A, lda, block_m,
                                                                             k0, M, K, vec.a);
        load_tile_sync<half, V2_BLOCK_K, V2_BLOCK_N, V2_THREADS, V2_BLOCK_N>(sB, B, ldb, k0,
                                                                             block_n, K, N, vec.b);
        __syncthreads(); /* the tiles are complete */
#pragma unroll
        for (int kk = 0; kk < V2_BLOCK_K; kk += WMMA_K) {
            wmma::load_matrix_sync(a, sA + warp_m * WMMA_M * V2_BLOCK_K + kk, V2_BLOCK_K);
            wmma::load_matrix_sync(b, sB + kk * V2_BLOCK_N + warp_n * WMMA_N, V2_BLOCK_N);
            wmma::mma_sync(acc, a, b, acc);
        }
        __syncthreads(); /* every warp is done with the tiles before they are overwritten */
    }
    store_tile(acc, scratch[warp], C, ldc, block_m + warp_m * WMMA_M, block_n + warp_n * WMMA_N, M,
               N, alpha, beta, vec.c);
}

extern "C" void wmma_v2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    dim3 grid((p->N + V2_BLOCK_N - 1) / V2_BLOCK_N, (p->M + V2_BLOCK_M - 1) / V2_BLOCK_M);
    wmma_v2_smem<<<grid, V2_THREADS, 0, stream>>>(p->M, p->N, p->K, (const half *)p->d_a, p->lda,
                                                  (const half *)p->d_b, p->ldb, (float *)p->d_c,
                                                  p->ldc, p->alpha, p->beta, vector_paths(p));
}

/* ================================================================================================
 * v3..v5: register-blocked warp tiles in a padded block tile
 * ============================================================================================== */

/* One block-tile configuration. Each warp owns a WARP_M x WARP_N tile of C, held as
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

typedef wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> a_fragment;
typedef wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> b_fragment;

/* The warp's FRAG_M A fragments and FRAG_N B fragments of the 16-wide k-step at column kk of the
 * shared tiles (WMMA compiles each load to one ldmatrix.x4: NOTES.md has the SASS). */
template <class T>
__device__ __forceinline__ void load_fragments(a_fragment (&a)[T::FRAG_M],
                                               b_fragment (&b)[T::FRAG_N], const half *sA,
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
__device__ __forceinline__ void warp_tile_mma_step(acc_fragment (&acc)[T::FRAG_M][T::FRAG_N],
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
__device__ __forceinline__ void warp_tile_mma(acc_fragment (&acc)[T::FRAG_M][T::FRAG_N],
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

/* acc = 0, fragment by fragment */
template <class T>
__device__ __forceinline__ void zero_accumulators(acc_fragment (&acc)[T::FRAG_M][T::FRAG_N])
{
#pragma unroll
    for (int i = 0; i < T::FRAG_M; i++)
#pragma unroll
        for (int j = 0; j < T::FRAG_N; j++) wmma::fill_fragment(acc[i][j], 0.0f);
}

/* ---- v3: register blocking + padding, synchronous loads ------------------------------------- */
using V3 = tile_config<128, 128, 32, 2, 4, 1>;

template <class T>
__global__ void __launch_bounds__(T::THREADS)
    wmma_regblock(int M, int N, int K, const half *__restrict__ A, long lda,
                  const half *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                  float alpha, float beta, vec_flags vec)
{
    extern __shared__ __align__(128) unsigned char smem[];
    half *sA = (half *)smem, *sB = sA + T::A_STAGE;
    const int warp = threadIdx.x / 32;
    const int warp_m = warp / T::WARPS_N, warp_n = warp % T::WARPS_N;
    const int block_m = blockIdx.y * T::BLOCK_M, block_n = blockIdx.x * T::BLOCK_N;

    acc_fragment acc[T::FRAG_M][T::FRAG_N];
    zero_accumulators<T>(acc);

    for (int k0 = 0; k0 < K; k0 += T::BLOCK_K) {
        load_tile_sync<half, T::BLOCK_M, T::BLOCK_K, T::THREADS, T::A_ROW>(sA, A, lda, block_m, k0,
                                                                           M, K, vec.a);
        load_tile_sync<half, T::BLOCK_K, T::BLOCK_N, T::THREADS, T::B_ROW>(sB, B, ldb, k0, block_n,
                                                                           K, N, vec.b);
        __syncthreads();
        warp_tile_mma<T>(acc, sA, sB, warp_m, warp_n);
        __syncthreads();
    }
    warp_tile_store<T>(acc, smem, C, ldc, block_m + warp_m * T::WARP_M,
                       block_n + warp_n * T::WARP_N, M, N, alpha, beta, vec.c);
}

/* ---- v4, v5: the cp.async pipeline ----------------------------------------------------------- */
/* The (row, column) of C where this block's tile starts. */
template <class T, int GROUP_M>
__device__ __forceinline__ void block_tile_origin(int M, int N, int *block_m, int *block_n)
{
    int tm, tn;
    block_tile_coords<GROUP_M>((M + T::BLOCK_M - 1) / T::BLOCK_M, (N + T::BLOCK_N - 1) / T::BLOCK_N,
                               &tm, &tn);
    *block_m = tm * T::BLOCK_M, *block_n = tn * T::BLOCK_N;
}

/* Starts the copies of k-tile t of A and B into its stage of the ring: stage s holds k-tile t
 * when t % STAGES == s. */
template <class T>
__device__ __forceinline__ void
load_k_tile(half *sA, half *sB, const half *__restrict__ A, long lda, const half *__restrict__ B,
            long ldb, int block_m, int block_n, int M, int N, int K, vec_flags vec, int t)
{
    const int s = t % T::STAGES;
    load_tile_async<half, T::BLOCK_M, T::BLOCK_K, T::THREADS, T::A_ROW>(
        sA + s * T::A_STAGE, A, lda, block_m, t * T::BLOCK_K, M, K, vec.a);
    load_tile_async<half, T::BLOCK_K, T::BLOCK_N, T::THREADS, T::B_ROW>(
        sB + s * T::B_STAGE, B, ldb, t * T::BLOCK_K, block_n, K, N, vec.b);
}

template <class T, int GROUP_M>
__global__ void __launch_bounds__(T::THREADS)
    wmma_pipeline(int M, int N, int K, const half *__restrict__ A, long lda,
                  const half *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                  float alpha, float beta, vec_flags vec)
{
    static_assert(T::STAGES >= 2, "a pipeline needs at least two stages");
    extern __shared__ __align__(128) unsigned char smem[];
    half *sA = (half *)smem, *sB = sA + T::STAGES * T::A_STAGE;
    const int warp = threadIdx.x / 32;
    const int warp_m = warp / T::WARPS_N, warp_n = warp % T::WARPS_N;
    int block_m, block_n;
    block_tile_origin<T, GROUP_M>(M, N, &block_m, &block_n);
    const int k_tiles = (K + T::BLOCK_K - 1) / T::BLOCK_K;

    acc_fragment acc[T::FRAG_M][T::FRAG_N];
    zero_accumulators<T>(acc);

    auto load_stage = [&](int t) {
        load_k_tile<T>(sA, sB, A, lda, B, ldb, block_m, block_n, M, N, K, vec, t);
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
        __syncthreads();
        if (t + T::STAGES - 1 < k_tiles) load_stage(t + T::STAGES - 1);
        cp_async_commit_group();
        const int s = t % T::STAGES;
        warp_tile_mma<T>(acc, sA + s * T::A_STAGE, sB + s * T::B_STAGE, warp_m, warp_n);
    }
    cp_async_wait_group<0>();
    __syncthreads(); /* the operand buffers become the epilogue's scratch */
    warp_tile_store<T>(acc, smem, C, ldc, block_m + warp_m * T::WARP_M,
                       block_n + warp_n * T::WARP_N, M, N, alpha, beta, vec.c);
}

/* ---- v5: fragments double-buffered in registers -------------------------------------------------
 * In v4 every k-step loads its fragments and then multiplies them: the mmas wait for the
 * ldmatrix results (~30 cycles) at every step, and at every k-tile the warps first meet at the
 * barrier. Here each warp holds two sets of fragments: while the tensor cores multiply set `cur`,
 * the loads for the next k-step fill set `nxt`. The barrier that makes k-tile t+1 visible moves
 * into k-tile t, before its last k-step, so even the first loads of t+1 overlap the last mmas of
 * t. Two fragment sets cost registers (64 for a 64x64 warp tile), so the warp tile must be large
 * enough that its mmas outnumber the loads: 64x64 (4x4 fragments, 16 mmas per 8 loads). */
template <class T, int GROUP_M>
__global__ void __launch_bounds__(T::THREADS)
    wmma_pipeline_dbuf(int M, int N, int K, const half *__restrict__ A, long lda,
                       const half *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                       float alpha, float beta, vec_flags vec)
{
    static_assert(T::STAGES >= 3, "loading k-tile t+1 while t is read needs three stages");
    constexpr int KSTEPS = T::BLOCK_K / WMMA_K;
    static_assert(KSTEPS % 2 == 0, "fragment buffers alternate within and across k-tiles");
    extern __shared__ __align__(128) unsigned char smem[];
    half *sA = (half *)smem, *sB = sA + T::STAGES * T::A_STAGE;
    const int warp = threadIdx.x / 32;
    const int warp_m = warp / T::WARPS_N, warp_n = warp % T::WARPS_N;
    int block_m, block_n;
    block_tile_origin<T, GROUP_M>(M, N, &block_m, &block_n);
    const int k_tiles = (K + T::BLOCK_K - 1) / T::BLOCK_K;

    acc_fragment acc[T::FRAG_M][T::FRAG_N];
    zero_accumulators<T>(acc);
    a_fragment a[2][T::FRAG_M]; /* two sets: one being multiplied, one being loaded */
    b_fragment b[2][T::FRAG_N];

    auto load_stage = [&](int t) {
        load_k_tile<T>(sA, sB, A, lda, B, ldb, block_m, block_n, M, N, K, vec, t);
    };
#pragma unroll
    for (int t = 0; t < T::STAGES - 1; t++) {
        if (t < k_tiles) load_stage(t);
        cp_async_commit_group();
    }
    cp_async_wait_group<T::STAGES - 2>();
    __syncthreads();
    load_fragments<T>(a[0], b[0], sA, sB, warp_m, warp_n, 0);

    for (int t = 0; t < k_tiles; t++) {
        const int s = t % T::STAGES;
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ks++) {
            const int cur = ks % 2, nxt = 1 - cur;
            if (ks == KSTEPS - 1) {
                /* groups committed: STAGES-1 + t; k-tile t+1 is group t+1 */
                cp_async_wait_group<T::STAGES - 3>();
                __syncthreads();
                if (t + T::STAGES - 1 < k_tiles) load_stage(t + T::STAGES - 1);
                cp_async_commit_group();
                if (t + 1 < k_tiles) {
                    const int s1 = (t + 1) % T::STAGES;
                    load_fragments<T>(a[nxt], b[nxt], sA + s1 * T::A_STAGE, sB + s1 * T::B_STAGE,
                                      warp_m, warp_n, 0);
                }
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

using V4 = tile_config<128, 128, 32, 2, 4, 4>;
using V5 = tile_config<128, 256, 32, 2, 4, 5>;
constexpr int V5_GROUP_M = 8;

extern "C" const char *wmma_v3_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return allow_smem((const void *)wmma_regblock<V3>, V3::SMEM_BYTES);
}

extern "C" void wmma_v3_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    dim3 grid((p->N + V3::BLOCK_N - 1) / V3::BLOCK_N, (p->M + V3::BLOCK_M - 1) / V3::BLOCK_M);
    wmma_regblock<V3><<<grid, V3::THREADS, V3::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, (const half *)p->d_a, p->lda, (const half *)p->d_b, p->ldb,
        (float *)p->d_c, p->ldc, p->alpha, p->beta, vector_paths(p));
}

/* v4 and v5 run on a 1-D grid, one block per tile of C (block_tile_coords maps them). */
template <class T> static unsigned tile_count(const tc_gemm_problem *p)
{
    return tile_count(p, T::BLOCK_M, T::BLOCK_N);
}

extern "C" const char *wmma_v4_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return allow_smem((const void *)wmma_pipeline<V4, 1>, V4::SMEM_BYTES);
}

extern "C" void wmma_v4_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    wmma_pipeline<V4, 1><<<tile_count<V4>(p), V4::THREADS, V4::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, (const half *)p->d_a, p->lda, (const half *)p->d_b, p->ldb,
        (float *)p->d_c, p->ldc, p->alpha, p->beta, vector_paths(p));
}

/* v5 wants 132.5 KiB of shared memory per block (5 stages). GPUs that allow only 99 KiB per
 * block (sm_86, sm_89, sm_120) get the same kernel with 3 stages (79.5 KiB), the fewest its ring
 * indexing accepts (the static_assert in wmma_pipeline_dbuf; more stages are a speed choice).
 * prepare() picks once and leaves the choice in p->plan. */
using V5_SMALL = tile_config<128, 256, 32, 2, 4, 3>;
static const int v5_small_plan = 3;

extern "C" const char *wmma_v5_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    int dev = 0, optin = 0;
    TC_CUDA_CHECK(cudaGetDevice(&dev));
    TC_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (V5::SMEM_BYTES <= (size_t)optin) {
        p->plan = NULL;
        return allow_smem((const void *)wmma_pipeline_dbuf<V5, V5_GROUP_M>, V5::SMEM_BYTES);
    }
    p->plan = (void *)&v5_small_plan;
    return allow_smem((const void *)wmma_pipeline_dbuf<V5_SMALL, V5_GROUP_M>, V5_SMALL::SMEM_BYTES);
}

template <class T> static void launch_v5(const tc_gemm_problem *p, cudaStream_t stream)
{
    wmma_pipeline_dbuf<T, V5_GROUP_M><<<tile_count<T>(p), T::THREADS, T::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, (const half *)p->d_a, p->lda, (const half *)p->d_b, p->ldb,
        (float *)p->d_c, p->ldc, p->alpha, p->beta, vector_paths(p));
}

extern "C" void wmma_v5_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                               cudaStream_t stream)
{
    if (p->plan == &v5_small_plan)
        launch_v5<V5_SMALL>(p, stream);
    else
        launch_v5<V5>(p, stream);
}
