/* 05_mma_ptx/wgmma_gemm.cu - the Hopper GEMM ladder (part 2 of chapter 05): wgmma and the TMA,
 * f16 or bf16 inputs, f32 accumulate and output. sm_90a only.
 *
 * What it teaches
 *   Part 1 stayed well below cuBLAS with mma.sync, and its probe showed why: on an H200 the
 *   warp-level instruction itself stays below cuBLAS even with no memory traffic. Hopper's own
 *   path is different in three ways, and each rung below adds one:
 *     - wgmma: a warpgroup (4 warps) issues one 64 x N x 16 product whose operands the tensor
 *       cores read straight from shared memory through descriptors; it runs asynchronously;
 *     - the TMA: one thread copies a whole tile, the copy engine computes the addresses, clips
 *       at the matrix edge and writes the swizzled layout; completion counts on an mbarrier;
 *     - warp specialisation: a producer warpgroup that only issues copies, consumer warpgroups
 *       that only issue wgmma, synchronised through mbarriers, with registers moved to the
 *       consumers by setmaxnreg.
 *   wgmma_ptx.cuh has every instruction with its layout; tma_map.h the host side of the TMA.
 *
 * Problem and layout (every variant): C = alpha * A * B + beta * C. A is M x K row-major (lda),
 * B is K x N column-major (ldb: the distance between columns), C is M x N row-major f32 (ldc):
 * both operands K-major, as wgmma wants them without transposition, and the same layout as
 * part 1 and its cuBLAS baseline. beta == 0 never reads C.
 *
 * Tiles: k-tiles of BK = 64 values (one 128-byte swizzle row); operand tiles in shared memory are
 * ROWS x 64, K-major, 128-byte swizzled, 1024-byte aligned (wgmma_ptx.cuh draws the layout). A
 * block of W consumer warpgroups computes a (64 W) x BN tile of C: warpgroup w owns rows
 * 64 w .. 64 w + 63 with one m64nBNk16 wgmma per k-step of 16, BN / 2 f32 accumulators per
 * thread.
 *
 * Sizes: v1 takes any M, N, K and any leading dimension or alignment (cp.async with zero fill,
 * value-by-value copies for rows that are not 16-byte aligned). v2.. read A and B with the TMA:
 * any M and N (boxes past the edge are zero-filled), K a multiple of 8 and lda, ldb multiples of
 * 8 with 16-byte aligned bases (the TMA's 16-byte stride rule); other cases are reported as
 * skipped by prepare(), and the CLI rejects K % 8 != 0 (the variant table's mult_k).
 *
 * Minimum: sm_90a, built with -gencode=arch=compute_90a,code=sm_90a; CUDA 12.x or 13.x.
 *
 * Build and run
 *   make                                           # build/bin/05_wgmma_gemm when 90 is in SM
 *   build/bin/05_wgmma_gemm                        # the ladder at 4096^3, cuBLAS beside it
 *   build/bin/05_wgmma_gemm --variant v4_cluster --size 8192x8192x8192
 *   build/bin/05_wgmma_gemm --test                 # every rung, f16 and bf16, odd sizes
 *   cuobjdump --dump-sass build/05_mma_ptx/wgmma_gemm.cu.o | grep HGMMA
 *
 * The rungs (the same for f16 and bf16)
 *   v1_wgmma      128 x 128 block tile, 2 warpgroups of 64 x 128 (m64n128k16). Every thread copies
 *                 with cp.async into a 3-stage ring, writing the 128-byte swizzle itself (the
 *                 formula of wgmma_ptx.cuh), then fence.proxy.async and a barrier hand the stage
 *                 to the tensor cores. Each k-tile: 4 wgmma, commit, wait for all of them before
 *                 the barrier that lets the stage be refilled. What changes against part 1: no
 *                 ldmatrix, no fragment registers, one instruction per 64 x 128 x 16.
 *   v2_tma        The same tile with the TMA: thread 0 issues one copy per operand and k-tile
 *                 into a 4-stage ring; "full" mbarriers count the bytes in, "empty" mbarriers
 *                 count the warps done with a stage. wgmma_wait_group<1> keeps one group of
 *                 wgmma in flight while the next k-tile's are issued. No thread computes an
 *                 address, no barrier for the whole block; but thread 0 waits for the slowest
 *                 warp before it can refill a stage, and its warpgroup waits with it.
 *   v3_warpspec   Warp specialisation and a 128 x 256 tile: warpgroup 0 is the producer (one
 *                 thread issues the TMA, setmaxnreg gives its registers back: 40 per thread),
 *                 warpgroups 1 and 2 are consumers (232 registers: 128 accumulators of
 *                 m64n256k16). The producer runs ahead by as many stages as are free; the
 *                 consumers never wait for a copy they could have issued. A 128 x 256 tile
 *                 reads 3/4 of the operand bytes per flop of a 128 x 128 one.
 *   v4_cluster    Persistent, in clusters of 2 blocks. One block per SM walks tiles (grouped order)
 *                 in a loop, and the ring keeps running across tiles, so the producer loads the
 *                 next tile's first k-tiles while the consumers store the last one's C. The two
 *                 blocks of a cluster take vertically neighbouring tiles, which need the same B
 *                 tile: each loads half of it and the TMA multicasts that half into both blocks,
 *                 halving B's L2 traffic. A consumer releases a stage in both blocks (an arrive on
 *                 the partner's "empty" barrier through mapa), because the partner's next
 *                 multicast writes into this block's stage too. The measurements decided this
 *                 rung: persistence alone and clusters alone were each measured against v3, and
 *                 only the two together beat it at both sizes (NOTES.md, "What paid and what
 *                 did not").
 *
 * The f16/bf16 stream-K rung
 *   v7_streamk    v4 whose last round is shared by k-tiles: a persistent grid of c clusters
 *                 leaves units % c of them working alone in the last round; stream-K gives every
 *                 cluster an equal share of that round's k-tiles (common/stream_k.h). A cluster
 *                 that holds the start of a unit writes its partial sums to a workspace slot and
 *                 raises a flag (release); the cluster that finishes the unit waits for the
 *                 flags (acquire), adds the slots in cluster order (the same sums every run) and
 *                 stores C.
 *
 * The TMA-store rungs (C leaves through the copy engine; beta != 0 or a C whose rows the TMA
 * cannot address, ldc % 4 != 0 or an unaligned base, keep the direct epilogue)
 *   v10_tmastore  v4 whose consumers write C in boxes of 64 rows x 32 floats to shared memory
 *                 (the 128-byte swizzle, two buffers per consumer, 32 KiB beside the 4 stages)
 *                 and hand each box to cp.async.bulk.tensor (epilogue_tma): the copy engine
 *                 clips at C's edges, so no thread guards a store, and the consumer goes on to
 *                 the next box, then the next tile, while the boxes drain. Unlike v9's staging
 *                 it holds two boxes, not the tile, so no stage is given up.
 *   v11_tmastore_sk  v7 (stream-K) with the same epilogue.
 */
