/* 06_sparse_stencil/stencil_stmatrix.cu - the driver's side of rung g (stencil_stmatrix.cuh: the
 * kernel and its plain launcher; PART3.md, "Rung g": the lesson).
 *
 * What it teaches: nothing of its own. It binds stencil.c's rows dense_f16_stmatrix and
 * sparse_f16_stmatrix (f16 accumulators, as rung e's) to the plain launcher, with F chosen by the
 * radius or forced. The hook owns the workspace of packed bands.
 *
 * Minimum: sm_90 (stmatrix); CUDA 12.5. Build and run: see stencil.c. */
#include "stencil_fused_hook.cuh"

#include "stencil_stmatrix.cuh"

struct rung_g {
    typedef stencil_fused_plan plan;
    static constexpr const char *f32_why =
        "the driver builds the stmatrix kernels with f16 accumulators only";
    template <bool SPARSE>
    static cudaError_t prepare(plan *pl, int r, const __half *w, const __half *in, __half *p,
                               __half *q, int NY, int NX, int ld, void *ws, size_t bytes, int fuse,
                               int grid)
    {
        (void)grid; /* one block per tile */
        return stencil_stmatrix_prepare<SPARSE, true>(pl, r, w, in, p, q, NY, NX, ld, ws, bytes,
                                                      fuse);
    }
    template <bool SPARSE>
    static const char *unsupported(int r, int NY, int NX, int ld, const __half *in, const __half *p,
                                   const __half *q, int fuse)
    {
        return stencil_stmatrix_unsupported<SPARSE, true>(r, NY, NX, ld, in, p, q, fuse);
    }
    template <bool SPARSE> static cudaError_t run(const plan *pl, int steps, cudaStream_t stream)
    {
        return stencil_stmatrix_run<SPARSE, true>(pl, steps, stream);
    }
    template <bool SPARSE> static const void *kernel(int r)
    {
        return stencil_stmatrix_kernel_for<SPARSE, true>(r);
    }
    static const stencil_fused_plan &fused(const plan *pl) { return *pl; }
};

extern "C" cudaError_t stencil_stmatrix_hook_prepare(int sparse, int f16acc, int r,
                                                     const uint16_t *w16, const void *in, void *p,
                                                     void *q, int NY, int NX, int ld, int fuse,
                                                     void **hook, const char **why)
{
    return fused_hook_prepare<rung_g>(sparse, f16acc, r, w16, in, p, q, NY, NX, ld, fuse, 0, hook,
                                      why);
}
extern "C" cudaError_t stencil_stmatrix_hook_launch(const void *hook, int steps,
                                                    cudaStream_t stream)
{
    return fused_hook_launch<rung_g>(hook, steps, stream);
}
extern "C" int stencil_stmatrix_hook_result(const void *hook, int steps)
{
    return fused_hook_result<rung_g>(hook, steps);
}
extern "C" void stencil_stmatrix_hook_release(void *hook) { fused_hook_release<rung_g>(hook); }
extern "C" int stencil_stmatrix_registers(int sparse, int f16acc, int r)
{
    return fused_hook_registers<rung_g>(sparse, f16acc, r);
}
