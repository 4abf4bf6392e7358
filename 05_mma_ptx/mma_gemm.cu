/* 05_mma_ptx/mma_gemm.cu - the mma.sync GEMM ladder: f16 or bf16 inputs, f32 accumulate and output.
 *
 * What it teaches
 *   Chapter 03 wrote the GEMM with WMMA, whose fragments are opaque. Here the same tensor-core
 *   instruction (HMMA.16816, PTX mma.sync m16n8k16) is written out, with its fragment layout
 *   known (mma_sync.cuh). Knowing the layout is what lets each
 *   rung below do something WMMA cannot: load fragments from any shared-memory layout, use an XOR
 *   swizzle instead of padding, and store the accumulators straight from registers. The ceiling
 *   is the instruction itself: 05_mma_probe measures what mma.sync can do on the running GPU.
 *
 * Problem and layout (every variant)
 *   C = alpha * A * B + beta * C. A is M x K row-major (lda), B is K x N column-major (ldb: the
 *   distance between columns), C is M x N row-major f32 (ldc). Both operands are K-contiguous,
 *   which is what mma .row.col wants: a row of A and a column of B become rows of a "K-major"
 *   shared-memory tile (mma_tile.cuh), A and B tiles have one layout, and ldmatrix without .trans
 *   makes fragments of both. beta == 0 never reads C. Every variant takes any M, N, K >= 1: tile
 *   loads outside the matrix are zero-filled (cp.async with src_bytes = 0), stores are guarded.
 *   Rows move as 16-byte vectors when they are 16-byte aligned (pointer aligned, ld a multiple of
 *   8, K a multiple of 8); otherwise one value at a time (correct, slow). The kernels are
 *   templates over the input type (__half or __nv_bfloat16); only the mma instruction differs.
 *
 * Where the code is
 *   This file: v1..v3 (gemm_sync, load_frags_hand), v4 (gemm_pipeline) and the launchers of all
 *   six rungs. common/mma_pipeline.cuh: v5's and v6's kernel (gemm_pipeline_dbuf) and what the
 *   rungs share: gemm_config, the tile loads (tile_copy, copy_tile_sync, copy_tile_async),
 *   load_frags_ldmatrix, mma_step, the epilogues (epilogue_direct, epilogue_smem),
 *   block_tile_origin, load_k_tile, the mma by input type (mma_f32) and the host side
 *   (MMA_GEMM_ARGS, mma_vector_paths, pipeline_dbuf_prepare and _launch). It lives in common/
 *   because chapter 04 runs the same kernel on f32 data with the tf32 mma m16n8k8, whose
 *   fragments are the same bytes: the kernels count k in 16-bit words, which for halves are the
 *   values. mma_tile.cuh: the hand and .trans fragment loaders; common/kmajor_tile.cuh: the tile
 *   layout and the ldmatrix loaders.
 *
 * Minimum: sm_80 (cp.async, bf16 mma). CUDA 12.x or 13.x.
 *
 * Build and run
 *   make                                           # build/bin/05_mma_gemm (and 05_mma_probe)
 *   build/bin/05_mma_gemm                          # the ladder at 4096^3, cuBLAS beside it
 *   build/bin/05_mma_gemm --variant v5_dbuf --size 8192x8192x8192
 *   build/bin/05_mma_gemm --test                   # every rung, f16 and bf16, odd sizes
 *   nvcc -Xptxas -v ...                            # registers: see NOTES.md
 *
 * The rungs (the same for f16 and bf16)
 *   v1_hand      128x128 block tile, BK = 32, 8 warps with 64x32 warp tiles (4 x 4 mma tiles of
 *                16x8). Tiles go global -> registers -> shared memory (plain layout, 64-byte rows),
 *                then every lane loads its fragments by hand with 32-bit shared loads that follow
 *                the lane map of mma.sync: 4 loads per A fragment, 2 per B fragment. Rows 64
 *                bytes apart put 8 rows of a fragment into 2 bank groups: 4-way conflicts.
 *   v2_ldmatrix  The same tiles, fragments with ldmatrix.x4: one instruction per A fragment and
 *                one per two B fragments instead of 4 and 2 x 2 loads. The bank conflicts are
 *                the same (each 8x8 matrix is 8 rows at one column), the instruction count drops
 *                4x for A and 2x for B.
 *   v3_swizzle   The XOR-swizzled tile layout (common/swizzle.h): chunk c of row r is stored at
 *                c ^ ((r / 2) % 4), so the 8 rows of every ldmatrix matrix land in 8 different
 *                bank groups. No padding: the tile keeps its 64-byte rows, and 16-byte loads and
 *                cp.async stores stay conflict-free too (tests/test_swizzle.c checks both).
 *   v4_pipeline  cp.async (global -> shared with no register round trip) into a 4-stage ring,
 *                one barrier per k-tile, loads for k-tile t+3 in flight while k-tile t is
 *                multiplied. The block tile grows to 128x256 and the warp tile to 64x64 (4 x 8
 *                mma tiles: 32 mmas per 8 ldmatrix.x4, against 16 per 6), which cuts the
 *                shared-memory reads per mma by a third and the L2 traffic per flop by a
 *                quarter.
 *   v5_dbuf      Fragments double-buffered in registers: the ldmatrix of k-step s+1 are issued
 *                before the mmas of step s, and the barrier for k-tile t+1 moves before the last
 *                k-step of tile t, so the tensor pipe does not wait for shared-memory latency.
 *                Blocks are launched in groups of 8 block-rows (rasterisation), so the blocks
 *                running together share their A and B tiles in L2.
 *   v6_epilogue  v5 with the epilogue staged through shared memory: each warp writes its 16x64
 *                accumulator strips to a padded scratch tile (conflict-free float2 stores), reads
 *                them back as rows, and every lane stores 16 contiguous bytes of C. The direct
 *                epilogue of v1..v5 stores 8 bytes per lane (whole 32-byte sectors, but twice the
 *                store instructions).
 */