#include "wgmma_gemm.h"
#include "wgmma_rungs.cuh"

#include "wgmma_pipeline.cuh"

#include <stdint.h>
#include <stdlib.h>

const wgmma_input wgmma_in_f16 = WGMMA_IN_F16, wgmma_in_bf16 = WGMMA_IN_BF16;
const wgmma_input wgmma_in_e4m3 = WGMMA_IN_E4M3, wgmma_in_e5m2 = WGMMA_IN_E5M2;

/* The tile configuration (wg_config), the epilogue, the four wgmma of a k-tile, the ring of
 * stages and the warp-specialised kernel of v3 and v4 (gemm_warpspec) are in
 * common/wgmma_pipeline.cuh, shared with chapter 04's tf32 rung; v1 and v2 below are this
 * chapter's own steps towards it. */
constexpr int BK = wg_bk<__half>(); /* a k-tile: 64 16-bit values = one 128-byte swizzle row */
static_assert(BK * 2 == ROW_BYTES, "a k-tile row is one 128-byte swizzle row");

/* ================================================================================================
 * v1: cp.async into a ring, the swizzle written by hand, barriers for the whole block
 * ============================================================================================== */

/* Copies the ROWS x 64 tile at (row0, k0) of a K-contiguous matrix (rows x K, leading dimension
 * ld) into a 128-byte swizzled tile; zeros outside the matrix. Thread i copies chunks i,
 * i + THREADS, ...: consecutive threads take consecutive 16 bytes of a row (coalesced). */
