/* 10_flash_attention/attn_probe.h - the launchers of attn_probe.cu, called by the C driver
 * attn_probe.c: one-warpgroup unit tests of attn_wgmma.cuh's wrappers, the ones v2_wgmma relies
 * on. Pointers are device pointers; 16-bit values are f16 or bf16 bit patterns. sm_90a only. */
#ifndef ATTN_PROBE_H
#define ATTN_PROBE_H

#include "attn_layout.h"

#include <cuda_runtime_api.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    PROBE_K_MAX = 32,   /* k (keys) of the register-A test: at most 2 k-steps of 16 */
    PROBE_TMA_ROWS = 64 /* rows of a box in the TMA test */
};

/* D (64 x n f32, row-major) = A (64 x 16 ksteps) * B (16 ksteps x n), n = 64 or 128, ksteps = 1 or
 * 2, by one warpgroup, as v2_wgmma's O += P V:
 *   a: 64 x PROBE_K_MAX f32, row-major, values of the input type. Each thread reads its elements
 *      into an array shaped like an f32 accumulator of 64 x 32 and packs pairs of it with
 *      attn_pack2 into the register A operand (attn_wgmma.cuh's a[c][q] = pack(d[8c+2q], ...));
 *   b: PROBE_K_MAX x n, n contiguous (V's layout), into shared memory with the 128-byte swizzle in
 *      panels of 64 values of n by PROBE_K_MAX rows; by_tma = 1: by attn_tma_load_4d through an
 *      attn_tma_map_bshd map of 16 ksteps rows (the rest zero-filled), 0: by plain stores at the
 *      swizzle formula's addresses (every row);
 * then ksteps attn_wgmma_rs<T, n> with attn_wgmma_desc_mn_sw128 (the first with scale-d = 0 over
 * NaN), and every accumulator register goes to D(row, col) by the documented layout.
 * NULL, or why the tensor map was refused (nothing launched). */
const char *probe_rs_launch(int bf16, int n, int ksteps, int by_tma, const float *a,
                            const uint16_t *b, float *d, cudaStream_t stream);

/* The 4-D TMA: x is a BSHD tensor (B x S x H x D, strides st in elements), D = 64 or 128. Block
 * (tile, h, b) of a grid of ceil(S / PROBE_TMA_ROWS) x H x B fills its shared tile with 0xFF,
 * loads the boxes (d0 = 64 p, s0 = PROBE_TMA_ROWS tile, h, b) of every panel p with
 * attn_tma_load_4d from an attn_tma_map_bshd map, and copies its shared bytes as they lie
 * (swizzled) to out: PROBE_TMA_ROWS x 64 values per panel, panels in order, blocks in the order
 * ((b H + h) tiles + tile). NULL, or why the tensor map was refused (nothing launched). */
const char *probe_tma_launch(int bf16, const uint16_t *x, int B, int S, int H, int D,
                             attn_strides st, uint16_t *out, cudaStream_t stream);

/* v3_pingpong's turns: two warpgroups of one block alternate `rounds` times each through
 * named_bar_sync / named_bar_arrive (common/wgmma_parts.cuh) exactly as v3's consumers do; in its
 * turn a warpgroup writes its number (0 or 1) at log[position] and moves the position on (after a
 * wait that would let an unheld warpgroup read the same position). count: the final position.
 * log: 2 rounds ints, expected 0, 1, 0, 1, ... and count 2 rounds. */
void probe_turns_launch(int rounds, int *log, int *count, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
