/* common/wgmma_pipeline.cuh - the warp-specialised Hopper GEMM of chapter 05 part 2 (sm_90a), for
 * any wgmma input type: f16 and bf16 (chapter 05's v3_warpspec and v4_cluster) and tf32 (chapter
 * 04's v7_wgmma_tf32). WGMMA.md in chapter 05 is its lesson; common/wgmma_ptx.cuh has every
 * instruction with its layout, common/tma_map.h the host side of the TMA.
 *
 * Problem and layout: C = alpha * A * B + beta * C. A is M x K row-major (lda), B is K x N
 * column-major (ldb: the distance between columns), C is M x N row-major f32 (ldc): both operands
 * K-major, as wgmma reads them without transposition (and as tf32 requires). beta == 0 never
 * reads C.
 *
 * Tiles: one k-tile is one 128-byte swizzle row of every operand row: 64 16-bit values or 32 tf32
 * values (wg_bk<T>). Operand tiles in shared memory are ROWS x 128 bytes, K-major, 128-byte
 * swizzled, 1024-byte aligned. A block of W consumer warpgroups computes a (64 W) x BN tile of C:
 * warpgroup w owns rows 64 w .. 64 w + 63 with one m64nBN wgmma per 32-byte k-step, BN / 2 f32
 * accumulators per thread.
 *
 * What is here
 *   wg_config        the tile, the ring's stages and the shared-memory budget of one kernel
 *   epilogue_direct  C from the accumulator registers (float2 pairs): a block wholly inside C
 *                    without a guard per pair (epilogue_whole), any other one guarded
 *   epilogue_staged  C through shared memory, one bulk copy per row that runs on while the
 *                    tensor cores start the next tile (configurations with C_COLS > 0)
 *   epilogue_tma     C through two box buffers per consumer (64 x 32 or 64 x 16 floats) and
 *                    TMA stores (configurations with C_TMA_COLS > 0)
 *   wgmma_k_tile     the four wgmma of one k-tile, fenced and committed as one group
 *   ring, issue_k_tile, release_stage
 *                    the stages with their full/empty mbarriers; the producer's TMA copies (with
 *                    a cluster: B multicast in slices); a consumer warp's release of a stage
 *   gemm_warpspec    warpgroup 0 produces, the others consume; optionally persistent and in
 *                    clusters of CLUSTER_M blocks that share B (chapter 05's README and NOTES.md
 *                    explain every choice); with PROMOTE_TILE or PROMOTE_PAIRS, each k-tile is
 *                    summed by the tensor cores into a fresh partial sum that the CUDA cores add
 *                    to the f32 total (FP8: the tensor cores' running sum keeps fewer bits than
 *                    f32); promote_pairs_run keeps the tensor cores busy while they add; with
 *                    STREAMK, the persistent grid's last round is split by k-tiles (stream_k.h)
 *   ws_prepare, ws_launch
 *                    the host side: TMA rules, tensor maps, shared-memory opt-in, grid size
 *   wgmma_kernel_unsupported
 *                    for files built for several targets: whether the GPU runs a kernel's sm_90a
 *                    code
 *
 * Sizes: any M and N (TMA boxes past the edge are zero-filled, stores are guarded); K and the
 * leading dimensions of A and B must satisfy the TMA's 16-byte rule (ld a multiple of 8 16-bit or
 * 4 f32 values, 16-byte aligned bases): ws_prepare reports other cases as skipped, and a variant
 * declares the rule in its table (mult_k, align_ab).
 *
 * Requires sm_90a (kernel bodies compile only #if TC_SM90A), CUDA 12.x or 13.x. */
#ifndef TC_WGMMA_PIPELINE_CUH
#define TC_WGMMA_PIPELINE_CUH

#include "gemm_tiles.cuh"
#include "stream_k.h"
#include "tma_map.h"
#include "wgmma_ptx.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

constexpr int ROW_BYTES = 128;  /* one row of an operand tile: one 128-byte swizzle row */
constexpr int KSTEP_BYTES = 32; /* what one wgmma reads of every row: k = 16 or 8 values */
constexpr int KSTEPS = ROW_BYTES / KSTEP_BYTES;
constexpr int WG_THREADS = 128; /* a warpgroup */
constexpr int WG_M = 64;        /* rows of C per consumer warpgroup (m64) */

/* Values of type T in one k-tile: 64 f16/bf16, 32 tf32 (f32 bits). */
template <class T> __host__ __device__ constexpr int wg_bk() { return ROW_BYTES / (int)sizeof(T); }

/* ================================================================================================
 * The configuration of a kernel: CONSUMERS warpgroups compute a (64 CONSUMERS) x BN tile of C;
 * STAGES k-tiles of A and B live in shared memory at once, followed by the mbarriers.
 * ============================================================================================== */
