/* 07_int8_dp4a/correlator.cu - the X-engine of a radio interferometer in 8-bit integers, three
 * ways: FP32 on CUDA cores, __dp4a on CUDA cores, and IMMA tensor cores (mma.sync m16n8k32 s8).
 *
 * What it teaches. A correlator multiplies every antenna signal with the conjugate of every
 * other and sums over time: per channel, V = X X^H, a complex "Hermitian GEMM" whose output is
 * a triangle (V[j][i] is the conjugate of V[i][j]). Radio telescopes digitise to 8 bits or fewer,
 * so the whole computation is integer and exact in int32, and it is one of the few real
 * workloads that can keep int8 tensor cores busy. The lesson is how to map complex arithmetic on
 * real int8 hardware without losing exactness: the conjugate needs a negation, and int8 cannot
 * negate -128.
 *
 * Data layout (correlator.h has the diagrams): the input is x_packed[channel][time/32][station]
 * [pol][re|im][time%32] (a 64-byte record per receiver and 32-sample time block, real parts then
 * imaginary parts), the output the triangular visibility list vis[channel][baseline][pol_i]
 * [pol_j][re, im] in int32, baseline(i, j) = i*(i+1)/2 + j. A receiver is one polarisation of
 * one station, r = 2*station + pol.
 *
 * Work decomposition, all three: one thread block per channel (blockIdx.y) and per square tile
 * of 32 x 32 stations = 64 x 64 receivers (rows: stations I*32.., columns: J*32..) with I >= J;
 * blockIdx.x numbers the tiles of the lower triangle with the same triangle numbers as the
 * baselines. A diagonal tile (I == J) computes its whole square and stores the lower half
 * (station i >= j, all four polarisation pairs, so the (0,1) and (1,0) pairs of an
 * autocorrelation too). Receivers past R = 2*S read as zeros and are not stored.
 *
 *     receivers (columns) ->         +----+                 one block = one 64x64 tile of
 *     rows    | 0,0 |                |    |  64 x 64        receiver pairs, all time blocks:
 *     v       | 1,0 | 1,1 |          +----+  receivers      the tile's rows and columns of one
 *             | 2,0 | 2,1 | 2,2 |                           time block are 2 x 4 KB of input
 *             tiles (I, J), I >= J, numbered 0, 1, 2, ... like baselines
 *
 * Minimum SM: fp32 and dp4a sm_75 (CUDA 13's floor; dp4a itself needs sm_61), imma sm_80 (mma.sync m16n8k32 with s8 inputs; the kernel is
 * a trap stub in code built for older targets, and the host says "skipped"). CUDA 12.x or 13.x.
 *
 * Build and run
 *   make && build/bin/07_correlator                      # all three at 256 stations, 128 channels,
 *                                                        # 1024 samples: verify, time, table
 *   build/bin/07_correlator --test                       # every implementation, exact, on the test
 *                                                        # list (1 station ... 256 stations)
 *   build/bin/07_correlator --stations 512 --channels 32 --time 4096 --variant imma
 *   build/bin/07_correlator --bench --csv corr.csv       # CSV rows, baseline fp32 in the same run
 *
 * fp32: CUDA-core FFMA, the baseline. The int8 samples of one time block are converted to float
 *   pairs (re, im) in shared memory once; each thread then owns 4 x 4 receiver pairs (2 x 2
 *   stations, both polarisations: whole baselines) and does 4 FFMA per complex multiply-add:
 *   re += ar*br + ai*bi, im += ai*br - ar*bi. Float negation is exact, so the conjugate costs
 *   nothing. Exact only while every partial sum stays an integer <= 2^24 in magnitude (the host
 *   checks which outputs that guarantees; full-range random data keeps it up to about T = 1500, as CORRELATOR.md says).
 *
 * dp4a: the same tiling with __dp4a, which multiplies four int8 pairs and adds them to an int32
 *   (4 multiply-adds per instruction, exact). Two time samples of a receiver are packed as one
 *   word w = (re_t, im_t, re_t+1, im_t+1), so dp4a(w_r, w_s) = Re of two complex products
 *   x_r conj(x_s). The imaginary part needs im_r re_s - re_r im_s: the natural "negated copy"
 *   (im_r, -re_r, ...) overflows for re_r = -128. Instead the row side gets a one's-complement copy
 *   wc = (im_r, ~re_r, im_r', ~re_r'): ~v = -v - 1 is always in int8 range, and
 *   dp4a(wc_r, w_s) = sum (im_r re_s - re_r im_s) - sum im_s, so Im = that + (sum over time of
 *   im_s), one number per column receiver, summed while the tile is staged and added once at
 *   the end. Per receiver pair and two time samples: 2 dp4a = 1 instruction per complex
 *   multiply-add, against 4 FFMA for fp32.
 *
 * imma: tensor cores. Per channel, with Xr, Xi the receivers x time matrices of real and
 *   imaginary parts (A rows = receivers of the tile's row stations, B columns = those of its
 *   column stations, k = time, 32 per mma):
 *       Re V = Xr Xr^T + Xi Xi^T          (two mma into one accumulator)
 *       Im V = Xi Xr^T - Xr Xi^T          (two mma into two accumulators P and Q; Im = P - Q)
 *   so 4 mma.m16n8k32 per 16 x 8 receiver pairs and 32 samples. The minus sign is applied to
 *   int32 results, never to int8 inputs (no -(-128) anywhere); it costs a third accumulator set
 *   instead of the dp4a version's correction sum. The packed layout is exactly what the
 *   instruction wants: one record = the k-run of one row of A (or column of B) for Xr (bytes
 *   0..31) and Xi (32..63). A 4-stage cp.async ring moves 4 KB per side and time block into
 *   shared memory (16-byte chunks XOR-swizzled, common/swizzle.h, so ldmatrix is
 *   conflict-free); each of 4 warps computes 32 x 32 receivers (2 x 4 mma tiles, 3 accumulator
 *   sets: 96 registers) from 8 ldmatrix.x4 and 32 mma per time block. The accumulator layout of
 *   m16n8k32 hands each lane the two polarisations q = 0, 1 of one column station for one row
 *   receiver: with P - Q that is (Re, Im, Re, Im) of V[i,j][p][0..1], 16 contiguous bytes of
 *   the output, one vector store. */
