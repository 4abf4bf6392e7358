/* oz_v9_ozaki2_onepass - v8_ozaki2_frac with its prologue in one pass: the exponent and the
 * residues of a row of A (or a column of B) made by one block (the rows v9_ozaki2_onepass_n14,
 * _n15, _n16).
 *
 * Rung v9 of chapter 09. Parent: v8_ozaki2_frac (v8_ozaki2_frac.cuh). What changes, and why it
 * should be faster (not yet measured):
 * before the fused kernel, v6 to v8 launch four kernels: the exponents of A's rows and of B's
 * columns (oz_exponents, a warp per row), then their residues. Each pair reads A and B from DRAM,
 * so A and B are read twice; the four move about 1,040 MB at 4096^3, n = 15 (A and B together 268 MB per read,
 * the residues 503 MB written), a tenth of v6's time at 4096^3 (NOTES.md). Here one block per row
 * reads the row for its largest magnitude (the same max and frexp as oz_exponents), then again for
 * the residues: the second read comes from L2, where the first just left the row, so A and B leave
 * DRAM once. Two launches instead of four; the fused kernel and its arithmetic are v8's, so v8's
 * exact check (exponents, residues, C bit for bit) applies.
 *
 * The steps:
 *   1. oz_v9_prologue: per row, e = the exponent of its largest magnitude, then A' = trunc(A
 *      2^(k - e)) and its n residues, int8, for all of K at once, laid out chunk by chunk and
 *      modulus by modulus
 *      ("planes" of M x Kcp, Kcp the chunk rounded up to 16, zeros past its end); B likewise;
 *   2. oz_v9_ozaki2_onepass_kernel: per tile of 128 x 128, per chunk, per modulus l: the k-tiles
 *      of plane (chunk, l) of A and B through a TMA ring into wgmma m64n128k32 .s32.s8.s8 (exact
 *      int32 sums), then F (+)= R V_l mod 2^96 (the fraction form, no reduction); at the
 *      chunk's end C' = P F' 2^-96 (oz2_fixed96_to_double) times 2^-2k into the f64 sum of the
 *      chunks (in the workspace, only when K needs more than one chunk), and after the last chunk
 *      C = alpha 2^(e_i + f_j) sum + beta C.
 * ozaki_model.h has the arithmetic (oz2_frac_dot is one element of this kernel, bit for bit);
 * not handled, as in v5: NaN and infinite inputs.
 *
 * The pipeline is chapter 07's v6_wgmma_s8 (07_int8_dp4a/v6_wgmma_s8.cuh: warp-specialised, a
 * producer warpgroup that feeds a ring of mbarrier-guarded stages by the TMA, two consumer
 * warpgroups of 64 x 128, persistent clusters of 2 blocks that share B's k-tiles by multicast),
 * repeated here with the ring walking moduli and chunks as well as k-tiles. The planes of one
 * operand are stacked into one 2D tensor map: a box that runs past the last row of its plane
 * (M or N not a multiple of the tile) reads the first rows of the next plane instead of zeros,
 * which reach only rows and columns of C past its edge, never stored.
 *
 * Where the CRT sum lives: a thread's 64 accumulators hold 64 elements of C; their sums F are
 * 3 x 64 words. The top and middle words stay in registers (128 of them), the low word in shared
 * memory after the ring, each thread's slots its own (4 bytes per element, consecutive threads
 * consecutive slots: no bank conflicts, no barrier).
 *
 * Problem: C = alpha A B + beta C, A M x K row-major (lda), B K x N column-major (ldb: stored
 * N x K, K-contiguous), C M x N row-major (ldc), all f64; any M, N, K >= 1 and any alignment;
 * beta == 0 never reads C. n = 14, 15 or 16 moduli (the prologue kernel's instantiations) and
 * k <= 52 bits, as v5; the chapter's rows are n = 14, k = 48; n = 15, k = 51; n = 16, k = 52.
 *
 * Tile: 128 x 128 per block (two consumer warpgroups of 64 x 128), k-tiles of 128 int8 values,
 * 5 stages of 32 KiB and 64 KiB of CRT sums; units of two tiles (a cluster) in groups of 8 down
 * a column of C.
 *
 * The plain launcher (no harness types; ozaki_parts.cuh, ozaki_model.h and common/'s wgmma
 * headers: link ozaki_model.c):
 *   oz_v9_ozaki2_onepass_workspace_size(n, k, M, N, K, &bytes): the device workspace (the residues
 *   of every chunk, the exponents, the f64 sums of the chunks when there are several); allocate
 *   it once, any contents;
 *   oz_v9_ozaki2_onepass_gemm(n, k, M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, workspace, bytes,
 *   stream), or oz_v9_ozaki2_onepass_prepare(&plan, n, k, ..., workspace, bytes) once and
 *   oz_v9_ozaki2_onepass_run(&plan, alpha, beta, stream) per product (launches that share a
 *   workspace must not run at the same time). Both return cudaSuccess, cudaErrorInvalidValue
 *   for sizes below 1, a leading dimension below the row or a workspace too small,
 *   cudaErrorNotSupported for an n, k, problem or GPU it cannot take (oz_v9_ozaki2_onepass_
 *   unsupported says why; nothing is launched), or the failed call's error. The plan holds
 *   tensor maps: allocate it 128-byte aligned (on the stack, or tma_host_calloc).
 *   oz_v9_ozaki2_onepass_prepare_forced is prepare with the run-time choices forced: the chunk of K
 *   at most kc_cap (a multiple of 16; 0: the rung's choice) and the grid at most max_clusters
 *   clusters (0: as many as fit at once), so that a test runs the chunk path at small K and one
 *   cluster through many units; its workspace: oz_v9_ozaki2_onepass_workspace_size_forced, and
 *   oz_v9_ozaki2_onepass_unsupported_forced why it refuses (a shorter chunk makes more planes).
 *
 * Minimum: sm_90a (wgmma, the TMA, clusters; built with -gencode=arch=compute_90a,code=sm_90a),
 * CUDA 12.x or 13.x. */