template <int BN_, int STAGES_, int CONSUMERS_, int C_COLS_ = 0, int C_TMA_COLS_ = 0>
struct wg_config {
    static constexpr int BN = BN_, STAGES = STAGES_, CONSUMERS = CONSUMERS_;
    static constexpr int BM = WG_M * CONSUMERS;
    static constexpr int ACC = BN / 2; /* f32 accumulators per thread */
    static constexpr int A_BYTES = BM * ROW_BYTES, B_BYTES = BN * ROW_BYTES;
    static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
    /* C_COLS > 0: the epilogue stages C_COLS columns of each consumer's 64 rows of C at a time in
     * shared memory (epilogue_staged); rows C_PITCH floats apart, 8 or 24 banks on from the row
     * before (8 or 16 more than C_COLS), so that the 4 rows of a half-warp's float2 stores fall
     * on 4 different groups of 8 banks */
    static constexpr int C_COLS = C_COLS_, C_PITCH = C_COLS + ((C_COLS + 8) % 16 ? 8 : 16);
    static constexpr int C_BYTES = C_COLS ? CONSUMERS * WG_M * C_PITCH * 4 : 0;
    /* C_TMA_COLS > 0: the epilogue stores C as boxes of 64 rows x C_TMA_COLS columns
     * (32 or 16 floats: rows of 128 or 64 bytes) with TMA stores, each consumer through two such
     * buffers in turn (epilogue_tma), written in the swizzle of that width */
    static constexpr int C_TMA_COLS = C_TMA_COLS_;
    static constexpr int C_TMA_BYTES = C_TMA_COLS ? CONSUMERS * 2 * WG_M * C_TMA_COLS * 4 : 0;
    static_assert(C_TMA_COLS == 0 || C_TMA_COLS == 32 || C_TMA_COLS == 16,
                  "a TMA-store box row is one 128- or 64-byte swizzle row");
    static_assert(C_TMA_COLS == 0 || C_COLS == 0, "one staged epilogue at a time");
    static_assert(C_TMA_COLS == 0 || BN % (C_TMA_COLS ? C_TMA_COLS : 1) == 0,
                  "the TMA-store epilogue takes whole boxes of the tile");
    static constexpr int BARRIER_BYTES = 2 * STAGES * 8; /* a full and an empty one per stage */
    /* 1024 of slack: the dynamic shared memory is aligned to 1024 bytes by hand */
    static constexpr size_t SMEM_BYTES =
        (size_t)STAGES * STAGE_BYTES + C_BYTES + C_TMA_BYTES + BARRIER_BYTES + 1024;
    static_assert(C_COLS == 0 || (BN % (C_COLS ? C_COLS : 1) == 0 && C_COLS % 8 == 0),
                  "the staged epilogue takes whole 8-column groups of the tile at a time");
    static_assert(C_PITCH % 32 == 8 || C_PITCH % 32 == 24, "staging rows on distinct banks");

    static_assert(BN == 128 || BN == 144 || BN == 256,
                  "wgmma_op is instantiated for n128 and n256 (and n144 for FP8)");
    static_assert(A_BYTES % 1024 == 0 && B_BYTES % 1024 == 0,
                  "every tile starts at a swizzle atom (8 rows x 128 bytes)");
    static_assert(STAGES >= 2, "a ring needs two stages");
    static_assert(SMEM_BYTES <= 227 * 1024,
                  "the ring and the staging memory fit the 227 KiB of shared memory a block gets");
};

/* The 128-byte swizzle wants each tile at a multiple of 1024 bytes; dynamic shared memory is
 * only guaranteed 16-byte alignment. */
static __device__ __forceinline__ unsigned char *align_1024(unsigned char *p)
{
    return p + ((1024u - (smem_u32(p) & 1023u)) & 1023u);
}

/* ================================================================================================
 * Epilogue (every rung): straight from the accumulators. Register d[i] of warp j of the
 * warpgroup, lane 4g + t, is C(row0 + 16j + g + 8((i/2)%2), col0 + 8(i/4) + 2t + i%2)
 * (wgmma_ptx.cuh): pairs (d[i], d[i+1]) are neighbours, one float2 each. Four lanes of a row
 * cover 32 contiguous bytes, one whole sector.
 * ============================================================================================== */
/* Whether a warpgroup's 64 x (2 ACC) block of C at (row0, col0) can be stored by
 * epilogue_whole: inside C, float2 pairs, C not read */
template <int ACC>
__device__ __forceinline__ bool epilogue_whole_fits(int row0, int col0, int M, int N, float beta,
                                                    bool vec2)
{
    return vec2 && beta == 0.0f && row0 + WG_M <= M && col0 + ACC * 2 <= N;
}
/* The same stores without a guard per pair: one base address, the pairs' offsets constants but
 * for the 8 rows down (8 ldc). d is scaled by alpha in place (no second set of registers, which
 * the compiler would otherwise fill all at once before the stores) */
template <int ACC>
__device__ __forceinline__ void epilogue_whole(float (&d)[ACC], float *__restrict__ C, long ldc,
                                               int row0, int col0, float alpha)
{
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    float *p = C + (size_t)(row0 + 16 * warp + g) * ldc + col0 + 2 * t;
    const size_t down8 = (size_t)8 * ldc;
#pragma unroll
    for (int i = 0; i < ACC; i += 2) {
        d[i] *= alpha, d[i + 1] *= alpha;
        *(float2 *)(p + (i / 2 % 2 ? down8 : 0) + 8 * (i / 4)) = make_float2(d[i], d[i + 1]);
    }
}
/* Every pair guarded (store_pair): any position, alpha and beta */
template <int ACC>
__device__ __forceinline__ void epilogue_guarded(const float (&d)[ACC], float *__restrict__ C,
                                                 long ldc, int row0, int col0, int M, int N,
                                                 float alpha, float beta, bool vec2)
{
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < ACC; i += 2)
        store_pair(C, ldc, row0 + 16 * warp + g + 8 * (i / 2 % 2), col0 + 8 * (i / 4) + 2 * t, M, N,
                   d[i], d[i + 1], alpha, beta, vec2);
}
template <int ACC>
__device__ __forceinline__ void epilogue_direct(float (&d)[ACC], float *__restrict__ C, long ldc,
                                                int row0, int col0, int M, int N, float alpha,
                                                float beta, bool vec2)
{
    if (epilogue_whole_fits<ACC>(row0, col0, M, N, beta, vec2))
        epilogue_whole<ACC>(d, C, ldc, row0, col0, alpha);
    else
        epilogue_guarded<ACC>(d, C, ldc, row0, col0, M, N, alpha, beta, vec2);
}

