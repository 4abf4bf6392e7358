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

#include "gemm_tiles.cuh"
#include "mma_tile.cuh"

#include <stdint.h>

const mma_input mma_in_f16 = MMA_IN_F16, mma_in_bf16 = MMA_IN_BF16;

constexpr int MMA_M = 16, MMA_N = 8, MMA_K = 16; /* mma.sync m16n8k16 */

/* ================================================================================================
 * The configuration of a kernel
 * ============================================================================================== */
/* A block computes a BM x BN tile of C with WARPS_M x WARPS_N warps; each warp owns a WARP_M x
 * WARP_N tile held as MT x NT accumulators of 16x8 (4 f32 per lane each). K advances in k-tiles
 * of BK (KSTEPS mma k-steps of 16); STAGES k-tiles live in shared memory at once. */
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int STAGES_, bool SWIZZLE_>
struct gemm_config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_;
    static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_;
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int WARP_M = BM / WARPS_M, WARP_N = BN / WARPS_N;
    static constexpr int MT = WARP_M / MMA_M, NT = WARP_N / MMA_N;
    static constexpr int KSTEPS = BK / MMA_K;
    typedef kmajor_tile<BK, SWIZZLE_> Tile;
    static constexpr int A_BYTES = BM * Tile::ROW_BYTES, B_BYTES = BN * Tile::ROW_BYTES;
    static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
    static constexpr size_t SMEM_BYTES = (size_t)STAGES * STAGE_BYTES;

    static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0, "warps tile the block");
    static_assert(WARP_M % MMA_M == 0, "16-row A fragments tile the warp");
    static_assert(WARP_N % (2 * MMA_N) == 0, "B fragments are loaded in pairs (16 columns)");
    static_assert(BK % MMA_K == 0, "the k-tile is whole mma k-steps");
    static_assert((BM * BK / 8) % THREADS == 0 && (BN * BK / 8) % THREADS == 0,
                  "the 16-byte chunks of a tile are shared evenly by the threads");
    static_assert(A_BYTES % 128 == 0 && STAGE_BYTES % 128 == 0,
                  "every tile starts 128-byte aligned (the swizzle's bank arithmetic)");
};

/* Which operands move as vectors, decided on the host once per launch: a, b 16-byte rows of A and
 * B; c2, c4 8- and 16-byte pieces of C's rows. */
struct mma_vec_flags {
    bool a, b, c2, c4;
};

/* ================================================================================================
 * Tile loads: a ROWS x BK tile of a K-contiguous matrix (rows x K, leading dimension ld) at
 * (row0, k0) into a K-major shared tile; outside the matrix the tile gets zeros.
 *
 * Thread i copies the 16-byte chunk column i % PER_ROW of rows i / PER_ROW + p * ROWS_PER_PASS,
 * p = 0 .. PASSES-1: consecutive threads copy consecutive 16 bytes of a row (coalesced), and the
 * rows of one thread are a multiple of 8 apart, so they share the swizzle pattern (period 8): one
 * shared-memory offset and one global pointer per thread and operand, plus constant strides.
 * ============================================================================================== */
template <class Cfg, int ROWS> struct tile_copy {
    static constexpr int PER_ROW = Cfg::BK / 8; /* 16-byte chunks per row */
    static constexpr int ROWS_PER_PASS = Cfg::THREADS / PER_ROW;
    static constexpr int PASSES = ROWS / ROWS_PER_PASS;
    static_assert(Cfg::THREADS % PER_ROW == 0 && ROWS % ROWS_PER_PASS == 0,
                  "the threads cover whole rows, and whole passes cover the tile");
    static_assert(ROWS_PER_PASS % 8 == 0, "a thread's rows share the swizzle (period 8)");

    const uint16_t *src; /* this thread's first chunk at k = 0 (row may be outside the matrix) */
    uint32_t dst;        /* its byte offset in the tile */
    int row, col;        /* its first row in the matrix, its first k in the tile */

    __device__ __forceinline__ tile_copy(const uint16_t *__restrict__ g, long ld, int row0)
    {
        const int r = threadIdx.x / PER_ROW, c = threadIdx.x % PER_ROW;
        row = row0 + r, col = 8 * c;
        src = g + (size_t)row * ld + col;
        dst = Cfg::Tile::chunk_offset(r, c);
    }
};