#include "mma_gemm.h"

#include "gemm_hooks.h"
#include "mma_pipeline.cuh"
#include "mma_tile.cuh"

#include <stdint.h>

const mma_input mma_in_f16 = MMA_IN_F16, mma_in_bf16 = MMA_IN_BF16;

/* From common/mma_pipeline.cuh: MMA_M, MMA_N, KSTEP_WORDS (16: for f16 and bf16 one k-step of
 * m16n8k16 is 16 values), gemm_config, mma_vec_flags, the tile loads (tile_copy, copy_tile_sync,
 * copy_tile_async), load_frags_ldmatrix, mma_step, the epilogues (epilogue_direct, epilogue_smem),
 * block_tile_origin, load_k_tile, and the kernel of v5 and v6, gemm_pipeline_dbuf. */

/* ================================================================================================
 * The warp's fragments and mmas
 * ============================================================================================== */

/* v1: every fragment by hand (32-bit shared loads in the lane map of mma.sync) */
template <class Cfg>
__device__ __forceinline__ void
load_frags_hand(uint32_t (&a)[Cfg::MT][4], uint32_t (&b)[Cfg::NT][2], const unsigned char *sA,
                const unsigned char *sB, int warp_m0, int warp_n0, int ks)
{
#pragma unroll
    for (int i = 0; i < Cfg::MT; i++)
        load_a_frag_hand<typename Cfg::Tile>(a[i], sA, warp_m0 + i * MMA_M, ks * KSTEP_WORDS);
#pragma unroll
    for (int j = 0; j < Cfg::NT; j++)
        load_b_frag_hand<typename Cfg::Tile>(b[j], sB, warp_n0 + j * MMA_N, ks * KSTEP_WORDS);
}

