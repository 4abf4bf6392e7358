/* attn_v0_unfused - attention as three kernels: S = Q K^T (cuBLAS), the softmax of each row of S
 * (ours), O = P V (cuBLAS). What fusion saves, measured.
 *
 * Rung v0 of chapter 10's attention ladder (f16 and bf16 in, f32 accumulate, O in the input type,
 * L in f32). No parent: the ladder starts from the textbook.
 *   1. S = Q K^T per (batch, head), f32, Sq x Sk row-major in a workspace: cuBLAS's strided-batched
 *      GEMM over the heads of one batch (the BSHD strides are leading dimensions and batch strides:
 *      a head is D elements after the previous one, a row H D after), f16/bf16 in, f32 compute;
 *   2. the softmax kernels below: scale, mask, the row's max m and sum l (in the registers of a
 *      group of threads, or online for long or unaligned rows), then P = exp(scale S - m) / l in
 *      the input type (0 at masked keys) and L = m + log l;
 *   3. O = P V, cuBLAS again, the input type out, f32 compute, straight into O's BSHD strides.
 * It moves S twice (written, read: 4 bytes a score) and P twice (2 bytes): at Sq = Sk = 8192,
 * B = 2, H = 16, that is 26 GB of traffic, where the fused kernels read Q, K, V and write O,
 * 0.27 GB. The softmax itself should run near the copy bandwidth: it reads a row of S once and
 * writes P (the row in registers; past 8192 scores the online kernel reads it a second time for
 * P, from L2 while the rows of the blocks in flight fit there).
 *
 * The softmax's run-time choices (attn_v0_softmax_path): a row of up to 8192 scores with Sk % 4 ==
 * 0 is held in the registers of a group of G = 32, 64, 128 or 256 threads, 32 scores a thread, the
 * narrowest group that holds it (ATTN_V0_ROW32 .. ATTN_V0_ROW256: S read once; a block of 256
 * threads takes 256 / G rows, so that short rows keep as many bytes in flight as long ones); a
 * longer row with Sk % 4 == 0 moves as float4 through the online kernel (ATTN_V0_VEC4: S read
 * twice); any other one float at a time (ATTN_V0_SCALAR). attn_v0_unfused_forward chooses; the
 * _path form forces one (a path the row length does not allow: cudaErrorNotSupported; a wider
 * group than needed is allowed).
 *
 * Problem: as v1_mma.cuh (BSHD with any strides, L B x H x Sq or NULL), any D; sizes: B H Sq Sk <=
 * 2^31 - 1 rows of S and every stride below 2^31 (cuBLAS's int), B H Sq <= 2^31 - 1 rows (the
 * online kernels launch a block a row).
 * Workspace: S (f32) and P (T), B H Sq Sk each (attn_v0_unfused_workspace_size), allocated by the
 * caller.
 *
 * The plain launcher (no harness types; cuBLAS's handle is the caller's):
 *   attn_v0_unfused_forward<T>(handle, B, H, Sq, Sk, D, Q, qs, K, ks, V, vs, O, os, L, causal,
 *                              scale, workspace, bytes, stream)
 * returns cudaSuccess, cudaErrorInvalidValue (a size below 1, a null pointer, a workspace too
 * small), cudaErrorNotSupported (attn_v0_unfused_unsupported says why), or the failed call's
 * error (a cuBLAS status as the nearest CUDA error). attn_v0_unfused_softmax<T> runs step 2 alone
 * on the S the last call left (the bandwidth row of --bench).
 *
 * Requires sm_80 (bf16 GEMMs), CUDA 12.x or 13.x, cuBLAS. */
#ifndef ATTN_V0_UNFUSED_CUH
#define ATTN_V0_UNFUSED_CUH

#include "attn_tile.cuh" /* attn_pack2 */

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math_constants.h>
#include <stdint.h>
#include <stdio.h>

