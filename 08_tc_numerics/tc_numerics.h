/* 08_tc_numerics/tc_numerics.h - the launchers of tc_numerics.cu, called by the C driver
 * main.c: independent dot products through one mma.sync each. Pointers are device pointers. */
#ifndef TC_NUMERICS_H
#define TC_NUMERICS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The instruction variants (input x input + accumulator):
 *   NK_F16F32   m16n8k16 f16 -> f32        NK_E4M3F32  m16n8k32 e4m3 -> f32 (sm_89)
 *   NK_F16F16   m16n8k16 f16 -> f16        NK_E5M2F32  m16n8k32 e5m2 -> f32 (sm_89)
 *   NK_BF16F32  m16n8k16 bf16 -> f32       NK_E4M3F16  m16n8k32 e4m3 -> f16 (sm_89)
 *   NK_TF32F32  m16n8k8 tf32 -> f32        NK_E5M2F16  m16n8k32 e5m2 -> f16 (sm_89) */
enum {
    NK_F16F32,
    NK_F16F16,
    NK_BF16F32,
    NK_TF32F32,
    NK_E4M3F32,
    NK_E5M2F32,
    NK_E4M3F16,
    NK_E5M2F16,
    /* the same eight through Hopper's wgmma (sm_90a), m64n8 with k = 16, 8 or 32
     * (tc_numerics_wgmma.cu): NK_WG_F16F32 + (kind - NK_F16F32) */
    NK_WG_F16F32,
    NK_WG_F16F16,
    NK_WG_BF16F32,
    NK_WG_TF32F32,
    NK_WG_E4M3F32,
    NK_WG_E5M2F32,
    NK_WG_E4M3F16,
    NK_WG_E5M2F16,
    NK_COUNT
};
enum { NK_MMA_COUNT = NK_WG_F16F32 }; /* the mma.sync kinds: 0 .. NK_MMA_COUNT - 1 */

/* The instruction's K: 16, 8 or 32 */
int numerics_kind_k(int kind);
/* 1 when this binary can run the kind on the current device; 0 with the reason in why (the
 * FP8 kinds need code built for sm_89 or newer) */
int numerics_kind_runnable(int kind, char *why, size_t why_size);

/* d[i] = c[i] + sum_j a[i*K + j] * b[i*K + j] for i < n, one mma.sync per eight dot products:
 * dot i of a warp's eight is row i of A, column i of B and element (i, i) of C, every other
 * element zero; D(i, i) is the answer. Elements travel as uint32_t (f16/bf16 in the low 16 bits,
 * e4m3/e5m2 in the low 8, tf32 as f32 bits); c and d are f32 bits, or f16 bits in the low 16
 * (the high 16 bits of d are written as zero). */
void numerics_dots_launch(int kind, long n, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                          uint32_t *d, cudaStream_t stream);

/* The wgmma kinds (tc_numerics_wgmma.cu), called by the two above: the same contract, with
 * eight dot products per wgmma m64n8 (rows 0..7 of A, rows 0..7 of the K-major B). */
int numerics_wgmma_runnable(int kind, char *why, size_t why_size);
void numerics_wgmma_dots_launch(int kind, long n, const uint32_t *a, const uint32_t *b,
                                const uint32_t *c, uint32_t *d, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* TC_NUMERICS_H */