/* ================================================================================================
 * v1..v3: one k-tile at a time, synchronous loads, two barriers per k-tile
 * ============================================================================================== */
enum frag_path { FRAGS_BY_HAND, FRAGS_LDMATRIX };

template <class T, class Cfg, int PATH>
__global__ void __launch_bounds__(Cfg::THREADS, 2)
    gemm_sync(int M, int N, int K, const uint16_t *__restrict__ A, long lda,
              const uint16_t *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
              float alpha, float beta, mma_vec_flags vec)
{
    static_assert(Cfg::STAGES == 1, "one k-tile in shared memory");
    __shared__ __align__(128) unsigned char smem[Cfg::STAGE_BYTES];
    unsigned char *sA = smem, *sB = smem + Cfg::A_BYTES;
    const int warp = threadIdx.x / 32;
    const int warp_m0 = warp / Cfg::WARPS_N * Cfg::WARP_M,
              warp_n0 = warp % Cfg::WARPS_N * Cfg::WARP_N;
    const int block_m = blockIdx.y * Cfg::BM, block_n = blockIdx.x * Cfg::BN;
    uint32_t a_off[Cfg::KSTEPS], b_off[Cfg::KSTEPS];
#pragma unroll
    for (int ks = 0; ks < Cfg::KSTEPS; ks++) {
        a_off[ks] = a_frag_lane_offset<typename Cfg::Tile>(ks);
        b_off[ks] = b_frag_lane_offset<typename Cfg::Tile>(ks);
    }

    const tile_copy<Cfg, Cfg::BM> copy_a(A, lda, block_m);
    const tile_copy<Cfg, Cfg::BN> copy_b(B, ldb, block_n);

    float acc[Cfg::MT][Cfg::NT][4] = {};
    for (int k0 = 0; k0 < K; k0 += Cfg::BK) {
        copy_tile_sync<Cfg, Cfg::BM>(sA, copy_a, A, lda, k0, M, K, vec.a);
        copy_tile_sync<Cfg, Cfg::BN>(sB, copy_b, B, ldb, k0, N, K, vec.b);
        __syncthreads(); /* the tiles are complete */
#pragma unroll
        for (int ks = 0; ks < Cfg::KSTEPS; ks++) {
            uint32_t a[Cfg::MT][4], b[Cfg::NT][2];
            if (PATH == FRAGS_BY_HAND)
                load_frags_hand<Cfg>(a, b, sA, sB, warp_m0, warp_n0, ks);
            else
                load_frags_ldmatrix<Cfg>(a, b, smem_u32(sA), smem_u32(sB), warp_m0, warp_n0,
                                         a_off[ks], b_off[ks]);
            mma_step<T, Cfg>(acc, a, b);
        }
        __syncthreads(); /* every warp is done with the tiles before they are overwritten */
    }
    epilogue_direct<Cfg>(acc, C, ldc, block_m + warp_m0, block_n + warp_n0, M, N, alpha, beta,
                         vec.c2);
}

/* ================================================================================================
 * v4: the cp.async pipeline (v5 and v6 build on it in common/mma_pipeline.cuh)
 * ============================================================================================== */
/* block_tile_origin (the tile of C of a block of the 1-D grid, GROUP_M block-rows at a time) and
 * load_k_tile (the cp.async copies of one k-tile into its stage of the ring):
 * common/mma_pipeline.cuh */