/* The slow path for rows that are not 16-byte aligned: one 16-byte chunk, value by value. Kept
 * out of line so that it does not take registers from the main loop. */
static __device__ __noinline__ void load_chunk_scalar(unsigned char *dst,
                                                      const uint16_t *__restrict__ g, long ld,
                                                      int gr, int gk, int rows, int K)
{
    uint16_t *d = (uint16_t *)dst;
    for (int e = 0; e < 8; e++)
        d[e] = gr < rows && gk + e < K ? g[(size_t)gr * ld + gk + e] : (uint16_t)0;
}

/* Synchronous: global -> registers -> shared (v1..v3; and v4..v6 for unaligned rows). */
template <class Cfg, int ROWS>
__device__ __forceinline__ void copy_tile_sync(unsigned char *tile, const tile_copy<Cfg, ROWS> &cp,
                                               const uint16_t *__restrict__ g, long ld, int k0,
                                               int rows, int K, bool vec)
{
    typedef tile_copy<Cfg, ROWS> TC;
#pragma unroll
    for (int p = 0; p < TC::PASSES; p++) {
        const int gr = cp.row + p * TC::ROWS_PER_PASS, gk = k0 + cp.col;
        unsigned char *dst = tile + cp.dst + p * TC::ROWS_PER_PASS * Cfg::Tile::ROW_BYTES;
        if (vec) {
            uint4 x = make_uint4(0, 0, 0, 0); /* K % 8 == 0: a chunk is all in or all out */
            if (gr < rows && gk < K)
                x = *(const uint4 *)(cp.src + (size_t)p * TC::ROWS_PER_PASS * ld + k0);
            *(uint4 *)dst = x;
        } else {
            load_chunk_scalar(dst, g, ld, gr, gk, rows, K);
        }
    }
}

/* Asynchronous: cp.async 16 bytes per chunk, zero-filled outside (v4..v6). Rows that are not
 * 16-byte aligned take the synchronous path (the pipeline's barriers order both). */
template <class Cfg, int ROWS>
__device__ __forceinline__ void copy_tile_async(unsigned char *tile, const tile_copy<Cfg, ROWS> &cp,
                                                const uint16_t *__restrict__ g, long ld, int k0,
                                                int rows, int K, bool vec)
{
    typedef tile_copy<Cfg, ROWS> TC;
    if (!vec) {
        copy_tile_sync<Cfg, ROWS>(tile, cp, g, ld, k0, rows, K, false);
        return;
    }
    const uint32_t base = smem_u32(tile) + cp.dst;
    const bool k_inside = k0 + cp.col < K;
#pragma unroll
    for (int p = 0; p < TC::PASSES; p++) {
        const bool inside = k_inside && cp.row + p * TC::ROWS_PER_PASS < rows;
        /* outside: src_bytes = 0 writes 16 zero bytes; the source address must still be valid */
        const uint16_t *src = cp.src + (size_t)p * TC::ROWS_PER_PASS * ld + k0;
        cp_async_16(base + p * TC::ROWS_PER_PASS * Cfg::Tile::ROW_BYTES, inside ? src : g,
                    inside ? 16 : 0);
    }
}

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
        load_a_frag_hand<typename Cfg::Tile>(a[i], sA, warp_m0 + i * MMA_M, ks * MMA_K);
#pragma unroll
    for (int j = 0; j < Cfg::NT; j++)
        load_b_frag_hand<typename Cfg::Tile>(b[j], sB, warp_n0 + j * MMA_N, ks * MMA_K);
}

/* v2..v6: ldmatrix.x4, one per A fragment and one per pair of B fragments. a_off, b_off: the
 * lane's offsets for this k-step (a_frag_lane_offset, b_frag_lane_offset), computed once. */
