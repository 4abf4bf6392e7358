/* tf32_v5_3xtf32 - 3xTF32 on v3's pipeline: every f32 input split into two TF32 values, three
 * tensor-core products per product, each k-tile's partial sum added in f32 on the CUDA cores.
 *
 * Rung v5 of chapter 04's WMMA ladder: f32 in memory, f32 accuracy (precision row 3xtf32,
 * checked against the f32 data), the chapter's FP32 GEMM on tensor cores.
 * Parent: v3_pipeline (v3_pipeline.cuh); the same ring and tiles, with the math of one k-tile
 * replaced. What changes:
 *   - the split (tf32_v5_split). Each f32 input x becomes big = tf32(x) and small = tf32(x - big)
 *     (x - big is exact in f32), so x = big + small + r with |small| <= 2^-11 |x| and
 *     |r| <= 2^-23 |x|: together they hold 23 of x's 24 significant bits. Then
 *         a*b ~ big_a*big_b + big_a*small_b + small_a*big_b        (3 tensor-core mmas)
 *     small_a*small_b can go: it is at most 2^-22 |a b|, the size of the error f32 itself makes
 *     when it adds that product to a running sum. With r, every product is within 2^-21 |a b| of
 *     the exact one (tests/test_convert.c checks the bound), and these errors add up like a
 *     random walk: f32-level accuracy. The split rounds the f32 values itself, so v3's rounding
 *     pass in shared memory (round_stage) goes.
 *   - the flush (tf32_v5_warp_tile_mma). The accumulator fragments are f32, never narrower: the
 *     small terms live 11 bits below the big one and only f32's 24 bits hold both. And the long
 *     sum over K must round to nearest: the tensor core truncates (rounds toward zero) the f32 sum
 *     at every HMMA instruction, which on sm_80 and sm_90 is HMMA.1684 (k = 4: four per
 *     mma_sync), and over the 3K/4 such steps of a K-long product that bias would cost more than
 *     the split gains. So the tensor cores sum one k-tile (16 products, small terms first: 6
 *     mma_syncs per fragment) into a fresh accumulator, and the CUDA cores add that partial sum
 *     to the running f32 sum with round-to-nearest adds.
 * The price: three times v3's mmas, a second set of accumulators (64 more registers for a 64x32
 * warp tile), one block per SM, 5 stages to keep the loads ahead, blocks in groups of 8
 * block-rows. The aim is to beat FP32 on the CUDA cores at FP32's accuracy; the accuracy is there
 * (below the SGEMM's error), the speed is not yet (the README's table, NOTES.md's history).
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N row-major (ldb), C M x N row-major (ldc), all f32. Any M, N, K >= 1, any leading
 * dimension and alignment: chunks outside the matrix are zero-filled (cp.async with 0 source
 * bytes; a zero splits into two zeros), the epilogue stores only elements inside C, and rows
 * that are not 16-byte aligned are copied element by element.
 *
 * Tiles: v3's (128 x 128 per block, k-tiles of 16, 8 warps (2 x 4) of 64 x 32), 5 stages: 92.5 KiB
 * of dynamic shared memory, within the 99 KiB of sm_86 and sm_89 (a static_assert).
 *
 * The plain launcher (no harness types; this folder's wmma_tf32_tiles.cuh and common/ headers
 * only):
 *   tf32_v5_3xtf32_gemm(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or tf32_v5_3xtf32_prepare(&plan, ...) once (the shared-memory opt-in, the vector paths, the
 * grid) and tf32_v5_3xtf32_run(&plan, alpha, beta, stream) per product. Both return cudaSuccess,
 * cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a GPU it cannot run on
 * (tf32_v5_3xtf32_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_80 (TF32 WMMA, cp.async), CUDA 12.x or 13.x. */
#ifndef TF32_V5_3XTF32_CUH
#define TF32_V5_3XTF32_CUH

#include "wmma_tf32_tiles.cuh"

/*      tile_config<BLOCK_M, BLOCK_N, BLOCK_K, WARPS_M, WARPS_N, STAGES, MIN_BLOCKS> */
typedef tile_config<128, 128, 16, 2, 4, 5, 1> tf32_v5_config; /* 92.5 KiB */
static_assert(tf32_v5_config::SMEM_BYTES <= 99 * 1024,
              "the block fits the smallest shared memory of an sm_80+ GPU");
constexpr int TF32_V5_GROUP_M = 8; /* blocks in groups of 8 block-rows */

/* The 3xTF32 split, in place: big holds x on entry and tf32(x) on return, small gets
 * tf32(x - big). x - big is exact in f32 (the two are within a factor of 2 of each other). */
template <class Frag> static __device__ __forceinline__ void tf32_v5_split(Frag &big, Frag &small)
{
#pragma unroll
    for (int i = 0; i < big.num_elements; i++) {
        const float x = big.x[i];
        const float hi = wmma::__float_to_tf32(x);
        big.x[i] = hi;
        small.x[i] = wmma::__float_to_tf32(x - hi);
    }
}

/* The math of one k-tile in 3xTF32. The tensor cores sum the k-tile's products into a fresh
 * accumulator `part` (their f32 sum is truncated at every mma, but only over one k-tile); then
 * the CUDA cores add part to the running sum acc with round-to-nearest f32 adds. Within a
 * k-step, the three mmas of every fragment are issued term by term, so consecutive mmas are
 * independent; the small terms go first. */
template <class T>
static __device__ __forceinline__ void
tf32_v5_warp_tile_mma(acc_fragment (&acc)[T::FRAG_M][T::FRAG_N], const float *sA, const float *sB,
                      int warp_m, int warp_n)
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
        load_fragments<T>(a_big, b_big, sA, sB, warp_m, warp_n, kk); /* the f32 values */
