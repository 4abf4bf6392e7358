/* 03_wmma_fp16/half_basics.cu - half and half2 before tensor cores: an f16 AXPY three ways, and
 * the probes behind the precision lesson.
 *
 * What it teaches
 *   f16 halves the bytes of f32, so a bandwidth-bound kernel such as AXPY (y = a*x + y) can run
 *   twice as many elements per second, if it moves its bytes efficiently. A half is 2 bytes, and
 *   a memory instruction that moves 2 bytes per thread wastes most of the load/store units'
 *   width. half2 packs two halves in 32 bits and __hfma2 does both FMAs in one instruction; a
 *   16-byte vector moves 8 halves per load. The precision lesson (half_basics.c prints it) is
 *   what f16 costs: 11 significant bits, a range of 6e-5 .. 65504, and sums that stop growing.
 *
 * Layout: x and y are arrays of n halves; any n >= 0, any 2-byte aligned pointers.
 * Minimum: sm_70 (f16 arithmetic exists from sm_53; the chapter needs sm_70 for WMMA).
 *
 * The variants
 *   h1_hfma   one half per thread, __hfma (fma.rn.f16). Each warp moves 64 bytes per load
 *             instruction: correct, simple, and far from the copy bandwidth.
 *   h2_hfma2  two halves per thread as a half2, __hfma2: one instruction does both FMAs and each
 *             load moves 4 bytes per thread. Needs x and y 4-byte aligned, which a pointer past an
 *             odd element is not: the launcher peels one element when both are misaligned the
 *             same way, and an odd n leaves one element for a scalar tail.
 *   h8_vec16  eight halves per thread through one 16-byte load of x, one of y and one store
 *             (uint4 reinterpreted as four half2): the widest access a thread can make, so the
 *             fewest instructions per byte. Peels up to 7 head elements to reach 16-byte
 *             alignment and handles the tail of n % 8 elements; x and y misaligned differently
 *             (no common alignment) fall back to h1_hfma.
 */
#include "half_basics.h"

#include <cuda_fp16.h>
#include <stdint.h>

#include "check.h"

constexpr int AXPY_THREADS = 256;

static __device__ __forceinline__ half as_half(uint16_t bits) { return __ushort_as_half(bits); }

/* Elements handled one at a time around a vector body: [0, head) and [tail, n). Thread t of
 * the grid takes head element t and tail element tail + t. */
static __device__ __forceinline__ void axpy_edges(long n, long head, long tail, half a,
                                                  const half *__restrict__ x, half *__restrict__ y)
{
    const long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < head) y[t] = __hfma(a, x[t], y[t]);
    if (tail + t < n) y[tail + t] = __hfma(a, x[tail + t], y[tail + t]);
}

__global__ void __launch_bounds__(AXPY_THREADS)
    axpy_h1(long n, uint16_t a_bits, const half *__restrict__ x, half *__restrict__ y)
{
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hfma(as_half(a_bits), x[i], y[i]);
}

/* body: pairs [head, head + 2*pairs) */
__global__ void __launch_bounds__(AXPY_THREADS)
    axpy_h2(long n, long head, long pairs, uint16_t a_bits, const half *__restrict__ x,
            half *__restrict__ y)
{
    const half a = as_half(a_bits);
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs) {
        const half2 *x2 = (const half2 *)(x + head);
        half2 *y2 = (half2 *)(y + head);
        y2[i] = __hfma2(__half2half2(a), x2[i], y2[i]);
    }
    axpy_edges(n, head, head + 2 * pairs, a, x, y);
}

/* body: vectors of 8 halves [head, head + 8*vecs) */
__global__ void __launch_bounds__(AXPY_THREADS)
    axpy_h8(long n, long head, long vecs, uint16_t a_bits, const half *__restrict__ x,
            half *__restrict__ y)
{
    const half a = as_half(a_bits);
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < vecs) {
        const uint4 xv = ((const uint4 *)(x + head))[i];
        uint4 yv = ((const uint4 *)(y + head))[i];
        const half2 a2 = __half2half2(a);
        /* the four 32-bit words of a 16-byte vector are four half2 */
        const half2 *xh = (const half2 *)&xv;
        half2 *yh = (half2 *)&yv;
#pragma unroll
        for (int w = 0; w < 4; w++) yh[w] = __hfma2(a2, xh[w], yh[w]);
        ((uint4 *)(y + head))[i] = yv;
    }
    axpy_edges(n, head, head + 8 * vecs, a, x, y);
}

static unsigned blocks_for(long work)
{
    long b = (work + AXPY_THREADS - 1) / AXPY_THREADS;
    return (unsigned)(b > 0 ? b : 1);
}

extern "C" void axpy_h1_launch(long n, uint16_t a, const uint16_t *x, uint16_t *y,
                               cudaStream_t stream)
{
    if (n <= 0) return;
    axpy_h1<<<blocks_for(n), AXPY_THREADS, 0, stream>>>(n, a, (const half *)x, (half *)y);
}

/* The vector variants: head elements until x (and y, misaligned the same way) reach a multiple
 * of `bytes`; whole vectors; then the tail. Misaligned differently: no vector path at all. */