/* bar.sync id, threads: a barrier for some warps only (0 is __syncthreads's) */
static __device__ __forceinline__ void named_bar_sync(int id, int threads)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/* Epilogue through shared memory (Cfg::C_COLS > 0; beta == 0, C's rows 16-byte aligned, N a
 * multiple of 4): for each C_COLS columns, the warpgroup writes alpha d into its rows of staging
 * memory, then 64 threads each give one row to the copy engine (bulk_store) and the warpgroup
 * goes on: the copies to global memory run while the tensor cores work on the next tile. A
 * staging buffer is written again only after its previous copies have read it (bulk_wait_read).
 * Named barrier 2 + cw: this warpgroup's 128 threads. */
template <class Cfg>
__device__ __forceinline__ void epilogue_staged(const float (&d)[Cfg::ACC], float *stage,
                                                float *__restrict__ C, long ldc, int row0, int col0,
                                                int M, int N, float alpha, int cw)
{
    const int wt = threadIdx.x % WG_THREADS, warp = wt / 32, lane = wt % 32, g = lane / 4,
              t = lane % 4;
#pragma unroll
    for (int c0 = 0; c0 < Cfg::BN; c0 += Cfg::C_COLS) {
        if (wt < WG_M) bulk_wait_read<0>();
        named_bar_sync(2 + cw, WG_THREADS);
#pragma unroll
        for (int i = 0; i < Cfg::ACC; i += 2) {
            const int col = 8 * (i / 4) + 2 * t;
            if (col < c0 || col >= c0 + Cfg::C_COLS) continue; /* resolved at compile time */
            *(float2 *)&stage[(16 * warp + g + 8 * (i / 2 % 2)) * Cfg::C_PITCH + col - c0] =
                make_float2(alpha * d[i], alpha * d[i + 1]);
        }
        fence_proxy_async(); /* the generic-proxy stores, seen by the copy engine */
        named_bar_sync(2 + cw, WG_THREADS);
        const int cols = N - (col0 + c0) < Cfg::C_COLS ? N - (col0 + c0) : Cfg::C_COLS;
        if (wt < WG_M && row0 + wt < M && cols > 0) {
            bulk_store(C + (size_t)(row0 + wt) * ldc + col0 + c0, stage + wt * Cfg::C_PITCH,
                       (unsigned)cols * 4u);
            bulk_commit();
        }
    }
}

/* Epilogue through TMA stores (Cfg::C_TMA_COLS > 0; beta == 0, C 16-byte aligned, ldc
 * a multiple of 4: the tensor map of C exists): the warpgroup's 64 rows go out in boxes of 64 x
 * C_TMA_COLS floats. For each box, thread 0 waits until the buffer's previous box has been read by
 * the copy engine (at most one other of its copies still reading), the warpgroup writes alpha d
 * into the buffer in the swizzle of the row width (byte address bits 4.. XOR bits 7..: 16-byte
 * chunk j of row r at j ^ (r % 8) for 128-byte rows, j ^ (r / 2 % 4) for 64-byte ones), fences, and
 * thread 0 issues the TMA store; the copies run on while the next box is written and while the
 * tensor cores start the next tile. The copy engine clips the boxes at C's edges. `turn` counts
 * this consumer's boxes (its parity picks the buffer) across tiles. Named barrier 2 + cw. */
template <class Cfg>
__device__ __forceinline__ void epilogue_tma(const float (&d)[Cfg::ACC], unsigned char *bufs,
                                             const CUtensorMap *map_c, int row0, int col0, int M,
                                             int N, float alpha, int cw, int &turn)
{
    const int wt = threadIdx.x % WG_THREADS, warp = wt / 32, lane = wt % 32, g = lane / 4,
              t = lane % 4;
    constexpr int COLS = Cfg::C_TMA_COLS;
#pragma unroll
    for (int c0 = 0; c0 < Cfg::BN; c0 += COLS, turn++) {
        unsigned char *buf = bufs + turn % 2 * (WG_M * COLS * 4);
        if (wt == 0) bulk_wait_read<1>();
        named_bar_sync(2 + cw, WG_THREADS);
#pragma unroll
        for (int i = 0; i < Cfg::ACC; i += 2) {
            const int col = 8 * (i / 4) + 2 * t;
            if (col < c0 || col >= c0 + COLS) continue; /* resolved at compile time */
            const int row = 16 * warp + g + 8 * (i / 2 % 2), at = row * COLS * 4 + (col - c0) * 4;
            *(float2 *)(buf + (at ^ (((at >> 7) & (COLS * 4 / 16 - 1)) << 4))) =
                make_float2(alpha * d[i], alpha * d[i + 1]);
        }
        fence_proxy_async(); /* the generic-proxy stores, seen by the copy engine */
        named_bar_sync(2 + cw, WG_THREADS);
        if (wt == 0) { /* a group per box, empty for a box wholly outside C: the wait above
                        * counts boxes */
            if (row0 < M && col0 + c0 < N) tma_store_2d(map_c, buf, col0 + c0, row0);
            bulk_commit();
        }
    }
}

/* The 4 wgmma of one k-tile for one consumer warpgroup: a, b = shared-memory addresses of its 64
 * rows of A and of the BN rows of B; k-step kk starts 32 kk bytes into the rows (k = 16 values of
 * 16 bits, or k = 8 tf32 values). first: the first
 * k-tile of an output tile, whose first wgmma overwrites D instead of adding to it. */
template <class T, class Cfg>
__device__ __forceinline__ void wgmma_k_tile(float (&d)[Cfg::ACC], uint32_t a, uint32_t b,
                                             bool first)
{
    wgmma_fence_operand(d);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < KSTEPS; kk++)
        wgmma_op<T, Cfg::BN>::run(d, wgmma_desc_sw128(a + kk * KSTEP_BYTES),
                                  wgmma_desc_sw128(b + kk * KSTEP_BYTES), first && kk == 0 ? 0 : 1);
    wgmma_commit_group();
    wgmma_fence_operand(d);
}