constexpr int ATTN_V0_THREADS = 256; /* a block: a row of S (online), 256 / G rows (row paths) */
enum {
    ATTN_V0_AUTO = 0,
    ATTN_V0_VEC4 = 1,
    ATTN_V0_SCALAR = 2,
    ATTN_V0_ROW32 = 3, /* the row in the registers of a group of 32 << (path - ATTN_V0_ROW32) */
    ATTN_V0_ROW64 = 4,
    ATTN_V0_ROW128 = 5,
    ATTN_V0_ROW256 = 6
};
/* the row-in-registers paths: ATTN_V0_ROW_Q4 float4 per thread, rows of up to 32 G scores */
constexpr int ATTN_V0_ROW_Q4 = 8;
constexpr long ATTN_V0_ROW_MAX = 4L * ATTN_V0_THREADS * ATTN_V0_ROW_Q4; /* 8192 scores, G = 256 */
static inline bool attn_v0_is_row_path(int path)
{
    return path >= ATTN_V0_ROW32 && path <= ATTN_V0_ROW256;
}
/* the threads per row of a row path, and the longest row it holds (ATTN_V0_ROW_Q4 float4 each) */
static inline int attn_v0_row_group(int path) { return 32 << (path - ATTN_V0_ROW32); }
static inline long attn_v0_row_capacity(int path)
{
    return 4L * ATTN_V0_ROW_Q4 * attn_v0_row_group(path);
}

template <class T> struct attn_v0_type;
template <> struct attn_v0_type<__half> {
    static constexpr cudaDataType_t CUDA = CUDA_R_16F;
    static __device__ __forceinline__ __half from(float x) { return __float2half_rn(x); }
};
template <> struct attn_v0_type<__nv_bfloat16> {
    static constexpr cudaDataType_t CUDA = CUDA_R_16BF;
    static __device__ __forceinline__ __nv_bfloat16 from(float x) { return __float2bfloat16_rn(x); }
};

/* The running (max m, sum l of exp2(x - m)) of a part of a row, in log2 units: one more value x
 * (one exp2 unless the max moves), and two parts merged. m = -inf, l = 0: nothing yet. */
static __device__ __forceinline__ void attn_v0_add(float &m, float &l, float x)
{
    if (x > m) {
        l = l * exp2f(m - x) + 1.0f; /* exp2(-inf) = 0 for the first value */
        m = x;
    } else {
        l += exp2f(x - m);
    }
}
static __device__ __forceinline__ void attn_v0_merge(float &m, float &l, float m2, float l2)
{
    const float mx = fmaxf(m, m2);
    if (mx == -CUDART_INF_F) return; /* both empty */
    l = l * exp2f(m - mx) + l2 * exp2f(m2 - mx);
    m = mx;
}

/* One block per row r = (b H + h) Sq + i of S (scores unscaled, Sk floats from S + r Sk). */
template <class T, bool VEC4>
__global__ void __launch_bounds__(ATTN_V0_THREADS)
    attn_v0_softmax_kernel(int Sq, int Sk, const float *__restrict__ S, T *__restrict__ P,
                           float *__restrict__ L, int causal, float scale_log2)
{
    static_assert(ATTN_V0_THREADS % 32 == 0 && ATTN_V0_THREADS <= 1024, "whole warps");
    __shared__ float red_m[ATTN_V0_THREADS / 32], red_l[ATTN_V0_THREADS / 32];
    const long r = blockIdx.x, i = r % Sq;
    const float *row = S + r * Sk;
    T *prow = P + r * Sk;
    const long n = attn_key_end(Sq, Sk, causal, i); /* keys 0 .. n-1 are visible */

    /* pass 1: this thread's max and sum of exp2(x - max), online, in log2 units */
    float m = -CUDART_INF_F, l = 0.0f;
    if (VEC4) {
        for (long j = 4L * threadIdx.x; j < n; j += 4L * ATTN_V0_THREADS) {
            const float4 x = *reinterpret_cast<const float4 *>(row + j);
            const float v[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
            for (int e = 0; e < 4; e++)
                if (j + e < n) attn_v0_add(m, l, v[e] * scale_log2);
        }
    } else {
        for (long j = threadIdx.x; j < n; j += ATTN_V0_THREADS)
            attn_v0_add(m, l, row[j] * scale_log2);
    }
    /* the block's (m, l): within each warp, then across the warps */
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
        const float m2 = __shfl_xor_sync(0xffffffffu, m, off);
        const float l2 = __shfl_xor_sync(0xffffffffu, l, off);
        attn_v0_merge(m, l, m2, l2);
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) red_m[warp] = m, red_l[warp] = l;
    __syncthreads();
    m = red_m[0], l = red_l[0];
    for (int w = 1; w < ATTN_V0_THREADS / 32; w++) attn_v0_merge(m, l, red_m[w], red_l[w]);

    /* pass 2: P = exp2(x - m) / l, 0 past the visible keys (the whole row: P V sums over Sk) */
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    if (VEC4) {
        for (long j = 4L * threadIdx.x; j < Sk; j += 4L * ATTN_V0_THREADS) {
            const float4 x = *reinterpret_cast<const float4 *>(row + j);
            const float v[4] = {x.x, x.y, x.z, x.w};
            float p[4];
#pragma unroll
            for (int e = 0; e < 4; e++)
                p[e] = j + e < n ? exp2f(v[e] * scale_log2 - m) * inv : 0.0f;
            /* 8 bytes at once: Sk % 4 == 0, so the row of P is 8-byte aligned */
            *reinterpret_cast<uint2 *>(prow + j) =
                make_uint2(attn_pack2<T>(p[0], p[1]), attn_pack2<T>(p[2], p[3]));
        }
    } else {
        for (long j = threadIdx.x; j < Sk; j += ATTN_V0_THREADS)
            prow[j] = attn_v0_type<T>::from(j < n ? exp2f(row[j] * scale_log2 - m) * inv : 0.0f);
    }
    if (L && threadIdx.x == 0) L[r] = l > 0.0f ? (m + log2f(l)) * 0.69314718056f : -CUDART_INF_F;
}

