/* 06_sparse_stencil/stencil_stmatrix_pipe.cu - the driver's side of rung h
 * (stencil_stmatrix_pipe.cuh: the kernel, its grid and its plain launcher; PART3.md, "Rung h").
 *
 * What it teaches: nothing of its own. It binds stencil.c's rows dense_f16_stmatrix_pipe
 * and sparse_f16_stmatrix_pipe (f16 accumulators, as rung e's) to the plain launcher, with F chosen by the
 * radius or forced and the resident grid chosen by the occupancy or forced (--test: a small grid,
 * so that every block walks several tiles). The hook owns the workspace of packed bands.
 *
 * Minimum: sm_90 (stmatrix); CUDA 12.5. Build and run: see stencil.c. */
#include "stencil_kernels.h"

#include "stencil_stmatrix_pipe.cuh"

typedef struct {
    stencil_pipe_plan plan;
    void *workspace;
} stpipe_hook;

template <bool SPARSE>
static cudaError_t stpipe_prepare(stpipe_hook *h, int r, const __half *w, const __half *in,
                                  __half *p, __half *q, int NY, int NX, int ld, int fuse, int grid,
                                  const char **why)
{
    size_t bytes = 0;
    cudaError_t e = stencil_tc_workspace_size<SPARSE>(r, &bytes);
    if (e == cudaSuccess) e = cudaMalloc(&h->workspace, bytes);
    if (e == cudaSuccess)
        e = stencil_stmatrix_pipe_prepare<SPARSE, true>(&h->plan, r, w, in, p, q, NY, NX, ld,
                                                        h->workspace, bytes, fuse, grid);
    if (e == cudaErrorNotSupported) {
        *why = stencil_stmatrix_pipe_unsupported<SPARSE, true>(r, NY, NX, ld, in, p, q, fuse);
        if (!*why) *why = "a band that is not 2:4 after the swap";
    }
    return e;
}

extern "C" cudaError_t stencil_stmatrix_pipe_hook_prepare(int sparse, int f16acc, int r,
                                                          const uint16_t *w16, const void *in,
                                                          void *p, void *q, int NY, int NX, int ld,
                                                          int fuse, int grid, void **hook,
                                                          const char **why)
{
    *hook = NULL, *why = NULL;
    stpipe_hook *h = (stpipe_hook *)calloc(1, sizeof *h);
    if (!h) return cudaErrorMemoryAllocation;
    const __half *w = (const __half *)w16, *src = (const __half *)in;
    __half *dp = (__half *)p, *dq = (__half *)q;
    const int f = fuse > 0 ? fuse : st_fuse_default(r);
    cudaError_t e;
    if (!f16acc) { /* the table's rung h rows are the f16 ones */
        *why = "the driver builds rung h's kernels with f16 accumulators only";
        e = cudaErrorNotSupported;
    } else if (sparse) {
        e = stpipe_prepare<true>(h, r, w, src, dp, dq, NY, NX, ld, f, grid, why);
    } else {
        e = stpipe_prepare<false>(h, r, w, src, dp, dq, NY, NX, ld, f, grid, why);
    }
    if (e != cudaSuccess) {
        stencil_stmatrix_pipe_hook_release(h);
        return e;
    }
    *hook = h;
    return cudaSuccess;
}

extern "C" cudaError_t stencil_stmatrix_pipe_hook_launch(const void *hook, int steps,
                                                         cudaStream_t stream)
{
    const stencil_pipe_plan *plan = &((const stpipe_hook *)hook)->plan;
    if (plan->fused.tc.sparse) return stencil_stmatrix_pipe_run<true, true>(plan, steps, stream);
    return stencil_stmatrix_pipe_run<false, true>(plan, steps, stream);
}

extern "C" int stencil_stmatrix_pipe_hook_result(const void *hook, int steps)
{
    return st_fuse_result(steps, ((const stpipe_hook *)hook)->plan.fused.fuse);
}

extern "C" void stencil_stmatrix_pipe_hook_release(void *hook)
{
    stpipe_hook *h = (stpipe_hook *)hook;
    if (!h) return;
    if (h->workspace) (void)cudaFree(h->workspace);
    free(h);
}

template <int R> static int stpipe_regs_r(int sparse)
{
    cudaFuncAttributes fa;
    const cudaError_t err =
        sparse ? cudaFuncGetAttributes(&fa, stencil_stmatrix_pipe_for<R, true, true>::fn)
               : cudaFuncGetAttributes(&fa, stencil_stmatrix_pipe_for<R, false, true>::fn);
    return err == cudaSuccess ? fa.numRegs : -1;
}

extern "C" int stencil_stmatrix_pipe_registers(int sparse, int f16acc, int r)
{
    if (!f16acc) return -1;
    switch (r) {
    case 1: return stpipe_regs_r<1>(sparse);
    case 2: return stpipe_regs_r<2>(sparse);
    case 3: return stpipe_regs_r<3>(sparse);
    case 7: return stpipe_regs_r<7>(sparse);
    default: return -1;
    }
}
