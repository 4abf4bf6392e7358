/* common/wgmma_parts.cuh - the parts every Hopper (sm_90a) GEMM rung is built from: the tile
 * geometry of wgmma with the 128-byte swizzle, the ring of shared-memory stages with its mbarriers,
 * the four wgmma of a k-tile, the epilogue from registers, and the host-side checks. Chapter 05's
 * wgmma rungs, chapter 04's tf32 rung and the multiword kernel of chapters 04 and 09 use them.
 * common/wgmma_ptx.cuh has every instruction with its layout, common/tma_map.h the host side of
 * the TMA. No harness header: a rung that includes this file can be copied into any program.
 *
 * Problem and layout of every kernel built from these parts: C = alpha * A * B + beta * C. A is
 * M x K row-major (lda), B is K x N column-major (ldb: the distance between columns), C is M x N
 * row-major f32 (ldc): both operands K-major, as wgmma reads them without transposition (and as
 * tf32 and fp8 require). beta == 0 never reads C.
 *
 * Tiles: one k-tile is one 128-byte swizzle row of every operand row: 64 16-bit values, 32 tf32
 * values or 128 fp8 values (wg_bk<T>). Operand tiles in shared memory are ROWS x 128 bytes,
 * K-major, 128-byte swizzled, 1024-byte aligned. A block of W consumer warpgroups computes a
 * (64 W) x BN tile of C: warpgroup w owns rows 64 w .. 64 w + 63 with one m64nBN wgmma per 32-byte
 * k-step, BN / 2 f32 accumulators per thread.
 *
 * What is here
 *   wg_config        a kernel's tile, the ring's stages, what its epilogue keeps in shared
 *                    memory, and the budget
 *   align_1024       the dynamic shared memory aligned for the swizzle
 *   epilogue_direct  C from the accumulator registers (float2 pairs): a block wholly inside C
 *                    without a guard per pair (epilogue_whole), any other one guarded
 *                    (epilogue_guarded)
 *   named_bar_sync, named_bar_arrive
 *                    a barrier for some warps only; arrive without waiting
 *   wgmma_k_tile     the four wgmma of one k-tile, fenced and committed as one group
 *   ring             the stages with their full/empty mbarriers
 *   release_stage, release_stage_cluster
 *                    a consumer warp is done with a stage (in its block, or in every block of
 *                    the cluster)
 *   PRODUCER_REGS, wg_consumer_regs
 *                    the register split of a warp-specialised kernel (setmaxnreg)
 *   host side        tma_dtype, wg_c_vec2, wg_c_tma, wg_tma_unsupported, wg_code_runs_here,
 *                    wg_code_unsupported,
 *                    wg_launch_config, wg_resident_clusters
 *
 * Requires sm_90a (kernel bodies compile only #if TC_SM90A), CUDA 12.x or 13.x. */
#ifndef TC_WGMMA_PARTS_CUH
#define TC_WGMMA_PARTS_CUH

#include "gemm_tiles.cuh"
#include "tma_map.h"
#include "wgmma_ptx.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

constexpr int ROW_BYTES = 128;  /* one row of an operand tile: one 128-byte swizzle row */
constexpr int KSTEP_BYTES = 32; /* what one wgmma reads of every row: k = 16, 8 or 32 values */
constexpr int KSTEPS = ROW_BYTES / KSTEP_BYTES;
constexpr int WG_THREADS = 128; /* a warpgroup */
constexpr int WG_M = 64;        /* rows of C per consumer warpgroup (m64) */

/* Values of type T in one k-tile: 64 f16/bf16, 32 tf32 (f32 bits), 128 fp8. */
template <class T> __host__ __device__ constexpr int wg_bk() { return ROW_BYTES / (int)sizeof(T); }

/* ================================================================================================
 * The configuration of a kernel: CONSUMERS warpgroups compute a (64 CONSUMERS) x BN tile of C;
 * STAGES k-tiles of A and B live in shared memory at once; EPILOGUE_BYTES after them belong to
 * the epilogue (0 when it stores from registers); the mbarriers come last.
 * ============================================================================================== */
