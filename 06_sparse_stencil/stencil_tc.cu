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
 * Minimum: sm_80 (mma.sp, cp.async); CUDA 12.5 or newer (::ordered_metadata).
 * Build and run: make; build/bin/06_sparse_stencil --variant sparse_f32 (see stencil.c). */
#include "stencil_kernels.h"

#include "stencil_tc.cuh"

/* Per radius: rows per warp tile S (register budget: A takes 4 (sparse) or 8 (dense) registers
 * per dy, the accumulators 4 S), warps per block WX x WY; and per kernel the minimum of resident
 * blocks per SM that ptxas is told to fit (__launch_bounds__; 0: none, ptxas chooses). Chosen by
 * measurement (the launch-bounds experiment in NOTES.md): with no minimum every kernel but one
 * kind is fastest; dense_f16 at r = 2 and 3 gains from 4 and 3 blocks per SM; gains under 3%
 * were not taken. */
template <int R> struct tc_cfg {
    static constexpr int S = R <= 3 ? 8 : 4;
    typedef tc_tile<R, S, 4, 2> tile;
    static constexpr int min_blocks(bool sparse, bool f16acc)
    {
        return !sparse && f16acc && R == 2 ? 4 : !sparse && f16acc && R == 3 ? 3 : 0;
    }
};
template <int R, bool SPARSE, bool F16ACC> struct tc_kernel {
    typedef typename tc_cfg<R>::tile T;
    static constexpr auto fn =
        stencil_tc_kernel<T, SPARSE, F16ACC, tc_cfg<R>::min_blocks(SPARSE, F16ACC)>;
};

template <int R, bool SPARSE, bool F16ACC>
static void launch_r(const void *in, void *out, int NY, int NX, int ld, const uint32_t *a_words,
                     const uint32_t *meta, cudaStream_t stream)
{
    typedef typename tc_cfg<R>::tile T;
    const dim3 grid((unsigned)((NX + T::BX - 1) / T::BX), (unsigned)((NY + T::BY - 1) / T::BY));
    tc_kernel<R, SPARSE, F16ACC>::fn<<<grid, T::THREADS, 0, stream>>>(
        (const __half *)in, (__half *)out, NY, NX, ld, a_words, meta);
}

template <int R>
static void launch_kind(int sparse, int f16acc, const void *in, void *out, int NY, int NX, int ld,
                        const uint32_t *a_words, const uint32_t *meta, cudaStream_t stream)
{
    if (sparse && f16acc) launch_r<R, true, true>(in, out, NY, NX, ld, a_words, meta, stream);
    if (sparse && !f16acc) launch_r<R, true, false>(in, out, NY, NX, ld, a_words, meta, stream);
    if (!sparse && f16acc) launch_r<R, false, true>(in, out, NY, NX, ld, a_words, meta, stream);
    if (!sparse && !f16acc) launch_r<R, false, false>(in, out, NY, NX, ld, a_words, meta, stream);
}

extern "C" int stencil_tc_supported(int r) { return r == 1 || r == 2 || r == 3 || r == 7; }

extern "C" int stencil_tc_launch(int sparse, int f16acc, int r, const void *in, void *out, int NY,
                                 int NX, int ld, const uint32_t *a_words, const uint32_t *meta,
                                 cudaStream_t stream)
{
    if (!stencil_tc_supported(r) || NY < 1 || NX < 1 || ld < NX || ld % 8 != 0) return -1;
    switch (r) {
    case 1: launch_kind<1>(sparse, f16acc, in, out, NY, NX, ld, a_words, meta, stream); break;
    case 2: launch_kind<2>(sparse, f16acc, in, out, NY, NX, ld, a_words, meta, stream); break;
    case 3: launch_kind<3>(sparse, f16acc, in, out, NY, NX, ld, a_words, meta, stream); break;
    default: launch_kind<7>(sparse, f16acc, in, out, NY, NX, ld, a_words, meta, stream); break;
    }
    return 0;
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