/* The maximum (MAX) or the sum of x over a group of GROUP threads (whole warps, aligned), the
 * same in every thread of the group: within each warp, then the group's warps' results in one
 * order from shared memory (red: a float per warp of the block, free on entry and on return).
 * Every thread of the block calls it (GROUP > 32: two barriers). */
template <bool MAX, int GROUP>
static __device__ __forceinline__ float attn_v0_group_reduce(float x, float *red)
{
    static_assert(GROUP % 32 == 0 && ATTN_V0_THREADS % GROUP == 0, "whole warps, whole groups");
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
        const float y = __shfl_xor_sync(0xffffffffu, x, off);
        x = MAX ? fmaxf(x, y) : x + y;
    }
    if (GROUP == 32) return x; /* the group is this warp */
    constexpr int WARPS = GROUP / 32;
    const int warp = threadIdx.x / 32, first = warp / WARPS * WARPS; /* the group's first warp */
    if (threadIdx.x % 32 == 0) red[warp] = x;
    __syncthreads();
    x = red[first];
    for (int w = 1; w < WARPS; w++) x = MAX ? fmaxf(x, red[first + w]) : x + red[first + w];
    __syncthreads(); /* every thread has read red: the next reduction may write it */
    return x;
}

/* The row-in-registers paths (Sk % 4 == 0, Sk <= 32 GROUP): a group of GROUP threads per row,
 * ATTN_V0_THREADS / GROUP rows per block (row r = blockIdx.x rows-per-block + threadIdx.x / GROUP).
 * Each thread loads its float4s of the row once (thread t of the group: scores 4 (t + GROUP q) ..
 * + 3), then the row's max, then the sum of exp2(x - max), each a group reduction, then P from the
 * registers. S is read once (the online kernel above reads it twice, the second time from L2 where
 * the row is still there), and the exp2s of a thread depend on no previous one. A block holds 256
 * threads' 32 scores whatever G is: a row that fills its group (Sk = 32 G) keeps as many loads in
 * flight per SM as the longest rows, any row longer than 1024 at least half as many. */