#ifndef OZ_V9_OZAKI2_ONEPASS_CUH
#define OZ_V9_OZAKI2_ONEPASS_CUH

#include "ozaki_model.h"
#include "ozaki_parts.cuh"
#include "wgmma_parts.cuh"

#include <stdint.h>

/*                     BN  STAGES CONSUMERS  CRT sums: 1 word x 64 elements x 256 threads */
typedef wg_config<128, 5, 2, 4 * 64 * 256> oz_v9_config;
constexpr int OZ_V9_CLUSTER = 2; /* blocks per cluster: a unit is 2 tiles high */
constexpr int OZ_V9_GROUP_M = 8; /* units in groups of 8 down a column of C */
constexpr int OZ_V9_GROUP = 4;   /* values per thread and step in the prologue kernel */

/* ---- step 1: the residues ----------------------------------------------------------------------
 * The moduli as compile-time constants, as in v5: every "mod m" of a residue is a multiply. */
constexpr int OZ_V9_MODULI[OZ2_MAX_MODULI] = {OZ2_MODULI_LIST};
/* 1.5 2^52: fma(v, 1/m, OZ_V9_MAGIC) rounds v/m to an integer q (|q| < 2^51) and holds q in the
 * low 32 bits of its bit pattern */
constexpr double OZ_V9_MAGIC = 0x1.8p52;

/* the residue of v (an integer below 2^52 in magnitude; vd its double, v32 its low 32 bits) modulo
 * M in oz2_residue's symmetric range: q = round(v / M) is off by at most 1/386 before the
 * rounding, so v - q M lies within M/2 + 1 of zero and one step each way finishes */
template <int M> __device__ __forceinline__ int oz_v9_residue_of(double vd, uint32_t v32)
{
    constexpr int HIGH = (M + 1) / 2 - 1; /* the largest residue: 127 for 255 and 256 */
    const uint32_t q = (uint32_t)__double2loint(fma(vd, 1.0 / M, OZ_V9_MAGIC));
    int r = (int)(v32 - q * (uint32_t)M); /* exact: the true difference is small */
    r = r > HIGH ? r - M : r;
    return r < HIGH + 1 - M ? r + M : r;
}

/* the residues of 4 values for moduli L .. N-1, 4 to a word (little endian: k ascending), the
 * planes of moduli `plane` bytes apart */
template <int L, int N>
__device__ __forceinline__ void oz_v9_store_residues(const double (&vd)[OZ_V9_GROUP],
                                                     const uint32_t (&v32)[OZ_V9_GROUP], long plane,
                                                     int8_t *__restrict__ res)
{
    if constexpr (L < N) {
        uint32_t word = 0;
#pragma unroll
        for (int g = 0; g < OZ_V9_GROUP; g++)
            word |= (uint32_t)(uint8_t)oz_v9_residue_of<OZ_V9_MODULI[L]>(vd[g], v32[g]) << (8 * g);
        *(uint32_t *)(res + L * plane) = word;
        oz_v9_store_residues<L + 1, N>(vd, v32, plane, res);
    }
}