#include "correlator.h"

#include "check.h"
#include "cp_async.cuh"
#include "imma_ptx.cuh"
#include "swizzle.h"

#include <stdint.h>
#include <stdio.h>

/* ---- geometry shared by the three kernels ---------------------------------------------------- */
constexpr int TILE_ST = CORR_TILE_STATIONS; /* stations per tile side */
constexpr int TILE_R = 2 * TILE_ST;         /* receivers per tile side */
static_assert(CORR_RECORD_BYTES == 2 * CORR_TB, "a record is 32 re + 32 im bytes");
static_assert(TILE_R % 16 == 0, "tiles are whole 16-row mma tiles and 8-row swizzle periods");

/* the tile (I, J) of this block and its first receiver of rows and of columns */
static __device__ __forceinline__ void block_tile(int *rbase, int *sbase)
{
    long I, J;
    corr_baseline_stations((long)blockIdx.x, &I, &J);
    *rbase = (int)I * TILE_R;
    *sbase = (int)J * TILE_R;
}

/* Stores (Re, Im) of the polarisation pairs (p, 0) and (p, 1) of baseline (i, j): 16 contiguous,
 * 16-byte aligned bytes. Streaming store: the visibilities are not read again here. */
static __device__ __forceinline__ void store_vis(int32_t *vis, long nbl, int c, int i, int j, int p,
                                                 int re0, int im0, int re1, int im1)
{
    int4 *dst = reinterpret_cast<int4 *>(vis + corr_vis_index(nbl, c, corr_baseline(i, j), p, 0));
    __stcs(dst, make_int4(re0, im0, re1, im1));
}

/* ---- fp32 and dp4a: 256 threads, 4 x 4 receivers each ------------------------------------------
 * Thread (ty, tx) = (tid / 16, tid % 16) owns rows 4ty .. 4ty+3 and columns 4tx .. 4tx+3 of the
 * tile: stations 2ty, 2ty+1 by 2tx, 2tx+1, both polarisations each, i.e. four whole baselines.
 * Staging: thread (lr, h) = (tid % 64, tid / 64) loads samples 8h .. 8h+7 (re and im, 8 bytes
 * each) of receiver lr of both sides, one time block ahead (in registers), and converts them into
 * shared memory after the block before it is done. */
