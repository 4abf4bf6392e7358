/* 05_mma_ptx/wgmma_probe.h - the launchers of wgmma_probe.cu, called by the C driver
 * wgmma_probe.c: one-warpgroup unit tests of wgmma with operands brought by the TMA or by hand
 * into the 128-byte swizzled layout, and the wgmma throughput benchmark. Pointers are device
 * pointers; 16-bit values are f16 or bf16 bit patterns. sm_90a only. */
#ifndef WGMMA_PROBE_H
#define WGMMA_PROBE_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* D (64 x n, row-major f32) = A (64 x 64) * B^T with B n x 64 (n = 128 or 256), by one warpgroup:
 * A and B are K-contiguous in global memory, m_valid x k_valid and n_valid x k_valid (leading
 * dimension k_valid), and everything of the 64 x 64 and n x 64 tiles outside them is zero.
 * by_tma = 1: the tiles come through the TMA (which zero-fills outside the tensor; k_valid must be
 * a multiple of 8), 0: through plain stores at the swizzle formula's addresses. Then four wgmma
 * m64nNk16 (bf16 = 0: f16 inputs, 1: bf16), and each accumulator register is written to D at the
 * (row, col) of the documented layout. */
void probe_wgmma_launch(int bf16, int n, int by_tma, const uint16_t *a, const uint16_t *b,
                        int m_valid, int n_valid, int k_valid, float *d, cudaStream_t stream);

/* The benchmark: `blocks` blocks of `warpgroups` warpgroups (1..PEAK_MAX_WARPGROUPS); each issues
 * `iters` groups of 4 wgmma m64n256k16 (k = 64) on A (64 x 64) and B (256 x 64, K-contiguous),
 * which it copies to shared memory once. Every warpgroup ends with D = iters * A B^T; out
 * (2 x 64 x 256 f32) receives the first warpgroup of block 0 and the last of the last block. */
enum { PEAK_MAX_WARPGROUPS = 3 };
void peak_launch(int bf16, int warpgroups, int blocks, int iters, const uint16_t *a,
                 const uint16_t *b, float *out, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