/* The exponent and the residues of the k-bit integers of x (rows x K, leading dimension ld), one
 * block of OZ_V9_PROLOGUE_THREADS per row: e[r] = the exponent of the row's largest magnitude
 * (|x| < 2^e, 0 for a zero row: oz_exponents' max and frexp, so the same e), then every chunk's
 * residues at once, as v8's residue kernel lays them out: column j of the chunks laid end to end
 * (kcp each, a multiple of 16) is k = chunk kc + j % kcp, its residue modulo m_l in plane (chunk,
 * l) = res + (chunk N + l) rows kcp, row r at r kcp (K-major); zeros past the chunk and past K.
 * The second read of the row finds it in L2: the block read it a moment before. */
constexpr int OZ_V9_PROLOGUE_THREADS = 256;
template <int MODULI>
__global__ void __launch_bounds__(OZ_V9_PROLOGUE_THREADS)
    oz_v9_prologue(const double *__restrict__ x, long ld, int rows, int K, long kc, long kcp,
                   long chunks, int bits, int *__restrict__ e, int8_t *__restrict__ res)
{
    constexpr int THREADS = OZ_V9_PROLOGUE_THREADS, WARPS = THREADS / 32;
    static_assert(THREADS % 32 == 0, "whole warps");
    const int r = blockIdx.x;
    const double *row = x + (long)r * ld;
    /* the largest magnitude: each thread's, each warp's, the block's */
    double m = 0;
    for (int k = threadIdx.x; k < K; k += THREADS) m = fmax(m, fabs(row[k]));
    for (int o = 16; o > 0; o /= 2) m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
    __shared__ double warp_max[WARPS];
    if (threadIdx.x % 32 == 0) warp_max[threadIdx.x / 32] = m;
    __syncthreads();
    m = warp_max[0];
    for (int w = 1; w < WARPS; w++) m = fmax(m, warp_max[w]);
    int ex = 0;
    if (m > 0) frexp(m, &ex);
    if (threadIdx.x == 0) e[r] = ex;
    /* the residues, OZ_V9_GROUP columns per thread and step */
    const long plane = (long)rows * kcp;
    for (long j = OZ_V9_GROUP * (long)threadIdx.x; j < chunks * kcp; j += OZ_V9_GROUP * THREADS) {
        const long chunk = j / kcp, jj = j % kcp; /* kcp % 4 == 0: a group is in one chunk */
        double vd[OZ_V9_GROUP];
        uint32_t v32[OZ_V9_GROUP];
#pragma unroll
        for (int g = 0; g < OZ_V9_GROUP; g++) {
            const long k = chunk * kc + jj + g;
            const double v = jj + g < kc && k < K ? trunc(ldexp(row[k], bits - ex)) : 0.0;
            vd[g] = v;
            v32[g] = (uint32_t)(unsigned long long)__double2ll_rz(v); /* |v| < 2^52: exact */
        }
        oz_v9_store_residues<0, MODULI>(vd, v32, plane,
                                        res + chunk * MODULI * plane + (long)r * kcp + jj);
    }
}

/* ---- step 2: the fused kernel ------------------------------------------------------------------ */
/* What the kernel takes besides the tensor maps (by value) */
struct oz_v9_args {
    int M, N;
    int moduli;         /* n */
    int k_tiles;        /* k-tiles of 128 per chunk: ceil(kcp / 128) */
    int chunks;         /* chunks of K */
    const int *ea, *eb; /* the exponents of A's rows and B's columns */
    double *partial;    /* M x N: the f64 sum of the chunks so far (chunks > 1 only) */
    double *C;
    long ldc;
    double alpha, beta;
    double scale; /* 2^-2k */
    oz2_consts c;
    oz2_frac_consts fr;
};

/* Modulus l's int32 products d into the CRT sums, in the fraction form and biased: F (+)= (d +
 * 2^31) V_l mod 2^96 (oz2_fixed96_add of the 32-bit d ^ 2^31: no sign to handle), F started at
 * the bias -2^31 (V_1 + ... + V_n), so that after the last modulus F = sum_l d_l V_l mod 2^96,
 * oz2_frac_add's sum word for word (ozaki_model.h). F's low word is this thread's slot of `sums`
 * (element i at i * slots + slot), its middle and top words in `mid` and `top`; first: the
 * chunk's first modulus, which starts the sums at the bias */