constexpr int CC_THREADS = 256;
constexpr int CC_RT = 4, CC_ST = 4; /* receivers per thread: rows, columns */
constexpr int CC_SAMPLES = 8;       /* samples per staging thread and block */
static_assert(CC_THREADS == (TILE_R / CC_RT) * (TILE_R / CC_ST), "one thread per 4x4 receivers");
static_assert(CC_THREADS == TILE_R * (CORR_TB / CC_SAMPLES), "one staging thread per 8 samples");
constexpr int CC_TX = TILE_R / CC_ST; /* threads along a row of the tile: 16 */
static_assert(CC_RT == 4 && CC_ST == 4,
              "whole baselines (2 stations x 2 pols) per thread side; two float4/one uint4 loads");
static_assert(CC_SAMPLES == 8, "a staging thread loads one 8-byte word pair of re and of im");
static_assert(CORR_TB % CC_SAMPLES == 0, "staging threads split a time block evenly");

/* samples 8h .. 8h+7 of receiver r, time block b: re bytes into *re, im bytes into *im */
static __device__ __forceinline__ void load_raw(const int8_t *__restrict__ x, int R, int ntb, int c,
                                                int b, int r, int h, uint2 *re, uint2 *im)
{
    if (r < R) {
        const int8_t *rec = x + corr_packed_offset(R, ntb, c, b, r);
        *re = __ldg(reinterpret_cast<const uint2 *>(rec + CC_SAMPLES * h));
        *im = __ldg(reinterpret_cast<const uint2 *>(rec + CORR_TB + CC_SAMPLES * h));
    } else {
        *re = make_uint2(0, 0);
        *im = make_uint2(0, 0);
    }
}

/* The output place of the thread's row receiver i (0..3) and column station jj (0..1): station
 * si (polarisation i % 2) against station sj, whose two polarisations are the thread's columns
 * 2jj and 2jj + 1. False outside the lower triangle and past the last station: not stored. */
static __device__ __forceinline__ bool thread_baseline(int S, int rbase, int sbase, int tx, int ty,
                                                       int i, int jj, int *si, int *sj)
{
    *si = (rbase + CC_RT * ty + i) / 2;
    *sj = (sbase + CC_ST * tx) / 2 + jj;
    return *si < S && *sj <= *si;
}

/* byte k (0..3) of w as a signed value */
static __device__ __forceinline__ float i8_to_f32(uint32_t w, int k)
{
    return (float)(int8_t)(w >> (8 * k));
}

__global__ void __launch_bounds__(CC_THREADS, 2)
    corr_fp32_kernel(const int8_t *__restrict__ x, int32_t *__restrict__ vis, int S, int ntb)
{
    __shared__ __align__(16) float2 xa[CORR_TB][TILE_R]; /* rows side: (re, im) per sample */
    __shared__ __align__(16) float2 xb[CORR_TB][TILE_R]; /* columns side */
    const int R = 2 * S, c = blockIdx.y, tid = threadIdx.x;
    const int tx = tid % CC_TX, ty = tid / CC_TX, lr = tid % TILE_R, h = tid / TILE_R;
    int rbase, sbase;
    block_tile(&rbase, &sbase);
    uint2 a_re, a_im, b_re, b_im;
    load_raw(x, R, ntb, c, 0, rbase + lr, h, &a_re, &a_im);
    load_raw(x, R, ntb, c, 0, sbase + lr, h, &b_re, &b_im);
    float acc_re[CC_RT][CC_ST], acc_im[CC_RT][CC_ST];
#pragma unroll
    for (int i = 0; i < CC_RT; i++)
#pragma unroll
        for (int j = 0; j < CC_ST; j++) acc_re[i][j] = acc_im[i][j] = 0.0f;

    for (int b = 0; b < ntb; b++) {
#pragma unroll
        for (int k = 0; k < CC_SAMPLES; k++) {
            const uint32_t ra = k < 4 ? a_re.x : a_re.y, ia = k < 4 ? a_im.x : a_im.y;
            const uint32_t rb = k < 4 ? b_re.x : b_re.y, ib = k < 4 ? b_im.x : b_im.y;
            xa[CC_SAMPLES * h + k][lr] = make_float2(i8_to_f32(ra, k % 4), i8_to_f32(ia, k % 4));
            xb[CC_SAMPLES * h + k][lr] = make_float2(i8_to_f32(rb, k % 4), i8_to_f32(ib, k % 4));
        }
        __syncthreads();
        if (b + 1 < ntb) { /* the next block's loads fly while this one is computed */
            load_raw(x, R, ntb, c, b + 1, rbase + lr, h, &a_re, &a_im);
            load_raw(x, R, ntb, c, b + 1, sbase + lr, h, &b_re, &b_im);
        }
#pragma unroll 4
        for (int t = 0; t < CORR_TB; t++) {
            const float4 *pa = reinterpret_cast<const float4 *>(&xa[t][CC_RT * ty]);
            const float4 *pb = reinterpret_cast<const float4 *>(&xb[t][CC_ST * tx]);
            const float4 a01 = pa[0], a23 = pa[1], b01 = pb[0], b23 = pb[1];
            const float ar[CC_RT] = {a01.x, a01.z, a23.x, a23.z},
                        ai[CC_RT] = {a01.y, a01.w, a23.y, a23.w};
            const float br[CC_ST] = {b01.x, b01.z, b23.x, b23.z},
                        bi[CC_ST] = {b01.y, b01.w, b23.y, b23.w};
#pragma unroll
            for (int i = 0; i < CC_RT; i++)
#pragma unroll
                for (int j = 0; j < CC_ST; j++) {
                    /* (ar + i ai)(br - i bi): exact products, one rounding per add (none while
                     * the partial sums stay integers below 2^24) */
                    acc_re[i][j] = fmaf(ar[i], br[j], acc_re[i][j]);
                    acc_re[i][j] = fmaf(ai[i], bi[j], acc_re[i][j]);
                    acc_im[i][j] = fmaf(ai[i], br[j], acc_im[i][j]);
                    acc_im[i][j] = fmaf(-ar[i], bi[j], acc_im[i][j]);
                }
        }
        __syncthreads();
    }
    const long nbl = corr_baselines(S);
#pragma unroll
    for (int i = 0; i < CC_RT; i++)
#pragma unroll
        for (int jj = 0; jj < CC_ST / 2; jj++) {
            int si, sj;
            if (thread_baseline(S, rbase, sbase, tx, ty, i, jj, &si, &sj))
                store_vis(vis, nbl, c, si, sj, i % 2, __float2int_rn(acc_re[i][2 * jj]),
                          __float2int_rn(acc_im[i][2 * jj]), __float2int_rn(acc_re[i][2 * jj + 1]),
                          __float2int_rn(acc_im[i][2 * jj + 1]));
        }
}

