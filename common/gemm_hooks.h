/* common/gemm_hooks.h - the glue between a GEMM kernel's plain launcher and the GEMM driver's
 * variant table (common/gemm_driver.h), for the chapters' hook files (CUDA C++, host code).
 *
 * A kernel file (a rung) includes only small device headers and takes plain arguments; the hooks a
 * variant table names (prepare, launch, release) take the driver's tc_gemm_problem. What they
 * share lives here:
 *   vector_paths   which operands of a problem may move in 16-byte vectors (rows_vectorizable)
 *   tile_count     the grid of a one-tile-per-block kernel for a problem
 *   allow_smem     smem_optin, with the driver's skip message when the GPU has too little
 *   hook_status    a plain launcher's cudaError_t as a prepare() message: NULL, a skip, or the
 *                  CUDA error (after what a refused TMA map was, tma_map_last_error) */
#ifndef TC_GEMM_HOOKS_H
#define TC_GEMM_HOOKS_H

#include "check.h"
#include "gemm_driver.h"
#include "gemm_tiles.cuh"
#include "tma_map.h"

static inline vec_flags vector_paths(const tc_gemm_problem *p, size_t ab_elem, size_t c_elem)
{
    return {rows_vectorizable(p->d_a, p->lda, p->K, ab_elem),
            rows_vectorizable(p->d_b, p->ldb, p->N, ab_elem),
            rows_vectorizable(p->d_c, p->ldc, p->N, c_elem)};
}

static inline unsigned tile_count(const tc_gemm_problem *p, int block_m, int block_n)
{
    return tile_count(p->M, p->N, block_m, block_n);
}

/* smem_optin for a prepare(): NULL, or a TC_GEMM_SKIP message when the GPU has less shared
 * memory per block than the kernel needs (any other failure exits, as every checked call) */
static inline const char *allow_smem(const void *kernel, size_t bytes)
{
    const cudaError_t e = smem_optin(kernel, bytes);
    if (e == cudaErrorNotSupported)
        return TC_GEMM_SKIP "the block tile needs more shared memory than this GPU has";
    TC_CUDA_CHECK(e);
    return NULL;
}

/* A plain launcher's status as a prepare() message: NULL on success; `why` (a reason the
 * launcher's _unsupported function gave, or a default) as a skip for cudaErrorNotSupported; any
 * other error exits, as every checked call, after the detail of a refused TMA map if there was one
 * (its status alone, "invalid argument", does not say which size or stride) */
static inline const char *hook_status(cudaError_t e, const char *why)
{
    static char msg[200];
    if (e == cudaSuccess) return NULL;
    if (e == cudaErrorNotSupported) {
        snprintf(msg, sizeof msg, TC_GEMM_SKIP "%s",
                 why ? why : "this kernel does not support the problem on this GPU");
        return msg;
    }
    if (tma_map_last_error()[0]) fprintf(stderr, "%s\n", tma_map_last_error());
    TC_CUDA_CHECK(e);
    return NULL;
}

#endif /* TC_GEMM_HOOKS_H */