static __device__ __forceinline__ void oz_v9_crt_add(const int (&d)[oz_v9_config::ACC],
                                                     uint32_t (&top)[oz_v9_config::ACC],
                                                     uint32_t (&mid)[oz_v9_config::ACC],
                                                     uint32_t *sums, int slots, int slot,
                                                     const oz_v9_args &p, int l, bool first)
{
    const uint32_t v[3] = {p.fr.v[l][0], p.fr.v[l][1], p.fr.v[l][2]};
    if (first) { /* F = bias + (d + 2^31) V_l: nothing to read */
#pragma unroll
        for (int i = 0; i < oz_v9_config::ACC; i++) {
            uint32_t f[3] = {p.fr.bias[0], p.fr.bias[1], p.fr.bias[2]};
            oz2_fixed96_add(f, (uint32_t)d[i] ^ 0x80000000u, v);
            sums[i * slots + slot] = f[0];
            mid[i] = f[1];
            top[i] = f[2];
        }
        return;
    }
#pragma unroll
    for (int i = 0; i < oz_v9_config::ACC; i++) {
        uint32_t f[3] = {sums[i * slots + slot], mid[i], top[i]};
        oz2_fixed96_add(f, (uint32_t)d[i] ^ 0x80000000u, v);
        sums[i * slots + slot] = f[0];
        mid[i] = f[1];
        top[i] = f[2];
    }
}

/* The chunk's CRT sums into f64, times 2^-2k, into the sum of the chunks; after the last chunk C
 * = alpha 2^(e_i + f_j) sum + beta C. This consumer's block of C is 64 x 128 at (row0, col0):
 * thread (warp, g = lane / 4, t = lane % 4) holds element i at row 16 warp + g + 8 ((i / 2) % 2),
 * column 8 (i / 4) + 2t + i % 2 (the wgmma D layout); every element guarded */
static __device__ __forceinline__ void oz_v9_chunk_end(const uint32_t (&top)[oz_v9_config::ACC],
                                                       const uint32_t (&mid)[oz_v9_config::ACC],
                                                       const uint32_t *sums, int slots, int slot,
                                                       const oz_v9_args &p, int row0, int col0,
                                                       int chunk)
{
    const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const bool last = chunk == p.chunks - 1;
#pragma unroll
    for (int i = 0; i < oz_v9_config::ACC; i++) {
        const int row = row0 + 16 * warp + g + 8 * (i / 2 % 2),
                  col = col0 + 8 * (i / 4) + 2 * t + i % 2;
        if (row >= p.M || col >= p.N) continue;
        const uint32_t f[3] = {sums[i * slots + slot], mid[i], top[i]};
        const double v = __dmul_rn(oz2_fixed96_to_double(f, p.c.p_hi, p.c.p_lo), p.scale);
        /* the sum of the chunks (p.partial, NULL for one chunk: indexed only when chunk > 0 or
         * !last, that is when there are several) */
        const long at = (long)row * p.N + col;
        const double sum = chunk == 0 ? v : __dadd_rn(p.partial[at], v);
        if (!last) {
            p.partial[at] = sum;
            continue;
        }
        double *out = p.C + (long)row * p.ldc + col;
        const double x = __dmul_rn(p.alpha, ldexp(sum, p.ea[row] + p.eb[col]));
        /* the beta step, one fma (one rounding) by choice: beta C + x */
        *out = p.beta == 0 ? x : fma(p.beta, *out, x);
    }
}

