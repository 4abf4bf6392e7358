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
#include "stencil_fused_hook.cuh"

struct rung_e {
    typedef stencil_fused_plan plan;
    static constexpr const char *f32_why =
        "the driver builds the fused kernels with f16 accumulators only";
    template <bool SPARSE>
    static cudaError_t prepare(plan *pl, int r, const __half *w, const __half *in, __half *p,
                               __half *q, int NY, int NX, int ld, void *ws, size_t bytes, int fuse,
                               int grid)
    {
        (void)grid; /* one block per tile */
        return stencil_fused_prepare_fuse<SPARSE, true>(pl, r, w, in, p, q, NY, NX, ld, ws, bytes,
                                                        fuse);
    }
    template <bool SPARSE>
    static const char *unsupported(int r, int NY, int NX, int ld, const __half *in, const __half *p,
                                   const __half *q, int fuse)
    {
        return stencil_fused_unsupported<SPARSE, true>(r, NY, NX, ld, in, p, q, fuse);
    }
    template <bool SPARSE> static cudaError_t run(const plan *pl, int steps, cudaStream_t stream)
    {
        return stencil_fused_run<SPARSE, true>(pl, steps, stream);
    }
    template <bool SPARSE> static const void *kernel(int r)
    {
        return stencil_fused_kernel_for<SPARSE, true>(r);
    }
    static const stencil_fused_plan &fused(const plan *pl) { return *pl; }
};

extern "C" cudaError_t stencil_fused_hook_prepare(int sparse, int f16acc, int r,
                                                  const uint16_t *w16, const void *in, void *p,
                                                  void *q, int NY, int NX, int ld, int fuse,
                                                  void **hook, const char **why)
{
    return fused_hook_prepare<rung_e>(sparse, f16acc, r, w16, in, p, q, NY, NX, ld, fuse, 0, hook,
                                      why);
}
extern "C" cudaError_t stencil_fused_hook_launch(const void *hook, int steps, cudaStream_t stream)
{
    return fused_hook_launch<rung_e>(hook, steps, stream);
}
extern "C" int stencil_fused_hook_result(const void *hook, int steps)
{
    return fused_hook_result<rung_e>(hook, steps);
}
extern "C" int stencil_fused_hook_fuse(const void *hook)
{
    return ((const fused_hook<rung_e> *)hook)->plan.fuse;
}
extern "C" void stencil_fused_hook_release(void *hook) { fused_hook_release<rung_e>(hook); }
extern "C" int stencil_fused_registers(int sparse, int f16acc, int r)
{
    return fused_hook_registers<rung_e>(sparse, f16acc, r);
}

extern "C" int stencil_fused_plan_for(int r, int fuse, long NY, long NX, st_fuse_plan *plan)
{
    if (!tc_radius_built(r) || fuse < 1 || fuse > ST_FUSE_MAX) return -1;
    return st_fuse_plan_make(stencil_fused_cx(r), stencil_fused_cy(r), r, fuse, NY, NX, plan);
}
extern "C" int stencil_fused_compute_x(int r) { return stencil_fused_cx(r); }
extern "C" int stencil_fused_compute_y(int r) { return stencil_fused_cy(r); }
