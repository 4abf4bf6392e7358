/* 07_int8_dp4a/i8_gemm_parts.cuh - what the rungs of the INT8 GEMM ladder share and none of them
 * teaches (CUDA C++): the vector-path flags and their host-side decision, the integer epilogue's
 * guarded stores, the int8 tile loads' byte path, the block's tile of C, and the sm_80 check of
 * the tensor-core rungs. Includes no harness header (common/gemm_tiles.cuh only), so that a rung
 * file and this header can be copied into any program.
 *
 * The ladder (C = alpha * A * B + beta * C; A M x K row-major int8, B K x N column-major int8,
 * i.e. stored N x K, K-contiguous; C M x N row-major int32; integer alpha and beta):
 *   v1_int32 (v1_int32.cuh) -> v2_dp4a_smem (v2_dp4a_smem.cuh) ->
 *   v3_dp4a_regblock (v3_dp4a_regblock.cuh) -> v4_wmma_s8 (v4_wmma_s8.cuh) ->
 *   v5_mma_s8 (v5_mma_s8.cuh) -> v6_wgmma_s8 (v6_wgmma_s8.cuh) -> v7_wgmma_s8_wide (v7_wgmma_s8_wide.cuh)
 *
 * Why integers are exact: an int8 product lies in [-16256, 16384], so int32 holds any sum of up
 * to 2^17 - 1 = 131071 of them (2^17 products of -128 * -128 make 2^31, one past INT32_MAX); the
 * result must equal the CPU's to the last bit, in any order of summation. C's arithmetic wraps
 * modulo 2^32 (done in unsigned arithmetic, so it is defined); beta == 0 never reads C.
 *
 * Rows move in 16-byte vectors (cp.async in v4, v5) only when they are 16-byte aligned (pointer
 * aligned, ld a multiple of 16, K a multiple of 16, so that a vector is all inside the matrix or
 * all outside); otherwise byte by byte (correct, slow). v2 has a 4-byte path with the same rule
 * for words. Tile loads outside the matrix are zero-filled (zeros add nothing to a dot product,
 * so a K that is not a multiple of 4, 16 or 32 needs no special case); stores are guarded. */
#ifndef I8_GEMM_PARTS_CUH
#define I8_GEMM_PARTS_CUH

#include "gemm_tiles.cuh"

#include <stdint.h>

/* Which operands move in vectors, decided on the host once per plan: a16/b16 16-byte rows of A
 * and B, a4/b4 4-byte words of A and B (v2), c4/c2 16- and 8-byte pieces of C's rows. */
struct i8_vec {
    bool a16, b16, a4, b4, c4, c2;
};

static inline bool i8_words_ok(const void *ptr, long ld, long K)
{
    return (uintptr_t)ptr % 4 == 0 && ld % 4 == 0 && K % 4 == 0;
}

/* The vector paths of a problem (A M x K and B stored N x K, both K-contiguous; C row-major) */
static inline i8_vec i8_vector_paths(const int8_t *A, long lda, const int8_t *B, long ldb,
                                     const int *C, long ldc, int K)
{
    i8_vec v;
    v.a16 = rows_vectorizable(A, lda, K, 1); /* common/gemm_tiles.cuh */
    v.b16 = rows_vectorizable(B, ldb, K, 1);
    v.a4 = i8_words_ok(A, lda, K);
    v.b4 = i8_words_ok(B, ldb, K);
    v.c4 = (uintptr_t)C % 16 == 0 && ldc % 4 == 0;
    v.c2 = (uintptr_t)C % 8 == 0 && ldc % 2 == 0;
    return v;
}

/* NULL when a tensor-core rung's kernel can run here: code for sm_80 or newer for this GPU
 * (cp.async, mma.m16n8k32; below sm_80 the kernels are built but never launched) and `bytes` of
 * shared memory per block; else why not */
static inline const char *i8_sm80_unsupported(const void *kernel, size_t bytes)
{
    cudaFuncAttributes fa;
    const cudaError_t e = cudaFuncGetAttributes(&fa, kernel);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return "no code for this GPU in this build (or no GPU)";
    }
    if (fa.binaryVersion < 80)
        return "needs sm_80 code (an Ampere or newer GPU and a build for it)";
    int dev = 0, optin = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
        return NULL; /* the prepare function's own calls report the error */
    if (bytes > (size_t)optin) return "the block tile needs more shared memory than this GPU has";
    return NULL;
}

