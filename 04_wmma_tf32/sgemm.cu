/* 04_wmma_tf32/sgemm.cu - v0: FP32 GEMM on the CUDA cores, the "before" of this chapter.
 *
 * What it teaches
 *   Before the tensor cores, a fast SGEMM was the art of keeping the FP32 FMA units busy: every
 *   operand a thread needs must already sit in a register when the FMA issues, because an FMA
 *   can use only registers. This kernel is the classic answer (register blocking on the CUDA
 *   cores). Its speed, next to cuBLAS's FP32 path, is what the tensor cores of wmma_tf32.cu
 *   must beat (the chapter's README quotes the measured ratios; NOTES.md keeps their history).
 *
 * Problem and layout
 *   C = alpha * A * B + beta * C, A M x K row-major (lda), B K x N row-major (ldb), C M x N
 *   row-major (ldc), all f32, products accumulated with fmaf (round to nearest, one rounding per
 *   product-add). beta == 0 never reads C. Any M, N, K: tiles are zero-filled outside the
 *   matrices and the epilogue stores only elements inside C. When the rows of A and B are
 *   16-byte aligned (pointer 16-byte aligned, leading dimension and row length multiples of 4)
 *   tiles move as float4; otherwise element by element (correct, slower).
 *
 * Minimum: sm_80 (the chapter's minimum; the kernel itself would run on any CUDA GPU).
 *   CUDA 12.x or 13.x.
 *
 * Build and run
 *   make                                                  # build/bin/04_wmma_tf32
 *   build/bin/04_wmma_tf32 --variant v0_sgemm --size 8192x8192x8192
 *   build/bin/04_wmma_tf32 --test --variant v0_sgemm      # odd sizes, alpha/beta
 *
 * The kernel
 *   v0_sgemm     A block of 256 threads computes a 128x128 tile of C; each thread owns an 8x8
 *                micro-tile of it, 64 accumulators in registers. For every k, a thread reads 8
 *                values of A and 8 of B from shared memory (four float4 loads) and performs 64
 *                FMAs with them: 16 FMAs per load instruction instead of the naive kernel's
 *                one. The 8x8 micro-tile is four 4x4 pieces 64 rows and 64 columns apart, and
 *                the 8 warps are laid out 4 x 2 with each warp 4 thread-rows by 8 thread-columns:
 *                then a warp's float4 loads of one k touch only 4 distinct A vectors and 8
 *                distinct B vectors (64 and 128 bytes), one shared-memory wavefront each
 *                when the hardware merges the lanes that read the same vector.
 *                The A tile is stored transposed (k-major, sA[k][m]) so that the 4 consecutive
 *                rows of A a thread needs are one float4; its rows are padded by 4 floats so
 *                that the transposing stores do not collide in one bank. The k-tile is 8 deep
 *                and double-buffered: the global loads of k-tile t+1 go to registers before
 *                the FMAs of tile t and to the other shared buffer after them, so one barrier
 *                per k-tile suffices and the load latency hides behind 512 FMAs per thread.
 *                Blocks walk C in groups of 8 block-rows, so that the blocks resident at one
 *                time share their tiles of A and B in L2.
 */
#include "sgemm.h"

#include "tiles.cuh"

// clang-format off
constexpr int SG_BLOCK_M  = 128, SG_BLOCK_N  = 128, SG_BLOCK_K = 8;
constexpr int SG_THREADS  = 256;
constexpr int SG_THREAD_M = 8,   SG_THREAD_N = 8;   /* a thread's micro-tile of C */
constexpr int SG_PIECE    = 4;                      /* ... as 2 x 2 pieces of 4 x 4 */
constexpr int SG_HALF_M   = SG_BLOCK_M / 2, SG_HALF_N = SG_BLOCK_N / 2; /* pieces this far apart */
constexpr int SG_LANES_M  = 4,   SG_LANES_N  = 8;   /* a warp's threads: 4 thread-rows x 8 */
constexpr int SG_WARPS_N  = SG_HALF_N / SG_PIECE / SG_LANES_N;         /* 2 */
constexpr int SG_A_LD     = SG_BLOCK_M + 4;         /* sA[k][m], padded */
constexpr int SG_GROUP_M  = 8;
// clang-format on

