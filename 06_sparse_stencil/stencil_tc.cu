/* 06_sparse_stencil/stencil_tc.cu - 2D stencils on dense and on 2:4-sparse tensor cores.
 *
 * What it teaches
 *   A stencil row is a banded matrix: the 16 outputs x0..x0+15 of one grid row take their taps of
 *   row dy from a 32-wide input window, out_segment += A_dy * window, with A_dy a 16 x 32 band of
 *   width 2r + 1 (stencil_bands.h). Stack 8 grid rows as the columns of the window matrix and one
 *   stencil row of one 16 x 8 output tile is one mma of shape m16n8k32; a whole stencil is 2r + 1
 *   of them. The band is mostly zeros: padded into a dense GEMM, the tensor core multiplies
 *   32 - (2r + 1) zeros per row. A column permutation, the strided swap (odd columns p <-> p + 16),
 *   leaves at most 2 non-zeros in every group of 4 columns, which is the pattern the sparse tensor
 *   core skips: mma.sp multiplies only the kept half. The matching permutation of the window's
 *   rows costs no memory traffic: the kernel loads the dense fragment with ldmatrix as before and
 *   moves halves between registers (four half-word merges per fragment, one PRMT each in the sm_90
 *   SASS, no memory traffic).
 *
 * Data layout
 *   Grids: f16, row-major, pitch ld (a multiple of 8 halves: every row is 16-byte aligned).
 *   Shared memory: the block's input tile, row-major, with one 16-byte gap every S rows
 *   (st_smem_offset: conflict-free ldmatrix for rows S apart). The band matrices: per lane
 *   registers packed on the host (st_pack_fragments), loaded once per kernel from L2.
 *   Block and warp tiles: stencil_tc.cuh.
 *
 * Variants (one template, stencil_tc_kernel<tile, SPARSE, F16ACC>; stencil.c's table names them)
 *   v1 dense   (rung c: dense_f32, dense_f16) each A_dy as two mma.sync m16n8k16 (columns
 *              0..15, 16..31), B through ldmatrix.x4 from the shared tile. 2 (2r + 1) mma per
 *              16 x 8 output tile.
 *   v2 sparse  (rung d: sparse_f32, sparse_f16) the swapped, compressed A_dy: one
 *              mma.sp::ordered_metadata m16n8k32 per stencil row, the same ldmatrix.x4 plus the
 *              swap in registers; one metadata register serves two stencil rows (sparsity
 *              selector 0 and 1). 2r + 1 mma.sp per tile: half the tensor-core instructions of
 *              v1. k32 because one instruction then covers the whole 32-wide window of a stencil
 *              row. What the k32 instruction buys per k-column over the dense k16 is measured by
 *              --bench (stencil_probe.cu's probe_rate), not assumed; the figures, and the
 *              whole-kernel speed-ups, are in README.md and NOTES.md.
 *   F16ACC     f16 accumulators (.f16.f16.f16.f16): the same instructions with half the
 *              accumulator registers; the error per step grows (stencil.c --test prints it).
 *   Both reuse each B fragment for every (tile s, row dy) with s + dy = o: a warp's S tiles take
 *   rows S apart, so S + 2r loads feed S (2r + 1) mma (stencil_tc.cuh).
 *
 * The kernel, its launch configuration (tc_cfg) and its plain launcher (stencil_tc_stencil, no
 * harness types: example.cu calls it) live in stencil_tc.cuh; this file is the driver's side.
 *
 * Minimum: sm_80 (mma.sp, cp.async); CUDA 12.5 or newer (::ordered_metadata).
 * Build and run: make; build/bin/06_sparse_stencil --variant sparse_f32 (see stencil.c). */
#include "stencil_kernels.h"

#include "stencil_tc.cuh"

/* ---- the driver's hooks: stencil.c's tensor-core variants through the plain launcher of
 * stencil_tc.cuh (stencil_tc_prepare, stencil_tc_run), so that --test checks what a program
 * calling that launcher gets. The hook owns the workspace. */