static bool split_for_vectors(long n, const uint16_t *x, const uint16_t *y, int bytes, long *head,
                              long *vecs)
{
    const uintptr_t mx = (uintptr_t)x % bytes, my = (uintptr_t)y % bytes;
    if (mx != my) return false;
    const int per_vec = bytes / 2;
    long h = mx ? (long)(bytes - mx) / 2 : 0;
    if (h > n) h = n;
    *head = h;
    *vecs = (n - h) / per_vec;
    return true;
}

extern "C" void axpy_h2_launch(long n, uint16_t a, const uint16_t *x, uint16_t *y,
                               cudaStream_t stream)
{
    long head, pairs;
    if (n <= 0) return;
    if (!split_for_vectors(n, x, y, 4, &head, &pairs)) return axpy_h1_launch(n, a, x, y, stream);
    /* enough threads for the pairs and for the (at most 1 + 1) edge elements */
    axpy_h2<<<blocks_for(pairs > 2 ? pairs : 2), AXPY_THREADS, 0, stream>>>(
        n, head, pairs, a, (const half *)x, (half *)y);
}

extern "C" void axpy_h8_launch(long n, uint16_t a, const uint16_t *x, uint16_t *y,
                               cudaStream_t stream)
{
    long head, vecs;
    if (n <= 0) return;
    if (!split_for_vectors(n, x, y, 16, &head, &vecs)) return axpy_h1_launch(n, a, x, y, stream);
    /* enough threads for the vectors and for up to 7 head and 7 tail elements */
    axpy_h8<<<blocks_for(vecs > 7 ? vecs : 7), AXPY_THREADS, 0, stream>>>(
        n, head, vecs, a, (const half *)x, (half *)y);
}

/* ---- the precision probes --------------------------------------------------------------------
 * Each probe is one f16 operation on constants; half_basics.c holds the same table with the
 * explanation and computes the expected bits on the host. The operands are passed in as f32
 * values so that the compiler cannot fold the f16 arithmetic at compile time. */
__global__ void half_probes(const float *in, uint16_t *out)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    const float *v = in;
    int i = 0;
    out[i++] = __half_as_ushort(__float2half_rn(v[0]));                                 /* 65504 */
    out[i++] = __half_as_ushort(__float2half_rn(v[1]));                                 /* 65519 */
    out[i++] = __half_as_ushort(__float2half_rn(v[2]));                                 /* 65520 */
    out[i++] = __half_as_ushort(__hmul(__float2half_rn(v[3]), __float2half_rn(v[3])));  /* 300^2 */
    out[i++] = __half_as_ushort(__float2half_rn(v[4]));                                 /* 2^-14 */
    out[i++] = __half_as_ushort(__float2half_rn(v[5]));                                 /* 1e-6 */
    out[i++] = __half_as_ushort(__float2half_rn(v[6]));                                 /* 2^-24 */
    out[i++] = __half_as_ushort(__float2half_rn(v[7]));                                 /* 1e-8 */
    out[i++] = __half_as_ushort(__hmul(__float2half_rn(v[8]), __float2half_rn(v[8])));  /* 1e-3^2 */
    out[i++] = __half_as_ushort(__hadd(__float2half_rn(v[9]), __float2half_rn(v[10]))); /* 2048+1 */
    out[i++] =
        __half_as_ushort(__hadd(__float2half_rn(v[11]), __float2half_rn(v[12]))); /* 1+2^-11 */
    out[i++] = __half_as_ushort(__float2half_rn(v[13]));                          /* 0.1 */
}

/* the operands of the probes, in the order the kernel reads them (see half_basics.c) */
static const float probe_operands[] = {
    65504.0f, 65519.0f, 65520.0f, 300.0f, 6.103515625e-05f, 1e-6f, 5.9604644775390625e-08f, 1e-8f,
    1e-3f,    2048.0f,  1.0f,     1.0f,   0.00048828125f,   0.1f};

extern "C" void half_probes_run(uint16_t *d_out, cudaStream_t stream)
{
    float *d_in = NULL;
    TC_CUDA_CHECK(cudaMalloc((void **)&d_in, sizeof probe_operands));
    TC_CUDA_CHECK(cudaMemcpyAsync(d_in, probe_operands, sizeof probe_operands,
                                  cudaMemcpyHostToDevice, stream));
    half_probes<<<1, 32, 0, stream>>>(d_in, d_out);
    TC_LAUNCH_CHECK();
    TC_CUDA_CHECK(cudaStreamSynchronize(stream));
    TC_CUDA_CHECK(cudaFree(d_in));
}

/* ---- the long dot product, accumulated in f16 and in f32 ------------------------------------
 * One thread, strictly in order, so that the host can reproduce both sums bit for bit. */
__global__ void dot_serial(long n, const half *__restrict__ x, const half *__restrict__ y,
                           uint16_t *out16, float *out32)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    half acc16 = __float2half(0.0f);
    float acc32 = 0.0f;
    for (long i = 0; i < n; i++) {
        acc16 = __hfma(x[i], y[i], acc16);
        acc32 = __fmaf_rn(__half2float(x[i]), __half2float(y[i]), acc32);
    }
    *out16 = __half_as_ushort(acc16);
    *out32 = acc32;
}

extern "C" void dot_serial_launch(long n, const uint16_t *x, const uint16_t *y, uint16_t *d_out16,
                                  float *d_out32, cudaStream_t stream)
{
    dot_serial<<<1, 32, 0, stream>>>(n, (const half *)x, (const half *)y, d_out16, d_out32);
}