template <int BN_, int STAGES_, int CONSUMERS_, int EPILOGUE_BYTES_ = 0> struct wg_config {
    static constexpr int BN = BN_, STAGES = STAGES_, CONSUMERS = CONSUMERS_;
    static constexpr int BM = WG_M * CONSUMERS;
    static constexpr int ACC = BN / 2; /* f32 accumulators per thread */
    static constexpr int A_BYTES = BM * ROW_BYTES, B_BYTES = BN * ROW_BYTES;
    static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
    static constexpr int EPILOGUE_BYTES = EPILOGUE_BYTES_;
    static constexpr int BARRIER_BYTES = 2 * STAGES * 8; /* a full and an empty one per stage */
    /* 1024 of slack: the dynamic shared memory is aligned to 1024 bytes by hand */
    static constexpr size_t SMEM_BYTES =
        (size_t)STAGES * STAGE_BYTES + EPILOGUE_BYTES + BARRIER_BYTES + 1024;

    static_assert(BN == 128 || BN == 144 || BN == 256,
                  "wgmma_op is instantiated for n128 and n256 (and n144 for FP8)");
    static_assert(A_BYTES % 1024 == 0 && B_BYTES % 1024 == 0,
                  "every tile starts at a swizzle atom (8 rows x 128 bytes)");
    static_assert(EPILOGUE_BYTES % 1024 == 0, "the epilogue's buffers start at swizzle atoms");
    static_assert(STAGES >= 2, "a ring needs two stages");
    static_assert(SMEM_BYTES <= 227 * 1024,
                  "the ring and the epilogue fit the 227 KiB of shared memory a block gets");
};

/* The 128-byte swizzle wants each tile at a multiple of 1024 bytes; dynamic shared memory is
 * only guaranteed 16-byte alignment. */
static __device__ __forceinline__ unsigned char *align_1024(unsigned char *p)
{
    return p + ((1024u - (smem_u32(p) & 1023u)) & 1023u);
}

/* ================================================================================================
 * Epilogue from the accumulators. Register d[i] of warp j of the warpgroup, lane 4g + t, is
 * C(row0 + 16j + g + 8((i/2)%2), col0 + 8(i/4) + 2t + i%2) (wgmma_ptx.cuh): pairs (d[i], d[i+1])
 * are neighbours, one float2 each. Four lanes of a row cover 32 contiguous bytes, one sector.
 * ============================================================================================== */
/* Whether a warpgroup's 64 x (2 ACC) block of C at (row0, col0) can be stored by
 * epilogue_whole: inside C, float2 pairs, C not read */
template <int ACC>
__device__ __forceinline__ bool epilogue_whole_fits(int row0, int col0, int M, int N, float beta,
                                                    bool vec2)
{
    return vec2 && beta == 0.0f && row0 + WG_M <= M && col0 + ACC * 2 <= N;
}
/* The stores without a guard per pair: one base address, the pairs' offsets constants but for the
 * 8 rows down (8 ldc). d is scaled by alpha in place (no second set of registers, which the
 * compiler would otherwise fill all at once before the stores) */
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

/* bar.arrive id, threads: count this warp's threads at barrier id without waiting; the barrier
 * completes when `threads` threads have arrived or synced there (a producer/consumer hand-off:
 * the other side calls named_bar_sync with the same count) */