static_assert(SG_THREAD_M == 2 * SG_PIECE && SG_THREAD_N == 2 * SG_PIECE, "2 x 2 pieces");
static_assert((SG_HALF_M / SG_PIECE) * (SG_HALF_N / SG_PIECE) == SG_THREADS,
              "a 16 x 16 grid of threads covers each 64 x 64 quarter of the block tile");
static_assert(SG_LANES_M * SG_LANES_N == 32 && (SG_HALF_M / SG_PIECE) % SG_LANES_M == 0 &&
                  (SG_HALF_N / SG_PIECE) % SG_LANES_N == 0,
              "warps tile the thread grid");
static_assert(SG_BLOCK_M * SG_BLOCK_K == VEC4 * SG_THREADS, "one float4 of A per thread");
static_assert(SG_BLOCK_K * SG_BLOCK_N == VEC4 * SG_THREADS, "one float4 of B per thread");
static_assert(SG_BLOCK_K % VEC4 == 0 && SG_A_LD % VEC4 == 0, "float4 rows in shared memory");
/* The transposing stores: thread t writes sA[(t%2)*4 + j][t/2]; for one j, a warp's 32 stores
 * hit banks (t%2 * 4 * SG_A_LD + t/2) % 32, all different when 4 * SG_A_LD % 32 == 16. */
static_assert(4 * SG_A_LD % 32 == 16, "conflict-free transposing stores");

/* Four consecutive floats of a row, zeros outside the matrix (the path for unaligned rows). */
static __device__ __forceinline__ float4 load4_guarded(const float *__restrict__ g, long ld, int r,
                                                       int c, int rows, int cols)
{
    float x[4];
#pragma unroll
    for (int e = 0; e < 4; e++) x[e] = r < rows && c + e < cols ? g[(size_t)r * ld + c + e] : 0.0f;
    return make_float4(x[0], x[1], x[2], x[3]);
}