/* ---- v4: the ring ---------------------------------------------------------------------------- */
template <class T, class Cfg, int GROUP_M>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    gemm_pipeline(int M, int N, int K, const uint16_t *__restrict__ A, long lda,
                  const uint16_t *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                  float alpha, float beta, mma_vec_flags vec)
{
    static_assert(Cfg::STAGES >= 2, "a pipeline needs at least two stages");
    extern __shared__ __align__(128) unsigned char smem[];
    const uint32_t smem_base = smem_u32(smem);
    const int warp = threadIdx.x / 32;
    const int warp_m0 = warp / Cfg::WARPS_N * Cfg::WARP_M,
              warp_n0 = warp % Cfg::WARPS_N * Cfg::WARP_N;
    int block_m, block_n;
    block_tile_origin<Cfg, GROUP_M>(M, N, &block_m, &block_n);
    const tile_copy<Cfg, Cfg::BM> copy_a(A, lda, block_m);
    const tile_copy<Cfg, Cfg::BN> copy_b(B, ldb, block_n);
    const int k_tiles = (K + Cfg::BK - 1) / Cfg::BK;
    uint32_t a_off[Cfg::KSTEPS], b_off[Cfg::KSTEPS];
#pragma unroll
    for (int ks = 0; ks < Cfg::KSTEPS; ks++) {
        a_off[ks] = a_frag_lane_offset<typename Cfg::Tile>(ks);
        b_off[ks] = b_frag_lane_offset<typename Cfg::Tile>(ks);
    }
    float acc[Cfg::MT][Cfg::NT][4] = {};

    /* Prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each (empty groups past the end
     * keep the count that wait_group relies on). */
#pragma unroll
    for (int t = 0; t < Cfg::STAGES - 1; t++) {
        if (t < k_tiles) load_k_tile<Cfg>(smem, copy_a, copy_b, A, lda, B, ldb, M, N, K, vec, t);
        cp_async_commit_group();
    }
    for (int t = 0; t < k_tiles; t++) {
        /* k-tile t has landed once at most STAGES-2 younger groups are pending; the barrier makes
         * every thread's copies visible and says that all warps are done with k-tile t-1, whose
         * stage is refilled next */
        cp_async_wait_group<Cfg::STAGES - 2>();
        __syncthreads();
        if (t + Cfg::STAGES - 1 < k_tiles)
            load_k_tile<Cfg>(smem, copy_a, copy_b, A, lda, B, ldb, M, N, K, vec,
                             t + Cfg::STAGES - 1);
        cp_async_commit_group();
        const uint32_t sA = smem_base + (t % Cfg::STAGES) * Cfg::STAGE_BYTES,
                       sB = sA + Cfg::A_BYTES;
#pragma unroll
        for (int ks = 0; ks < Cfg::KSTEPS; ks++) {
            uint32_t a[Cfg::MT][4], b[Cfg::NT][2];
            load_frags_ldmatrix<Cfg>(a, b, sA, sB, warp_m0, warp_n0, a_off[ks], b_off[ks]);
            mma_step<T, Cfg>(acc, a, b);
        }
    }
    cp_async_wait_group<0>(); /* only empty groups are left; leave none behind */
    epilogue_direct<Cfg>(acc, C, ldc, block_m + warp_m0, block_n + warp_n0, M, N, alpha, beta,
                         vec.c2);
}

/* ================================================================================================
 * The rungs' configurations and the launchers
 * ============================================================================================== */
/*                      BM   BN  BK  WARPS_M WARPS_N STAGES SWIZZLE */
typedef gemm_config<128, 128, 32, 2, 4, 1, false> V1; /* also v2 */
typedef gemm_config<128, 128, 32, 2, 4, 1, true> V3;
typedef gemm_config<128, 256, 32, 2, 4, 4, true> V4; /* also v5, v6 */
constexpr int V5_GROUP_M = 8;
static_assert(V1::SMEM_BYTES <= 48 * 1024 && V3::SMEM_BYTES <= 48 * 1024, "static shared memory");

static bool is_bf16(const tc_gemm_variant *v) { return *(const mma_input *)v->impl == MMA_IN_BF16; }

/* The kernels' arguments (MMA_GEMM_ARGS, common/mma_pipeline.cuh): the problem as given, since a
 * half is one 16-bit word, and the vector paths of mma_vector_paths: 16-byte rows when the base
 * is 16-byte aligned and lda (ldb) and K are multiples of 8. */