template <class Cfg>
__device__ __forceinline__ void
load_frags_ldmatrix(uint32_t (&a)[Cfg::MT][4], uint32_t (&b)[Cfg::NT][2], uint32_t sA, uint32_t sB,
                    int warp_m0, int warp_n0, uint32_t a_off, uint32_t b_off)
{
#pragma unroll
    for (int i = 0; i < Cfg::MT; i++)
        load_a_frag_ldmatrix<typename Cfg::Tile>(a[i], sA, warp_m0 + i * MMA_M, a_off);
#pragma unroll
    for (int j = 0; j < Cfg::NT / 2; j++)
        load_b_frags_ldmatrix<typename Cfg::Tile>(b[2 * j], b[2 * j + 1], sB,
                                                  warp_n0 + 2 * j * MMA_N, b_off);
}

/* MT x NT mmas: every A fragment meets every B fragment */
template <class T, class Cfg>
__device__ __forceinline__ void mma_step(float (&acc)[Cfg::MT][Cfg::NT][4],
                                         const uint32_t (&a)[Cfg::MT][4],
                                         const uint32_t (&b)[Cfg::NT][2])
{
#pragma unroll
    for (int i = 0; i < Cfg::MT; i++)
#pragma unroll
        for (int j = 0; j < Cfg::NT; j++) mma_f32<T>::run(acc[i][j], a[i], b[j]);
}

/* ================================================================================================
 * Epilogues: C = alpha * acc + beta * C, guarded at the edges of C
 * ============================================================================================== */

/* store_pair (one f32 pair of C, guarded, alpha and beta): common/gemm_tiles.cuh */

/* v1..v5: straight from registers. Accumulator (i, j) of lane (g, t) holds rows g and g + 8,
 * columns 2t and 2t + 1 of its 16x8 tile (mma_sync.cuh): two float2 stores. Four lanes of a
 * row cover 32 contiguous bytes, one whole sector. row0, col0: the warp tile's origin in C. */
template <class Cfg>
__device__ __forceinline__ void epilogue_direct(const float (&acc)[Cfg::MT][Cfg::NT][4],
                                                float *__restrict__ C, long ldc, int row0, int col0,
                                                int M, int N, float alpha, float beta, bool vec2)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < Cfg::MT; i++)
#pragma unroll
        for (int j = 0; j < Cfg::NT; j++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                store_pair(C, ldc, row0 + i * MMA_M + g + 8 * h, col0 + j * MMA_N + 2 * t, M, N,
                           acc[i][j][2 * h], acc[i][j][2 * h + 1], alpha, beta, vec2);
}

/* Four neighbouring elements (r, c .. c+3) of C; c is a multiple of 4. */
static __device__ __forceinline__ void store_quad(float *__restrict__ C, long ldc, int r, int c,
                                                  int M, int N, float4 v, float alpha, float beta,
                                                  bool vec4)
{
    if (r >= M || c >= N) return;
    float *p = C + (size_t)r * ldc + c;
    v.x *= alpha, v.y *= alpha, v.z *= alpha, v.w *= alpha;
    if (vec4 && c + 3 < N) {
        if (beta != 0.0f) {
            const float4 old = *(const float4 *)p;
            v.x += beta * old.x, v.y += beta * old.y, v.z += beta * old.z, v.w += beta * old.w;
        }
        *(float4 *)p = v;
    } else {
        const float e[4] = {v.x, v.y, v.z, v.w};
        for (int k = 0; k < 4 && c + k < N; k++) p[k] = beta != 0.0f ? e[k] + beta * p[k] : e[k];
    }
}

