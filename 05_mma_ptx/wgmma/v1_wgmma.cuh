/* wgmma_v1_wgmma - the first Hopper rung: wgmma reads its operands straight from swizzled shared
 * memory; every thread copies tiles with cp.async and writes the swizzle by hand.
 *
 * Rung v1 of chapter 05's Hopper ladder (f16 and bf16 in, f32 accumulate and out).
 * Parent: part 1's v6_epilogue (mma.sync; common/mma_v6_epilogue.cuh). What changes: no ldmatrix
 * and no operand registers. A warpgroup (4 warps) issues one wgmma m64n128k16: the tensor cores
 * read A's 64 x 16 and B's 128 x 16 from shared memory through descriptors that know the 128-byte
 * swizzle, and the instruction runs asynchronously (fence, commit, wait). One instruction does
 * what 32 mma.sync and their ldmatrix did.
 * What limits it: every thread still copies (cp.async into a 3-stage ring, the swizzle computed
 * per 16-byte chunk), and each k-tile ends with wait_group 0 and a barrier of the whole block
 * before its stage may be refilled: the tensor cores idle while the block synchronises.
 *
 * Problem: C = alpha * A * B + beta * C (beta == 0 never reads C). A M x K row-major (lda), B
 * K x N column-major (ldb), C M x N row-major f32 (ldc); T = __half or __nv_bfloat16. Any
 * M, N, K >= 1, any leading dimension and alignment: chunks outside the matrix are zero-filled
 * (cp.async with 0 source bytes), rows that are not 16-byte aligned are copied value by value.
 *
 * Tiles: 128 x 128 per block (two warpgroups of 64 x 128, 64 f32 accumulators per thread),
 * k-tiles of 64 values (one 128-byte swizzle row), 3 stages of 32 KiB; blocks in groups of 8
 * block-rows (block_tile_coords) for L2 reuse.
 *
 * The plain launcher (no harness types; common/ headers only):
 *   wgmma_v1_wgmma_gemm<T>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta, stream)
 * or wgmma_v1_wgmma_prepare<T>(&plan, ...) once (the shared-memory opt-in, the grid) and
 * wgmma_v1_wgmma_run<T>(&plan, alpha, beta, stream) per product. Both return cudaSuccess,
 * cudaErrorInvalidValue for sizes below 1, cudaErrorNotSupported for a GPU it cannot run on
 * (wgmma_v1_wgmma_unsupported says why; nothing is launched), or the failed call's error.
 *
 * Requires sm_90a (built with -gencode=arch=compute_90a,code=sm_90a), CUDA 12.x or 13.x. */
#ifndef WGMMA_V1_WGMMA_CUH
#define WGMMA_V1_WGMMA_CUH

#include "wgmma_parts.cuh"

/*                     BN  STAGES CONSUMERS */
typedef wg_config<128, 3, 2> wgmma_v1_config; /* 128 x 128 tiles, 3 stages of 32 KiB */
constexpr int WGMMA_V1_GROUP_M = 8;           /* blocks in groups of 8 block-rows */

/* Copies the ROWS x 64 tile at (row0, k0) of a K-contiguous matrix (rows x K, leading dimension
 * ld) into a 128-byte swizzled tile; zeros outside the matrix. Thread i copies chunks i,
 * i + THREADS, ...: consecutive threads take consecutive 16 bytes of a row (coalesced). */
template <int THREADS, int ROWS>
static __device__ __forceinline__ void
wgmma_v1_load_tile_sw128(unsigned char *tile, const uint16_t *__restrict__ g, long ld, int row0,
                         int k0, int rows, int K, bool vec)
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

