/* mma_v6_epilogue - v5 with C stored through shared memory: each lane stores 16 contiguous bytes.
 *
 * Rung v6 of chapter 05's mma.sync ladder (f16 and bf16), and chapter 04's v6_mma_tf32 (float
 * in: the tensor cores read tf32 from f32 bits, mma.m16n8k8). It lives in common/ because both
 * chapters run it. Parent: v5_dbuf (05_mma_ptx/mma/v5_dbuf.cuh). What changes: the epilogue
 * (mma_v6_smem_epilogue). v1..v5 store C straight from the accumulators, two float2 per lane per
 * 16x8 tile, four lanes covering one 32-byte sector. Here, for each 16-row strip of its warp
 * tile, a warp writes the strip's accumulators into its own scratch tile in shared memory
 * (conflict-free float2 stores: rows padded to WARP_N + 8 floats), reads it back by rows, and
 * every lane stores 16 contiguous bytes of C: half the store instructions. The scratch reuses the
 * ring's operand buffers after a barrier. What it costs: that barrier, two __syncwarp per strip
 * and registers; at 8192^3 the epilogue writes 256 MiB against 2 * 8192^3 flops, so the gain can
 * only be small (chapter 05's NOTES.md has the figures).
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N column-major (ldb), C M x N row-major f32 (ldc); T = __half, __nv_bfloat16 or float
 * (read as tf32: the 13 low bits ignored). Any M, N, K >= 1 (for float K below 2^30), any leading
 * dimension and alignment: chunks outside the matrix are zero-filled (cp.async with 0 source
 * bytes), stores are guarded; rows move as 16-byte vectors when they are 16-byte aligned (pointer
 * aligned, ld and K multiples of 8 halves or 4 floats), value by value otherwise (correct, slow);
 * C as float4 when its pointer and ldc allow. The kernel sees A and B as 16-bit words, so for
 * float only the mma instruction (mma_f32<float>) and the host's conversion into words change
 * (common/mma_parts.cuh explains why the fragments are the same bytes).
 *
 * Tiles: 128 x 256 per block, k-tiles of BK = 32 words (32 halves or 16 floats; swizzled, 64-byte
 * rows), 4 stages of 24 KiB (96 KiB of dynamic shared memory: one block per SM), 8 warps of
 * 64 x 64, fragments double-buffered, blocks in bands of 8 block-rows.
 *
 * The plain launcher (no harness types; common/ headers only):
 *   mma_v6_epilogue_gemm<T>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or mma_v6_epilogue_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc) once (the shared-memory
 * opt-in, the vector paths, the grid) and mma_v6_epilogue_run<T>(&plan, alpha, beta, stream) per
 * product. Both return cudaSuccess, cudaErrorInvalidValue for sizes below 1,
 * cudaErrorNotSupported for a problem it cannot take or a GPU with less shared memory per block
 * than the ring (mma_v6_epilogue_unsupported says why; nothing is launched), or the failed
 * call's error.
 *
 * Requires sm_80 (cp.async, bf16 and tf32 mma), CUDA 12.x or 13.x. */
#ifndef MMA_V6_EPILOGUE_CUH
#define MMA_V6_EPILOGUE_CUH

#include "mma_parts.cuh"

#include <limits.h>

/*                      BM   BN  BK  WARPS_M WARPS_N STAGES SWIZZLE */
typedef gemm_config<128, 256, 32, 2, 4, 4, true> mma_v6_config;
constexpr int MMA_V6_GROUP_M = 8; /* blocks in bands of 8 block-rows (L2 reuse) */