/* dp4a: words of two time samples. From the planar bytes re = (re0 re1 re2 re3), im = (im0 ..):
 *   w  = (re0, im0, re1, im1) = __byte_perm(re, im, 0x5140),  (re2, im2, re3, im3): 0x7362
 *   wc = (im0, ~re0, im1, ~re1) = __byte_perm(im, ~re, 0x5140), and 0x7362 for samples 2, 3
 *   dp4a(w_r, w_s)  = re_r re_s + im_r im_s  (+ the same for the second sample)   = Re part
 *   dp4a(wc_r, w_s) = im_r re_s + (~re_r) im_s = im_r re_s - re_r im_s - im_s     = Im part - im_s
 * (~v = -v - 1 for every int8 v, and it is an int8 again: ~(-128) = 127.) */
constexpr int DP_PAIRS = CORR_TB / 2; /* words (sample pairs) per receiver and time block */
static_assert(CORR_TB % 4 == 0, "words of four bytes");

__global__ void __launch_bounds__(CC_THREADS, 2)
    corr_dp4a_kernel(const int8_t *__restrict__ x, int32_t *__restrict__ vis, int S, int ntb)
{
    __shared__ __align__(16) uint32_t wa[DP_PAIRS][TILE_R];  /* rows: w */
    __shared__ __align__(16) uint32_t wca[DP_PAIRS][TILE_R]; /* rows: one's-complement words */
    __shared__ __align__(16) uint32_t wb[DP_PAIRS][TILE_R];  /* columns: w */
    __shared__ int colsum_part[CORR_TB / CC_SAMPLES][TILE_R];
    const int R = 2 * S, c = blockIdx.y, tid = threadIdx.x;
    const int tx = tid % CC_TX, ty = tid / CC_TX, lr = tid % TILE_R, h = tid / TILE_R;
    int rbase, sbase;
    block_tile(&rbase, &sbase);
    uint2 a_re, a_im, b_re, b_im;
    load_raw(x, R, ntb, c, 0, rbase + lr, h, &a_re, &a_im);
    load_raw(x, R, ntb, c, 0, sbase + lr, h, &b_re, &b_im);
    int acc_re[CC_RT][CC_ST], acc_d[CC_RT][CC_ST];
#pragma unroll
    for (int i = 0; i < CC_RT; i++)
#pragma unroll
        for (int j = 0; j < CC_ST; j++) acc_re[i][j] = acc_d[i][j] = 0;
    int colsum = 0; /* sum of im of column receiver sbase + lr over this thread's samples */
    const int ones = 0x01010101;

    for (int b = 0; b < ntb; b++) {
        const int p0 = (CC_SAMPLES / 2) * h; /* first sample pair of this staging thread */
        const uint32_t nre_x = ~a_re.x, nre_y = ~a_re.y;
        wa[p0 + 0][lr] = __byte_perm(a_re.x, a_im.x, 0x5140);
        wa[p0 + 1][lr] = __byte_perm(a_re.x, a_im.x, 0x7362);
        wa[p0 + 2][lr] = __byte_perm(a_re.y, a_im.y, 0x5140);
        wa[p0 + 3][lr] = __byte_perm(a_re.y, a_im.y, 0x7362);
        wca[p0 + 0][lr] = __byte_perm(a_im.x, nre_x, 0x5140);
        wca[p0 + 1][lr] = __byte_perm(a_im.x, nre_x, 0x7362);
        wca[p0 + 2][lr] = __byte_perm(a_im.y, nre_y, 0x5140);
        wca[p0 + 3][lr] = __byte_perm(a_im.y, nre_y, 0x7362);
        wb[p0 + 0][lr] = __byte_perm(b_re.x, b_im.x, 0x5140);
        wb[p0 + 1][lr] = __byte_perm(b_re.x, b_im.x, 0x7362);
        wb[p0 + 2][lr] = __byte_perm(b_re.y, b_im.y, 0x5140);
        wb[p0 + 3][lr] = __byte_perm(b_re.y, b_im.y, 0x7362);
        colsum = __dp4a((int)b_im.x, ones, colsum);
        colsum = __dp4a((int)b_im.y, ones, colsum);
        __syncthreads();
        if (b + 1 < ntb) {
            load_raw(x, R, ntb, c, b + 1, rbase + lr, h, &a_re, &a_im);
            load_raw(x, R, ntb, c, b + 1, sbase + lr, h, &b_re, &b_im);
        }
#pragma unroll 4
        for (int tp = 0; tp < DP_PAIRS; tp++) {
            const uint4 w4 = *reinterpret_cast<const uint4 *>(&wa[tp][CC_RT * ty]);
            const uint4 c4 = *reinterpret_cast<const uint4 *>(&wca[tp][CC_RT * ty]);
            const uint4 s4 = *reinterpret_cast<const uint4 *>(&wb[tp][CC_ST * tx]);
            const int wr[CC_RT] = {(int)w4.x, (int)w4.y, (int)w4.z, (int)w4.w};
            const int wc[CC_RT] = {(int)c4.x, (int)c4.y, (int)c4.z, (int)c4.w};
            const int ws[CC_ST] = {(int)s4.x, (int)s4.y, (int)s4.z, (int)s4.w};
#pragma unroll
            for (int i = 0; i < CC_RT; i++)
#pragma unroll
                for (int j = 0; j < CC_ST; j++) {
                    acc_re[i][j] = __dp4a(wr[i], ws[j], acc_re[i][j]);
                    acc_d[i][j] = __dp4a(wc[i], ws[j], acc_d[i][j]);
                }
        }
        __syncthreads();
    }
    /* the correction: sum over all time of im of each column receiver (4 staging threads each) */
    colsum_part[h][lr] = colsum;
    __syncthreads();
    int corr[CC_ST];
#pragma unroll
    for (int j = 0; j < CC_ST; j++) {
        corr[j] = 0;
#pragma unroll
        for (int hh = 0; hh < CORR_TB / CC_SAMPLES; hh++)
            corr[j] += colsum_part[hh][CC_ST * tx + j];
    }
    const long nbl = corr_baselines(S);
#pragma unroll
    for (int i = 0; i < CC_RT; i++)
#pragma unroll
        for (int jj = 0; jj < CC_ST / 2; jj++) {
            int si, sj;
            if (thread_baseline(S, rbase, sbase, tx, ty, i, jj, &si, &sj))
                store_vis(vis, nbl, c, si, sj, i % 2, acc_re[i][2 * jj],
                          acc_d[i][2 * jj] + corr[2 * jj], acc_re[i][2 * jj + 1],
                          acc_d[i][2 * jj + 1] + corr[2 * jj + 1]);
        }
}