template <class T, int GROUP>
__global__ void __launch_bounds__(ATTN_V0_THREADS)
    attn_v0_softmax_rows_kernel(long rows, int Sq, int Sk, const float *__restrict__ S,
                                T *__restrict__ P, float *__restrict__ L, int causal,
                                float scale_log2)
{
    static_assert(GROUP % 32 == 0 && ATTN_V0_THREADS % GROUP == 0, "whole warps, whole groups");
    __shared__ float red[ATTN_V0_THREADS / 32];
    const int t = threadIdx.x % GROUP; /* this thread's place in its row's group */
    const long r = (long)blockIdx.x * (ATTN_V0_THREADS / GROUP) + threadIdx.x / GROUP;
    const bool live = r < rows; /* a group past the last row loads nothing but meets the barriers */
    const float *row = S + (live ? r : 0) * Sk;
    const long n = live ? attn_key_end(Sq, Sk, causal, r % Sq) : 0; /* keys 0 .. n-1 visible */

    /* the visible scores in log2 units, -inf elsewhere; the thread's max */
    float v[ATTN_V0_ROW_Q4][4], m = -CUDART_INF_F;
#pragma unroll
    for (int q = 0; q < ATTN_V0_ROW_Q4; q++) {
        const long j = 4L * (t + (long)q * GROUP);
        float4 x = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (j < n) x = *reinterpret_cast<const float4 *>(row + j); /* in the row: Sk % 4 == 0 */
        const float xs[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
        for (int e = 0; e < 4; e++) {
            v[q][e] = j + e < n ? xs[e] * scale_log2 : -CUDART_INF_F;
            m = fmaxf(m, v[q][e]);
        }
    }
    m = attn_v0_group_reduce<true, GROUP>(m, red);
    float l = 0.0f;
    if (m > -CUDART_INF_F) /* a row with a visible key: exp2(-inf - m) = 0 for the others */
#pragma unroll
        for (int q = 0; q < ATTN_V0_ROW_Q4; q++)
#pragma unroll
            for (int e = 0; e < 4; e++) l += exp2f(v[q][e] - m);
    l = attn_v0_group_reduce<false, GROUP>(l, red);
    if (!live) return; /* after the last barrier */

    /* P = exp2(x - m) / l, 0 past the visible keys (the whole row: P V sums over Sk) */
    T *prow = P + r * Sk;
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
#pragma unroll
    for (int q = 0; q < ATTN_V0_ROW_Q4; q++) {
        const long j = 4L * (t + (long)q * GROUP);
        if (j >= Sk) break;
        float p[4];
#pragma unroll
        for (int e = 0; e < 4; e++) p[e] = j + e < n ? exp2f(v[q][e] - m) * inv : 0.0f;
        *reinterpret_cast<uint2 *>(prow + j) =
            make_uint2(attn_pack2<T>(p[0], p[1]), attn_pack2<T>(p[2], p[3]));
    }
    if (L && t == 0) L[r] = l > 0.0f ? (m + log2f(l)) * 0.69314718056f : -CUDART_INF_F;
}

/* Why the softmax cannot take a forced path on rows of Sk scores, or NULL */
static inline const char *attn_v0_path_unsupported(int Sk, int path)
{
    if ((path == ATTN_V0_VEC4 || attn_v0_is_row_path(path)) && Sk % 4 != 0)
        return "the float4 paths of the softmax need Sk % 4 == 0 (rows of S 16-byte aligned)";
    if (attn_v0_is_row_path(path) && Sk > attn_v0_row_capacity(path)) {
        static const char *const too_long[] = {
            "the softmax's row path of 32 threads holds rows of at most 1024 scores",
            "the softmax's row path of 64 threads holds rows of at most 2048 scores",
            "the softmax's row path of 128 threads holds rows of at most 4096 scores",
            "the softmax's row path of 256 threads holds rows of at most 8192 scores"};
        return too_long[path - ATTN_V0_ROW32];
    }
    return NULL;
}

/* The softmax's path for a row length (ATTN_V0_AUTO: the rung's choice) */
static inline int attn_v0_softmax_path(int Sk, int path)
{
    if (path != ATTN_V0_AUTO) return path;
    if (Sk % 4 != 0) return ATTN_V0_SCALAR;
    if (Sk > ATTN_V0_ROW_MAX) return ATTN_V0_VEC4;
    int chosen = ATTN_V0_ROW32; /* the narrowest group that holds the row */
    while (Sk > attn_v0_row_capacity(chosen)) chosen++;
    return chosen;
}

/* ---- the host side ------------------------------------------------------------------------- */
static inline size_t attn_v0_align(size_t x) { return (x + 255) / 256 * 256; }

/* Bytes of workspace: S (f32) then P (T), each B H Sq Sk, 256-byte aligned. */
template <class T>
static cudaError_t attn_v0_unfused_workspace_size(int B, int H, int Sq, int Sk, size_t *bytes)
{
    if (B < 1 || H < 1 || Sq < 1 || Sk < 1) return cudaErrorInvalidValue;
    const size_t n = (size_t)B * H * Sq * Sk;
    *bytes = attn_v0_align(n * sizeof(float)) + attn_v0_align(n * sizeof(T));
    return cudaSuccess;
}

static inline bool attn_v0_fits_int(attn_strides s)
{
    return s.batch >= 0 && s.seq >= 0 && s.head >= 0 && s.seq <= 2147483647L &&
           s.head <= 2147483647L;
}

template <class T>
static const char *attn_v0_unfused_unsupported(int B, int H, int Sq, int Sk, int D, attn_strides qs,
                                               attn_strides ks, attn_strides vs, attn_strides os,
                                               int path)
{
    if (B < 1 || H < 1 || Sq < 1 || Sk < 1 || D < 1) return "B, H, Sq, Sk and D must be at least 1";
    if ((double)B * H * Sq > 2147483647.0) return "B H Sq must be below 2^31 (a block a row)";
    if (!attn_v0_fits_int(qs) || !attn_v0_fits_int(ks) || !attn_v0_fits_int(vs) ||
        !attn_v0_fits_int(os))
        return "row and head strides must be below 2^31 (cuBLAS's leading dimensions)";
    return attn_v0_path_unsupported(Sk, path);
}

static inline cudaError_t attn_v0_status(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return cudaSuccess;
    case CUBLAS_STATUS_INVALID_VALUE: return cudaErrorInvalidValue;
    case CUBLAS_STATUS_NOT_SUPPORTED:
    case CUBLAS_STATUS_ARCH_MISMATCH: return cudaErrorNotSupported;
    case CUBLAS_STATUS_ALLOC_FAILED: return cudaErrorMemoryAllocation;
    default: return cudaErrorUnknown;
    }
}