#pragma unroll
        for (int i = 0; i < T::FRAG_M; i++) tf32_v5_split(a_big[i], a_small[i]);
#pragma unroll
        for (int j = 0; j < T::FRAG_N; j++) tf32_v5_split(b_big[j], b_small[j]);
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

static __global__ void __launch_bounds__(tf32_v5_config::THREADS, tf32_v5_config::MIN_BLOCKS)
    tf32_v5_3xtf32_kernel(int M, int N, int K, const float *__restrict__ A, long lda,
                          const float *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                          float alpha, float beta, vec_flags vec)
{
    typedef tf32_v5_config Cfg;
    static_assert(Cfg::STAGES >= 2, "a pipeline needs at least two stages");
    extern __shared__ __align__(128) unsigned char smem[];
    float *sA = (float *)smem, *sB = sA + Cfg::STAGES * Cfg::A_STAGE;
    const int warp = threadIdx.x / 32;
    const int warp_m = warp / Cfg::WARPS_N, warp_n = warp % Cfg::WARPS_N;
    int tm, tn;
    block_tile_coords<TF32_V5_GROUP_M>((M + Cfg::BLOCK_M - 1) / Cfg::BLOCK_M,
                                       (N + Cfg::BLOCK_N - 1) / Cfg::BLOCK_N, &tm, &tn);
    const int block_m = tm * Cfg::BLOCK_M, block_n = tn * Cfg::BLOCK_N;
    const int k_tiles = (K + Cfg::BLOCK_K - 1) / Cfg::BLOCK_K;

    acc_fragment acc[Cfg::FRAG_M][Cfg::FRAG_N];
    zero_accumulators<Cfg>(acc);

    /* Starts the copies of k-tile t of A and B into its stage of the ring: stage s holds k-tile t
     * when t % STAGES == s. */
    auto load_stage = [&](int t) {
        const int s = t % Cfg::STAGES;
        load_tile_async<float, Cfg::BLOCK_M, Cfg::BLOCK_K, Cfg::THREADS, Cfg::A_ROW>(
            sA + s * Cfg::A_STAGE, A, lda, block_m, t * Cfg::BLOCK_K, M, K, vec.a);
        load_tile_async<float, Cfg::BLOCK_K, Cfg::BLOCK_N, Cfg::THREADS, Cfg::B_ROW>(
            sB + s * Cfg::B_STAGE, B, ldb, t * Cfg::BLOCK_K, block_n, K, N, vec.b);
    };
    /* Prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each (empty groups past the
     * end keep the count that wait_group relies on). */
#pragma unroll
    for (int t = 0; t < Cfg::STAGES - 1; t++) {
        if (t < k_tiles) load_stage(t);
        cp_async_commit_group();
    }
    for (int t = 0; t < k_tiles; t++) {
        /* k-tile t has landed once at most STAGES-2 younger groups are pending; the barrier
         * makes every thread's copies visible, and tells everyone that all warps are done with
         * k-tile t-1, whose stage is refilled next. No rounding pass: the split rounds. */
        cp_async_wait_group<Cfg::STAGES - 2>();
        __syncthreads();
        if (t + Cfg::STAGES - 1 < k_tiles) load_stage(t + Cfg::STAGES - 1);
        cp_async_commit_group();
        const int s = t % Cfg::STAGES;
        tf32_v5_warp_tile_mma<Cfg>(acc, sA + s * Cfg::A_STAGE, sB + s * Cfg::B_STAGE, warp_m,
                                   warp_n);
    }
    cp_async_wait_group<0>();
    __syncthreads(); /* the operand buffers become the epilogue's scratch */
    warp_tile_store<Cfg>(acc, smem, C, ldc, block_m + warp_m * Cfg::WARP_M,
                         block_n + warp_n * Cfg::WARP_N, M, N, alpha, beta, vec.c);
}

/* ---- the host side --------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
    const float *A, *B;
    long lda, ldb;
    float *C;
    long ldc;
    vec_flags vec; /* which operands may move in 16-byte vectors */
    unsigned grid; /* one block per tile of C */
} tf32_v5_3xtf32_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
static inline const char *tf32_v5_3xtf32_unsupported(int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (!smem_fits(tf32_v5_config::SMEM_BYTES))
        return "the block tile needs more shared memory than this GPU has";
    return NULL;
}

static inline cudaError_t tf32_v5_3xtf32_prepare(tf32_v5_3xtf32_plan *plan, int M, int N, int K,
                                                 const float *A, long lda, const float *B, long ldb,
                                                 float *C, long ldc)
{
    typedef tf32_v5_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    const cudaError_t e = smem_optin((const void *)tf32_v5_3xtf32_kernel, Cfg::SMEM_BYTES);
    if (e != cudaSuccess) return e;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->vec = f32_vec_flags(N, K, A, lda, B, ldb, C, ldc);
    plan->grid = tile_count(M, N, Cfg::BLOCK_M, Cfg::BLOCK_N);
    return cudaSuccess;
}

static inline cudaError_t tf32_v5_3xtf32_run(const tf32_v5_3xtf32_plan *p, float alpha, float beta,
                                             cudaStream_t stream)
{
    typedef tf32_v5_config Cfg;
    tf32_v5_3xtf32_kernel<<<p->grid, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    return cudaGetLastError();
}

static inline cudaError_t tf32_v5_3xtf32_gemm(int M, int N, int K, const float *A, long lda,
                                              const float *B, long ldb, float *C, long ldc,
                                              float alpha, float beta, cudaStream_t stream)
{
    tf32_v5_3xtf32_plan plan;
    const cudaError_t e = tf32_v5_3xtf32_prepare(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? tf32_v5_3xtf32_run(&plan, alpha, beta, stream) : e;
}

#endif /* TF32_V5_3XTF32_CUH */