/* ---- imma: mma.sync m16n8k32 s8, ldmatrix, cp.async --------------------------------------------
 * The wrappers are the chapter's: mma_m16n8k32_s8 (imma_ptx.cuh, with the fragment maps of A, B
 * and the s32 accumulator) and ldmatrix_x4 (common/ldmatrix.cuh). ldmatrix.x4 (b16 8x8 matrices
 * = 8 rows of 16 bytes = 8 rows x 16 int8) gives lane 4r + c the bytes 4c .. 4c+3 of row r of
 * matrix j in register j: exactly an int8 fragment register. So
 *   A of rows m0..m0+15, k-half h (16 bytes = 16 samples): matrices (m0.., h=0), (m0+8.., h=0),
 *     (m0.., h=1), (m0+8.., h=1) = a[0..3]; lane l points at row m0 + l%8 + 8*((l/8)%2),
 *     chunk l/16.
 *   B of columns n0..n0+15 (two n8 tiles): matrices (n0.., h=0), (n0.., h=1), (n0+8.., h=0),
 *     (n0+8.., h=1) = b[0], b[1] of tile n0 and of tile n0+8; lane l points at row
 *     n0 + l%8 + 8*(l/16), chunk (l/8)%2.
 * (Chunks 0, 1 of a record are the real parts, 2, 3 the imaginary parts.) Both wrappers trap in
 * code built below sm_80 (mma) or sm_75 (ldmatrix); the kernel's body is compiled for sm_80+ only
 * (a __trap() stub below it), and corr_impl_runnable checks the binary's version on the host. */