/* ================================================================================================
 * The ring of stages shared by v2..v4: full[s] (1 arrival, the producer's expect_tx, plus the
 * bytes) and empty[s] (one arrival per consumer warp, of every block of the cluster).
 * ============================================================================================== */
template <class Cfg> struct ring {
    unsigned char *smem;
    uint64_t *full, *empty;
    __device__ __forceinline__ explicit ring(unsigned char *aligned)
        : smem(aligned), full((uint64_t *)(aligned + Cfg::STAGES * Cfg::STAGE_BYTES + Cfg::C_BYTES +
                                           Cfg::C_TMA_BYTES)),
          empty(full + Cfg::STAGES)
    {
    }
    __device__ __forceinline__ unsigned char *a(int s) const { return smem + s * Cfg::STAGE_BYTES; }
    __device__ __forceinline__ unsigned char *b(int s) const { return a(s) + Cfg::A_BYTES; }
    /* the staged epilogue's rows of consumer cw (C_COLS > 0) */
    __device__ __forceinline__ float *c(int cw) const
    {
        return (float *)(smem + Cfg::STAGES * Cfg::STAGE_BYTES) + cw * WG_M * Cfg::C_PITCH;
    }
    /* the TMA-store epilogue's two buffers of consumer cw, one after the other (C_TMA_COLS > 0) */
    __device__ __forceinline__ unsigned char *c_tma(int cw) const
    {
        return smem + Cfg::STAGES * Cfg::STAGE_BYTES + 2 * cw * WG_M * Cfg::C_TMA_COLS * 4;
    }
    /* thread 0, before any use (then a barrier, or a cluster barrier) */
    __device__ __forceinline__ void init(unsigned empty_arrivals) const
    {
        for (int s = 0; s < Cfg::STAGES; s++) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], empty_arrivals);
        }
        fence_mbarrier_init();
    }
};

/* Producer side: the k-tile (k index kt, of wg_bk<T>() values) of A rows m0.. and of B rows n0..
 * into stage s. With a
 * cluster, B is loaded in CLUSTER_M slices, this block's slice multicast to all of them. */
template <class T, class Cfg, int CLUSTER_M>
__device__ __forceinline__ void issue_k_tile(const ring<Cfg> &r, int s, const CUtensorMap *map_a,
                                             const CUtensorMap *map_b, int kt, int m0, int n0,
                                             unsigned rank)
{
    mbar_arrive_expect_tx(&r.full[s], Cfg::STAGE_BYTES); /* A, and all of B from every slice */
    tma_load_2d(r.a(s), map_a, &r.full[s], kt * wg_bk<T>(), m0);
    if (CLUSTER_M == 1) {
        tma_load_2d(r.b(s), map_b, &r.full[s], kt * wg_bk<T>(), n0);
    } else {
        constexpr int SLICE = Cfg::BN / CLUSTER_M;
        tma_load_2d_multicast(r.b(s) + rank * SLICE * ROW_BYTES, map_b, &r.full[s], kt * wg_bk<T>(),
                              n0 + (int)rank * SLICE, (uint16_t)((1u << CLUSTER_M) - 1));
    }
}

/* Consumer side: this warp is done with stage s (its wgmma groups that read it completed). With a
 * cluster, lane c tells block c: every block's producer waits for the consumers of all of them,
 * because its multicast writes into all of them. */
template <int CLUSTER_M> __device__ __forceinline__ void release_stage(uint64_t *empty)
{
    const unsigned lane = threadIdx.x % 32;
    if (CLUSTER_M == 1) {
        if (lane == 0) mbar_arrive(empty);
    } else if (lane < (unsigned)CLUSTER_M) {
        mbar_arrive_cluster(empty, lane);
    }
}

/* ================================================================================================
 * The warp-specialised kernel (chapter 05's v3, v4 and v5, chapter 04's v7). Warpgroup 0
 * produces, warpgroups 1..CONSUMERS consume. A block works on "units": one tile of C, or with a
 * cluster one column of CLUSTER_M vertically neighbouring
 * tiles (block `rank` of the cluster takes the rank-th). PERSISTENT: a block walks units
 * blockIdx / CLUSTER_M, + the number of clusters, ...; else it takes one. Producer and consumers
 * walk the same sequence, and the ring's position (it) runs on across units.
 * ============================================================================================== */
constexpr int PRODUCER_REGS = 40;
/* The registers a consumer thread gets with `consumers` consumer warpgroups: what the register
 * file (64 Ki) leaves after the producer, in steps of 8 (setmaxnreg), at most 232. */
__host__ __device__ constexpr int wg_consumer_regs(int consumers)
{
    return (65536 - PRODUCER_REGS * WG_THREADS) / (WG_THREADS * consumers) / 8 * 8 < 232
               ? (65536 - PRODUCER_REGS * WG_THREADS) / (WG_THREADS * consumers) / 8 * 8
               : 232;
}
constexpr int CONSUMER_REGS = wg_consumer_regs(2); /* 232, the two-consumer kernels' */

/* How a consumer keeps its f32 total when the tensor cores' running sum keeps fewer bits (FP8):
 *   PROMOTE_NONE   the tensor cores accumulate the whole K (f16, bf16, tf32)
 *   PROMOTE_TILE   each k-tile into a fresh partial sum, waited for, then added by the CUDA cores:
 *                  the consumer's wgmma queue runs empty once per k-tile (v5)
 *   PROMOTE_PAIRS  the same sums, into two partial sums taken in turn: while the tensor cores
 *                  run k-tile j into one, the CUDA cores add k-tile j-1's from the other (v6);
 *                  the same arithmetic for every element as PROMOTE_TILE */
