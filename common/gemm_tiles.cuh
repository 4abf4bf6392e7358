/* common/gemm_tiles.cuh - the tile plumbing every hand-written GEMM chapter shares (CUDA C++).
 *
 * What a tensor-core GEMM kernel needs besides its math, for any element type T (half,
 * __nv_bfloat16, float, int8_t):
 *   - moving a ROWS x COLS tile of a row-major matrix into shared memory, synchronously
 *     (load_tile_sync) or with cp.async (load_tile_async), zero-filled outside the matrix so that
 *     any M, N, K is correct, in 16-byte vectors when the rows allow it;
 *   - the host-side decision, per launch, whether they do (vector_paths);
 *   - the cp.async wrappers (common/cp_async.cuh, included here);
 *   - the order in which the blocks of a 1-D grid walk the tiles of C (block_tile_coords);
 *   - the shared-memory opt-in (allow_smem).
 * Chapters 03, 04 and 05 use it; it has no state and only static functions, so every .cu file
 * that includes it gets its own copy. */
#ifndef TC_GEMM_TILES_CUH
#define TC_GEMM_TILES_CUH

#include "check.h"
#include "cp_async.cuh"
#include "gemm_driver.h"

#include <stdint.h>

/* Rows of a matrix can be moved in 16-byte vectors when the base is 16-byte aligned, every row
 * starts 16 bytes after the previous multiple of 16 (leading dimension a multiple of
 * 16 / element size) and the row length is a whole number of vectors (so a vector is either
 * inside the matrix or outside it). */
static inline bool rows_vectorizable(const void *ptr, long ld, long cols, size_t elem)
{
    const long per_vec = (long)(16 / elem);
    return (uintptr_t)ptr % 16 == 0 && ld % per_vec == 0 && cols % per_vec == 0;
}

/* Which operands may move in 16-byte vectors; decided once per launch on the host. */
struct vec_flags {
    bool a, b, c;
};
static inline vec_flags vector_paths(const tc_gemm_problem *p, size_t ab_elem, size_t c_elem)
{
    return {rows_vectorizable(p->d_a, p->lda, p->K, ab_elem),
            rows_vectorizable(p->d_b, p->ldb, p->N, ab_elem),
            rows_vectorizable(p->d_c, p->ldc, p->N, c_elem)};
}

/* The slow path of the tile loads, for rows that are not 16-byte aligned: one vector's worth of
 * elements one by one, zeros outside the matrix. Out of line, so that it takes no registers
 * from the fast path's loop. */
template <class T>
static __device__ __noinline__ void load_vector_scalar(T *dst, const T *__restrict__ g, long ld,
                                                       int gr, int gc, int rows, int cols)
{
    constexpr int VEC = 16 / sizeof(T);
    for (int e = 0; e < VEC; e++)
        dst[e] = gr < rows && gc + e < cols ? g[(size_t)gr * ld + gc + e] : static_cast<T>(0.0f);
}

/* Copies the ROWS x COLS tile at (row0, col0) of a row-major matrix (rows x cols, leading
 * dimension ld) into shared memory with row stride SROW (elements), through registers. Elements
 * outside the matrix become 0, so they add nothing to the products. */
template <class T, int ROWS, int COLS, int THREADS, int SROW>
static __device__ __forceinline__ void load_tile_sync(T *s, const T *__restrict__ g, long ld,
                                                      int row0, int col0, int rows, int cols,
                                                      bool vec)
{
    constexpr int VEC = 16 / sizeof(T); /* elements per 16-byte vector */
    static_assert(COLS % VEC == 0, "tile rows are whole 16-byte vectors");
    static_assert(SROW % VEC == 0, "shared rows start 16-byte aligned");
    constexpr int CHUNKS = ROWS * COLS / VEC;
#pragma unroll
    for (int i = 0; i < (CHUNKS + THREADS - 1) / THREADS; i++) {
        const int chunk = threadIdx.x + i * THREADS;
        if (CHUNKS % THREADS != 0 && chunk >= CHUNKS) break; /* more threads than vectors */
        const int r = chunk / (COLS / VEC), c = chunk % (COLS / VEC) * VEC;
        const int gr = row0 + r, gc = col0 + c;
        T *dst = s + r * SROW + c;
        if (vec) {
            uint4 x = make_uint4(0, 0, 0, 0);
            if (gr < rows && gc < cols) x = *(const uint4 *)(g + (size_t)gr * ld + gc);
            *(uint4 *)dst = x;
        } else {
            load_vector_scalar<T>(dst, g, ld, gr, gc, rows, cols);
        }
    }
}