/* v6: through shared memory. For each 16-row strip of its warp tile, a warp writes the strip's
 * accumulators (16 x WARP_N f32) into its own scratch tile, then reads it back by rows: lane l
 * takes 16 contiguous bytes, WARP_N / 4 lanes cover a row. The scratch rows are padded to
 * WARP_N + 8 floats: a float2 store is served per half-warp (16 lanes, 128 bytes); with a row
 * stride of 72 words the rows g = 0..3 start at banks 0, 8, 16, 24 and the 4 lanes of a row fill
 * the 8 banks after it, so each half-warp covers all 32 banks once. The float4 reads (8 lanes
 * per phase, one 128-byte piece of a row) are conflict-free at any stride that keeps rows 16-byte
 * aligned. The scratch reuses the pipeline's operand buffers (after a barrier). */
template <class Cfg> struct epilogue_scratch {
    static constexpr int ROW = Cfg::WARP_N + 8; /* floats */
    static constexpr int WARP_BYTES = MMA_M * ROW * 4;
    static constexpr int LANES_PER_ROW = Cfg::WARP_N / 4, ROWS_PER_PASS = 32 / LANES_PER_ROW;
    static_assert(Cfg::WARP_N % 4 == 0 && 32 % LANES_PER_ROW == 0, "whole rows per pass");
    static_assert(MMA_M % ROWS_PER_PASS == 0, "whole passes per strip");
    static_assert((size_t)WARP_BYTES * (Cfg::THREADS / 32) <= Cfg::SMEM_BYTES,
                  "every warp's scratch fits in the pipeline's shared memory");
};

