/* 06_sparse_stencil/stencil_fused_hook.cuh - what the driver's hooks of the fused tensor-core
 * rungs (stencil_fused.cu: e, stencil_pipe.cu: f, stencil_stmatrix.cu: g,
 * stencil_stmatrix_pipe.cu: h) share: a hook owns its rung's plan and the workspace of packed
 * bands; prepare allocates the workspace and calls the rung's plain prepare, launch its run,
 * registers reads its kernel's attributes. Host code; nothing here is the lesson.
 *
 * A rung is a struct Rung with
 *   typedef ... plan;                                  its plain launcher's plan
 *   static constexpr const char *f32_why;              why f32 sums are refused (the driver's
 *                                                      rows are f16)
 *   template <bool SPARSE> static cudaError_t prepare(plan *, r, w, in, p, q, NY, NX, ld,
 *                                                     workspace, bytes, fuse, grid)
 *   template <bool SPARSE> static const char *unsupported(r, NY, NX, ld, in, p, q, fuse)
 *   template <bool SPARSE> static cudaError_t run(const plan *, steps, stream)
 *   template <bool SPARSE> static const void *kernel(int r)   NULL for a radius not built
 *   static const stencil_fused_plan &fused(const plan *)      the rung-e part (sparse, F)
 * and each rung's .cu forwards its extern "C" hooks (stencil_kernels.h) to these templates. */
#ifndef STENCIL_FUSED_HOOK_CUH
#define STENCIL_FUSED_HOOK_CUH

#include "stencil_kernels.h"

#include "stencil_fused.cuh"

#include <stdlib.h>

template <class Rung> struct fused_hook {
    typename Rung::plan plan;
    void *workspace;
};

template <class Rung> static void fused_hook_release(void *hook)
{
    fused_hook<Rung> *h = (fused_hook<Rung> *)hook;
    if (!h) return;
    if (h->workspace) (void)cudaFree(h->workspace);
    free(h);
}

template <class Rung, bool SPARSE>
static cudaError_t fused_hook_prepare_as(fused_hook<Rung> *h, int r, const __half *w,
                                         const __half *in, __half *p, __half *q, int NY, int NX,
                                         int ld, int fuse, int grid, const char **why)
{
    size_t bytes = 0;
    cudaError_t e = stencil_tc_workspace_size<SPARSE>(r, &bytes);
    if (e == cudaSuccess) e = cudaMalloc(&h->workspace, bytes);
    if (e == cudaSuccess)
        e = Rung::template prepare<SPARSE>(&h->plan, r, w, in, p, q, NY, NX, ld, h->workspace,
                                           bytes, fuse, grid);
    if (e == cudaErrorNotSupported) {
        *why = Rung::template unsupported<SPARSE>(r, NY, NX, ld, in, p, q, fuse);
        if (!*why) *why = "a band that is not 2:4 after the swap";
    }
    return e;
}

/* fuse 0: F by the radius; grid: resident blocks (0: by the occupancy) of a rung that walks tiles,
 * ignored by the others */
template <class Rung>
static cudaError_t fused_hook_prepare(int sparse, int f16acc, int r, const uint16_t *w16,
                                      const void *in, void *p, void *q, int NY, int NX, int ld,
                                      int fuse, int grid, void **hook, const char **why)
{
    *hook = NULL, *why = NULL;
    fused_hook<Rung> *h = (fused_hook<Rung> *)calloc(1, sizeof *h);
    if (!h) return cudaErrorMemoryAllocation;
    const __half *w = (const __half *)w16, *src = (const __half *)in;
    __half *dp = (__half *)p, *dq = (__half *)q;
    const int f = fuse > 0 ? fuse : st_fuse_default(r);
    cudaError_t e;
    if (!f16acc) {
        *why = Rung::f32_why;
        e = cudaErrorNotSupported;
    } else if (sparse) {
        e = fused_hook_prepare_as<Rung, true>(h, r, w, src, dp, dq, NY, NX, ld, f, grid, why);
    } else {
        e = fused_hook_prepare_as<Rung, false>(h, r, w, src, dp, dq, NY, NX, ld, f, grid, why);
    }
    if (e != cudaSuccess) {
        fused_hook_release<Rung>(h);
        return e;
    }
    *hook = h;
    return cudaSuccess;
}

template <class Rung>
static cudaError_t fused_hook_launch(const void *hook, int steps, cudaStream_t stream)
{
    const typename Rung::plan *plan = &((const fused_hook<Rung> *)hook)->plan;
    if (Rung::fused(plan).tc.sparse) return Rung::template run<true>(plan, steps, stream);
    return Rung::template run<false>(plan, steps, stream);
}

/* where the grid lies after `steps` steps (st_fuse_result: 0 in, 1 p, 2 q) */
template <class Rung> static int fused_hook_result(const void *hook, int steps)
{
    return st_fuse_result(steps, Rung::fused(&((const fused_hook<Rung> *)hook)->plan).fuse);
}

/* the registers per thread of the rung's f16-sum kernel of radius r, or -1 */
template <class Rung> static int fused_hook_registers(int sparse, int f16acc, int r)
{
    if (!f16acc) return -1;
    const void *fn = sparse ? Rung::template kernel<true>(r) : Rung::template kernel<false>(r);
    cudaFuncAttributes fa;
    if (!fn) return -1;
    if (cudaFuncGetAttributes(&fa, fn) != cudaSuccess) {
        (void)cudaGetLastError(); /* not left for the next launch check to find */
        return -1;
    }
    return fa.numRegs;
}

#endif /* STENCIL_FUSED_HOOK_CUH */