template <int THREADS, int ROWS>
__device__ __forceinline__ void load_tile_sw128(unsigned char *tile, const uint16_t *__restrict__ g,
                                                long ld, int row0, int k0, int rows, int K,
                                                bool vec)
{
    constexpr int CHUNKS = ROWS * ROW_BYTES / 16;
    static_assert(CHUNKS % THREADS == 0, "the 16-byte chunks are shared evenly");
    const uint32_t base = smem_u32(tile);
#pragma unroll
    for (int i = 0; i < CHUNKS / THREADS; i++) {
        const int chunk = (int)threadIdx.x + i * THREADS, r = chunk / 8, c = chunk % 8;
        const int gr = row0 + r, gk = k0 + 8 * c;
        const uint32_t offset = r * ROW_BYTES + ((c ^ (r % 8)) << 4); /* the 128-byte swizzle */
        if (vec) {
            const bool inside = gr < rows && gk < K; /* K % 8 == 0: a chunk is in or out */
            cp_async_16(base + offset, inside ? g + (size_t)gr * ld + gk : g, inside ? 16 : 0);
        } else {
            load_vector_scalar<uint16_t>((uint16_t *)(tile + offset), g, ld, gr, gk, rows, K);
        }
    }
}

template <class T, class Cfg, int GROUP_M>
__global__ void __launch_bounds__(Cfg::CONSUMERS *WG_THREADS, 1)
    gemm_cp_async(int M, int N, int K, const uint16_t *__restrict__ A, long lda,
                  const uint16_t *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                  float alpha, float beta, bool vec_a, bool vec_b, bool vec2)
{
    constexpr int THREADS = Cfg::CONSUMERS * WG_THREADS;
    static_assert(Cfg::STAGES >= 2, "loads of k-tile t+STAGES-1 overlap the wgmma of t");
    extern __shared__ unsigned char smem_raw[];
    unsigned char *smem = align_1024(smem_raw);
    const int wg = threadIdx.x / WG_THREADS;
    int tm, tn;
    block_tile_coords<GROUP_M>((M + Cfg::BM - 1) / Cfg::BM, (N + Cfg::BN - 1) / Cfg::BN, &tm, &tn);
    const int m0 = tm * Cfg::BM, n0 = tn * Cfg::BN;
    const int k_tiles = (K + BK - 1) / BK;

    auto load = [&](int t) {
        unsigned char *stage = smem + (t % Cfg::STAGES) * Cfg::STAGE_BYTES;
        load_tile_sw128<THREADS, Cfg::BM>(stage, A, lda, m0, t * BK, M, K, vec_a);
        load_tile_sw128<THREADS, Cfg::BN>(stage + Cfg::A_BYTES, B, ldb, n0, t * BK, N, K, vec_b);
    };
    float d[Cfg::ACC];
#pragma unroll
    for (int i = 0; i < Cfg::ACC; i++) d[i] = 0.0f;

#pragma unroll
    for (int t = 0; t < Cfg::STAGES - 1; t++) {
        if (t < k_tiles) load(t);
        cp_async_commit_group(); /* empty groups past the end keep wait_group's count */
    }
    for (int t = 0; t < k_tiles; t++) {
        /* k-tile t has landed (this thread's copies); the fence hands this thread's writes to the
         * async proxy that wgmma reads through; the barrier makes everyone's visible and says
         * that every warpgroup is done with k-tile t-1, whose stage is refilled next */
        cp_async_wait_group<Cfg::STAGES - 2>();
        fence_proxy_async();
        __syncthreads();
        if (t + Cfg::STAGES - 1 < k_tiles) load(t + Cfg::STAGES - 1);
        cp_async_commit_group();
        const uint32_t stage = smem_u32(smem + (t % Cfg::STAGES) * Cfg::STAGE_BYTES);
        wgmma_k_tile<T, Cfg>(d, stage + wg * WG_M * ROW_BYTES, stage + Cfg::A_BYTES, false);
        wgmma_wait_group<0>(); /* the stage may be overwritten after the next barrier */
        wgmma_fence_operand(d);
    }
    cp_async_wait_group<0>();
    epilogue_direct<Cfg::ACC>(d, C, ldc, m0 + wg * WG_M, n0, M, N, alpha, beta, vec2);
}