__global__ void __launch_bounds__((oz_v9_config::CONSUMERS + 1) * WG_THREADS, 1)
    oz_v9_ozaki2_onepass_kernel(const __grid_constant__ CUtensorMap map_a,
                                const __grid_constant__ CUtensorMap map_b,
                                const __grid_constant__ oz_v9_args p)
{
#if TC_SM90A
    typedef oz_v9_config Cfg;
    constexpr int CLUSTER = OZ_V9_CLUSTER, BK = wg_bk<int8_t>();
    constexpr int REGS = wg_consumer_regs(Cfg::CONSUMERS);
    constexpr int SLOTS = Cfg::CONSUMERS * WG_THREADS; /* CRT sum slots per element index */
    static_assert(BK == 128, "a k-tile is one 128-byte row of int8 values");
    static_assert(Cfg::BN % (8 * CLUSTER) == 0, "B's slices are whole 8-row swizzle atoms");
    static_assert(Cfg::EPILOGUE_BYTES == Cfg::ACC * SLOTS * (int)sizeof(uint32_t),
                  "one word of CRT sum per element of every consumer thread");
    static_assert(PRODUCER_REGS * WG_THREADS + REGS * WG_THREADS * Cfg::CONSUMERS <= 65536,
                  "the register file holds the producer's and the consumers' registers");
    static_assert(3 * Cfg::ACC + 16 <= REGS,
                  "a consumer's accumulators and the sums' middle and top words live in its "
                  "registers");
    extern __shared__ unsigned char smem_raw[];
    const ring<Cfg> r(align_1024(smem_raw));
    const unsigned rank = cluster_ctarank();
    /* every consumer warp of every block of the cluster releases each stage */
    if (threadIdx.x == 0) r.init(Cfg::CONSUMERS * 4 * CLUSTER);
    cluster_sync(); /* the partner's barriers exist before anything arrives on them */

    const int tiles_m = (p.M + Cfg::BM - 1) / Cfg::BM, tiles_n = (p.N + Cfg::BN - 1) / Cfg::BN;
    const int units_m = (tiles_m + CLUSTER - 1) / CLUSTER, units = units_m * tiles_n;
    /* this cluster's units: cluster, cluster + clusters, ... */
    const int clusters = (int)gridDim.x / CLUSTER, cluster = blockIdx.x / CLUSTER;
    const int my_units = cluster < units ? (units - 1 - cluster) / clusters + 1 : 0;
    const int wg = threadIdx.x / WG_THREADS;
    /* the origin of this block's tile in unit u: the same for producer and consumers */
    const auto unit_origin = [&](int u, int &m0, int &n0) {
        int um, tn;
        tile_coords<OZ_V9_GROUP_M>(u, units_m, tiles_n, &um, &tn);
        m0 = (um * CLUSTER + (int)rank) * Cfg::BM, n0 = tn * Cfg::BN;
    };

    if (wg == 0) {
        setmaxnreg_dec<PRODUCER_REGS>();
        if (threadIdx.x == 0) {
            int it = 0; /* the ring's position runs on across moduli, chunks and units */
            for (int i = 0; i < my_units; i++) {
                int m0, n0;
                unit_origin(cluster + i * clusters, m0, n0);
                for (int plane = 0; plane < p.chunks * p.moduli; plane++) /* chunk by chunk */
                    for (int t = 0; t < p.k_tiles; t++, it++) {
                        const int s = it % Cfg::STAGES;
                        /* the use-th fill of stage s waits for the release of fill use-1 */
                        if (it >= Cfg::STAGES) mbar_wait(&r.empty[s], (it / Cfg::STAGES - 1) % 2);
                        /* A, and all of B: this block's slice and the partner's multicast */
                        mbar_arrive_expect_tx(&r.full[s], Cfg::STAGE_BYTES);
                        tma_load_2d(r.a(s), &map_a, &r.full[s], t * BK, plane * p.M + m0);
                        constexpr int SLICE = Cfg::BN / CLUSTER;
                        tma_load_2d_multicast(r.b(s) + rank * SLICE * ROW_BYTES, &map_b, &r.full[s],
                                              t * BK, plane * p.N + n0 + (int)rank * SLICE,
                                              (uint16_t)((1u << CLUSTER) - 1));
                    }
            }
        }
        __syncwarp();
    } else {
        setmaxnreg_inc<REGS>();
        const int cw = wg - 1; /* this consumer's 64 rows of the tile */
        const int slot = threadIdx.x - WG_THREADS;
        uint32_t *sums = (uint32_t *)r.epilogue();
        int d[Cfg::ACC];
        uint32_t top[Cfg::ACC], mid[Cfg::ACC];
#pragma unroll
        for (int i = 0; i < Cfg::ACC; i++) d[i] = 0, top[i] = 0, mid[i] = 0;
        int it = 0;
        for (int i = 0; i < my_units; i++) {
            int m0, n0;
            unit_origin(cluster + i * clusters, m0, n0);
            for (int chunk = 0; chunk < p.chunks; chunk++) {
                for (int l = 0; l < p.moduli; l++) {
                    for (int t = 0; t < p.k_tiles; t++, it++) {
                        const int s = it % Cfg::STAGES;
                        mbar_wait(&r.full[s], it / Cfg::STAGES % 2);
                        const uint32_t a = smem_u32(r.a(s)) + cw * WG_M * ROW_BYTES,
                                       b = smem_u32(r.b(s));
                        wgmma_k_tile<int8_t, oz_v9_config>(d, a, b, t == 0);
                        wgmma_wait_group<1>(); /* the previous k-tile's group is done */
                        if (t > 0) release_stage_cluster<CLUSTER>(&r.empty[(it - 1) % Cfg::STAGES]);
                    }
                    wgmma_wait_group<0>();
                    wgmma_fence_operand(d);
                    release_stage_cluster<CLUSTER>(&r.empty[(it - 1) % Cfg::STAGES]);
                    oz_v9_crt_add(d, top, mid, sums, SLOTS, slot, p, l, l == 0);
                }
                oz_v9_chunk_end(top, mid, sums, SLOTS, slot, p, m0 + cw * WG_M, n0, chunk);
            }
        }
    }
    /* no block may exit while its partner can still multicast into its shared memory or arrive
     * on its barriers */
    cluster_sync();
#endif
}