/* load_tile_sync's asynchronous twin: 16-byte cp.async copies when the rows are vectorizable,
 * element-by-element synchronous stores otherwise (the pipeline's barriers order both). */
template <class T, int ROWS, int COLS, int THREADS, int SROW>
static __device__ __forceinline__ void load_tile_async(T *s, const T *__restrict__ g, long ld,
                                                       int row0, int col0, int rows, int cols,
                                                       bool vec)
{
    constexpr int VEC = 16 / sizeof(T);
    static_assert(COLS % VEC == 0 && (ROWS * COLS / VEC) % THREADS == 0 && SROW % VEC == 0,
                  "whole 16-byte vectors, shared evenly");
    if (!vec) {
        load_tile_sync<T, ROWS, COLS, THREADS, SROW>(s, g, ld, row0, col0, rows, cols, false);
        return;
    }
#pragma unroll
    for (int i = 0; i < ROWS * COLS / VEC / THREADS; i++) {
        const int chunk = threadIdx.x + i * THREADS;
        const int r = chunk / (COLS / VEC), c = chunk % (COLS / VEC) * VEC;
        const int gr = row0 + r, gc = col0 + c;
        const bool inside = gr < rows && gc < cols;
        /* outside: a zero vector, and a source address that is valid anyway */
        cp_async_16(s + r * SROW + c, inside ? g + (size_t)gr * ld + gc : g, inside ? 16 : 0);
    }
}

/* Blocks are numbered along a 1-D grid and mapped to tiles of C. GROUP_M = 1 is the plain
 * row-by-row order; GROUP_M = g walks g block-rows column by column, so the blocks resident at
 * the same time cover a g x (resident/g) patch of C and reuse each other's tiles of A and B in
 * L2. */
template <int GROUP_M>
static __device__ __forceinline__ void block_tile_coords(int tiles_m, int tiles_n, int *tm, int *tn)
{
    const int id = blockIdx.x;
    if (GROUP_M == 1) {
        *tm = id / tiles_n, *tn = id % tiles_n;
        return;
    }
    const int per_group = GROUP_M * tiles_n;
    const int first_m = id / per_group * GROUP_M;
    const int rows = min(tiles_m - first_m, GROUP_M); /* the last group may be shorter */
    *tm = first_m + id % per_group % rows;
    *tn = id % per_group / rows;
}

/* The number of block_m x block_n tiles of C: the 1-D grid of such kernels. */
static inline unsigned tile_count(const tc_gemm_problem *p, int block_m, int block_n)
{
    return (unsigned)((long)((p->M + block_m - 1) / block_m) * ((p->N + block_n - 1) / block_n));
}

/* Opts a kernel into `bytes` of dynamic shared memory (above 48 KiB it must ask), once per
 * kernel, outside any timed region (prepare() runs before timing). Returns NULL, or a
 * TC_GEMM_SKIP message when the GPU has less shared memory per block than that. */
static inline const char *allow_smem(const void *kernel, size_t bytes)
{
    int dev = 0, optin = 0;
    TC_CUDA_CHECK(cudaGetDevice(&dev));
    TC_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (bytes > (size_t)optin)
        return TC_GEMM_SKIP "the block tile needs more shared memory than this GPU has";
    TC_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    return NULL;
}

#endif
