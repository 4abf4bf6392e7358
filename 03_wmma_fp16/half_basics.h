/* 03_wmma_fp16/half_basics.h - the launchers of half_basics.cu (f16 AXPY and the precision
 * probes), called by the C driver half_basics.c. Pointers are device pointers. */
#ifndef HALF_BASICS_H
#define HALF_BASICS_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y = a*x + y for n halves (f16 bit patterns), a an f16 bit pattern. Any n >= 0 and any
 * 2-byte-aligned x and y; the vector variants peel the unaligned head and the short tail. */
void axpy_h1_launch(long n, uint16_t a, const uint16_t *x, uint16_t *y, cudaStream_t stream);
void axpy_h2_launch(long n, uint16_t a, const uint16_t *x, uint16_t *y, cudaStream_t stream);
void axpy_h8_launch(long n, uint16_t a, const uint16_t *x, uint16_t *y, cudaStream_t stream);

/* The range probes: out[i] = the f16 bits of probe i computed on the GPU (the table of probes,
 * with what each computes, is half_probes in half_basics.cu; n_probes entries). */
enum { HALF_N_PROBES = 12 };
void half_probes_run(uint16_t *d_out, cudaStream_t stream);

/* One thread, in order: acc16 = fma.rn.f16(x[i], y[i], acc16) and acc32 = fma.rn.f32(x[i],
 * y[i], acc32) for i = 0 .. n-1, both starting at 0. d_out16 gets acc16's bits, d_out32 acc32. */
void dot_serial_launch(long n, const uint16_t *x, const uint16_t *y, uint16_t *d_out16,
                       float *d_out32, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