/* ---- the host side ----------------------------------------------------------------------------- */
/* What prepare() works out once: the tensor maps of the residues, the chunks, the buffers in the
 * workspace, the grid and the kernel's arguments. Its CUtensorMap members are 128-byte aligned:
 * allocate it as such (on the stack, or with tma_host_calloc). */
typedef struct {
    CUtensorMap map_a, map_b;
    oz_v9_args args;
    const double *A, *B;
    long lda, ldb;
    int K, bits;
    long kc, kcp, chunks; /* chunk length, its padded length (a multiple of 16) and count */
    int8_t *ares, *bres;  /* chunks x n planes of M x kcp and of N x kcp */
    int *ea, *eb;         /* the exponents (args.ea, args.eb) */
    unsigned grid;        /* blocks: CLUSTER x the clusters that fit at once, at most the units */
} oz_v9_ozaki2_onepass_plan;

/* the chunk of K for the moduli c and k-bit integers: all of K when it fits oz2_k_chunk, else
 * oz2_k_chunk's, at most kc_cap when that is not 0 (below OZ_KC_ALIGN when no chunk fits) */
static inline long oz_v9_chunk(const oz2_consts *c, int bits, int K, long kc_cap)
{
    const long k_max = oz2_k_chunk(c, bits, OZ_KC_ALIGN);
    const long k_round = ((long)K + OZ_KC_ALIGN - 1) / OZ_KC_ALIGN * OZ_KC_ALIGN;
    long kc = k_round < k_max ? K : k_max;
    if (kc_cap > 0 && kc_cap < kc) kc = kc_cap;
    return kc;
}

/* _unsupported for prepare_forced's chunk cap kc_cap (0: the rung's chunk): NULL, or why not */
static inline const char *oz_v9_ozaki2_onepass_unsupported_forced(long kc_cap, int n, int bits,
                                                                  int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    if (n < 14 || n > 16) return "v9_ozaki2_onepass: 14, 15 or 16 moduli (the prologue kernel's)";
    if (bits < 1 || bits > 52) return "v9_ozaki2_onepass: 1 to 52 bits per value (residue_of)";
    oz2_consts c;
    oz2_consts_init(&c, n);
    for (int l = 0; l < c.n; l++)
        if (c.m[l] != OZ_V9_MODULI[l]) /* the kernels' constants are the model's moduli */
            return "v9_ozaki2_onepass: the kernels' moduli differ from ozaki_model.c's";
    if (oz2_k_chunk(&c, bits, OZ_KC_ALIGN) < OZ_KC_ALIGN)
        return "v9_ozaki2_onepass: no chunk of K fits the moduli at this many bits (2 Kc 2^2k < P)";
    /* the TMA's row coordinates of the stacked planes (chunks x n of them, M or N rows each, a
     * box of up to 2 tiles past the last) are 32-bit */
    const long kc = oz_v9_chunk(&c, bits, K, kc_cap);
    const long planes = (K + kc - 1) / kc * n;
    if (planes * (M > N ? M : N) > INT32_MAX - 2 * oz_v9_config::BM)
        return "v9_ozaki2_onepass: too many residue rows for the TMA's 32-bit coordinates";
    return wg_code_unsupported((const void *)oz_v9_ozaki2_onepass_kernel);
}

/* NULL when the rung can take n moduli, k-bit integers and the problem on this GPU, else why not */
static inline const char *oz_v9_ozaki2_onepass_unsupported(int n, int bits, int M, int N, int K)
{
    return oz_v9_ozaki2_onepass_unsupported_forced(0, n, bits, M, N, K);
}

/* the chunk of K (at most kc_cap when that is not 0) and the workspace's buffers at base (sizes
 * only when base is NULL); returns the workspace's bytes */
