/* common/gemm_tiles.cuh - the tile plumbing every hand-written GEMM chapter shares (CUDA C++).
 *
 * What a tensor-core GEMM kernel needs besides its math, for any element type T (half,
 * __nv_bfloat16, float, int8_t):
 *   - moving a ROWS x COLS tile of a row-major matrix into shared memory, synchronously
 *     (load_tile_sync) or with cp.async (load_tile_async), zero-filled outside the matrix so that
 *     any M, N, K is correct, in 16-byte vectors when the rows allow it (rows_vectorizable, a
 *     host-side decision per launch);
 *   - the cp.async wrappers (common/cp_async.cuh, included here);
 *   - the order in which the blocks of a 1-D grid, or a persistent kernel, walk the tiles of C
 *     (block_tile_coords, tile_coords), and the number of tiles (tile_count);
 *   - the f32 epilogue's guarded pair store (store_pair);
 *   - the shared-memory opt-in (smem_optin), and whether a size fits it (smem_fits).
 * Chapters 03, 04, 05, 07 and 09 use it. It includes no harness header: a kernel file that uses
 * it can be copied into any program (the GEMM driver's glue is common/gemm_hooks.h). It has no
 * state and only static functions, so every .cu file that includes it gets its own copy. */
#ifndef TC_GEMM_TILES_CUH
#define TC_GEMM_TILES_CUH

#include "cp_async.cuh"

#include <cuda_runtime_api.h>
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

/* Tiles of C are numbered 0 .. tiles_m * tiles_n - 1 and mapped to (tile row, tile column) here.
 * GROUP_M = 1 is the plain row-by-row order; GROUP_M = g walks g tile-rows column by column, so
 * the tiles computed at the same time (consecutive ids) cover a g x (resident/g) patch of C and
 * reuse each other's tiles of A and B in L2. A 1-D grid uses its block index as the id
 * (block_tile_coords); a persistent kernel walks ids itself. */
template <int GROUP_M>
static __device__ __forceinline__ void tile_coords(int id, int tiles_m, int tiles_n, int *tm,
                                                   int *tn)
{
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
template <int GROUP_M>
static __device__ __forceinline__ void block_tile_coords(int tiles_m, int tiles_n, int *tm, int *tn)
{
    tile_coords<GROUP_M>((int)blockIdx.x, tiles_m, tiles_n, tm, tn);
}

/* The number of block_m x block_n tiles of an M x N matrix C: the 1-D grid of such kernels. */
static inline unsigned tile_count(int M, int N, int block_m, int block_n)
{
    return (unsigned)((long)((M + block_m - 1) / block_m) * ((N + block_n - 1) / block_n));
}

/* Epilogue helper for f32 C (row-major, ldc): C(r, c), C(r, c+1) = alpha (x, y) + beta C, c even,
 * guarded at the edges; beta == 0 never reads C. vec2: C's base is 8-byte aligned and ldc even,
 * so the pair is one float2. */
static __device__ __forceinline__ void store_pair(float *__restrict__ C, long ldc, int r, int c,
                                                  int M, int N, float x, float y, float alpha,
                                                  float beta, bool vec2)
{
    if (r >= M || c >= N) return;
    float *p = C + (size_t)r * ldc + c;
    x *= alpha, y *= alpha;
    if (vec2 && c + 1 < N) {
        if (beta != 0.0f) {
            const float2 old = *(const float2 *)p;
            x += beta * old.x, y += beta * old.y;
        }
        *(float2 *)p = make_float2(x, y);
    } else {
        p[0] = beta != 0.0f ? x + beta * p[0] : x;
        if (c + 1 < N) p[1] = beta != 0.0f ? y + beta * p[1] : y;
    }
}

/* Whether this GPU allows a block `bytes` of shared memory (what smem_optin will ask for); true
 * when the question itself fails, so that prepare() reports that error. */
static inline bool smem_fits(size_t bytes)
{
    int dev = 0, optin = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
        return true;
    return bytes <= (size_t)optin;
}

/* Opts a kernel into `bytes` of dynamic shared memory (above 48 KiB it must ask), once per
 * kernel, outside any timed region (a rung's plan, not its run). cudaErrorNotSupported when the
 * GPU has less shared memory per block than that; the error of a failed call otherwise. */
static inline cudaError_t smem_optin(const void *kernel, size_t bytes)
{
    int dev = 0, optin = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (e != cudaSuccess) return e;
    if (bytes > (size_t)optin) return cudaErrorNotSupported;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

#endif