constexpr int MMA_M = 16, MMA_N = 8, MMA_K = 32;
constexpr int IM_WARPS_R = 2, IM_WARPS_S = 2; /* warps per block: rows x columns */
constexpr int IM_WARP_R = TILE_R / IM_WARPS_R, IM_WARP_S = TILE_R / IM_WARPS_S; /* 32 x 32 */
constexpr int IM_THREADS = 32 * IM_WARPS_R * IM_WARPS_S;
/* [[maybe_unused]]: below sm_80 the kernel's body is compiled out, and these with it */
[[maybe_unused]] constexpr int IM_MT = IM_WARP_R / MMA_M,
                               IM_NT = IM_WARP_S / MMA_N; /* mma tiles per warp: 2x4 */
constexpr int IM_STAGES = 4;        /* cp.async ring depth (time blocks) */
constexpr int IM_ROWS = 2 * TILE_R; /* smem rows per stage: A receivers, B receivers */
constexpr int IM_CHUNKS = CORR_RECORD_BYTES / 16; /* 16-byte chunks per record: 4 */
[[maybe_unused]] constexpr int IM_STAGE_BYTES = IM_ROWS * CORR_RECORD_BYTES;
static_assert(MMA_K == CORR_TB, "one time block = one k-step");
static_assert(TILE_R % IM_WARPS_R == 0 && TILE_R % IM_WARPS_S == 0, "warps split the tile");
static_assert(IM_CHUNKS == 4, "64-byte records: the swizzle and the re/im chunk numbers 0,1 | 2,3");
static_assert(IM_WARP_R % MMA_M == 0 && IM_WARP_S % (2 * MMA_N) == 0,
              "warp tile = whole m16 tiles and pairs of n8 tiles (one ldmatrix.x4 per pair)");
static_assert((IM_ROWS * IM_CHUNKS) % IM_THREADS == 0, "every thread copies the same count");
static_assert(TILE_R % 8 == 0 && IM_WARP_R % 8 == 0 && IM_WARP_S % 8 == 0,
              "fragments start at multiples of 8 rows: the swizzle's lane offsets repeat");
static_assert(IM_STAGES >= 2, "a ring");

/* one time block of the tile's row and column receivers into stage buffer `st` */
[[maybe_unused]] static __device__ __forceinline__ void
imma_load_stage(uint32_t st, const int8_t *__restrict__ x, int R, int ntb, int c, int b, int rbase,
                int sbase, int tid)
{
#pragma unroll
    for (int k = 0; k < IM_ROWS * IM_CHUNKS / IM_THREADS; k++) {
        const int id = tid + k * IM_THREADS, row = id / IM_CHUNKS, ch = id % IM_CHUNKS;
        const int r = row < TILE_R ? rbase + row : sbase + row - TILE_R;
        const int in = r < R; /* past the last receiver: 16 zero bytes (src stays valid) */
        const int8_t *src = x + corr_packed_offset(R, ntb, c, b, in ? r : 0) + 16 * ch;
        cp_async_16(st + row * CORR_RECORD_BYTES + 16 * tc_swizzle_chunk(row, ch, IM_CHUNKS), src,
                    in ? 16 : 0);
    }
}