/* Step 2 alone: the softmax of every row of the S in the workspace into its P, and L. */
template <class T>
static cudaError_t attn_v0_unfused_softmax(int B, int H, int Sq, int Sk, float *L, int causal,
                                           float scale, void *workspace, int path,
                                           cudaStream_t stream)
{
    const size_t n = (size_t)B * H * Sq * Sk;
    const float *S = (const float *)workspace;
    T *P = (T *)((char *)workspace + attn_v0_align(n * sizeof(float)));
    const float scale_log2 = scale * 1.4426950408889634f;
    if (attn_v0_path_unsupported(Sk, path)) return cudaErrorNotSupported;
    const int chosen = attn_v0_softmax_path(Sk, path);
    const long rows = (long)B * H * Sq;
    if (attn_v0_is_row_path(chosen)) {
        const int group = attn_v0_row_group(chosen), per_block = ATTN_V0_THREADS / group;
        const unsigned blocks = (unsigned)((rows + per_block - 1) / per_block);
        if (group == 32)
            attn_v0_softmax_rows_kernel<T, 32>
                <<<blocks, ATTN_V0_THREADS, 0, stream>>>(rows, Sq, Sk, S, P, L, causal, scale_log2);
        else if (group == 64)
            attn_v0_softmax_rows_kernel<T, 64>
                <<<blocks, ATTN_V0_THREADS, 0, stream>>>(rows, Sq, Sk, S, P, L, causal, scale_log2);
        else if (group == 128)
            attn_v0_softmax_rows_kernel<T, 128>
                <<<blocks, ATTN_V0_THREADS, 0, stream>>>(rows, Sq, Sk, S, P, L, causal, scale_log2);
        else
            attn_v0_softmax_rows_kernel<T, 256>
                <<<blocks, ATTN_V0_THREADS, 0, stream>>>(rows, Sq, Sk, S, P, L, causal, scale_log2);
    } else if (chosen == ATTN_V0_VEC4)
        attn_v0_softmax_kernel<T, true>
            <<<(unsigned)rows, ATTN_V0_THREADS, 0, stream>>>(Sq, Sk, S, P, L, causal, scale_log2);
    else
        attn_v0_softmax_kernel<T, false>
            <<<(unsigned)rows, ATTN_V0_THREADS, 0, stream>>>(Sq, Sk, S, P, L, causal, scale_log2);
    return cudaGetLastError();
}