/* alpha * x + beta * y modulo 2^32 (unsigned arithmetic: wrap-around is defined) */
static __device__ __forceinline__ int axpby(int alpha, int x, int beta, int y)
{
    return (int)((unsigned)alpha * (unsigned)x + (unsigned)beta * (unsigned)y);
}

/* One element (r, c) of C. */
static __device__ __forceinline__ void store_one(int *__restrict__ C, long ldc, int r, int c, int M,
                                                 int N, int x, int alpha, int beta)
{
    if (r >= M || c >= N) return;
    int *p = C + (size_t)r * ldc + c;
    *p = axpby(alpha, x, beta, beta != 0 ? *p : 0);
}

/* Two neighbours (r, c), (r, c+1) of C, c even: one 8-byte store when the row allows it. */
static __device__ __forceinline__ void store_pair(int *__restrict__ C, long ldc, int r, int c,
                                                  int M, int N, int x, int y, int alpha, int beta,
                                                  bool vec2)
{
    if (r >= M || c >= N) return;
    int *p = C + (size_t)r * ldc + c;
    if (vec2 && c + 1 < N) {
        const int2 old = beta != 0 ? *(const int2 *)p : make_int2(0, 0);
        *(int2 *)p = make_int2(axpby(alpha, x, beta, old.x), axpby(alpha, y, beta, old.y));
    } else {
        p[0] = axpby(alpha, x, beta, beta != 0 ? p[0] : 0);
        if (c + 1 < N) p[1] = axpby(alpha, y, beta, beta != 0 ? p[1] : 0);
    }
}

/* Four neighbours (r, c .. c+3) of C, c a multiple of 4: one 16-byte store when it can. */
static __device__ __forceinline__ void store_quad(int *__restrict__ C, long ldc, int r, int c,
                                                  int M, int N, int4 v, int alpha, int beta,
                                                  bool vec4)
{
    if (r >= M || c >= N) return;
    int *p = C + (size_t)r * ldc + c;
    if (vec4 && c + 3 < N) {
        const int4 old = beta != 0 ? *(const int4 *)p : make_int4(0, 0, 0, 0);
        *(int4 *)p = make_int4(axpby(alpha, v.x, beta, old.x), axpby(alpha, v.y, beta, old.y),
                               axpby(alpha, v.z, beta, old.z), axpby(alpha, v.w, beta, old.w));
    } else {
        const int e[4] = {v.x, v.y, v.z, v.w};
        for (int k = 0; k < 4 && c + k < N; k++)
            p[k] = axpby(alpha, e[k], beta, beta != 0 ? p[k] : 0);
    }
}

/* The slow path of every tile load: the 16 bytes k .. k+15 of row `row` of a K-contiguous matrix
 * (rows x K, leading dimension ld) as one vector, zeros outside the matrix. Out of line, so that
 * it takes no registers from the fast path. */
static __device__ __noinline__ uint4 load_chunk_bytes(const int8_t *__restrict__ g, long ld,
                                                      int row, int k, int rows, int K)
{
    uint32_t w[4] = {0, 0, 0, 0};
    if (row < rows) {
        const int8_t *p = g + (size_t)row * ld;
#pragma unroll
        for (int e = 0; e < 16; e++)
            if (k + e < K) w[e / 4] |= (uint32_t)(uint8_t)p[k + e] << (8 * (e % 4));
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* 16 bytes at (row, k): one vector load when the rows are 16-byte aligned (then K % 16 == 0 and
 * the chunk is all inside or all outside), the byte path otherwise. */
static __device__ __forceinline__ uint4 load_chunk(const int8_t *__restrict__ g, long ld, int row,
                                                   int k, int rows, int K, bool vec)
{
    if (!vec) return load_chunk_bytes(g, ld, row, k, rows, K);
    return row < rows && k < K ? *(const uint4 *)(g + (size_t)row * ld + k)
                               : make_uint4(0, 0, 0, 0);
}

/* The block's tile of C on a 1-D grid (common/gemm_tiles.cuh): any M, N fits the grid limits. */
template <int BM, int BN, int GROUP_M>
static __device__ __forceinline__ void block_origin(int M, int N, int *block_m, int *block_n)
{
    int tm, tn;
    block_tile_coords<GROUP_M>((M + BM - 1) / BM, (N + BN - 1) / BN, &tm, &tn);
    *block_m = tm * BM, *block_n = tn * BN;
}

#endif /* I8_GEMM_PARTS_CUH */