/* ---- v1..v3 ---------------------------------------------------------------------------------- */
template <class T, class Cfg, int PATH>
static void launch_sync(const tc_gemm_problem *p, cudaStream_t stream)
{
    const dim3 grid((p->N + Cfg::BN - 1) / Cfg::BN, (p->M + Cfg::BM - 1) / Cfg::BM);
    gemm_sync<T, Cfg, PATH><<<grid, Cfg::THREADS, 0, stream>>>(MMA_GEMM_ARGS(p, T));
}

extern "C" void mma_v1_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                              cudaStream_t stream)
{
    if (is_bf16(v))
        launch_sync<__nv_bfloat16, V1, FRAGS_BY_HAND>(p, stream);
    else
        launch_sync<__half, V1, FRAGS_BY_HAND>(p, stream);
}

extern "C" void mma_v2_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                              cudaStream_t stream)
{
    if (is_bf16(v))
        launch_sync<__nv_bfloat16, V1, FRAGS_LDMATRIX>(p, stream);
    else
        launch_sync<__half, V1, FRAGS_LDMATRIX>(p, stream);
}

extern "C" void mma_v3_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                              cudaStream_t stream)
{
    if (is_bf16(v))
        launch_sync<__nv_bfloat16, V3, FRAGS_LDMATRIX>(p, stream);
    else
        launch_sync<__half, V3, FRAGS_LDMATRIX>(p, stream);
}

/* ---- v4..v6: a 1-D grid, one block per tile of C (tile_count: common/gemm_tiles.cuh) -------- */

extern "C" const char *mma_v4_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return is_bf16(v)
               ? allow_smem((const void *)gemm_pipeline<__nv_bfloat16, V4, 1>, V4::SMEM_BYTES)
               : allow_smem((const void *)gemm_pipeline<__half, V4, 1>, V4::SMEM_BYTES);
}

extern "C" void mma_v4_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                              cudaStream_t stream)
{
    if (is_bf16(v))
        gemm_pipeline<__nv_bfloat16, V4, 1>
            <<<tile_count(p, V4::BM, V4::BN), V4::THREADS, V4::SMEM_BYTES, stream>>>(
                MMA_GEMM_ARGS(p, __nv_bfloat16));
    else
        gemm_pipeline<__half, V4, 1>
            <<<tile_count(p, V4::BM, V4::BN), V4::THREADS, V4::SMEM_BYTES, stream>>>(
                MMA_GEMM_ARGS(p, __half));
}

/* v5, v6: gemm_pipeline_dbuf and its host side, pipeline_dbuf_prepare and pipeline_dbuf_launch
 * (common/mma_pipeline.cuh) */
template <bool SMEM_EPILOGUE> static const char *prepare_dbuf(const tc_gemm_variant *v)
{
    return is_bf16(v) ? pipeline_dbuf_prepare<__nv_bfloat16, V4, V5_GROUP_M, SMEM_EPILOGUE>()
                      : pipeline_dbuf_prepare<__half, V4, V5_GROUP_M, SMEM_EPILOGUE>();
}

template <bool SMEM_EPILOGUE>
static void launch_dbuf(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream)
{
    if (is_bf16(v))
        pipeline_dbuf_launch<__nv_bfloat16, V4, V5_GROUP_M, SMEM_EPILOGUE>(p, stream);
    else
        pipeline_dbuf_launch<__half, V4, V5_GROUP_M, SMEM_EPILOGUE>(p, stream);
}

extern "C" const char *mma_v5_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return prepare_dbuf<false>(v);
}

extern "C" void mma_v5_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                              cudaStream_t stream)
{
    launch_dbuf<false>(v, p, stream);
}

extern "C" const char *mma_v6_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)
{
    return prepare_dbuf<true>(v);
}

extern "C" void mma_v6_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,
                              cudaStream_t stream)
{
    launch_dbuf<true>(v, p, stream);
}