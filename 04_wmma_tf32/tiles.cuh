/* 04_wmma_tf32/tiles.cuh - what the two kernel files of this chapter (sgemm.cu, wmma_tf32.cu)
 * share: moving f32 tiles of a row-major matrix into shared memory (synchronously or with
 * cp.async), zero-filled outside the matrix; the decision, per launch, whether rows can move as
 * 16-byte vectors; the order in which blocks walk the tiles of C; and the shared-memory opt-in.
 *
 * These are the f32 versions of the helpers of 03_wmma_fp16/wmma_gemm.cu (there for halves). */
#ifndef TILES_CUH
#define TILES_CUH

#include "check.h"
#include "gemm_driver.h"

#include <stdint.h>

/* f32 elements per 16-byte vector */
constexpr int VEC4 = 4;

/* Rows of a matrix can be moved in 16-byte vectors when the base is 16-byte aligned, every row
 * starts at a multiple of 16 bytes (leading dimension a multiple of 4 floats), and the row length
 * is a whole number of vectors (so a vector is either inside the matrix or outside it). */
static inline bool rows_vectorizable(const void *ptr, long ld, long cols)
{
    return (uintptr_t)ptr % 16 == 0 && ld % VEC4 == 0 && cols % VEC4 == 0;
}

/* Which operands may move in 16-byte vectors; decided once per launch on the host. */
struct vec_flags {
    bool a, b, c;
};
static inline vec_flags vector_paths(const tc_gemm_problem *p)
{
    return {rows_vectorizable(p->d_a, p->lda, p->K), rows_vectorizable(p->d_b, p->ldb, p->N),
            rows_vectorizable(p->d_c, p->ldc, p->N)};
}

/* The slow path of the tile loads, for rows that are not 16-byte aligned: 4 floats one by one,
 * zeros outside the matrix. Out of line, so that it takes no registers from the fast path. */
static __device__ __noinline__ void load_vector_scalar(float *dst, const float *__restrict__ g,
                                                       long ld, int gr, int gc, int rows, int cols)
{
    for (int e = 0; e < VEC4; e++)
        dst[e] = gr < rows && gc + e < cols ? g[(size_t)gr * ld + gc + e] : 0.0f;
}

/* Copies the ROWS x COLS tile at (row0, col0) of a row-major matrix (rows x cols, leading
 * dimension ld) into shared memory with row stride SROW (floats), through registers. Elements
 * outside the matrix become 0, so they add nothing to the products. */
template <int ROWS, int COLS, int THREADS, int SROW>
__device__ __forceinline__ void load_tile_sync(float *s, const float *__restrict__ g, long ld,
                                               int row0, int col0, int rows, int cols, bool vec)
{
    static_assert(COLS % VEC4 == 0, "tile rows are whole 16-byte vectors");
    static_assert(SROW % VEC4 == 0, "shared rows start 16-byte aligned");
    constexpr int CHUNKS = ROWS * COLS / VEC4;
#pragma unroll
    for (int i = 0; i < (CHUNKS + THREADS - 1) / THREADS; i++) {
        const int chunk = threadIdx.x + i * THREADS;
        if (CHUNKS % THREADS != 0 && chunk >= CHUNKS) break; /* more threads than vectors */
        const int r = chunk / (COLS / VEC4), c = chunk % (COLS / VEC4) * VEC4;
        const int gr = row0 + r, gc = col0 + c;
        float *dst = s + r * SROW + c;
        if (vec) {
            float4 x = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (gr < rows && gc < cols) x = *(const float4 *)(g + (size_t)gr * ld + gc);
            *(float4 *)dst = x;
        } else {
            load_vector_scalar(dst, g, ld, gr, gc, rows, cols);
        }
    }
}

/* cp.async.cg.shared.global [dst], [src], 16, src_bytes: copies 16 bytes from global to shared
 * memory without a register round trip (and bypassing L1: .cg); the bytes past src_bytes are
 * filled with zeros, so src_bytes = 0 writes a zero vector and reads nothing. The copy is
 * asynchronous: it belongs to the thread's current group, closed by commit_group; wait_group N
 * blocks until at most N of the thread's groups are still in flight. (The chapter is built for
 * sm_80 and newer only; the #if keeps a build for an older target honest.) */
static __device__ __forceinline__ void cp_async_16(void *dst, const void *src, int src_bytes)
{
#if __CUDA_ARCH__ >= 800
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src),
                 "r"(src_bytes)
                 : "memory");
#else
    *(float4 *)dst = src_bytes ? *(const float4 *)src : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#endif
}
static __device__ __forceinline__ void cp_async_commit_group()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N> static __device__ __forceinline__ void cp_async_wait_group()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/* load_tile_sync's asynchronous twin: 16-byte cp.async copies when the rows are vectorizable,
 * element-by-element synchronous stores otherwise (the pipeline's barriers order both). */
template <int ROWS, int COLS, int THREADS, int SROW>
__device__ __forceinline__ void load_tile_async(float *s, const float *__restrict__ g, long ld,
                                                int row0, int col0, int rows, int cols, bool vec)
{
    static_assert(COLS % VEC4 == 0 && (ROWS * COLS / VEC4) % THREADS == 0 && SROW % VEC4 == 0,
                  "whole 16-byte vectors, shared evenly");
    if (!vec) {
        load_tile_sync<ROWS, COLS, THREADS, SROW>(s, g, ld, row0, col0, rows, cols, false);
        return;
    }
#pragma unroll
    for (int i = 0; i < ROWS * COLS / VEC4 / THREADS; i++) {
        const int chunk = threadIdx.x + i * THREADS;
        const int r = chunk / (COLS / VEC4), c = chunk % (COLS / VEC4) * VEC4;
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
__device__ __forceinline__ void block_tile_coords(int tiles_m, int tiles_n, int *tm, int *tn)
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

/* The number of BLOCK_M x BLOCK_N tiles of C: the 1-D grid of the kernels above. */
static inline unsigned tile_count(const tc_gemm_problem *p, int block_m, int block_n)
{
    return (unsigned)((long)((p->M + block_m - 1) / block_m) * ((p->N + block_n - 1) / block_n));
}

/* Opts a kernel into `bytes` of dynamic shared memory (more than the default 48 KiB needs it),
 * once per kernel, outside any timed region (prepare() runs before timing). Returns NULL or why
 * the GPU cannot run it. */
static inline const char *allow_smem(const void *kernel, size_t bytes)
{
    int dev = 0, optin = 0;
    TC_CUDA_CHECK(cudaGetDevice(&dev));
    TC_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (bytes > (size_t)optin) return "the block tile needs more shared memory than this GPU has";
    TC_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    return NULL;
}

#endif