enum { PROMOTE_NONE = 0, PROMOTE_TILE = 1, PROMOTE_PAIRS = 2 };
/* PROMOTE_PAIRS works in unrolled runs of PROMOTE_RUN k-tiles, each ending with its last group
 * complete (one drained wgmma queue per run); the k-tiles left over in runs of PROMOTE_RUN_REST,
 * then of one */
constexpr int PROMOTE_RUN = 32, PROMOTE_RUN_REST = 8;

/* Adds the partial sum p of a completed group to the total d (round to nearest: CUDA cores) */
template <int ACC> __device__ __forceinline__ void promote(float (&d)[ACC], float (&p)[ACC])
{
    wgmma_fence_operand(p);
#pragma unroll
    for (int i = 0; i < ACC; i++) d[i] += p[i];
}

/* PROMOTE_PAIRS: RUN consecutive k-tiles of one consumer, from ring position it0: k-tile j into
 * partial sum (j even ? p0 : p1); once it is issued, k-tile j-1's group is waited for, its stage
 * released and its sum added, so one group runs on the tensor cores while the CUDA cores add.
 * Why runs: ptxas follows which group a wgmma_wait_group<1> completes only within straight-line
 * code. Were a group still in flight across a loop's back edge with its registers read in the
 * next iteration, ptxas would serialise every wgmma of the kernel (warning C7514). So the run is
 * unrolled, waits for its last group before it returns, and the caller loops over whole runs:
 * one drained queue per RUN k-tiles instead of one per k-tile. */
template <class T, class Cfg, int CLUSTER_M, int RUN>
__device__ __forceinline__ void promote_pairs_run(const ring<Cfg> &r, float (&d)[Cfg::ACC],
                                                  float (&p0)[Cfg::ACC], float (&p1)[Cfg::ACC],
                                                  int it0, int cw)
{
#pragma unroll
    for (int j = 0; j < RUN; j++) {
        const int it = it0 + j, s = it % Cfg::STAGES;
        mbar_wait(&r.full[s], it / Cfg::STAGES % 2);
        const uint32_t a = smem_u32(r.a(s)) + cw * WG_M * ROW_BYTES, b = smem_u32(r.b(s));
        wgmma_k_tile<T, Cfg>(j % 2 == 0 ? p0 : p1, a, b, true);
        if (j > 0) { /* k-tile j-1 is complete (j runs on): free its stage, add its sum */
            wgmma_wait_group<1>();
            release_stage<CLUSTER_M>(&r.empty[(it - 1) % Cfg::STAGES]);
            promote(d, j % 2 == 0 ? p1 : p0);
        }
    }
    wgmma_wait_group<0>();
    release_stage<CLUSTER_M>(&r.empty[(it0 + RUN - 1) % Cfg::STAGES]);
    promote(d, (RUN - 1) % 2 == 0 ? p0 : p1);
}

/* ---- Stream-K for the last round (STREAMK): common/stream_k.h has the split of the work; a
 * partial segment's sums go to the block's slot of a workspace, then a flag (= the launch's
 * epoch) says so; a finisher waits for the flags of the clusters that hold its unit's earlier
 * k-tiles, adds their slots in cluster order (the same order every run) and stores C. Waits only
 * go to lower clusters, all resident (a persistent grid), so they end. */
