/* 07_int8_dp4a/correlator.h - the data layouts of 07_correlator (the X-engine of a radio
 * interferometer in 8-bit integers), the index formulas every part uses, and the launchers of
 * correlator.cu.
 *
 * The index functions and the host helpers below are plain C, `static inline`, and marked
 * CORR_HD: the kernels (correlator.cu), the host driver (correlator.c) and the CPU unit tests
 * (test_correlator.c) all use these very functions, so the layout is defined once.
 *
 * What is computed. For every channel c, every station pair i >= j (autocorrelations i == j
 * included) and every polarisation pair (p, q) in {0,1}^2:
 *
 *     V[c][i,j][p][q] = sum over t < T of  x[c][t][i][p] * conj(x[c][t][j][q])
 *
 * with x complex, real and imaginary parts int8 in [-128, 127], accumulated exactly in int32.
 * A receiver is one polarisation of one station: r = 2*station + pol, R = 2*S receivers.
 *
 * int32 is exact for T <= CORR_MAX_T = 65535: one time step adds at most
 * re_r*re_s + im_r*im_s <= 2 * 128 * 128 = 32768 = 2^15 to a component (the bound is reached by
 * an autocorrelation of x = -128 - 128i), and 65535 * 2^15 = 2^31 - 2^15 <= 2^31 - 1, while
 * 65536 * 2^15 = 2^31 overflows. The imaginary part stays within +-32640 per step.
 *
 * ---- the plain layout (what the host generates; what the CPU reference reads) ---------------
 *
 *     int8 x_plain[channel][time][station][pol][re, im]          (complex interleaved)
 *
 * ---- the packed layout (the correlator's input on the GPU; all three implementations) -------
 *
 * The GEMM view of one channel is V = X X^H with X a receivers x time matrix: tensor cores want
 * each receiver's time samples contiguous (the k dimension of mma.m16n8k32 runs along 32-bit
 * registers of four int8), and real and imaginary parts in separate matrices Xr, Xi. So time is
 * cut into blocks of CORR_TB = 32 samples (one k-step of m16n8k32) and, inside a block, each
 * receiver keeps 32 real parts, then 32 imaginary parts: one 64-byte record.
 *
 *     int8 x_packed[channel][time_block][station][pol][re | im][t % 32]
 *
 *       channel c, time block b:  R records of 64 bytes, receiver r = 2*station + pol
 *       +------------------------------------+------------------------------------+---
 *       | r=0 (st 0, pol 0)                  | r=1 (st 0, pol 1)                  | r=2 ...
 *       | re t0 .. re t31 | im t0 .. im t31  | re t0 .. re t31 | im t0 .. im t31  |
 *       +------------------------------------+------------------------------------+---
 *        16 B chunk 0, 1   16 B chunk 2, 3      (time t = 32*b + position in the block)
 *
 * The number of blocks is ceil(T / 32); the samples past T in the last block are zeros, which add
 * nothing to any sum: any T works and nothing is padded at run time. A tile of 64 receivers of
 * one time block is 4 KB of contiguous bytes (one coalesced cp.async burst). This reordering is
 * the "corner turn" a real system does before the X-engine (in the F-engine or a transpose
 * kernel); it is not timed here.
 *
 * ---- the output: the triangular visibility list ---------------------------------------------
 *
 *     int32 vis[channel][baseline][pol_i][pol_j][re, im],   baseline(i, j) = i*(i+1)/2 + j, i >= j
 *
 *       baseline:  0      1      2      3      4      5      6   ...
 *       (i, j):   (0,0)  (1,0)  (1,1)  (2,0)  (2,1)  (2,2)  (3,0) ...
 *
 * S*(S+1)/2 baselines per channel; each is 4 polarisation pairs x (re, im) = 8 int32 = 32 bytes.
 * (V for i < j is the conjugate of V for j, i and is not stored.) */
#ifndef CORRELATOR_H
#define CORRELATOR_H

#include <cuda_runtime_api.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define CORR_HD __host__ __device__
#else
#define CORR_HD
#endif

enum {
    CORR_TB = 32,           /* time samples per block of the packed layout (= MMA_K, s8) */
    CORR_RECORD_BYTES = 64, /* one receiver, one time block: 32 re + 32 im */
    CORR_MAX_T = 65535,     /* largest T for which int32 accumulation is exact */
    CORR_MAX_STATIONS = 8192,
    CORR_MAX_CHANNELS = 65535, /* gridDim.y */
    CORR_TILE_STATIONS = 32    /* stations per side of a block tile, every implementation */
};

