/* 05_mma_ptx/mma/mma_probe.h - the launchers of mma_probe.cu, called by the C driver mma_probe.c:
 * one-warp unit tests of the PTX wrappers (mma_sync.cuh) and of the fragment loaders
 * (mma_tile.cuh), and the mma.sync throughput benchmark. Pointers are device pointers; 16-bit
 * values are f16 or bf16 bit patterns. Every launcher enqueues on `stream` and returns. */
#ifndef MMA_PROBE_H
#define MMA_PROBE_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* D = A B + C with one mma_m16n8k16 (bf16 = 0: f16 inputs, 1: bf16): A 16x16 row-major, B 16x8
 * row-major (k x n), C and D 16x8 row-major f32. The fragments are packed by hand from global
 * memory with the lane map of mma_sync.cuh. */
void probe_mma_launch(int bf16, const uint16_t *a, const uint16_t *b, const float *c, float *d,
                      cudaStream_t stream);

/* D = A B + C with one mma_m8n8k4_f64 (m16 = 0: A 8x4, B 4x8, C and D 8x8) or mma_m16n8k16_f64
 * (m16 = 1: A 16x16, B 16x8, C and D 16x8), all row-major f64, fragments loaded by the documented
 * map. Returns 0 without launching when the GPU does not run sm_90 code for m16n8k16. */
int probe_dmma_launch(int m16, const double *a, const double *b, const double *c, double *d,
                      cudaStream_t stream);

/* ldmatrix_x4 (trans = 0) or ldmatrix_x4_trans (1): row i (8 values) of src goes to the 16-byte
 * shared-memory slot row_slot[i] (0..PROBE_LDM_SLOTS-1, all different), lane l gives the address
 * of slot row_slot[l], and out[4 l + j] = register j of lane l. */
enum { PROBE_LDM_SLOTS = 64 };
void probe_ldmatrix_launch(int trans, const uint16_t *src, const int *row_slot, uint32_t *out,
                           cudaStream_t stream);

/* cp_async_16 with commit/wait groups: shared memory (64 slots of 16 bytes) is first filled with
 * PROBE_CP_FILL; group 0: lane l copies src_bytes[l] (0..16) bytes of src chunk l to slot
 * (5 l + 3) % 32; group 1: lane l copies all 16 bytes of chunk 32 + l to slot 32 + (7 l + 1) % 32.
 * After wait_group<1> slots 0..31 go to out chunks 0..31, after wait_group<0> slots 32..63 to
 * out chunks 32..63. */
enum { PROBE_CP_FILL = 0xA5 };
void probe_cp_async_launch(const unsigned char *src, const int *src_bytes, unsigned char *out,
                           cudaStream_t stream);

/* D (16x16 f32, row-major) = A (16x32, row-major) * B (32x16, row-major k x n) through shared
 * memory and the fragment loaders of mma_tile.cuh, two k-steps of 16, two n8 tiles:
 *   PROBE_TILE_HAND       K-major tiles (B stored transposed), fragments by hand (32-bit loads)
 *   PROBE_TILE_LDMATRIX   the same tiles, ldmatrix_x4
 *   PROBE_TILE_SWIZZLED   XOR-swizzled K-major tiles, ldmatrix_x4
 *   PROBE_TILE_TRANS      A as above, B kept row-major in shared memory, ldmatrix_x4_trans */
enum {
    PROBE_TILE_HAND,
    PROBE_TILE_LDMATRIX,
    PROBE_TILE_SWIZZLED,
    PROBE_TILE_TRANS,
    PROBE_TILE_MODES
};
void probe_tile_launch(int mode, int bf16, const uint16_t *a, const uint16_t *b, float *d,
                       cudaStream_t stream);

/* The mma.sync throughput benchmark: `blocks` blocks of MMA_PEAK_WARPS warps; every warp runs
 * `chains` independent accumulator chains (1, 2, 4 or 8) of `iters` mma each on the same A and B
 * fragments (frag: 6 words per lane, a[0..3] then b[0..1]); chain c of lane l starts at
 * c0[4 l + i] + c. out[(warp * 32 + l) * 4 + i] = the sum over the chains, warp = the global warp
 * index. */
enum { MMA_PEAK_WARPS = 4 };
int mma_peak_chains_supported(int chains);
/* clk (may be NULL): per block, the SM cycles (clock64) and nanoseconds (%globaltimer) between
 * thread 0's start and end of the mma loop: clk[2 b] and clk[2 b + 1]. Their ratio is the SM
 * clock the run actually held. */
void mma_peak_launch(int bf16, int chains, int blocks, int iters, const uint32_t *frag,
                     const float *c0, float *out, long long *clk, cudaStream_t stream);

/* n pseudo-random values uniform in [-1, 1), rounded to f16 (bf16 = 0) or bf16, from a hash of
 * (seed, index): inputs for the cuBLAS figure without a host round trip. */
void probe_fill_random(int bf16, uint16_t *x, size_t n, uint64_t seed, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