static __device__ __forceinline__ int ld_acquire_gpu(const int *p)
{
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ void st_release_gpu(int *p, int v)
{
    asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
/* a consumer thread's accumulators in workspace slot `slot`: value i of consumer thread j at
 * [slot][i][j], so that each store and load of a warp is one contiguous 128 bytes */
template <class Cfg>
static __device__ __forceinline__ float *sk_slot(float *ws, int slot, int consumer_thread)
{
    return ws + (size_t)slot * Cfg::ACC * Cfg::CONSUMERS * WG_THREADS + consumer_thread;
}

template <class T, class Cfg, bool PERSISTENT, int CLUSTER_M, int GROUP_M,
          int PROMOTE = PROMOTE_NONE, bool STREAMK = false>
__global__ void __launch_bounds__((Cfg::CONSUMERS + 1) * WG_THREADS, 1)
    gemm_warpspec(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                  const __grid_constant__ CUtensorMap map_b, float *__restrict__ C, long ldc,
                  float alpha, float beta, bool vec2, float *__restrict__ ws, int *flags, int epoch,
                  const __grid_constant__ CUtensorMap map_c, bool c_tma)
{
#if TC_SM90A
    constexpr int REGS = wg_consumer_regs(Cfg::CONSUMERS);
    static_assert(PRODUCER_REGS * WG_THREADS + REGS * WG_THREADS * Cfg::CONSUMERS <= 65536,
                  "the register file holds the producer's and the consumers' registers");
    static_assert(Cfg::BN % (8 * CLUSTER_M) == 0, "B's slices are whole 8-row swizzle atoms");
    static_assert(!PROMOTE || 2 * Cfg::ACC + 16 <= REGS,
                  "promotion keeps two sets of accumulators in registers");
    static_assert(PROMOTE != PROMOTE_PAIRS || 3 * Cfg::ACC + 16 <= REGS,
                  "PROMOTE_PAIRS keeps three sets of accumulators in registers");
    static_assert(!STREAMK || PERSISTENT, "stream-K shares the last round of a persistent grid");
    static_assert(!STREAMK || PROMOTE == PROMOTE_NONE,
                  "stream-K is built for the f16/bf16 path: its next segment's wgmma overwrite d");
    extern __shared__ unsigned char smem_raw[];
    const ring<Cfg> r(align_1024(smem_raw));
    const unsigned rank = CLUSTER_M > 1 ? cluster_ctarank() : 0;
    if (threadIdx.x == 0) r.init(Cfg::CONSUMERS * 4 * CLUSTER_M);
    if (CLUSTER_M > 1)
        cluster_sync(); /* the partner's barriers exist before anything arrives on them */
    else
        __syncthreads();

    const int tiles_m = (M + Cfg::BM - 1) / Cfg::BM, tiles_n = (N + Cfg::BN - 1) / Cfg::BN;
    const int units_m = (tiles_m + CLUSTER_M - 1) / CLUSTER_M, units = units_m * tiles_n;
    const int k_tiles = (K + wg_bk<T>() - 1) / wg_bk<T>();
    const tc_sk_work w = tc_sk_make(units, PERSISTENT ? (int)gridDim.x / CLUSTER_M : units,
                                    blockIdx.x / CLUSTER_M, k_tiles, STREAMK);
    const int wg = threadIdx.x / WG_THREADS;
    /* the origin of this block's tile in unit u: the same for producer and consumers */
    const auto unit_origin = [&](int u, int &m0, int &n0) {
        int um, tn;
        tile_coords<GROUP_M>(u, units_m, tiles_n, &um, &tn);
        m0 = (um * CLUSTER_M + (int)rank) * Cfg::BM, n0 = tn * Cfg::BN;
    };

    if (wg == 0) {
        setmaxnreg_dec<PRODUCER_REGS>();
        if (threadIdx.x == 0) {
            int it = 0, u, t0, t1;
            for (int seg = 0; tc_sk_segment(&w, seg, &u, &t0, &t1); seg++) {
                int m0, n0;
                unit_origin(u, m0, n0);
                for (int t = t0; t < t1; t++, it++) {
                    const int s = it % Cfg::STAGES;
                    /* the use-th fill of stage s waits for the consumers' release of fill use-1 */
                    if (it >= Cfg::STAGES) mbar_wait(&r.empty[s], (it / Cfg::STAGES - 1) % 2);
                    issue_k_tile<T, Cfg, CLUSTER_M>(r, s, &map_a, &map_b, t, m0, n0, rank);
                }
            }
        }
        __syncwarp();
    } else {
        setmaxnreg_inc<REGS>();
        const int cw = wg - 1; /* this consumer's 64 rows of the tile */
        /* the staged epilogue's conditions (else the direct one) */
        const bool staged = beta == 0.0f && ldc % 4 == 0 && N % 4 == 0 && (uintptr_t)C % 16 == 0;
        int turn = 0; /* epilogue_tma's boxes so far */
        float d[Cfg::ACC];
#pragma unroll
        for (int i = 0; i < Cfg::ACC; i++) d[i] = 0.0f;
        int it = 0, u, t0, t1;
        for (int seg = 0; tc_sk_segment(&w, seg, &u, &t0, &t1); seg++) {
            int m0, n0;
            unit_origin(u, m0, n0);
            if constexpr (PROMOTE == PROMOTE_PAIRS) {
                float p0[Cfg::ACC], p1[Cfg::ACC];
                int t = t0;
                for (; t + PROMOTE_RUN <= t1; t += PROMOTE_RUN, it += PROMOTE_RUN)
                    promote_pairs_run<T, Cfg, CLUSTER_M, PROMOTE_RUN>(r, d, p0, p1, it, cw);
                for (; t + PROMOTE_RUN_REST <= t1; t += PROMOTE_RUN_REST, it += PROMOTE_RUN_REST)
                    promote_pairs_run<T, Cfg, CLUSTER_M, PROMOTE_RUN_REST>(r, d, p0, p1, it, cw);
                for (; t < t1; t++, it++) /* the last few: runs of one */
                    promote_pairs_run<T, Cfg, CLUSTER_M, 1>(r, d, p0, p1, it, cw);
            } else {
                for (int t = t0; t < t1; t++, it++) {
                    const int s = it % Cfg::STAGES;
                    mbar_wait(&r.full[s], it / Cfg::STAGES % 2);
                    const uint32_t a = smem_u32(r.a(s)) + cw * WG_M * ROW_BYTES,
                                   b = smem_u32(r.b(s));
                    if constexpr (PROMOTE == PROMOTE_TILE) {
                        /* the k-tile into a fresh partial sum; once it is complete, the CUDA
                         * cores add it to the f32 total, rounding to nearest */
                        float part[Cfg::ACC];
                        wgmma_k_tile<T, Cfg>(part, a, b, true);
                        wgmma_wait_group<0>();
                        release_stage<CLUSTER_M>(&r.empty[s]);
                        promote(d, part);
                    } else {
                        wgmma_k_tile<T, Cfg>(d, a, b, t == t0);
                        wgmma_wait_group<1>(); /* the previous k-tile's group is done */
                        if (t > t0) release_stage<CLUSTER_M>(&r.empty[(it - 1) % Cfg::STAGES]);
                    }
                }
                if constexpr (PROMOTE == PROMOTE_NONE) {
                    wgmma_wait_group<0>();
                    wgmma_fence_operand(d);
                    release_stage<CLUSTER_M>(&r.empty[(it - 1) % Cfg::STAGES]);
                }
            }
            if constexpr (STREAMK) {
                const int consumer_thread = threadIdx.x - WG_THREADS;
                constexpr int CONSUMER_THREADS = Cfg::CONSUMERS * WG_THREADS;
                if (t1 < k_tiles) { /* a partial segment (this cluster's first stream-K one) */
                    float *slot = sk_slot<Cfg>(ws, blockIdx.x, consumer_thread);
#pragma unroll
                    for (int i = 0; i < Cfg::ACC; i++) slot[(size_t)i * CONSUMER_THREADS] = d[i];
                    __threadfence();
                    named_bar_sync(1, CONSUMER_THREADS);
                    if (consumer_thread == 0) st_release_gpu(&flags[blockIdx.x], epoch);
                    continue;
                }
                if (t0 > 0) { /* the finisher of a split unit: add the earlier clusters' sums */
                    for (int c = tc_sk_first_partial(&w, u); c < w.cid; c++) {
                        const int from = c * CLUSTER_M + (int)rank;
                        if (consumer_thread == 0)
                            while (ld_acquire_gpu(&flags[from]) != epoch) __nanosleep(32);
                        named_bar_sync(1, CONSUMER_THREADS);
                        const float *slot = sk_slot<Cfg>(ws, from, consumer_thread);
#pragma unroll
                        for (int i = 0; i < Cfg::ACC; i++)
                            d[i] += slot[(size_t)i * CONSUMER_THREADS];
                    }
                }
            }
            if (Cfg::C_COLS && staged)
                epilogue_staged<Cfg>(d, r.c(cw), C, ldc, m0 + cw * WG_M, n0, M, N, alpha, cw);
            else if (Cfg::C_TMA_COLS && c_tma) /* map_c exists and beta == 0 (ws_launch) */
                epilogue_tma<Cfg>(d, r.c_tma(cw), &map_c, m0 + cw * WG_M, n0, M, N, alpha, cw,
                                  turn);
            else
                epilogue_direct<Cfg::ACC>(d, C, ldc, m0 + cw * WG_M, n0, M, N, alpha, beta, vec2);
            if constexpr (PROMOTE != PROMOTE_NONE) { /* the totals start again at 0 */
#pragma unroll
                for (int i = 0; i < Cfg::ACC; i++) d[i] = 0.0f;
            }
        }
    }
    /* the staged epilogue's last copies read this block's shared memory: done before it exits */
    if (Cfg::C_COLS || Cfg::C_TMA_COLS) bulk_wait<0>();
    /* with a cluster: no block may exit while its partner can still multicast into its shared
     * memory or arrive on its barriers */
    if (CLUSTER_M > 1) cluster_sync();
#endif
}

/* ================================================================================================
 * The host side of gemm_warpspec
 * ============================================================================================== */
template <class T> struct tma_dtype;
template <> struct tma_dtype<__half> {
    static constexpr CUtensorMapDataType value = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
};
template <> struct tma_dtype<__nv_bfloat16> {
    static constexpr CUtensorMapDataType value = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
};
template <> struct tma_dtype<float> { /* read as tf32 */
    static constexpr CUtensorMapDataType value = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
};
template <> struct tma_dtype<__nv_fp8_e4m3> { /* bytes: the TMA does not interpret them */
    static constexpr CUtensorMapDataType value = CU_TENSOR_MAP_DATA_TYPE_UINT8;
};
template <> struct tma_dtype<__nv_fp8_e5m2> {
    static constexpr CUtensorMapDataType value = CU_TENSOR_MAP_DATA_TYPE_UINT8;
};

/* C may be stored as float2 pairs */
static inline bool wg_c_vec2(const tc_gemm_problem *p)
{
    return (uintptr_t)p->d_c % 8 == 0 && p->ldc % 2 == 0;
}

/* What prepare() works out once and launch() uses: the tensor maps and the grid. */
typedef struct {
    CUtensorMap map_a, map_b;
    CUtensorMap map_c; /* C in boxes of 64 x C_TMA_COLS floats, for the TMA-store epilogue */
    int has_map_c;     /* whether map_c was made */
    unsigned grid;
    float *ws;  /* stream-K: a slot of BM x BN sums per block (NULL without) */
    int *flags; /* stream-K: a flag per block, = epoch once its slot is written */
    int epoch;  /* stream-K: launches so far; a launch's flags are its epoch */
    int kernel; /* which of its kernels a variant's prepare() chose (0 when it has one) */
} wg_plan;

/* Whether the TMA can write C (its 16-byte rules): then ws_prepare makes map_c, and ws_launch
 * lets the kernel use it when beta == 0 */
static inline bool wg_c_tma(const tc_gemm_problem *p)
{
    return (uintptr_t)p->d_c % 16 == 0 && p->ldc % 4 == 0;
}

/* NULL, or why the TMA cannot read A or B (a TC_GEMM_SKIP message: the problem is valid) */
template <class T> static const char *wg_tma_unsupported(const tc_gemm_problem *p)
{
    static char why[160];
    const char *a = tma_operand_unsupported(p->d_a, p->lda, (int)sizeof(T));
    const char *b = tma_operand_unsupported(p->d_b, p->ldb, (int)sizeof(T));
    if (!a && !b) return NULL;
    snprintf(why, sizeof why, TC_GEMM_SKIP "%s: %s", a ? "A" : "B", a ? a : b);
    return why;
}

template <class T> static wg_plan *wg_make_plan(const tc_gemm_problem *p, int bm, int b_box)
{
    wg_plan *plan = (wg_plan *)tma_host_calloc(sizeof *plan);
    if (!plan) return NULL;
    plan->map_a = tma_map_kmajor(p->d_a, tma_dtype<T>::value, p->M, p->K, p->lda, bm);
    plan->map_b = tma_map_kmajor(p->d_b, tma_dtype<T>::value, p->N, p->K, p->ldb, b_box);
    return plan;
}

/* NULL when the GPU runs `kernel`'s sm_90a code, else a TC_GEMM_SKIP message. A program built for
 * several targets (chapter 04) has wgmma kernels whose bodies exist only in its sm_90a code: on
 * another GPU, or from a build without 90 in SM, the GPU would run an empty kernel. */
static inline const char *wgmma_kernel_unsupported(const void *kernel)
{
    static char why[160];
    cudaFuncAttributes fa;
    const cudaError_t e = cudaFuncGetAttributes(&fa, kernel);
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction) {
        (void)cudaGetLastError();
        return TC_GEMM_SKIP "this build has no code for this GPU";
    }
    TC_CUDA_CHECK(e);
    if (fa.binaryVersion != 90) {
        snprintf(why, sizeof why,
                 TC_GEMM_SKIP "wgmma needs sm_90a code (a Hopper GPU, 90 in SM); this GPU runs "
                              "the build's sm_%d code",
                 fa.binaryVersion);
        return why;
    }
    return NULL;
}

template <class Cfg>
static cudaLaunchConfig_t ws_launch_config(unsigned grid, int cluster, cudaLaunchAttribute *attr,
                                           cudaStream_t stream)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid, 1, 1);
    cfg.blockDim = dim3((Cfg::CONSUMERS + 1) * WG_THREADS, 1, 1);
    cfg.dynamicSmemBytes = Cfg::SMEM_BYTES;
    cfg.stream = stream;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = (unsigned)cluster, attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg.attrs = attr, cfg.numAttrs = 1;
    return cfg;
}