/* ---- index formulas -------------------------------------------------------------------------- */
static inline CORR_HD long corr_baselines(long stations) { return stations * (stations + 1) / 2; }
/* i >= j */
static inline CORR_HD long corr_baseline(long i, long j) { return i * (i + 1) / 2 + j; }
/* The inverse: the i, j of baseline b (b >= 0). The same triangle numbers number the block
 * tiles (I, J), I >= J, of a channel, so the kernels use it for their tile too.
 * corr_triangle_row corrects an estimate of i = floor((sqrt(8b + 1) - 1) / 2) in exact integer
 * arithmetic, so a rough estimate is enough: the host takes it from a double square root, the
 * device from a float one (no double-precision slow path in the kernels). */
static inline CORR_HD long corr_triangle_row(long b, long estimate)
{
    long s = estimate < 0 ? 0 : estimate;
    while (s > 0 && s * (s + 1) / 2 > b) s--;
    while ((s + 1) * (s + 2) / 2 <= b) s++;
    return s;
}
static inline CORR_HD void corr_baseline_stations(long b, long *i, long *j)
{
#if defined(__CUDA_ARCH__)
    const long s = corr_triangle_row(b, (long)((sqrtf(8.0f * (float)b + 1.0f) - 1.0f) * 0.5f));
#else
    const long s = corr_triangle_row(b, (long)((sqrt(8.0 * (double)b + 1.0) - 1.0) * 0.5));
#endif
    *i = s;
    *j = b - s * (s + 1) / 2;
}
/* time blocks of the packed layout */
static inline CORR_HD long corr_time_blocks(long T) { return (T + CORR_TB - 1) / CORR_TB; }
/* byte offset of the 64-byte record of receiver r (= 2*station + pol) in channel c, time block b */
static inline CORR_HD size_t corr_packed_offset(long receivers, long time_blocks, long c, long b,
                                                long r)
{
    return (((size_t)c * (size_t)time_blocks + (size_t)b) * (size_t)receivers + (size_t)r) *
           CORR_RECORD_BYTES;
}
static inline CORR_HD size_t corr_packed_bytes(long stations, long channels, long T)
{
    return corr_packed_offset(2 * stations, corr_time_blocks(T), channels, 0, 0);
}
/* index (in int8) of the real part of x[c][t][s][p] in the plain layout; the imaginary is next */
static inline CORR_HD size_t corr_plain_index(long stations, long T, long c, long t, long s, int p)
{
    return ((((size_t)c * (size_t)T + (size_t)t) * (size_t)stations + (size_t)s) * 2 + (size_t)p) *
           2;
}
/* index (in int32) of Re V[c][b][p][q]; Im follows */
static inline CORR_HD size_t corr_vis_index(long baselines, long c, long b, int p, int q)
{
    return (((size_t)c * (size_t)baselines + (size_t)b) * 4 + (size_t)(2 * p + q)) * 2;
}
static inline CORR_HD size_t corr_vis_count(long stations, long channels)
{
    return (size_t)channels * (size_t)corr_baselines(stations) * 8;
}

/* ---- host helpers (C; used by correlator.c and test_correlator.c) ---------------------- */
#if !defined(__CUDA_ARCH__)
/* Writes the packed layout from the plain one; samples past T in the last block become zeros.
 * packed must hold corr_packed_bytes(stations, channels, T) bytes. */
static inline void corr_pack(const int8_t *plain, int8_t *packed, long stations, long channels,
                             long T)
{
    const long R = 2 * stations, nb = corr_time_blocks(T);
    for (long c = 0; c < channels; c++)
        for (long b = 0; b < nb; b++)
            for (long r = 0; r < R; r++) {
                int8_t *rec = packed + corr_packed_offset(R, nb, c, b, r);
                for (int k = 0; k < CORR_TB; k++) {
                    const long t = b * CORR_TB + k;
                    const size_t src =
                        corr_plain_index(stations, T, c, t < T ? t : 0, r / 2, (int)(r % 2));
                    rec[k] = t < T ? plain[src] : 0;
                    rec[CORR_TB + k] = t < T ? plain[src + 1] : 0;
                }
            }
}