/* ---- the epilogue through shared memory ------------------------------------------------------ */
/* Four neighbouring elements (r, c .. c+3) of C; c is a multiple of 4. */
static __device__ __forceinline__ void mma_v6_store_quad(float *__restrict__ C, long ldc, int r,
                                                         int c, int M, int N, float4 v, float alpha,
                                                         float beta, bool vec4)
{
    if (r >= M || c >= N) return;
    float *p = C + (size_t)r * ldc + c;
    v.x *= alpha, v.y *= alpha, v.z *= alpha, v.w *= alpha;
    if (vec4 && c + 3 < N) {
        if (beta != 0.0f) {
            const float4 old = *(const float4 *)p;
            v.x += beta * old.x, v.y += beta * old.y, v.z += beta * old.z, v.w += beta * old.w;
        }
        *(float4 *)p = v;
    } else {
        const float e[4] = {v.x, v.y, v.z, v.w};
        for (int k = 0; k < 4 && c + k < N; k++) p[k] = beta != 0.0f ? e[k] + beta * p[k] : e[k];
    }
}

/* For each 16-row strip of its warp tile, a warp writes the strip's accumulators (16 x WARP_N
 * f32) into its own scratch tile, then reads it back by rows: lane l takes 16 contiguous bytes,
 * WARP_N / 4 lanes cover a row. The scratch rows are padded to WARP_N + 8 floats: a float2 store
 * is served per half-warp (16 lanes, 128 bytes); with a row stride of 72 words the rows g = 0..3
 * start at banks 0, 8, 16, 24 and the 4 lanes of a row fill the 8 banks after it, so each
 * half-warp covers all 32 banks once. The float4 reads (8 lanes per phase, one 128-byte piece of
 * a row) are conflict-free at any stride that keeps rows 16-byte aligned. The scratch reuses the
 * ring's operand buffers (after a barrier). */
template <class Cfg> struct mma_v6_scratch {
    static constexpr int ROW = Cfg::WARP_N + 8; /* floats */
    static constexpr int WARP_BYTES = MMA_M * ROW * 4;
    static constexpr int LANES_PER_ROW = Cfg::WARP_N / 4, ROWS_PER_PASS = 32 / LANES_PER_ROW;
    static_assert(Cfg::WARP_N % 4 == 0 && 32 % LANES_PER_ROW == 0, "whole rows per pass");
    static_assert(MMA_M % ROWS_PER_PASS == 0, "whole passes per strip");
    static_assert((size_t)WARP_BYTES * (Cfg::THREADS / 32) <= Cfg::SMEM_BYTES,
                  "every warp's scratch fits in the pipeline's shared memory");
};

/* C = alpha * acc + beta * C through the scratch; row0, col0: the warp tile's origin in C */
template <class Cfg>
__device__ __forceinline__ void mma_v6_smem_epilogue(const float (&acc)[Cfg::MT][Cfg::NT][4],
                                                     unsigned char *smem, float *__restrict__ C,
                                                     long ldc, int row0, int col0, int M, int N,
                                                     float alpha, float beta, bool vec4)
{
    typedef mma_v6_scratch<Cfg> S;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    float *s = (float *)(smem + warp * S::WARP_BYTES);
#pragma unroll
    for (int i = 0; i < Cfg::MT; i++) {
#pragma unroll
        for (int j = 0; j < Cfg::NT; j++) {
            *(float2 *)(s + g * S::ROW + j * MMA_N + 2 * t) =
                make_float2(acc[i][j][0], acc[i][j][1]);
            *(float2 *)(s + (g + 8) * S::ROW + j * MMA_N + 2 * t) =
                make_float2(acc[i][j][2], acc[i][j][3]);
        }
        __syncwarp();
#pragma unroll
        for (int p = 0; p < MMA_M / S::ROWS_PER_PASS; p++) {
            const int r = p * S::ROWS_PER_PASS + lane / S::LANES_PER_ROW;
            const int c = 4 * (lane % S::LANES_PER_ROW);
            mma_v6_store_quad(C, ldc, row0 + i * MMA_M + r, col0 + c, M, N,
                              *(const float4 *)(s + r * S::ROW + c), alpha, beta, vec4);
        }
        __syncwarp(); /* the scratch is rewritten for the next strip */
    }
}