/* The units of work of gemm_warpspec: one tile of C, or a column of CLUSTER_M tiles */
template <class Cfg, int CLUSTER_M> static unsigned ws_units(const tc_gemm_problem *p)
{
    const unsigned tiles_m = (unsigned)((p->M + Cfg::BM - 1) / Cfg::BM);
    return (tiles_m + CLUSTER_M - 1) / CLUSTER_M * (unsigned)((p->N + Cfg::BN - 1) / Cfg::BN);
}

/* The number of blocks of a persistent kernel: as many clusters of CLUSTER_M blocks as fit on the
 * GPU at once (one block per SM), at most `units`; 0 when not even one fits. */
template <class Cfg, int CLUSTER_M>
static unsigned ws_resident_blocks(const void *kernel, unsigned units)
{
    cudaLaunchAttribute attr;
    int dev = 0, sms = 0, clusters = 0;
    TC_CUDA_CHECK(cudaGetDevice(&dev));
    TC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cudaLaunchConfig_t cfg =
        ws_launch_config<Cfg>((unsigned)(CLUSTER_M * sms), CLUSTER_M, &attr, 0);
    TC_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg));
    const unsigned resident = (unsigned)clusters;
    return CLUSTER_M * (units < resident ? units : resident);
}

template <class T, class Cfg, bool PERSISTENT, int CLUSTER_M, int GROUP, int PROMOTE = PROMOTE_NONE,
          bool STREAMK = false>