static inline size_t oz_v9_ozaki2_onepass_layout(oz_v9_ozaki2_onepass_plan *p, int n, int bits,
                                                 int M, int N, int K, long kc_cap, char *base)
{
    p->bits = bits;
    oz2_consts_init(&p->args.c, n);
    oz2_frac_consts_init(&p->args.fr, &p->args.c);
    p->kc = oz_v9_chunk(&p->args.c, bits, K, kc_cap);
    p->kcp = (p->kc + OZ_KC_ALIGN - 1) / OZ_KC_ALIGN * OZ_KC_ALIGN;
    p->chunks = (K + p->kc - 1) / p->kc;
    size_t off = 0;
    p->ares = (int8_t *)oz_take(base, &off, (size_t)p->chunks * n * M * p->kcp);
    p->bres = (int8_t *)oz_take(base, &off, (size_t)p->chunks * n * N * p->kcp);
    p->args.ea = p->ea = (int *)oz_take(base, &off, (size_t)M * sizeof(int));
    p->args.eb = p->eb = (int *)oz_take(base, &off, (size_t)N * sizeof(int));
    p->args.partial =
        (double *)oz_take(base, &off, p->chunks > 1 ? (size_t)M * N * sizeof(double) : 0);
    if (p->chunks == 1) p->args.partial = NULL;
    return off;
}

/* the workspace of prepare_forced with this kc_cap (0: the rung's chunk; a shorter chunk may need
 * more: the f64 sums of the chunks, and K rounded up to a whole number of chunks) */
static inline cudaError_t oz_v9_ozaki2_onepass_workspace_size_forced(long kc_cap, int n, int bits,
                                                                     int M, int N, int K,
                                                                     size_t *bytes)
{
    *bytes = 0;
    if (M < 1 || N < 1 || K < 1 || kc_cap < 0 || kc_cap % OZ_KC_ALIGN != 0)
        return cudaErrorInvalidValue;
    if (oz_v9_ozaki2_onepass_unsupported_forced(kc_cap, n, bits, M, N, K))
        return cudaErrorNotSupported;
    oz_v9_ozaki2_onepass_plan plan;
    *bytes = oz_v9_ozaki2_onepass_layout(&plan, n, bits, M, N, K, kc_cap, NULL);
    return cudaSuccess;
}

static inline cudaError_t oz_v9_ozaki2_onepass_workspace_size(int n, int bits, int M, int N, int K,
                                                              size_t *bytes)
{
    return oz_v9_ozaki2_onepass_workspace_size_forced(0, n, bits, M, N, K, bytes);
}

/* prepare() with the run-time choices forced: the chunk of K at most kc_cap (a multiple of 16; 0:
 * the rung's choice) and at most max_clusters clusters in the persistent grid (0: as many as fit
 * at once; any smaller grid is correct too, each cluster walking more units) */
static inline cudaError_t
oz_v9_ozaki2_onepass_prepare_forced(oz_v9_ozaki2_onepass_plan *plan, long kc_cap,
                                    unsigned max_clusters, int n, int bits, int M, int N, int K,
                                    const double *A, long lda, const double *B, long ldb, double *C,
                                    long ldc, void *workspace, size_t workspace_bytes)
{
    typedef oz_v9_config Cfg;
    if (M < 1 || N < 1 || K < 1 || lda < K || ldb < K || ldc < N) return cudaErrorInvalidValue;
    if (kc_cap < 0 || kc_cap % OZ_KC_ALIGN != 0) return cudaErrorInvalidValue;
    if (oz_v9_ozaki2_onepass_unsupported_forced(kc_cap, n, bits, M, N, K))
        return cudaErrorNotSupported;
    if (!workspace ||
        workspace_bytes < oz_v9_ozaki2_onepass_layout(plan, n, bits, M, N, K, kc_cap, NULL))
        return cudaErrorInvalidValue;
    oz_v9_ozaki2_onepass_layout(plan, n, bits, M, N, K, kc_cap, (char *)workspace);
    const void *kernel = (const void *)oz_v9_ozaki2_onepass_kernel;
    cudaError_t e = smem_optin(kernel, Cfg::SMEM_BYTES);
    unsigned resident = 0;
    if (e == cudaSuccess) e = wg_resident_clusters<Cfg>(kernel, OZ_V9_CLUSTER, &resident);
    if (e != cudaSuccess) return e;
    if (resident == 0) return cudaErrorNotSupported; /* not even one cluster fits */
    if (max_clusters && max_clusters < resident) resident = max_clusters;
    const unsigned tiles_m = (unsigned)((M + Cfg::BM - 1) / Cfg::BM);
    const unsigned units =
        (tiles_m + OZ_V9_CLUSTER - 1) / OZ_V9_CLUSTER * (unsigned)((N + Cfg::BN - 1) / Cfg::BN);
    plan->grid = OZ_V9_CLUSTER * (units < resident ? units : resident);
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->K = K;
    oz_v9_args *a = &plan->args;
    a->M = M, a->N = N, a->moduli = n, a->chunks = (int)plan->chunks;
    a->k_tiles = (int)((plan->kcp + wg_bk<int8_t>() - 1) / wg_bk<int8_t>());
    a->C = C, a->ldc = ldc, a->scale = ldexp(1.0, -2 * bits);
    /* the planes of each operand stacked: chunks n M rows of kcp int8 values */
    e = tma_map_kmajor(&plan->map_a, plan->ares, tma_dtype<int8_t>::value, plan->chunks * n * M,
                       plan->kcp, plan->kcp, Cfg::BM);
    if (e == cudaSuccess)
        e = tma_map_kmajor(&plan->map_b, plan->bres, tma_dtype<int8_t>::value, plan->chunks * n * N,
                           plan->kcp, plan->kcp, Cfg::BN / OZ_V9_CLUSTER);
    return e;
}