/* ================================================================================================
 * v2: the TMA ring, every warpgroup a consumer, thread 0 also the producer
 * ============================================================================================== */
template <class T, class Cfg, int GROUP_M>
__global__ void __launch_bounds__(Cfg::CONSUMERS *WG_THREADS, 1)
    gemm_tma(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
             const __grid_constant__ CUtensorMap map_b, float *__restrict__ C, long ldc,
             float alpha, float beta, bool vec2)
{
    extern __shared__ unsigned char smem_raw[];
    const ring<Cfg> r(align_1024(smem_raw));
    if (threadIdx.x == 0) r.init(Cfg::CONSUMERS * 4);
    __syncthreads();
    const int wg = threadIdx.x / WG_THREADS;
    int tm, tn;
    block_tile_coords<GROUP_M>((M + Cfg::BM - 1) / Cfg::BM, (N + Cfg::BN - 1) / Cfg::BN, &tm, &tn);
    const int m0 = tm * Cfg::BM, n0 = tn * Cfg::BN;
    const int k_tiles = (K + BK - 1) / BK;

    if (threadIdx.x == 0)
        for (int t = 0; t < Cfg::STAGES && t < k_tiles; t++)
            issue_k_tile<T, Cfg, 1>(r, t, &map_a, &map_b, t, m0, n0, 0);
    float d[Cfg::ACC];
#pragma unroll
    for (int i = 0; i < Cfg::ACC; i++) d[i] = 0.0f;
    /* do-while, not for: K >= 1, and a loop the compiler knows runs at least once has no path on
     * which the accumulators skip it. With a for loop it joins that path with the loop's exit
     * by moving the accumulators while the last wgmma group is still in flight, and ptxas then
     * serialises every wgmma (warning C7515, "wgmma.mma_async instructions are serialized"). */
    int t = 0;
    do {
        const int s = t % Cfg::STAGES;
        mbar_wait(&r.full[s], (t / Cfg::STAGES) % 2);
        wgmma_k_tile<T, Cfg>(d, smem_u32(r.a(s)) + wg * WG_M * ROW_BYTES, smem_u32(r.b(s)), t == 0);
        wgmma_wait_group<1>(); /* k-tile t-1's wgmma are done: its stage is free */
        if (t > 0) {
            const int p = (t - 1) % Cfg::STAGES;
            release_stage<1>(&r.empty[p]);
            if (threadIdx.x == 0 && t - 1 + Cfg::STAGES < k_tiles) {
                mbar_wait(&r.empty[p], (t - 1) / Cfg::STAGES % 2);
                issue_k_tile<T, Cfg, 1>(r, p, &map_a, &map_b, t - 1 + Cfg::STAGES, m0, n0, 0);
            }
        }
    } while (++t < k_tiles);
    wgmma_wait_group<0>();
    wgmma_fence_operand(d);
    epilogue_direct<Cfg::ACC>(d, C, ldc, m0 + wg * WG_M, n0, M, N, alpha, beta, vec2);
}

/* ================================================================================================
 * The rungs' configurations and the host side
 * ============================================================================================== */
/*                     BN  STAGES CONSUMERS */
typedef wg_config<128, 3, 2> V1;
typedef wg_config<128, 4, 2> V2;
typedef wg_config<256, 4, 2> V3; /* also v4 */
/* v10, v11: v4 and v7 with C out through TMA stores, two 64 x 32 boxes per consumer (32 KiB
 * beside the 4 stages) */