__global__ void __launch_bounds__(IM_THREADS)
    corr_imma_kernel(const int8_t *__restrict__ x, int32_t *__restrict__ vis, int S, int ntb)
{
#if __CUDA_ARCH__ >= 800
    __shared__ __align__(128) int8_t tiles[IM_STAGES * IM_STAGE_BYTES];
    const int R = 2 * S, c = blockIdx.y, tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wr = warp / IM_WARPS_S, ws = warp % IM_WARPS_S;
    int rbase, sbase;
    block_tile(&rbase, &sbase);
    const uint32_t smem0 = smem_u32(tiles);

    /* this lane's ldmatrix row addresses inside a stage: [tile][re = 0, im = 1] */
    uint32_t off_a[IM_MT][2], off_b[IM_NT / 2][2];
#pragma unroll
    for (int p = 0; p < 2; p++) {
#pragma unroll
        for (int mi = 0; mi < IM_MT; mi++) {
            const int row = wr * IM_WARP_R + mi * MMA_M + lane % 8 + 8 * ((lane / 8) % 2);
            const int ch = lane / 16 + 2 * p;
            off_a[mi][p] = row * CORR_RECORD_BYTES + 16 * tc_swizzle_chunk(row, ch, IM_CHUNKS);
        }
#pragma unroll
        for (int np = 0; np < IM_NT / 2; np++) {
            const int row = TILE_R + ws * IM_WARP_S + np * 2 * MMA_N + lane % 8 + 8 * (lane / 16);
            const int ch = (lane / 8) % 2 + 2 * p;
            off_b[np][p] = row * CORR_RECORD_BYTES + 16 * tc_swizzle_chunk(row, ch, IM_CHUNKS);
        }
    }

    int32_t acc_re[IM_MT][IM_NT][4], acc_p[IM_MT][IM_NT][4], acc_q[IM_MT][IM_NT][4];
#pragma unroll
    for (int mi = 0; mi < IM_MT; mi++) {
#pragma unroll
        for (int ni = 0; ni < IM_NT; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc_re[mi][ni][e] = acc_p[mi][ni][e] = acc_q[mi][ni][e] = 0;
    }

    /* the ring: blocks 0 .. STAGES-2 in flight before the loop; one commit per iteration (empty
     * groups past the end keep the count), so wait_group<STAGES-2> means "block b has landed" */
#pragma unroll
    for (int s = 0; s < IM_STAGES - 1; s++) {
        if (s < ntb)
            imma_load_stage(smem0 + s * IM_STAGE_BYTES, x, R, ntb, c, s, rbase, sbase, tid);
        cp_async_commit_group();
    }
    for (int b = 0; b < ntb; b++) {
        cp_async_wait_group<IM_STAGES - 2>();
        __syncthreads(); /* block b visible to all; everyone is done with block b-1's stage */
        const int nb = b + IM_STAGES - 1;
        if (nb < ntb)
            imma_load_stage(smem0 + (nb % IM_STAGES) * IM_STAGE_BYTES, x, R, ntb, c, nb, rbase,
                            sbase, tid);
        cp_async_commit_group();

        const uint32_t st = smem0 + (b % IM_STAGES) * IM_STAGE_BYTES;
        uint32_t ar[IM_MT][4], ai[IM_MT][4], br[IM_NT][2], bi[IM_NT][2];
#pragma unroll
        for (int mi = 0; mi < IM_MT; mi++) {
            ldmatrix_x4(ar[mi], st + off_a[mi][0]);
            ldmatrix_x4(ai[mi], st + off_a[mi][1]);
        }
#pragma unroll
        for (int np = 0; np < IM_NT / 2; np++) {
            uint32_t r4[4], i4[4];
            ldmatrix_x4(r4, st + off_b[np][0]);
            ldmatrix_x4(i4, st + off_b[np][1]);
#pragma unroll
            for (int e = 0; e < 2; e++) { /* registers 0, 1: tile 2np; 2, 3: tile 2np+1 */
                br[2 * np][e] = r4[e], br[2 * np + 1][e] = r4[2 + e];
                bi[2 * np][e] = i4[e], bi[2 * np + 1][e] = i4[2 + e];
            }
        }
#pragma unroll
        for (int mi = 0; mi < IM_MT; mi++)
#pragma unroll
            for (int ni = 0; ni < IM_NT; ni++) {
                mma_m16n8k32_s8(acc_re[mi][ni], ar[mi], br[ni]); /* Re += Xr Xr^T */
                mma_m16n8k32_s8(acc_re[mi][ni], ai[mi], bi[ni]); /*    + Xi Xi^T */
                mma_m16n8k32_s8(acc_p[mi][ni], ai[mi], br[ni]);  /* P  += Xi Xr^T */
                mma_m16n8k32_s8(acc_q[mi][ni], ar[mi], bi[ni]);  /* Q  += Xr Xi^T */
            }
    }
    cp_async_wait_group<0>(); /* only empty groups can be left; leave nothing in flight */

    /* lane (g, t) holds rows g and g+8 of each mma tile, columns 2t and 2t+1: one row receiver
     * (station i, pol p) against both polarisations of column station j */
    const long nbl = corr_baselines(S);
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int mi = 0; mi < IM_MT; mi++)
#pragma unroll
        for (int ni = 0; ni < IM_NT; ni++)
#pragma unroll
            for (int hh = 0; hh < 2; hh++) {
                const int r = rbase + wr * IM_WARP_R + mi * MMA_M + g + 8 * hh;
                const int s = sbase + ws * IM_WARP_S + ni * MMA_N + 2 * t;
                const int si = r / 2, sj = s / 2;
                const int32_t *re = &acc_re[mi][ni][2 * hh], *p = &acc_p[mi][ni][2 * hh],
                              *q = &acc_q[mi][ni][2 * hh];
                if (si < S && sj <= si)
                    store_vis(vis, nbl, c, si, sj, r % 2, re[0], p[0] - q[0], re[1], p[1] - q[1]);
            }
#else
    __trap(); /* built for a target without m16n8k32 s8; the host does not launch this */
#endif
}