template <class Cfg>
__device__ __forceinline__ void
epilogue_smem(const float (&acc)[Cfg::MT][Cfg::NT][4], unsigned char *smem, float *__restrict__ C,
              long ldc, int row0, int col0, int M, int N, float alpha, float beta, bool vec4)
{
    typedef epilogue_scratch<Cfg> S;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    float *s = (float *)(smem + warp * S::WARP_BYTES);
#pragma unroll
    for (int i = 0; i < Cfg::MT; i++) {
#pragma unroll
        for (int j = 0; j < Cfg::NT; j++) {
            *(float2 *)(s + g * S::ROW + j * MMA_N + 2 * t) =
                make_float2(acc[i][j][0], acc[i][j][1]);
            *(float2 *)(s + (g + 8) * S::ROW + j * MMA_N + 2 * t) =
                make_float2(acc[i][j][2], acc[i][j][3]);
        }
        __syncwarp();
#pragma unroll
        for (int p = 0; p < MMA_M / S::ROWS_PER_PASS; p++) {
            const int r = p * S::ROWS_PER_PASS + lane / S::LANES_PER_ROW;
            const int c = 4 * (lane % S::LANES_PER_ROW);
            store_quad(C, ldc, row0 + i * MMA_M + r, col0 + c, M, N,
                       *(const float4 *)(s + r * S::ROW + c), alpha, beta, vec4);
        }
        __syncwarp(); /* the scratch is rewritten for the next strip */
    }
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
 * v4..v6: the cp.async pipeline
 * ============================================================================================== */

/* Blocks run on a 1-D grid and are mapped to tiles of C here. GROUP_M = 1: row by row.
 * GROUP_M = g: bands of g block-rows, walked column by column, so that the ~132 blocks resident
 * at once cover a g x (132 / g) patch of C and fetch each tile of A and B from DRAM about once
 * (rasterisation). */
template <class Cfg, int GROUP_M>
__device__ __forceinline__ void block_tile_origin(int M, int N, int *block_m, int *block_n)
{
    int tm, tn; /* block_tile_coords: common/gemm_tiles.cuh */
    block_tile_coords<GROUP_M>((M + Cfg::BM - 1) / Cfg::BM, (N + Cfg::BN - 1) / Cfg::BN, &tm, &tn);
    *block_m = tm * Cfg::BM, *block_n = tn * Cfg::BN;
}

/* Starts the copies of k-tile t of A and B into its stage of the ring (stage t % STAGES). */
template <class Cfg>
__device__ __forceinline__ void
load_k_tile(unsigned char *smem, const tile_copy<Cfg, Cfg::BM> &copy_a,
            const tile_copy<Cfg, Cfg::BN> &copy_b, const uint16_t *__restrict__ A, long lda,
            const uint16_t *__restrict__ B, long ldb, int M, int N, int K, mma_vec_flags vec, int t)
{
    unsigned char *stage = smem + (t % Cfg::STAGES) * Cfg::STAGE_BYTES;
    copy_tile_async<Cfg, Cfg::BM>(stage, copy_a, A, lda, t * Cfg::BK, M, K, vec.a);
    copy_tile_async<Cfg, Cfg::BN>(stage + Cfg::A_BYTES, copy_b, B, ldb, t * Cfg::BK, N, K, vec.b);
}

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

/* ---- v5, v6: fragments double-buffered in registers ---------------------------------------------
 * Two sets of fragments: while the mmas of k-step s use set `cur`, the ldmatrix of step s+1 fill
 * set `nxt`. At the last k-step of k-tile t the next step is k-step 0 of tile t+1, so the wait
 * and the barrier for tile t+1 move there, one k-step before v4 has them. Stages in use at that
 * barrier: t (being multiplied), t+1 (being loaded into registers) and the one refilled (t-1's),
 * hence STAGES >= 3. KSTEPS is even so that set 0 always holds k-step 0. */
template <class T, class Cfg, int GROUP_M, bool SMEM_EPILOGUE>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    gemm_pipeline_dbuf(int M, int N, int K, const uint16_t *__restrict__ A, long lda,
                       const uint16_t *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                       float alpha, float beta, mma_vec_flags vec)
{
    static_assert(Cfg::STAGES >= 3, "loading k-tile t+1 while t is multiplied needs 3 stages");
    static_assert(Cfg::KSTEPS % 2 == 0, "fragment sets alternate within and across k-tiles");
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
    uint32_t a[2][Cfg::MT][4], b[2][Cfg::NT][2];

#pragma unroll
    for (int t = 0; t < Cfg::STAGES - 1; t++) {
        if (t < k_tiles) load_k_tile<Cfg>(smem, copy_a, copy_b, A, lda, B, ldb, M, N, K, vec, t);
        cp_async_commit_group();
    }
    cp_async_wait_group<Cfg::STAGES - 2>(); /* k-tile 0 */
    __syncthreads();
    load_frags_ldmatrix<Cfg>(a[0], b[0], smem_base, smem_base + Cfg::A_BYTES, warp_m0, warp_n0,
                             a_off[0], b_off[0]);

    for (int t = 0; t < k_tiles; t++) {
        const uint32_t sA = smem_base + (t % Cfg::STAGES) * Cfg::STAGE_BYTES,
                       sB = sA + Cfg::A_BYTES;
#pragma unroll
        for (int ks = 0; ks < Cfg::KSTEPS; ks++) {
            const int cur = ks % 2, nxt = cur ^ 1;
            if (ks == Cfg::KSTEPS - 1) {
                /* groups committed so far: STAGES-1 + t; k-tile t+1 is group t+1 */
                cp_async_wait_group<Cfg::STAGES - 3>();
                __syncthreads();
                if (t + Cfg::STAGES - 1 < k_tiles)
                    load_k_tile<Cfg>(smem, copy_a, copy_b, A, lda, B, ldb, M, N, K, vec,
                                     t + Cfg::STAGES - 1);
                cp_async_commit_group();
                if (t + 1 < k_tiles) {
                    const uint32_t nA = smem_base + ((t + 1) % Cfg::STAGES) * Cfg::STAGE_BYTES;
                    load_frags_ldmatrix<Cfg>(a[nxt], b[nxt], nA, nA + Cfg::A_BYTES, warp_m0,
                                             warp_n0, a_off[0], b_off[0]);
                }
            } else {
                load_frags_ldmatrix<Cfg>(a[nxt], b[nxt], sA, sB, warp_m0, warp_n0, a_off[ks + 1],
                                         b_off[ks + 1]);
            }
            mma_step<T, Cfg>(acc, a[cur], b[cur]);
        }
    }
    cp_async_wait_group<0>();
    if (SMEM_EPILOGUE) {
        __syncthreads(); /* the operand buffers become the epilogue's scratch */
        epilogue_smem<Cfg>(acc, smem, C, ldc, block_m + warp_m0, block_n + warp_n0, M, N, alpha,
                           beta, vec.c4);
    } else {
        epilogue_direct<Cfg>(acc, C, ldc, block_m + warp_m0, block_n + warp_n0, M, N, alpha, beta,
                             vec.c2);
    }
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

/* 16-byte rows: the base 16-byte aligned, every row a whole number of 16-byte vectors apart, and
 * the row length (K) whole vectors, so that a vector is all inside the matrix or all outside. */
static mma_vec_flags vector_paths(const tc_gemm_problem *p)
{
    mma_vec_flags v;
    v.a = rows_vectorizable(p->d_a, p->lda, p->K, 2);
    v.b = rows_vectorizable(p->d_b, p->ldb, p->K, 2);
    v.c2 = (uintptr_t)p->d_c % 8 == 0 && p->ldc % 2 == 0;
    v.c4 = (uintptr_t)p->d_c % 16 == 0 && p->ldc % 4 == 0;
    return v;
}

static bool is_bf16(const tc_gemm_variant *v) { return *(const mma_input *)v->impl == MMA_IN_BF16; }

#define GEMM_ARGS(p)                                                                               \
    (p)->M, (p)->N, (p)->K, (const uint16_t *)(p)->d_a, (p)->lda, (const uint16_t *)(p)->d_b,      \
        (p)->ldb, (float *)(p)->d_c, (p)->ldc, (p)->alpha, (p)->beta, vector_paths(p)

/* ---- v1..v3 ---------------------------------------------------------------------------------- */
template <class T, class Cfg, int PATH>
static void launch_sync(const tc_gemm_problem *p, cudaStream_t stream)
{
    const dim3 grid((p->N + Cfg::BN - 1) / Cfg::BN, (p->M + Cfg::BM - 1) / Cfg::BM);
    gemm_sync<T, Cfg, PATH><<<grid, Cfg::THREADS, 0, stream>>>(GEMM_ARGS(p));
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

/* ---- v4..v6: a 1-D grid, one block per tile of C --------------------------------------------- */
template <class Cfg> static unsigned tile_count(const tc_gemm_problem *p)
{
    return tile_count(p, Cfg::BM, Cfg::BN); /* common/gemm_tiles.cuh */
}

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
            <<<tile_count<V4>(p), V4::THREADS, V4::SMEM_BYTES, stream>>>(GEMM_ARGS(p));
    else
        gemm_pipeline<__half, V4, 1>
            <<<tile_count<V4>(p), V4::THREADS, V4::SMEM_BYTES, stream>>>(GEMM_ARGS(p));
}

template <bool SMEM_EPILOGUE> static const char *prepare_dbuf(const tc_gemm_variant *v)
{
    return is_bf16(v)
               ? allow_smem(
                     (const void *)gemm_pipeline_dbuf<__nv_bfloat16, V4, V5_GROUP_M, SMEM_EPILOGUE>,
                     V4::SMEM_BYTES)
               : allow_smem((const void *)gemm_pipeline_dbuf<__half, V4, V5_GROUP_M, SMEM_EPILOGUE>,
                            V4::SMEM_BYTES);
}

template <bool SMEM_EPILOGUE>
static void launch_dbuf(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream)
{
    if (is_bf16(v))
        gemm_pipeline_dbuf<__nv_bfloat16, V4, V5_GROUP_M, SMEM_EPILOGUE>
            <<<tile_count<V4>(p), V4::THREADS, V4::SMEM_BYTES, stream>>>(GEMM_ARGS(p));
    else
        gemm_pipeline_dbuf<__half, V4, V5_GROUP_M, SMEM_EPILOGUE>
            <<<tile_count<V4>(p), V4::THREADS, V4::SMEM_BYTES, stream>>>(GEMM_ARGS(p));
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