static inline cudaError_t oz_v9_ozaki2_onepass_prepare(oz_v9_ozaki2_onepass_plan *plan, int n,
                                                       int bits, int M, int N, int K,
                                                       const double *A, long lda, const double *B,
                                                       long ldb, double *C, long ldc,
                                                       void *workspace, size_t workspace_bytes)
{
    return oz_v9_ozaki2_onepass_prepare_forced(plan, 0, 0, n, bits, M, N, K, A, lda, B, ldb, C, ldc,
                                               workspace, workspace_bytes);
}

/* the two launches before the fused kernel: A's rows, then B's columns (a block each); returns
 * the first failed launch's error (launching nothing after it) */
template <int MODULI>
static cudaError_t oz_v9_launch_prologue(const oz_v9_ozaki2_onepass_plan *plan, cudaStream_t stream)
{
    const oz_v9_args *a = &plan->args;
    oz_v9_prologue<MODULI><<<a->M, OZ_V9_PROLOGUE_THREADS, 0, stream>>>(
        plan->A, plan->lda, a->M, plan->K, plan->kc, plan->kcp, plan->chunks, plan->bits, plan->ea,
        plan->ares);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    oz_v9_prologue<MODULI><<<a->N, OZ_V9_PROLOGUE_THREADS, 0, stream>>>(
        plan->B, plan->ldb, a->N, plan->K, plan->kc, plan->kcp, plan->chunks, plan->bits, plan->eb,
        plan->bres);
    return cudaGetLastError();
}

static inline cudaError_t oz_v9_ozaki2_onepass_run(const oz_v9_ozaki2_onepass_plan *plan,
                                                   double alpha, double beta, cudaStream_t stream)
{
    const oz_v9_args *a = &plan->args;
    cudaError_t e;
    switch (a->moduli) { /* the moduli counts the prologue kernel is instantiated for */
    case 14: e = oz_v9_launch_prologue<14>(plan, stream); break;
    case 15: e = oz_v9_launch_prologue<15>(plan, stream); break;
    default: e = oz_v9_launch_prologue<16>(plan, stream);
    }
    if (e != cudaSuccess) return e; /* the fused kernel would read what failed to be made */
    oz_v9_args args = *a;
    args.alpha = alpha, args.beta = beta;
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        wg_launch_config<oz_v9_config>(plan->grid, OZ_V9_CLUSTER, &attr, stream);
    return cudaLaunchKernelEx(&cfg, oz_v9_ozaki2_onepass_kernel, plan->map_a, plan->map_b, args);
}

static inline cudaError_t oz_v9_ozaki2_onepass_gemm(int n, int bits, int M, int N, int K,
                                                    const double *A, long lda, const double *B,
                                                    long ldb, double *C, long ldc, double alpha,
                                                    double beta, void *workspace,
                                                    size_t workspace_bytes, cudaStream_t stream)
{
    oz_v9_ozaki2_onepass_plan plan;
    const cudaError_t e = oz_v9_ozaki2_onepass_prepare(&plan, n, bits, M, N, K, A, lda, B, ldb, C,
                                                       ldc, workspace, workspace_bytes);
    return e == cudaSuccess ? oz_v9_ozaki2_onepass_run(&plan, alpha, beta, stream) : e;
}

#endif /* OZ_V9_OZAKI2_ONEPASS_CUH */