/* ---- launchers ------------------------------------------------------------------------------- */
static dim3 corr_grid(int stations, int channels)
{
    const long nt = (stations + TILE_ST - 1) / TILE_ST;
    return dim3((unsigned)corr_baselines(nt), (unsigned)channels);
}

extern "C" void corr_fp32_launch(const int8_t *d_x, int32_t *d_vis, int stations, int channels,
                                 int time_blocks, cudaStream_t stream)
{
    corr_fp32_kernel<<<corr_grid(stations, channels), CC_THREADS, 0, stream>>>(d_x, d_vis, stations,
                                                                               time_blocks);
}

extern "C" void corr_dp4a_launch(const int8_t *d_x, int32_t *d_vis, int stations, int channels,
                                 int time_blocks, cudaStream_t stream)
{
    corr_dp4a_kernel<<<corr_grid(stations, channels), CC_THREADS, 0, stream>>>(d_x, d_vis, stations,
                                                                               time_blocks);
}

extern "C" void corr_imma_launch(const int8_t *d_x, int32_t *d_vis, int stations, int channels,
                                 int time_blocks, cudaStream_t stream)
{
    corr_imma_kernel<<<corr_grid(stations, channels), IM_THREADS, 0, stream>>>(d_x, d_vis, stations,
                                                                               time_blocks);
}

typedef void (*corr_kernel_fn)(const int8_t *, int32_t *, int, int);
static const corr_kernel_fn corr_kernels[CORR_N_IMPL] = {corr_fp32_kernel, corr_dp4a_kernel,
                                                         corr_imma_kernel};
static const int corr_threads[CORR_N_IMPL] = {CC_THREADS, CC_THREADS, IM_THREADS};

extern "C" int corr_impl_runnable(int impl, char *why, size_t why_size)
{
    cudaFuncAttributes attr;
    const cudaError_t err = cudaFuncGetAttributes(&attr, corr_kernels[impl]);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, why_size, "no code for this GPU in the binary (%s)", cudaGetErrorName(err));
        return 0;
    }
    if (impl == CORR_IMMA && attr.binaryVersion < 80) {
        snprintf(why, why_size,
                 "mma.sync m16n8k32 s8 needs sm_80 code; this binary runs sm_%d code here (add "
                 "this GPU's compute capability to SM)",
                 attr.binaryVersion);
        return 0;
    }
    return 1;
}

extern "C" void corr_impl_resources(int impl, int *regs, int *smem_bytes, int *threads)
{
    cudaFuncAttributes attr;
    TC_CUDA_CHECK(cudaFuncGetAttributes(&attr, corr_kernels[impl]));
    *regs = attr.numRegs;
    *smem_bytes = (int)attr.sharedSizeBytes;
    *threads = corr_threads[impl];
}