/* ---- the kernel --------------------------------------------------------------------------------- */
/* The ring, and two fragment sets: while the mmas of k-step s use set `cur`, the ldmatrix of step
 * s+1 fill set `nxt`. K, lda, ldb in 16-bit words. */
template <class T>
__global__ void __launch_bounds__(mma_v6_config::THREADS, 1)
    mma_v6_epilogue_kernel(int M, int N, int K, const uint16_t *__restrict__ A, long lda,
                           const uint16_t *__restrict__ B, long ldb, float *__restrict__ C,
                           long ldc, float alpha, float beta, mma_vec_flags vec)
{
    typedef mma_v6_config Cfg;
    static_assert(Cfg::STAGES >= 3, "loading k-tile t+1 while t is multiplied needs 3 stages");
    static_assert(Cfg::KSTEPS % 2 == 0, "fragment sets alternate within and across k-tiles");
    static_assert(mma_f32<T>::K * sizeof(T) == 2 * KSTEP_WORDS, "one mma per 32-byte k-step");
    extern __shared__ __align__(128) unsigned char smem[];
    const uint32_t smem_base = smem_u32(smem);
    const int warp = threadIdx.x / 32;
    const int warp_m0 = warp / Cfg::WARPS_N * Cfg::WARP_M,
              warp_n0 = warp % Cfg::WARPS_N * Cfg::WARP_N;
    int block_m, block_n;
    block_tile_origin<Cfg, MMA_V6_GROUP_M>(M, N, &block_m, &block_n);
    const tile_copy<Cfg, Cfg::BM> copy_a(A, lda, block_m);
    const tile_copy<Cfg, Cfg::BN> copy_b(B, ldb, block_n);
    const int k_tiles = (K + Cfg::BK - 1) / Cfg::BK;
    uint32_t a_off[Cfg::KSTEPS], b_off[Cfg::KSTEPS];
#pragma unroll
    for (int ks = 0; ks < Cfg::KSTEPS; ks++) {
        a_off[ks] = a_frag_lane_offset<typename Cfg::Tile>(ks);
        b_off[ks] = b_frag_lane_offset<typename Cfg::Tile>(ks);
    }
    float acc[Cfg::MT][Cfg::NT][4] = {};
    uint32_t a[2][Cfg::MT][4], b[2][Cfg::NT][2];

    /* Prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each (empty groups past the end
     * keep the count that wait_group relies on); then k-tile 0's first fragments into set 0. */
#pragma unroll
    for (int t = 0; t < Cfg::STAGES - 1; t++) {
        if (t < k_tiles) load_k_tile<Cfg>(smem, copy_a, copy_b, A, lda, B, ldb, M, N, K, vec, t);
        cp_async_commit_group();
    }
    cp_async_wait_group<Cfg::STAGES - 2>(); /* k-tile 0 */
    __syncthreads();
    load_frags_ldmatrix<Cfg>(a[0], b[0], smem_base, smem_base + Cfg::A_BYTES, warp_m0, warp_n0,
                             a_off[0], b_off[0]);

    for (int t = 0; t < k_tiles; t++) {
        const uint32_t sA = smem_base + (t % Cfg::STAGES) * Cfg::STAGE_BYTES,
                       sB = sA + Cfg::A_BYTES;
#pragma unroll
        for (int ks = 0; ks < Cfg::KSTEPS; ks++) {
            const int cur = ks % 2, nxt = cur ^ 1;
            if (ks == Cfg::KSTEPS - 1) {
                /* groups committed so far: STAGES-1 + t; k-tile t+1 is group t+1 */
                cp_async_wait_group<Cfg::STAGES - 3>();
                __syncthreads();
                if (t + Cfg::STAGES - 1 < k_tiles)
                    load_k_tile<Cfg>(smem, copy_a, copy_b, A, lda, B, ldb, M, N, K, vec,
                                     t + Cfg::STAGES - 1);
                cp_async_commit_group();
                if (t + 1 < k_tiles) {
                    const uint32_t nA = smem_base + ((t + 1) % Cfg::STAGES) * Cfg::STAGE_BYTES;
                    load_frags_ldmatrix<Cfg>(a[nxt], b[nxt], nA, nA + Cfg::A_BYTES, warp_m0,
                                             warp_n0, a_off[0], b_off[0]);
                }
            } else {
                load_frags_ldmatrix<Cfg>(a[nxt], b[nxt], sA, sB, warp_m0, warp_n0, a_off[ks + 1],
                                         b_off[ks + 1]);
            }
            mma_step<T, Cfg>(acc, a[cur], b[cur]);
        }
    }
    cp_async_wait_group<0>(); /* only empty groups are left; leave none behind */
    __syncthreads();          /* the operand buffers become the epilogue's scratch */
    mma_v6_smem_epilogue<Cfg>(acc, smem, C, ldc, block_m + warp_m0, block_n + warp_n0, M, N, alpha,
                              beta, vec.c4);
}