typedef struct {
    stencil_tc_plan plan;
    void *workspace;
} tc_hook;

template <bool SPARSE, bool F16ACC>
static cudaError_t hook_prepare(tc_hook *h, int r, const __half *w, const __half *in, __half *p,
                                __half *q, int NY, int NX, int ld, const char **why)
{
    size_t bytes = 0;
    cudaError_t e = stencil_tc_workspace_size<SPARSE>(r, &bytes);
    if (e == cudaSuccess) e = cudaMalloc(&h->workspace, bytes);
    if (e == cudaSuccess)
        e = stencil_tc_prepare<SPARSE, F16ACC>(&h->plan, r, w, in, p, q, NY, NX, ld, h->workspace,
                                               bytes);
    if (e == cudaErrorNotSupported)
        *why = stencil_tc_unsupported<SPARSE, F16ACC>(r, NY, NX, ld, in, p, q);
    return e;
}

extern "C" int stencil_tc_supported(int r) { return tc_radius_built(r); }

extern "C" cudaError_t stencil_tc_hook_prepare(int sparse, int f16acc, int r, const uint16_t *w16,
                                               const void *in, void *p, void *q, int NY, int NX,
                                               int ld, void **hook, const char **why)
{
    *hook = NULL, *why = NULL;
    tc_hook *h = (tc_hook *)calloc(1, sizeof *h);
    if (!h) return cudaErrorMemoryAllocation;
    const __half *w = (const __half *)w16, *src = (const __half *)in;
    __half *dp = (__half *)p, *dq = (__half *)q;
    cudaError_t e;
    if (sparse && f16acc)
        e = hook_prepare<true, true>(h, r, w, src, dp, dq, NY, NX, ld, why);
    else if (sparse)
        e = hook_prepare<true, false>(h, r, w, src, dp, dq, NY, NX, ld, why);
    else if (f16acc)
        e = hook_prepare<false, true>(h, r, w, src, dp, dq, NY, NX, ld, why);
    else
        e = hook_prepare<false, false>(h, r, w, src, dp, dq, NY, NX, ld, why);
    if (e != cudaSuccess) {
        stencil_tc_hook_release(h);
        return e;
    }
    *hook = h;
    return cudaSuccess;
}

extern "C" cudaError_t stencil_tc_hook_launch(const void *hook, int steps, cudaStream_t stream)
{
    const stencil_tc_plan *plan = &((const tc_hook *)hook)->plan;
    if (plan->sparse && plan->f16acc) return stencil_tc_run<true, true>(plan, steps, stream);
    if (plan->sparse) return stencil_tc_run<true, false>(plan, steps, stream);
    if (plan->f16acc) return stencil_tc_run<false, true>(plan, steps, stream);
    return stencil_tc_run<false, false>(plan, steps, stream);
}

extern "C" void stencil_tc_hook_release(void *hook)
{
    tc_hook *h = (tc_hook *)hook;
    if (!h) return;
    if (h->workspace) (void)cudaFree(h->workspace);
    free(h);
}

template <int R> static int regs_r(int sparse, int f16acc)
{
    cudaFuncAttributes fa;
    cudaError_t err;
    if (sparse && f16acc)
        err = cudaFuncGetAttributes(&fa, tc_kernel<R, true, true>::fn);
    else if (sparse)
        err = cudaFuncGetAttributes(&fa, tc_kernel<R, true, false>::fn);
    else if (f16acc)
        err = cudaFuncGetAttributes(&fa, tc_kernel<R, false, true>::fn);
    else
        err = cudaFuncGetAttributes(&fa, tc_kernel<R, false, false>::fn);
    return err == cudaSuccess ? fa.numRegs : -1;
}

extern "C" int stencil_tc_registers(int sparse, int f16acc, int r)
{
    switch (r) {
    case 1: return regs_r<1>(sparse, f16acc);
    case 2: return regs_r<2>(sparse, f16acc);
    case 3: return regs_r<3>(sparse, f16acc);
    case 7: return regs_r<7>(sparse, f16acc);
    default: return -1;
    }
}
