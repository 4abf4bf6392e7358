/* 06_sparse_stencil/stencil_fused.cu - the driver's side of rung e (stencil_fused.cuh: the kernel,
 * its tile plan and its plain launcher; PART2.md: the lesson).
 *
 * What it teaches: nothing of its own. It binds stencil.c's fused tensor-core variants
 * (dense_f16_fused, sparse_f16_fused; f16 accumulators: the f32 kernels are not instantiated) to
 * the plain launcher, so that --test checks what a program
 * calling stencil_fused_prepare / stencil_fused_run gets, with F chosen by the radius or forced
 * (stencil_fused_prepare_fuse). The hook owns the workspace of packed bands.
 *
 * Minimum: sm_80; CUDA 12.5 (as stencil_tc.cu). Build and run: see stencil.c. */
#include "stencil_kernels.h"

#include "stencil_fused.cuh"

typedef struct {
    stencil_fused_plan plan;
    void *workspace;
} fused_hook;

template <bool SPARSE, bool F16ACC>
static cudaError_t fused_prepare(fused_hook *h, int r, const __half *w, const __half *in,
                                 __half *p, __half *q, int NY, int NX, int ld, int fuse,
                                 const char **why)
{
    size_t bytes = 0;
    cudaError_t e = stencil_tc_workspace_size<SPARSE>(r, &bytes);
    if (e == cudaSuccess) e = cudaMalloc(&h->workspace, bytes);
    if (e == cudaSuccess)
        e = stencil_fused_prepare_fuse<SPARSE, F16ACC>(&h->plan, r, w, in, p, q, NY, NX, ld,
                                                       h->workspace, bytes, fuse);
    if (e == cudaErrorNotSupported) {
        *why = stencil_fused_unsupported<SPARSE, F16ACC>(r, NY, NX, ld, in, p, q, fuse);
        if (!*why) *why = "a band that is not 2:4 after the swap";
    }
    return e;
}

extern "C" cudaError_t stencil_fused_hook_prepare(int sparse, int f16acc, int r,
                                                  const uint16_t *w16, const void *in, void *p,
                                                  void *q, int NY, int NX, int ld, int fuse,
                                                  void **hook, const char **why)
{
    *hook = NULL, *why = NULL;
    fused_hook *h = (fused_hook *)calloc(1, sizeof *h);
    if (!h) return cudaErrorMemoryAllocation;
    const __half *w = (const __half *)w16, *src = (const __half *)in;
    __half *dp = (__half *)p, *dq = (__half *)q;
    const int f = fuse > 0 ? fuse : st_fuse_default(r);
    cudaError_t e;
    if (!f16acc) { /* the table's fused rows are the f16 ones; the template takes both */
        *why = "the driver builds the fused kernels with f16 accumulators only";
        e = cudaErrorNotSupported;
    } else if (sparse) {
        e = fused_prepare<true, true>(h, r, w, src, dp, dq, NY, NX, ld, f, why);
    } else {
        e = fused_prepare<false, true>(h, r, w, src, dp, dq, NY, NX, ld, f, why);
    }
    if (e != cudaSuccess) {
        stencil_fused_hook_release(h);
        return e;
    }
    *hook = h;
    return cudaSuccess;
}

extern "C" cudaError_t stencil_fused_hook_launch(const void *hook, int steps, cudaStream_t stream)
{
    const stencil_fused_plan *plan = &((const fused_hook *)hook)->plan;
    if (plan->tc.sparse) return stencil_fused_run<true, true>(plan, steps, stream);
    return stencil_fused_run<false, true>(plan, steps, stream);
}

extern "C" int stencil_fused_hook_result(const void *hook, int steps)
{
    return st_fuse_result(steps, ((const fused_hook *)hook)->plan.fuse);
}

extern "C" int stencil_fused_hook_fuse(const void *hook) { return ((const fused_hook *)hook)->plan.fuse; }

extern "C" void stencil_fused_hook_release(void *hook)
{
    fused_hook *h = (fused_hook *)hook;
    if (!h) return;
    if (h->workspace) (void)cudaFree(h->workspace);
    free(h);
}

template <int R> static int fused_regs_r(int sparse, int f16acc)
{
    cudaFuncAttributes fa;
    if (!f16acc) return -1;
    const cudaError_t err =
        sparse ? cudaFuncGetAttributes(&fa, stencil_fused_for<R, true, true>::fn)
               : cudaFuncGetAttributes(&fa, stencil_fused_for<R, false, true>::fn);
    return err == cudaSuccess ? fa.numRegs : -1;
}

extern "C" int stencil_fused_registers(int sparse, int f16acc, int r)
{
    switch (r) {
    case 1: return fused_regs_r<1>(sparse, f16acc);
    case 2: return fused_regs_r<2>(sparse, f16acc);
    case 3: return fused_regs_r<3>(sparse, f16acc);
    case 7: return fused_regs_r<7>(sparse, f16acc);
    default: return -1;
    }
}

extern "C" int stencil_fused_plan_for(int r, int fuse, long NY, long NX, st_fuse_plan *plan)
{
    if (!tc_radius_built(r) || fuse < 1 || fuse > ST_FUSE_MAX) return -1;
    return st_fuse_plan_make(stencil_fused_cx(r), stencil_fused_cy(r), r, fuse, NY, NX, plan);
}
extern "C" int stencil_fused_compute_x(int r) { return stencil_fused_cx(r); }
extern "C" int stencil_fused_compute_y(int r) { return stencil_fused_cy(r); }