/* The reference for one baseline: v[2*(2p+q) + 0/1] = Re/Im of V[c][i,j][p][q] in int64, exactly,
 * straight from the definition (x_i,p times the conjugate of x_j,q). If bound is not NULL it
 * gets, per component, the sum of the absolute values of the products the component adds
 * (|re*re'| + |im*im'| for Re, |im*re'| + |re*im'| for Im): every partial sum of any order of
 * summation is at most that, which is what decides whether an FP32 accumulation is exact. */
static inline void corr_ref_baseline(const int8_t *plain, long stations, long T, long c, long i,
                                     long j, int64_t v[8], int64_t bound[8])
{
    for (int e = 0; e < 8; e++) {
        v[e] = 0;
        if (bound) bound[e] = 0;
    }
    for (long t = 0; t < T; t++)
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 2; q++) {
                const size_t a = corr_plain_index(stations, T, c, t, i, p);
                const size_t b = corr_plain_index(stations, T, c, t, j, q);
                const int64_t ar = plain[a], ai = plain[a + 1], br = plain[b], bi = plain[b + 1];
                /* (ar + i ai) * (br - i bi) = (ar br + ai bi) + i (ai br - ar bi) */
                v[2 * (2 * p + q)] += ar * br + ai * bi;
                v[2 * (2 * p + q) + 1] += ai * br - ar * bi;
                if (bound) {
                    bound[2 * (2 * p + q)] +=
                        (ar * br < 0 ? -ar * br : ar * br) + (ai * bi < 0 ? -ai * bi : ai * bi);
                    bound[2 * (2 * p + q) + 1] +=
                        (ai * br < 0 ? -ai * br : ai * br) + (ar * bi < 0 ? -ar * bi : ar * bi);
                }
            }
}

/* What the FP32 kernel computes for one baseline, bit for bit: per component one f32 FFMA chain
 * over the samples in time order, Re: + ar br, then + ai bi; Im: + ai br, then - ar bi (exactly
 * the kernel's sequence of fmaf; every product of int8 values is exact in f32, so only the
 * additions round, and only once a partial sum passes 2^24). out[] in corr_ref_baseline's order. */
static inline void corr_fp32_emulate(const int8_t *plain, long stations, long T, long c, long i,
                                     long j, float out[8])
{
    for (int e = 0; e < 8; e++) out[e] = 0.0f;
    for (long t = 0; t < T; t++)
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 2; q++) {
                const size_t a = corr_plain_index(stations, T, c, t, i, p);
                const size_t b = corr_plain_index(stations, T, c, t, j, q);
                const float ar = plain[a], ai = plain[a + 1], br = plain[b], bi = plain[b + 1];
                float *re = &out[2 * (2 * p + q)], *im = re + 1;
                *re = fmaf(ar, br, *re);
                *re = fmaf(ai, bi, *re);
                *im = fmaf(ai, br, *im);
                *im = fmaf(-ar, bi, *im);
            }
}
#endif /* !__CUDA_ARCH__ */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the launchers (correlator.cu) -----------------------------------------------------------
 * d_x: the packed input (corr_packed_bytes), d_vis: the visibilities (corr_vis_count int32).
 * Every output element is written; nothing else is. Asynchronous on `stream`. */
typedef void (*corr_launch_fn)(const int8_t *d_x, int32_t *d_vis, int stations, int channels,
                               int time_blocks, cudaStream_t stream);
void corr_fp32_launch(const int8_t *d_x, int32_t *d_vis, int stations, int channels,
                      int time_blocks, cudaStream_t stream);
void corr_dp4a_launch(const int8_t *d_x, int32_t *d_vis, int stations, int channels,
                      int time_blocks, cudaStream_t stream);
void corr_imma_launch(const int8_t *d_x, int32_t *d_vis, int stations, int channels,
                      int time_blocks, cudaStream_t stream);

enum { CORR_FP32, CORR_DP4A, CORR_IMMA, CORR_N_IMPL };
/* 1 if implementation `impl` has code for this GPU in the binary (the IMMA kernel needs sm_80
 * code: a binary built only for older targets holds a stub); else 0 and the reason in why. */
int corr_impl_runnable(int impl, char *why, size_t why_size);
/* Registers per thread, static shared memory per block and threads per block of its kernel. */
void corr_impl_resources(int impl, int *regs, int *smem_bytes, int *threads);

#ifdef __cplusplus
}
#endif
#endif /* CORRELATOR_H */