static const char *ws_prepare(tc_gemm_problem *p)
{
    const void *kernel =
        (const void *)gemm_warpspec<T, Cfg, PERSISTENT, CLUSTER_M, GROUP, PROMOTE, STREAMK>;
    const char *why = wgmma_kernel_unsupported(kernel);
    if (why) return why;
    why = wg_tma_unsupported<T>(p);
    if (why) return why;
    why = allow_smem(kernel, Cfg::SMEM_BYTES);
    if (why) return why;
    /* persistent: as many blocks (clusters) as fit on the GPU at once, one per SM */
    const unsigned units = ws_units<Cfg, CLUSTER_M>(p);
    const unsigned grid =
        PERSISTENT ? ws_resident_blocks<Cfg, CLUSTER_M>(kernel, units) : CLUSTER_M * units;
    if (grid == 0) return TC_GEMM_SKIP "no block (cluster) of this kernel fits on this GPU";
    wg_plan *plan = wg_make_plan<T>(p, Cfg::BM, Cfg::BN / CLUSTER_M);
    if (!plan) return "out of host memory";
    if (Cfg::C_TMA_COLS && wg_c_tma(p)) {
        plan->map_c = tma_map_box(p->d_c, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, p->M, p->N, p->ldc,
                                  Cfg::C_TMA_COLS, WG_M);
        plan->has_map_c = 1;
    }
    plan->grid = grid;
    p->plan = plan;
    if (STREAMK) {
        TC_CUDA_CHECK(cudaMalloc(&plan->ws, (size_t)grid * Cfg::BM * Cfg::BN * sizeof(float)));
        TC_CUDA_CHECK(cudaMalloc(&plan->flags, grid * sizeof(int)));
        TC_CUDA_CHECK(cudaMemset(plan->flags, 0, grid * sizeof(int)));
        /* the launches go to the caller's stream, which may not wait for the legacy one */
        TC_CUDA_CHECK(cudaDeviceSynchronize());
    }
    return NULL;
}

template <class T, class Cfg, bool PERSISTENT, int CLUSTER_M, int GROUP, int PROMOTE = PROMOTE_NONE,
          bool STREAMK = false>
static void ws_launch(const tc_gemm_problem *p, cudaStream_t stream)
{
    wg_plan *plan = (wg_plan *)p->plan;
    const int epoch = STREAMK ? ++plan->epoch : 0; /* a new value for every launch's flags */
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = ws_launch_config<Cfg>(plan->grid, CLUSTER_M, &attr, stream);
    TC_CUDA_CHECK(cudaLaunchKernelEx(
        &cfg, gemm_warpspec<T, Cfg, PERSISTENT, CLUSTER_M, GROUP, PROMOTE, STREAMK>, p->M, p->N,
        p->K, plan->map_a, plan->map_b, (float *)p->d_c, p->ldc, p->alpha, p->beta, wg_c_vec2(p),
        plan->ws, plan->flags, epoch, plan->map_c, plan->has_map_c && p->beta == 0.0f));
}

/* The plan of ws_prepare (and of any prepare that stores a malloc'ed plan) */
static inline void ws_release(tc_gemm_problem *p)
{
    wg_plan *plan = (wg_plan *)p->plan;
    if (plan && plan->ws) TC_CUDA_CHECK(cudaFree(plan->ws));
    if (plan && plan->flags) TC_CUDA_CHECK(cudaFree(plan->flags));
    free(p->plan);
    p->plan = NULL;
}

#endif /* TC_WGMMA_PIPELINE_CUH */