template <class T>
__global__ void __launch_bounds__(wgmma_v1_config::CONSUMERS *WG_THREADS, 1)
    wgmma_v1_wgmma_kernel(int M, int N, int K, const uint16_t *__restrict__ A, long lda,
                          const uint16_t *__restrict__ B, long ldb, float *__restrict__ C, long ldc,
                          float alpha, float beta, bool vec_a, bool vec_b, bool vec2)
{
#if TC_SM90A
    typedef wgmma_v1_config Cfg;
    constexpr int THREADS = Cfg::CONSUMERS * WG_THREADS, BK = wg_bk<T>();
    static_assert(BK * 2 == ROW_BYTES, "a k-tile row is one 128-byte swizzle row of 16-bit values");
    static_assert(Cfg::STAGES >= 2, "loads of k-tile t+STAGES-1 overlap the wgmma of t");
    extern __shared__ unsigned char smem_raw[];
    unsigned char *smem = align_1024(smem_raw);
    const int wg = threadIdx.x / WG_THREADS;
    int tm, tn;
    block_tile_coords<WGMMA_V1_GROUP_M>((M + Cfg::BM - 1) / Cfg::BM, (N + Cfg::BN - 1) / Cfg::BN,
                                        &tm, &tn);
    const int m0 = tm * Cfg::BM, n0 = tn * Cfg::BN;
    const int k_tiles = (K + BK - 1) / BK;

    auto load = [&](int t) {
        unsigned char *stage = smem + (t % Cfg::STAGES) * Cfg::STAGE_BYTES;
        wgmma_v1_load_tile_sw128<THREADS, Cfg::BM>(stage, A, lda, m0, t * BK, M, K, vec_a);
        wgmma_v1_load_tile_sw128<THREADS, Cfg::BN>(stage + Cfg::A_BYTES, B, ldb, n0, t * BK, N, K,
                                                   vec_b);
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
#endif
}

/* ---- the host side ---------------------------------------------------------------------------- */
typedef struct {
    int M, N, K;
    const void *A, *B;
    long lda, ldb;
    float *C;
    long ldc;
    bool vec_a, vec_b; /* rows of A, B may move as 16-byte cp.async chunks */
    bool vec2;         /* C may be stored as float2 pairs */
    unsigned grid;
} wgmma_v1_wgmma_plan;

/* NULL when the kernel can take the problem on this GPU, else why not */
template <class T> static const char *wgmma_v1_wgmma_unsupported(int M, int N, int K)
{
    if (M < 1 || N < 1 || K < 1) return "M, N and K must be at least 1";
    return wg_code_unsupported((const void *)wgmma_v1_wgmma_kernel<T>);
}

template <class T>
static cudaError_t wgmma_v1_wgmma_prepare(wgmma_v1_wgmma_plan *plan, int M, int N, int K,
                                          const T *A, long lda, const T *B, long ldb, float *C,
                                          long ldc)
{
    typedef wgmma_v1_config Cfg;
    if (M < 1 || N < 1 || K < 1) return cudaErrorInvalidValue;
    if (wgmma_v1_wgmma_unsupported<T>(M, N, K)) return cudaErrorNotSupported;
    const cudaError_t e = smem_optin((const void *)wgmma_v1_wgmma_kernel<T>, Cfg::SMEM_BYTES);
    if (e != cudaSuccess) return e;
    plan->M = M, plan->N = N, plan->K = K;
    plan->A = A, plan->lda = lda, plan->B = B, plan->ldb = ldb, plan->C = C, plan->ldc = ldc;
    plan->vec_a = rows_vectorizable(A, lda, K, sizeof(T));
    plan->vec_b = rows_vectorizable(B, ldb, K, sizeof(T));
    plan->vec2 = wg_c_vec2(C, ldc);
    plan->grid = tile_count(M, N, Cfg::BM, Cfg::BN);
    return cudaSuccess;
}

template <class T>
static cudaError_t wgmma_v1_wgmma_run(const wgmma_v1_wgmma_plan *p, float alpha, float beta,
                                      cudaStream_t stream)
{
    typedef wgmma_v1_config Cfg;
    wgmma_v1_wgmma_kernel<T><<<p->grid, Cfg::CONSUMERS * WG_THREADS, Cfg::SMEM_BYTES, stream>>>(
        p->M, p->N, p->K, (const uint16_t *)p->A, p->lda, (const uint16_t *)p->B, p->ldb, p->C,
        p->ldc, alpha, beta, p->vec_a, p->vec_b, p->vec2);
    return cudaGetLastError();
}

template <class T>
static cudaError_t wgmma_v1_wgmma_gemm(int M, int N, int K, const T *A, long lda, const T *B,
                                       long ldb, float *C, long ldc, float alpha, float beta,
                                       cudaStream_t stream)
{
    wgmma_v1_wgmma_plan plan;
    const cudaError_t e = wgmma_v1_wgmma_prepare<T>(&plan, M, N, K, A, lda, B, ldb, C, ldc);
    return e == cudaSuccess ? wgmma_v1_wgmma_run<T>(&plan, alpha, beta, stream) : e;
}

#endif /* WGMMA_V1_WGMMA_CUH */