typedef wg_config<256, 4, 2, 0, 32> V10;

static bool is_bf16(const tc_gemm_variant *v)
{
    return *(const wgmma_input *)v->impl == WGMMA_IN_BF16;
}

/* ---- v2 ------------------------------------------------------------------------------------ */
template <class T> static const char *prepare_v2(tc_gemm_problem *p)
{
    const char *why = wg_tma_unsupported<T>(p);
    if (why) return why;
    why = allow_smem((const void *)gemm_tma<T, V2, GROUP_M>, V2::SMEM_BYTES);
    if (why) return why;
    wg_plan *plan = wg_make_plan<T>(p, V2::BM, V2::BN);
    if (!plan) return "out of host memory";
    plan->grid = tile_count(p, V2::BM, V2::BN);
    p->plan = plan;
    return NULL;
}

template <class T> static void launch_v2(const tc_gemm_problem *p, cudaStream_t stream)
{
    const wg_plan *plan = (const wg_plan *)p->plan;
    gemm_tma<T, V2, GROUP_M><<<plan->grid, V2::CONSUMERS * WG_THREADS, V2::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, plan->map_a, plan->map_b, (float *)p->d_c, p->ldc, p->alpha, p->beta,
        wg_c_vec2(p));
}

/* ---- the hooks ------------------------------------------------------------------------------ */
extern "C" const char *wgmma_v1_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_bf16(v)
               ? allow_smem((const void *)gemm_cp_async<__nv_bfloat16, V1, GROUP_M>, V1::SMEM_BYTES)
               : allow_smem((const void *)gemm_cp_async<__half, V1, GROUP_M>, V1::SMEM_BYTES);
}

extern "C" void wgmma_v1_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                cudaStream_t stream)
{
    const bool vec_a = rows_vectorizable(p->d_a, p->lda, p->K, 2);
    const bool vec_b = rows_vectorizable(p->d_b, p->ldb, p->K, 2);
    const unsigned grid = tile_count(p, V1::BM, V1::BN);
#define V1_ARGS                                                                                    \
    p->M, p->N, p->K, (const uint16_t *)p->d_a, p->lda, (const uint16_t *)p->d_b, p->ldb,          \
        (float *)p->d_c, p->ldc, p->alpha, p->beta, vec_a, vec_b, wg_c_vec2(p)
    if (is_bf16(v))
        gemm_cp_async<__nv_bfloat16, V1, GROUP_M>
            <<<grid, V1::CONSUMERS * WG_THREADS, V1::SMEM_BYTES, stream>>>(V1_ARGS);
    else
        gemm_cp_async<__half, V1, GROUP_M>
            <<<grid, V1::CONSUMERS * WG_THREADS, V1::SMEM_BYTES, stream>>>(V1_ARGS);
#undef V1_ARGS
}

extern "C" const char *wgmma_v2_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_bf16(v) ? prepare_v2<__nv_bfloat16>(p) : prepare_v2<__half>(p);
}
extern "C" void wgmma_v2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                                cudaStream_t stream)
{
    if (is_bf16(v))
        launch_v2<__nv_bfloat16>(p, stream);
    else
        launch_v2<__half>(p, stream);
}

WS_HOOKS(v3, __half, __nv_bfloat16, is_bf16, V3, false, 1, PROMOTE_NONE, false)
WS_HOOKS(v4, __half, __nv_bfloat16, is_bf16, V3, true, V4_CLUSTER, PROMOTE_NONE, false)
WS_HOOKS(v7, __half, __nv_bfloat16, is_bf16, V3, true, V4_CLUSTER, PROMOTE_NONE, true)
WS_HOOKS(v10, __half, __nv_bfloat16, is_bf16, V10, true, V4_CLUSTER, PROMOTE_NONE, false)
WS_HOOKS(v11, __half, __nv_bfloat16, is_bf16, V10, true, V4_CLUSTER, PROMOTE_NONE, true)
#undef WS_HOOKS

extern "C" void wgmma_release(const tc_gemm_variant *v, tc_gemm_problem *p) { ws_release(p); }