/* ---- the host side ---------------------------------------------------------------------------- */
/* What prepare() works out once: the problem in 16-bit words, the vector paths, the grid */
typedef struct {
    int M, N, K; /* K in 16-bit words */
    const uint16_t *A, *B;
    long lda, ldb; /* in 16-bit words */
    float *C;
    long ldc;
    mma_vec_flags vec; /* which operands move as vectors (mma_vector_paths) */
    unsigned grid;     /* one block per tile of C */
} mma_v6_epilogue_plan;

/* NULL when the kernel can take the problem, else why not */
template <class T>
static const char *mma_v6_epilogue_unsupported(int M, int N, int K, const T *A, long lda,
                                               const T *B, long ldb)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (K > INT_MAX / words_per_elem<T>())
        return "the kernel counts k in 16-bit words (two per float): K must be below 2^30";
    return NULL;
}

template <class T>
static cudaError_t mma_v6_epilogue_prepare(mma_v6_epilogue_plan *plan, int M, int N, int K,
                                           const T *A, long lda, const T *B, long ldb, float *C,
                                           long ldc)
{
    typedef mma_v6_config Cfg;
    constexpr int W = words_per_elem<T>(); /* 1 for halves, 2 for floats */
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (mma_v6_epilogue_unsupported<T>(M, N, K, A, lda, B, ldb)) return cudaErrorNotSupported;
    const cudaError_t e = smem_optin((const void *)mma_v6_epilogue_kernel<T>, Cfg::SMEM_BYTES);
    if (e != cudaSuccess) return e;
    plan->M = M, plan->N = N, plan->K = W * K;
    plan->A = (const uint16_t *)A, plan->lda = W * lda;
    plan->B = (const uint16_t *)B, plan->ldb = W * ldb;
    plan->C = C, plan->ldc = ldc;
    plan->vec = mma_vector_paths(A, lda, B, ldb, K, sizeof(T), C, ldc);
    plan->grid = tile_count(M, N, Cfg::BM, Cfg::BN);
    return cudaSuccess;
}

template <class T>
static cudaError_t mma_v6_epilogue_run(const mma_v6_epilogue_plan *p, float alpha, float beta,
                                       cudaStream_t stream)
{
    typedef mma_v6_config Cfg;
    mma_v6_epilogue_kernel<T><<<p->grid, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, p->A, p->lda, p->B, p->ldb, p->C, p->ldc, alpha, beta, p->vec);
    return cudaGetLastError();
}

template <class T>
static cudaError_t mma_v6_epilogue_gemm(int M, int N, int K, const T *A, long lda, const T *B,
                                        long ldb, float *C, long ldc, float alpha, float beta,
                                        cudaStream_t stream)
{
    mma_v6_epilogue_plan plan;
    const cudaError_t e = mma_v6_epilogue_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? mma_v6_epilogue_run<T>(&plan, alpha, beta, stream) : e;
}

#endif /* MMA_V6_EPILOGUE_CUH */
