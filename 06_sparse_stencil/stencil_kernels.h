/* 06_sparse_stencil/stencil_kernels.h - the launchers of the chapter's .cu files, called by the C
 * driver stencil.c. Grids are f16, row-major with a pitch of ld halves (a multiple of 8 for every
 * kernel here); pointers are device pointers; every launcher enqueues on `stream` and returns.
 * The CUDA-core launchers check their arguments and return -1 for a configuration they were not
 * built for; the caller checks cudaGetLastError (TC_LAUNCH_CHECK) after every call. The
 * tensor-core hooks return a cudaError_t (the plain launcher's, stencil_tc.cuh). */
#ifndef STENCIL_KERNELS_H
#define STENCIL_KERNELS_H

#include "stencil_fuse.h"

#include <cuda_runtime_api.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- stencil_tc.cu: tensor cores (rungs c, d), the driver's hooks -----------------------------
 * The plain launcher of stencil_tc.cuh for a C caller. sparse = 0: mma.sync m16n8k16 on the dense
 * band; 1: mma.sp m16n8k32 on the swapped, compressed band. f16acc: f16 instead of f32
 * accumulators. w16: the (2r+1)^2 weights as f16 bits. Step 1 reads `in` and writes p, then
 * p -> q, q -> p, ...; the frame of p and q is never written. Built for r in {1, 2, 3, 7} (the
 * radii of the chapter's shapes): stencil_tc_supported says which.
 * stencil_tc_hook_prepare: allocates the workspace, packs the bands (stencil_tc_prepare) and
 *   returns the hook in *hook; cudaErrorNotSupported with the reason in *why (nothing to
 *   release), or another error.
 * stencil_tc_hook_launch: `steps` steps on `stream` (stencil_tc_run); only launches.
 * stencil_tc_hook_release: frees the workspace and the hook. */
int stencil_tc_supported(int r);
cudaError_t stencil_tc_hook_prepare(int sparse, int f16acc, int r, const uint16_t *w16,
                                    const void *in, void *p, void *q, int NY, int NX, int ld,
                                    void **hook, const char **why);
cudaError_t stencil_tc_hook_launch(const void *hook, int steps, cudaStream_t stream);
void stencil_tc_hook_release(void *hook);
/* registers per thread of the kernel (cudaFuncGetAttributes), for the --list/--test report */
int stencil_tc_registers(int sparse, int f16acc, int r);

/* ---- stencil_fused.cu: rung e, the tensor-core rungs with F steps per pass ---------------------
 * The plain launcher of stencil_fused.cuh for a C caller, as the hooks above. fuse: F, 1 ..
 * ST_FUSE_MAX, or 0 for F chosen by the radius (st_fuse_default). The steps run as passes of F:
 * pass 1 reads `in` and writes p, pass 2 q, ...; stencil_fused_hook_result says where the grid
 * is after `steps` steps: 0 = in, 1 = p, 2 = q (st_fuse_result). */
cudaError_t stencil_fused_hook_prepare(int sparse, int f16acc, int r, const uint16_t *w16,
                                       const void *in, void *p, void *q, int NY, int NX, int ld,
                                       int fuse, void **hook, const char **why);
cudaError_t stencil_fused_hook_launch(const void *hook, int steps, cudaStream_t stream);
int stencil_fused_hook_result(const void *hook, int steps);
int stencil_fused_hook_fuse(const void *hook); /* the F it runs */
void stencil_fused_hook_release(void *hook);
int stencil_fused_registers(int sparse, int f16acc, int r);
/* the tile plan of F steps per pass at radius r on NY x NX (stencil_fuse.h): 0, or -1 when there is
 * no kernel for r or F is not 1 .. ST_FUSE_MAX; and the block's compute region CX x CY */
int stencil_fused_plan_for(int r, int fuse, long NY, long NX, st_fuse_plan *plan);
int stencil_fused_compute_x(int r);
int stencil_fused_compute_y(int r);

/* ---- stencil_pipe.cu: rung f, rung e with the next tile's loads under this tile's mma ---------
 * As stencil_fused_hook_*, with grid: the resident blocks, 0 for as many as fit (occupancy x SMs),
 * else that many (--test forces a small grid, so that every block walks several tiles). */
cudaError_t stencil_pipe_hook_prepare(int sparse, int f16acc, int r, const uint16_t *w16,
                                      const void *in, void *p, void *q, int NY, int NX, int ld,
                                      int fuse, int grid, void **hook, const char **why);
cudaError_t stencil_pipe_hook_launch(const void *hook, int steps, cudaStream_t stream);
int stencil_pipe_hook_result(const void *hook, int steps);
void stencil_pipe_hook_release(void *hook);
int stencil_pipe_registers(int sparse, int f16acc, int r);

/* ---- stencil_stmatrix.cu: rung g, rung e with the write-back by stmatrix.trans (sm_90) ---------
 * As stencil_fused_hook_* (fuse 0: F by the radius). */
cudaError_t stencil_stmatrix_hook_prepare(int sparse, int f16acc, int r, const uint16_t *w16,
                                          const void *in, void *p, void *q, int NY, int NX, int ld,
                                          int fuse, void **hook, const char **why);
cudaError_t stencil_stmatrix_hook_launch(const void *hook, int steps, cudaStream_t stream);
int stencil_stmatrix_hook_result(const void *hook, int steps);
void stencil_stmatrix_hook_release(void *hook);
int stencil_stmatrix_registers(int sparse, int f16acc, int r);

/* ---- stencil_stmatrix_pipe.cu: rung h, rung g's write-back in rung f's persistent kernel ------
 * As stencil_pipe_hook_* (fuse 0: F by the radius; grid 0: resident blocks by the occupancy). */
cudaError_t stencil_stmatrix_pipe_hook_prepare(int sparse, int f16acc, int r, const uint16_t *w16,
                                               const void *in, void *p, void *q, int NY, int NX,
                                               int ld, int fuse, int grid, void **hook,
                                               const char **why);
cudaError_t stencil_stmatrix_pipe_hook_launch(const void *hook, int steps, cudaStream_t stream);
int stencil_stmatrix_pipe_hook_result(const void *hook, int steps);
void stencil_stmatrix_pipe_hook_release(void *hook);
int stencil_stmatrix_pipe_registers(int sparse, int f16acc, int r);

/* ---- stencil_half2.cu: CUDA cores in half2 with F steps per pass (rung b2) -------------------
 * w[i] holds weight i as f16 bits in both halves (the pair (w, w) of one HFMA2). star = 1: only
 * the taps with dy = 0 or dx = 0. Built for r in {1, 2, 3, 7}, star for r <= 3.
 * stencil_h2_plan: the tile plan of F steps per pass (stencil_fuse.h), 0 or -1.
 * stencil_h2_run: `steps` steps as passes of F = fuse (1 .. ST_FUSE_MAX, the last pass shorter),
 *   pass 1 in -> p, pass 2 p -> q, ... (st_fuse_result); -1, with nothing launched, for a
 *   configuration it was not built for (ld must be a multiple of 8). */
typedef struct {
    uint32_t w[15 * 15];
} st_weights_h2;
int stencil_h2_supported(int r, int star);
int stencil_h2_plan(int r, int fuse, long NY, long NX, st_fuse_plan *plan);
int stencil_h2_run(int r, int star, int fuse, const void *in, void *p, void *q, int NY, int NX,
                   int ld, const st_weights_h2 *w, int steps, cudaStream_t stream);

/* ---- stencil_cuda.cu: CUDA cores (rung b), and the frame restore of the cuDNN rung ---------- */
enum { ST_W_MAX = 15 * 15 };
typedef struct {
    float w[ST_W_MAX]; /* w[(dy + r) * (2r + 1) + dx + r], the f16 weights as f32 */
} st_weights_f32;
/* star = 1: only the taps with dy = 0 or dx = 0 (the others must be zero). Built for r in
 * {1, 2, 3, 7} with star only for r <= 3. */
int stencil_cuda_supported(int r, int star);
int stencil_cuda_launch(int r, int star, const void *in, void *out, int NY, int NX, int ld,
                        const st_weights_f32 *w, cudaStream_t stream);
/* dst's frame of width r (the cells that are not interior) = init's */
void stencil_restore_frame_launch(int r, const void *init, void *dst, int NY, int NX, int ld,
                                  cudaStream_t stream);

/* ---- stencil_probe.cu: one-warp unit tests of the fragment layouts --------------------------
 * Registers in and out as lane-major arrays: x[lane * n + j].
 * probe_mma_sp: d0 = mma_sp<SEL 0>(a0, b, e) + c and d1 = mma_sp<SEL 1>(a1, b, e) + c with the
 *   same metadata register e (a: 4 words, b: 4, e: 1, c/d: 4 f32 bit patterns or 2 f16x2 words).
 * probe_mma_dense: d = mma m16n8k16 (a: 4 words, b: 2) + c. */
void probe_mma_sp_launch(int f16acc, const uint32_t *a0, const uint32_t *a1, const uint32_t *b,
                         const uint32_t *e, const uint32_t *c, uint32_t *d0, uint32_t *d1,
                         cudaStream_t stream);
void probe_mma_dense_launch(int f16acc, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                            uint32_t *d, cudaStream_t stream);
/* The B loader of the r = 3 kernels, alone: block (bx, by) of the grid fills its shared tile the
 * way the kernel does, then warp (wx, wy) loads every window oo = 0 .. S + 2r - 1:
 * raw[(oo * 32 + lane) * 4 + j] = the ldmatrix registers, swapped[...] = after the strided swap.
 * probe_b_geometry gives the tile's R, S, WX, WY, BX, BY (the arrays hold S + 2R windows). */
void probe_b_geometry(int *R, int *S, int *WX, int *WY, int *BX, int *BY);
void probe_b_loader_launch(const void *grid, int NY, int ld, int bx, int by, int wx, int wy,
                           uint32_t *raw, uint32_t *swapped, cudaStream_t stream);
/* The throughput kernel: `blocks` blocks of ST_RATE_WARPS warps, each warp `chains` (2, 4 or 8;
 * any other count returns -1) independent chains of `iters` mma (sparse = 0: mma.sync m16n8k16,
 * 1: mma.sp m16n8k32 selector 0, both f16 in, f32 accumulators) on one set of registers,
 * frag[lane * 9 + j]: A (j = 0..3), B (4..7; dense uses 4, 5), metadata (8); c0[lane * 4 + i]
 * the start of accumulator i; out[(warp * 32 + lane) * 4 + i] = the sum of its chains.
 * mix: 0, or 1 or 2 prmt.b32 after each mma on registers of their own (8 chains only): the rate
 * with ALU work between the mmas, as the sparse stencil's step has. */
enum { ST_RATE_WARPS = 4, ST_RATE_MAX_MIX = 2 };
int probe_rate_launch(int sparse, int chains, int mix, int blocks, int iters, const uint32_t *frag,
                      const float *c0, float *out, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