/* The forced form: path = ATTN_V0_AUTO (choose), ATTN_V0_VEC4, ATTN_V0_SCALAR or ATTN_V0_ROW32 ..
 * ATTN_V0_ROW256. */
template <class T>
static cudaError_t attn_v0_unfused_forward_path(cublasHandle_t handle, int B, int H, int Sq, int Sk,
                                                int D, const T *Q, attn_strides qs, const T *K,
                                                attn_strides ks, const T *V, attn_strides vs, T *O,
                                                attn_strides os, float *L, int causal, float scale,
                                                void *workspace, size_t bytes, int path,
                                                cudaStream_t stream)
{
    size_t need = 0;
    if (!Q || !K || !V || !O || !workspace ||
        attn_v0_unfused_workspace_size<T>(B, H, Sq, Sk, &need) != cudaSuccess || D < 1)
        return cudaErrorInvalidValue;
    if (bytes < need) return cudaErrorInvalidValue;
    if (attn_v0_unfused_unsupported<T>(B, H, Sq, Sk, D, qs, ks, vs, os, path))
        return cudaErrorNotSupported;
    const size_t n = (size_t)B * H * Sq * Sk;
    float *S = (float *)workspace;
    T *P = (T *)((char *)workspace + attn_v0_align(n * sizeof(float)));
    const cudaDataType_t t = attn_v0_type<T>::CUDA;
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t st = cublasSetStream(handle, stream);
    for (int b = 0; b < B && st == CUBLAS_STATUS_SUCCESS; b++) {
        /* S^T (Sk x Sq, column-major, ld Sk) = K (Sk x D: op T of D x Sk, ld = K's row stride)
         * times Q^T (D x Sq, ld = Q's row stride), one GEMM per head: S[i][j] = q_i . k_j */
        st = cublasGemmStridedBatchedEx(
            handle, CUBLAS_OP_T, CUBLAS_OP_N, Sk, Sq, D, &one, K + b * ks.batch, t, (int)ks.seq,
            ks.head, Q + b * qs.batch, t, (int)qs.seq, qs.head, &zero, S + (size_t)b * H * Sq * Sk,
            CUDA_R_32F, Sk, (long long)Sq * Sk, H, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    }
    if (st != CUBLAS_STATUS_SUCCESS) return attn_v0_status(st);
    const cudaError_t e =
        attn_v0_unfused_softmax<T>(B, H, Sq, Sk, L, causal, scale, workspace, path, stream);
    if (e != cudaSuccess) return e;
    for (int b = 0; b < B && st == CUBLAS_STATUS_SUCCESS; b++) {
        /* O^T (D x Sq, ld = O's row stride) = V^T (D x Sk, ld = V's row stride) P^T (Sk x Sq,
         * ld Sk): O[i][d] = sum_j P[i][j] V[j][d] */
        st = cublasGemmStridedBatchedEx(
            handle, CUBLAS_OP_N, CUBLAS_OP_N, D, Sq, Sk, &one, V + b * vs.batch, t, (int)vs.seq,
            vs.head, P + (size_t)b * H * Sq * Sk, t, Sk, (long long)Sq * Sk, &zero,
            O + b * os.batch, t, (int)os.seq, os.head, H, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    }
    return attn_v0_status(st);
}

template <class T>
static cudaError_t attn_v0_unfused_forward(cublasHandle_t handle, int B, int H, int Sq, int Sk,
                                           int D, const T *Q, attn_strides qs, const T *K,
                                           attn_strides ks, const T *V, attn_strides vs, T *O,
                                           attn_strides os, float *L, int causal, float scale,
                                           void *workspace, size_t bytes, cudaStream_t stream)
{
    return attn_v0_unfused_forward_path<T>(handle, B, H, Sq, Sk, D, Q, qs, K, ks, V, vs, O, os, L,
                                           causal, scale, workspace, bytes, ATTN_V0_AUTO, stream);
}

#endif /* ATTN_V0_UNFUSED_CUH */
