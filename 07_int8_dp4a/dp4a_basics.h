/* 07_int8_dp4a/dp4a_basics.h - the launchers of dp4a_basics.cu, called by the C driver
 * dp4a_basics.c: the dp4a/dp2a semantics probe, the one-warp unit tests of the int8 tensor-core
 * path (mma.m16n8k32, ldmatrix on 8-bit data, the GEMM's tile loaders), the throughput
 * benchmarks and a random fill for the cuBLAS figure. Pointers are device pointers; every launcher
 * enqueues on `stream` and returns. */
#ifndef DP4A_BASICS_H
#define DP4A_BASICS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CUDA forms probed; for each, d = op(a, b, c) on 32-bit words (dp4a_basics.c has the table
 * that says what each computes and models it on the host). */
typedef enum {
    DP_DP4A_INT,        /* __dp4a(int, int, int)                     dp4a.s32.s32 */
    DP_DP4A_UINT,       /* __dp4a(unsigned, unsigned, unsigned)      dp4a.u32.u32 */
    DP_DP4A_CHAR4,      /* __dp4a(char4, char4, int)                 dp4a.s32.s32 */
    DP_DP4A_UCHAR4,     /* __dp4a(uchar4, uchar4, unsigned)          dp4a.u32.u32 */
    DP_DP4A_U_S,        /* asm, a unsigned, b signed                 dp4a.u32.s32 */
    DP_DP4A_S_U,        /* asm, a signed, b unsigned                 dp4a.s32.u32 */
    DP_DP2A_LO_INT,     /* __dp2a_lo(int, int, int)                  dp2a.lo.s32.s32 */
    DP_DP2A_HI_INT,     /* __dp2a_hi(int, int, int)                  dp2a.hi.s32.s32 */
    DP_DP2A_LO_UINT,    /* __dp2a_lo(unsigned, unsigned, unsigned)   dp2a.lo.u32.u32 */
    DP_DP2A_HI_UINT,    /* __dp2a_hi(unsigned, unsigned, unsigned)   dp2a.hi.u32.u32 */
    DP_DP2A_LO_SHORT2,  /* __dp2a_lo(short2, char4, int)             dp2a.lo.s32.s32 */
    DP_DP2A_HI_USHORT2, /* __dp2a_hi(ushort2, uchar4, unsigned)      dp2a.hi.u32.u32 */
    DP_N_OPS
} dp_op;

/* d[i] = op(a[i], b[i], c[i]) for i < n, one thread each */
void dp_probe_launch(dp_op op, const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *d,
                     int n, cudaStream_t stream);

/* ---- the int8 tensor-core unit tests (sm_80; imma_ptx.cuh, common/kmajor_tile.cuh) ---------- */
/* D = A B + C with one mma_m16n8k32_s8: A 16x32 row-major int8, B 32x8 row-major (k x n) int8,
 * C and D 16x8 row-major int32; the fragments are packed by hand from global memory with the
 * lane map of imma_ptx.cuh. */
void probe_imma_launch(const int8_t *a, const int8_t *b, const int32_t *c, int32_t *d,
                       cudaStream_t stream);

/* ldmatrix_x4 on 8-bit data: row i (16 bytes) of src goes to the 16-byte shared slot
 * row_slot[i] (0..PROBE_LDM8_SLOTS-1, all different), lane l gives the address of slot
 * row_slot[l], and out[4 l + j] = register j of lane l. */
enum { PROBE_LDM8_SLOTS = 64 };
void probe_ldmatrix_b8_launch(const uint8_t *src, const int *row_slot, uint32_t *out,
                              cudaStream_t stream);

/* D (16x16 int32, row-major) = A (16x64 int8, row-major) * B (64x16 int8, row-major k x n)
 * through the GEMM's path: K-major shared tiles (B stored transposed), plain (swizzled = 0) or
 * XOR-swizzled, fragments with ldmatrix_x4 at the lane offsets of common/kmajor_tile.cuh, two
 * k-steps of 32, two n8 tiles of mma_m16n8k32_s8. */
void probe_imma_tile_launch(int swizzled, const int8_t *a, const int8_t *b, int32_t *d,
                            cudaStream_t stream);

/* ---- throughput benchmarks ------------------------------------------------------------------
 * `blocks` blocks of PEAK_THREADS threads; each thread (dp4a, dp2a) or warp (mma) runs `chains`
 * independent accumulator chains (1, 2, 4 or 8) of `iters` instructions on operands already in
 * registers. clk (may be NULL): per block, clock64 cycles and %globaltimer nanoseconds of
 * thread 0's loop, clk[2 b] and clk[2 b + 1].
 *
 * dp4a, dp2a: thread i uses a[i % 32], b[i % 32]; chain c starts at c0[i % 32] + c;
 *   out[i] = the sum of its chains' final values (modulo 2^32).
 * mma: a holds 6 words per lane, the fragments a[0..3] then b[0..1] (b is not used); chain c of
 *   lane l starts at c0[4 l + e] + c for accumulator element e; out[(warp * 32 + l) * 4 + e] =
 *   the sum over the chains, warp = the global warp index. */
enum { PEAK_THREADS = 128 };
typedef enum { PEAK_DP4A, PEAK_DP2A, PEAK_MMA_S8, PEAK_N_KINDS } peak_kind;
int peak_chains_supported(int chains);
void peak_launch(peak_kind kind, int chains, int blocks, int iters, const uint32_t *a,
                 const uint32_t *b, const int32_t *c0, uint32_t *out, long long *clk,
                 cudaStream_t stream);

/* n pseudo-random int8 values (all of -128..127) from a hash of (seed, index): inputs for the
 * cuBLAS figure without a host round trip. */
void fill_random_i8(int8_t *x, size_t n, uint64_t seed, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