static __device__ __forceinline__ void named_bar_arrive(int id, int threads)
{
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/* The 4 wgmma of one k-tile for one consumer warpgroup: a, b = shared-memory addresses of its 64
 * rows of A and of the BN rows of B; k-step kk starts 32 kk bytes into the rows (k = 16 values of
 * 16 bits, k = 8 tf32 values or k = 32 fp8 or int8 values). first: the first k-tile of an output
 * tile, whose first wgmma overwrites D instead of adding to it. Acc: float, or int for int8 (T =
 * int8_t), deduced from d. */
template <class T, class Cfg, class Acc>
__device__ __forceinline__ void wgmma_k_tile(Acc (&d)[Cfg::ACC], uint32_t a, uint32_t b, bool first)
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
 * The ring of stages: full[s] (1 arrival, the producer's expect_tx, plus the bytes) and empty[s]
 * (one arrival per consumer warp, of every block of the cluster). The barriers sit after the
 * stages and the epilogue's bytes.
 * ============================================================================================== */
template <class Cfg> struct ring {
    unsigned char *smem;
    uint64_t *full, *empty;
    __device__ __forceinline__ explicit ring(unsigned char *aligned)
        : smem(aligned),
          full((uint64_t *)(aligned + Cfg::STAGES * Cfg::STAGE_BYTES + Cfg::EPILOGUE_BYTES)),
          empty(full + Cfg::STAGES)
    {
    }
    __device__ __forceinline__ unsigned char *a(int s) const { return smem + s * Cfg::STAGE_BYTES; }
    __device__ __forceinline__ unsigned char *b(int s) const { return a(s) + Cfg::A_BYTES; }
    /* the epilogue's EPILOGUE_BYTES, after the stages */
    __device__ __forceinline__ unsigned char *epilogue() const
    {
        return smem + Cfg::STAGES * Cfg::STAGE_BYTES;
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

/* A consumer warp is done with a stage (its wgmma groups that read it completed): lane 0 arrives
 * on the stage's empty barrier. */
static __device__ __forceinline__ void release_stage(uint64_t *empty)
{
    if (threadIdx.x % 32 == 0) mbar_arrive(empty);
}
/* The same in a cluster of CLUSTER blocks: lane c arrives on the barrier of block c, because every
 * block's producer multicasts into all of them and must wait for the consumers of all. */
template <int CLUSTER> static __device__ __forceinline__ void release_stage_cluster(uint64_t *empty)
{
    const unsigned lane = threadIdx.x % 32;
    if (lane < (unsigned)CLUSTER) mbar_arrive_cluster(empty, lane);
}

/* ================================================================================================
 * Registers of a warp-specialised kernel: warpgroup 0 produces with PRODUCER_REGS per thread,
 * the others consume with what the register file (64 Ki) leaves, in steps of 8 (setmaxnreg), at
 * most 232.
 * ============================================================================================== */
constexpr int PRODUCER_REGS = 40;
__host__ __device__ constexpr int wg_consumer_regs(int consumers)
{
    return (65536 - PRODUCER_REGS * WG_THREADS) / (WG_THREADS * consumers) / 8 * 8 < 232
               ? (65536 - PRODUCER_REGS * WG_THREADS) / (WG_THREADS * consumers) / 8 * 8
               : 232;
}
constexpr int CONSUMER_REGS = wg_consumer_regs(2); /* 232, the two-consumer kernels' */

/* ================================================================================================
 * The host side
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
template <> struct tma_dtype<int8_t> { /* chapter 07's int8 operands, bytes too */
    static constexpr CUtensorMapDataType value = CU_TENSOR_MAP_DATA_TYPE_UINT8;
};

/* C may be stored as float2 pairs */
static inline bool wg_c_vec2(const float *C, long ldc)
{
    return (uintptr_t)C % 8 == 0 && ldc % 2 == 0;
}
/* The TMA can write C (its 16-byte rules) and its rows of N floats end on a 16-byte boundary: a
 * TMA store writes whole 16-byte pieces of a row (measured on an H100: with N = 67 and ldc = 68
 * it wrote column 67, the padding, in every row) */
static inline bool wg_c_tma(const float *C, long ldc, int N)
{
    return (uintptr_t)C % 16 == 0 && ldc % 4 == 0 && N % 4 == 0;
}

/* NULL, or why the TMA cannot read A or B (the problem is valid; this kernel cannot take it) */
template <class T>
static const char *wg_tma_unsupported(const void *A, long lda, const void *B, long ldb)
{
    static char why[160];
    const char *a = tma_operand_unsupported(A, lda, (int)sizeof(T));
    const char *b = tma_operand_unsupported(B, ldb, (int)sizeof(T));
    if (!a && !b) return NULL;
    snprintf(why, sizeof why, "%s: %s", a ? "A" : "B", a ? a : b);
    return why;
}

/* Whether the GPU runs `kernel`'s sm_90a code: cudaSuccess, or cudaErrorNotSupported when this
 * build has no code for the GPU or the GPU runs the build's code for another target (a program
 * built for several targets has wgmma kernels whose bodies exist only in its sm_90a code: on
 * another GPU it would run an empty kernel). */
static inline cudaError_t wg_code_runs_here(const void *kernel)
{
    cudaFuncAttributes fa;
    const cudaError_t e = cudaFuncGetAttributes(&fa, kernel);
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction) {
        (void)cudaGetLastError();
        return cudaErrorNotSupported;
    }
    if (e != cudaSuccess) return e;
    return fa.binaryVersion == 90 ? cudaSuccess : cudaErrorNotSupported;
}

/* wg_code_runs_here as an unsupported() message: NULL, the sm_90a message when the GPU cannot run
 * the code, or the CUDA error's own text when the query itself failed (not a question of the GPU) */
static inline const char *wg_code_unsupported(const void *kernel)
{
    const cudaError_t e = wg_code_runs_here(kernel);
    if (e == cudaSuccess) return NULL;
    if (e == cudaErrorNotSupported)
        return "wgmma needs sm_90a code (a Hopper GPU, a build for sm_90a)";
    return cudaGetErrorString(e);
}

/* The launch of a warp-specialised kernel: (CONSUMERS + 1) warpgroups per block, clusters of
 * `cluster` blocks along x */
template <class Cfg>
static cudaLaunchConfig_t wg_launch_config(unsigned grid, int cluster, cudaLaunchAttribute *attr,
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

/* How many clusters of `cluster` blocks of `kernel` fit on the GPU at once (one block per SM):
 * the grid of a persistent kernel. 0 when not even one fits. */
template <class Cfg>
static cudaError_t wg_resident_clusters(const void *kernel, int cluster, unsigned *clusters)
{
    cudaLaunchAttribute attr;
    int dev = 0, sms = 0, n = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess) return e;
    cudaLaunchConfig_t cfg = wg_launch_config<Cfg>((unsigned)(cluster * sms), cluster, &attr, 0);
    e = cudaOccupancyMaxActiveClusters(&n, kernel, &cfg);
    *clusters = e == cudaSuccess ? (unsigned)n : 0;
    return e;
}

#endif /* TC_WGMMA_PARTS_CUH */