template <bool VEC>
__global__ void __launch_bounds__(SG_THREADS, 2)
    sgemm_v0(int M, int N, int K, const float *__restrict__ A, long lda,
             const float *__restrict__ B, long ldb, float *__restrict__ C, long ldc, float alpha,
             float beta, bool vec_c)
{
    __shared__ __align__(16) float sA[2][SG_BLOCK_K][SG_A_LD];
    __shared__ __align__(16) float sB[2][SG_BLOCK_K][SG_BLOCK_N];

    int tm, tn;
    block_tile_coords<SG_GROUP_M>((M + SG_BLOCK_M - 1) / SG_BLOCK_M,
                                  (N + SG_BLOCK_N - 1) / SG_BLOCK_N, &tm, &tn);
    const int block_m = tm * SG_BLOCK_M, block_n = tn * SG_BLOCK_N;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    /* the thread's place in the 16 x 16 thread grid */
    const int ty = warp / SG_WARPS_N * SG_LANES_M + lane / SG_LANES_N;
    const int tx = warp % SG_WARPS_N * SG_LANES_N + lane % SG_LANES_N;

    /* what this thread copies per k-tile: 4 k-consecutive floats of one row of A, 4
     * n-consecutive floats of one row of B */
    const int a_row = threadIdx.x / (SG_BLOCK_K / VEC4),
              a_k = threadIdx.x % (SG_BLOCK_K / VEC4) * VEC4;
    const int b_k = threadIdx.x / (SG_BLOCK_N / VEC4),
              b_col = threadIdx.x % (SG_BLOCK_N / VEC4) * VEC4;
    const int ga_row = block_m + a_row, gb_col = block_n + b_col;
    float4 ra, rb;
    auto load_global = [&](int k0) {
        const int ga_k = k0 + a_k, gb_k = k0 + b_k;
        if (VEC) { /* K, N multiples of 4: a vector is wholly inside or outside */
            const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            ra = ga_row < M && ga_k < K ? *(const float4 *)(A + (size_t)ga_row * lda + ga_k) : zero;
            rb = gb_k < K && gb_col < N ? *(const float4 *)(B + (size_t)gb_k * ldb + gb_col) : zero;
        } else {
            ra = load4_guarded(A, lda, ga_row, ga_k, M, K);
            rb = load4_guarded(B, ldb, gb_k, gb_col, K, N);
        }
    };
    auto store_shared = [&](int buf) {
        sA[buf][a_k + 0][a_row] = ra.x; /* transposed: sA[k][m] */
        sA[buf][a_k + 1][a_row] = ra.y;
        sA[buf][a_k + 2][a_row] = ra.z;
        sA[buf][a_k + 3][a_row] = ra.w;
        *(float4 *)&sB[buf][b_k][b_col] = rb;
    };

    float acc[SG_THREAD_M][SG_THREAD_N];
#pragma unroll
    for (int i = 0; i < SG_THREAD_M; i++)
#pragma unroll
        for (int j = 0; j < SG_THREAD_N; j++) acc[i][j] = 0.0f;

    const int k_tiles = (K + SG_BLOCK_K - 1) / SG_BLOCK_K;
    load_global(0);
    store_shared(0);
    __syncthreads();
    for (int t = 0; t < k_tiles; t++) {
        const int buf = t % 2;
        if (t + 1 < k_tiles) load_global((t + 1) * SG_BLOCK_K); /* in flight during the FMAs */
#pragma unroll
        for (int k = 0; k < SG_BLOCK_K; k++) {
            const float4 a0 = *(const float4 *)&sA[buf][k][ty * SG_PIECE];
            const float4 a1 = *(const float4 *)&sA[buf][k][SG_HALF_M + ty * SG_PIECE];
            const float4 b0 = *(const float4 *)&sB[buf][k][tx * SG_PIECE];
            const float4 b1 = *(const float4 *)&sB[buf][k][SG_HALF_N + tx * SG_PIECE];
            const float a[SG_THREAD_M] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float b[SG_THREAD_N] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < SG_THREAD_M; i++)
#pragma unroll
                for (int j = 0; j < SG_THREAD_N; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        /* the other buffer was last read in iteration t-1, before the barrier that ended it */
        if (t + 1 < k_tiles) store_shared(buf ^ 1);
        __syncthreads();
    }

    /* C = alpha*acc + beta*C: each row piece is 4 consecutive floats (a float4 when C's rows
     * allow); the 8 lanes of a warp's row write 128 contiguous bytes. */
#pragma unroll
    for (int i = 0; i < SG_THREAD_M; i++) {
        const int gr = block_m + (i < SG_PIECE ? 0 : SG_HALF_M) + ty * SG_PIECE + i % SG_PIECE;
        if (gr >= M) continue;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int gc = block_n + h * SG_HALF_N + tx * SG_PIECE;
            const float *v = &acc[i][h * SG_PIECE];
            float *dst = C + (size_t)gr * ldc + gc;
            if (vec_c && gc + SG_PIECE <= N) {
                float4 x = make_float4(alpha * v[0], alpha * v[1], alpha * v[2], alpha * v[3]);
                if (beta != 0.0f) {
                    const float4 y = *(const float4 *)dst;
                    x.x += beta * y.x, x.y += beta * y.y, x.z += beta * y.z, x.w += beta * y.w;
                }
                *(float4 *)dst = x;
            } else {
                for (int e = 0; e < SG_PIECE && gc + e < N; e++)
                    dst[e] = alpha * v[e] + (beta != 0.0f ? beta * dst[e] : 0.0f);
            }
        }
    }
}

extern "C" void sgemm_v0_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                cudaStream_t stream)
{
    const vec_flags vec = vector_paths(p);
    const unsigned blocks = tile_count(p, SG_BLOCK_M, SG_BLOCK_N);
    if (vec.a && vec.b)
        sgemm_v0<true><<<blocks, SG_THREADS, 0, stream>>>(
            p->M, p->N, p->K, (const float *)p->d_a, p->lda, (const float *)p->d_b, p->ldb,
            (float *)p->d_c, p->ldc, p->alpha, p->beta, vec.c);
    else
        sgemm_v0<false><<<blocks, SG_THREADS, 0, stream>>>(
            p->M, p->N, p->K, (const float *)p->d_a, p->lda, (const float *)p->d_b, p->ldb,
            (float *)p->d_c, p->ldc, p->alpha, p->beta, vec.c);
}
