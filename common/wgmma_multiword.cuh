/* common/wgmma_multiword.cuh - an f32 GEMM from several narrow words per value, on wgmma, with
 * the total kept on the CUDA cores: chapter 04's v8_3xtf32_fast (two tf32 words) and chapter 09's
 * v4_bf16xN_fast (three bf16 words).
 *
 * What it adds to the parts of the warp-specialised rungs (wgmma_parts.cuh)
 *   Every value of A and B has been cut into WORDS words of type T before the GEMM (by the
 *   chapter's split pass, into a workspace: wgmma reads shared memory, so the split cannot happen
 *   in registers). Each stage of the ring holds the k-tile of every word: A's WORDS tiles, then
 *   B's. Per k-step a consumer warpgroup issues one wgmma per word product of the list `Pairs`
 *   (word 0 the largest; small products first within the k-step) into a fresh partial
 *   accumulator; after the k-tile its CUDA cores add the partial to the f32 total, rounded to
 *   nearest. The tensor cores therefore sum only one k-tile (their truncating f32 accumulator,
 *   chapter 08, sees a short sum), and the long sum over K is a chain of correctly rounded f32
 *   additions.
 *
 *   A warpgroup waits for its partial before the add: ptxas serialises every wgmma of a kernel
 *   that reads the registers of one in flight; the other consumer warpgroup's wgmma run
 *   meanwhile. Tiles of 128 x BN, two consumers, one tile per block, no cluster.
 *
 * The host side takes plain arguments (no harness types): mw_kernel_ready once (the GPU's code,
 * the shared-memory opt-in), the chapter's tensor maps of the words (common/tma_map.h), then
 * mw_launch per product.
 *
 * Minimum: sm_90a (the kernel body is compiled only there, TC_SM90A). */
#ifndef TC_WGMMA_MULTIWORD_CUH
#define TC_WGMMA_MULTIWORD_CUH

#include "wgmma_parts.cuh"

/* A ring of STAGES stages, each holding WORDS tiles of A (128 rows) and WORDS tiles of B (BN
 * rows), 128-byte rows; the members are those ring<> and the kernel read (as in wg_config). */
template <int WORDS_, int BN_, int STAGES_> struct mw_config {
    static constexpr int WORDS = WORDS_, BN = BN_, STAGES = STAGES_, CONSUMERS = 2;
    static constexpr int BM = WG_M * CONSUMERS;
    static constexpr int ACC = BN / 2;
    static constexpr int A_TILE = BM * ROW_BYTES, B_TILE = BN * ROW_BYTES;
    static constexpr int A_BYTES = WORDS * A_TILE, B_BYTES = WORDS * B_TILE;
    static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
    static constexpr int EPILOGUE_BYTES = 0; /* the epilogue stores from registers */
    static constexpr int BARRIER_BYTES = 2 * STAGES * 8;
    static constexpr size_t SMEM_BYTES = (size_t)STAGES * STAGE_BYTES + BARRIER_BYTES + 1024;
    static_assert(BN == 128 || BN == 256, "wgmma_op is instantiated for n128 and n256");
    static_assert(A_TILE % 1024 == 0 && B_TILE % 1024 == 0,
                  "every tile starts at a swizzle atom (8 rows x 128 bytes)");
    static_assert(STAGES >= 2, "a ring needs two stages");
    static_assert(SMEM_BYTES <= 227 * 1024,
                  "the ring fits the 227 KiB of shared memory a block gets");
    static_assert(PRODUCER_REGS * WG_THREADS + CONSUMER_REGS * WG_THREADS * CONSUMERS <= 65536,
                  "the register file holds the producer's and the consumers' registers");
    static_assert(2 * ACC <= CONSUMER_REGS - 64, "a total and a partial per consumer thread");
};

/* The word products in the order they are issued in each k-step of the tile: (A's word, B's
 * word) pairs, word 0 the largest; list the small products first (they then meet a smaller
 * partial sum; the order holds within a k-step, and the k-steps follow one another) */
template <int... IJ> struct word_pairs {
    static_assert(sizeof...(IJ) % 2 == 0 && sizeof...(IJ) > 0, "pairs of word indices");
    static constexpr int COUNT = (int)sizeof...(IJ) / 2;
    __host__ __device__ static constexpr int a_word(int p)
    {
        constexpr int ij[] = {IJ...};
        return ij[2 * p];
    }
    __host__ __device__ static constexpr int b_word(int p)
    {
        constexpr int ij[] = {IJ...};
        return ij[2 * p + 1];
    }
    /* every index names one of `words` words */
    __host__ __device__ static constexpr bool fits(int words)
    {
        constexpr int ij[] = {IJ...};
        for (int i = 0; i < (int)sizeof...(IJ); i++)
            if (ij[i] < 0 || ij[i] >= words) return false;
        return true;
    }
};

/* The tensor maps of the words, in the kernel's parameter space */
template <int WORDS> struct mw_maps {
    CUtensorMap a[WORDS], b[WORDS];
};

/* One k-tile of every word product into a fresh partial sum d (its first wgmma overwrites d);
 * a, b = shared addresses of this consumer's word-0 tile of A and of B's word-0 tile. */
template <class T, class Cfg, class Pairs>
__device__ __forceinline__ void mw_k_tile(float (&d)[Cfg::ACC], uint32_t a, uint32_t b)
{
    static_assert(Pairs::fits(Cfg::WORDS), "a word product names a word the stage does not hold");
    wgmma_fence_operand(d);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < KSTEPS; kk++) {
        const int o = kk * KSTEP_BYTES;
#pragma unroll
        for (int p = 0; p < Pairs::COUNT; p++)
            wgmma_op<T, Cfg::BN>::run(d, wgmma_desc_sw128(a + Pairs::a_word(p) * Cfg::A_TILE + o),
                                      wgmma_desc_sw128(b + Pairs::b_word(p) * Cfg::B_TILE + o),
                                      kk == 0 && p == 0 ? 0 : 1);
    }
    wgmma_commit_group();
    wgmma_fence_operand(d);
}

template <int ACC>
__device__ __forceinline__ void mw_add_partial(float (&acc)[ACC], float (&part)[ACC])
{
    wgmma_fence_operand(part);
#pragma unroll
    for (int i = 0; i < ACC; i++) acc[i] += part[i];
}

template <class T, class Cfg, class Pairs, int GROUP>
__global__ void __launch_bounds__((Cfg::CONSUMERS + 1) * WG_THREADS, 1)
    gemm_multiword(int M, int N, int K, const __grid_constant__ mw_maps<Cfg::WORDS> maps,
                   float *__restrict__ C, long ldc, float alpha, float beta, bool vec2)
{
#if TC_SM90A
    constexpr int BK = wg_bk<T>();
    extern __shared__ unsigned char smem_raw[];
    const ring<Cfg> r(align_1024(smem_raw));
    if (threadIdx.x == 0) r.init(Cfg::CONSUMERS * 4);
    __syncthreads();
    int tm, tn;
    block_tile_coords<GROUP>((M + Cfg::BM - 1) / Cfg::BM, (N + Cfg::BN - 1) / Cfg::BN, &tm, &tn);
    const int m0 = tm * Cfg::BM, n0 = tn * Cfg::BN;
    const int k_tiles = (K + BK - 1) / BK;
    const int wg = threadIdx.x / WG_THREADS;

    if (wg == 0) {
        setmaxnreg_dec<PRODUCER_REGS>();
        if (threadIdx.x == 0)
            for (int t = 0; t < k_tiles; t++) {
                const int s = t % Cfg::STAGES;
                if (t >= Cfg::STAGES) mbar_wait(&r.empty[s], (t / Cfg::STAGES - 1) % 2);
                mbar_arrive_expect_tx(&r.full[s], Cfg::STAGE_BYTES);
#pragma unroll
                for (int w = 0; w < Cfg::WORDS; w++)
                    tma_load_2d(r.a(s) + w * Cfg::A_TILE, &maps.a[w], &r.full[s], t * BK, m0);
#pragma unroll
                for (int w = 0; w < Cfg::WORDS; w++)
                    tma_load_2d(r.b(s) + w * Cfg::B_TILE, &maps.b[w], &r.full[s], t * BK, n0);
            }
        __syncwarp();
    } else {
        setmaxnreg_inc<CONSUMER_REGS>();
        const int cw = wg - 1; /* this consumer's 64 rows of the tile */
        float acc[Cfg::ACC], part[Cfg::ACC];
#pragma unroll
        for (int i = 0; i < Cfg::ACC; i++) acc[i] = 0.0f;
        for (int t = 0; t < k_tiles; t++) {
            const int s = t % Cfg::STAGES;
            mbar_wait(&r.full[s], t / Cfg::STAGES % 2);
            const uint32_t a = smem_u32(r.a(s)) + cw * WG_M * ROW_BYTES;
            mw_k_tile<T, Cfg, Pairs>(part, a, smem_u32(r.b(s)));
            wgmma_wait_group<0>(); /* the partial is complete before the CUDA cores read it */
            release_stage(&r.empty[s]);
            mw_add_partial(acc, part);
        }
        /* every pair guarded: the unguarded stores of epilogue_direct did not measure as a gain
         * for these kernels (one tile per block, nothing to overlap; chapter 05's NOTES) */
        epilogue_guarded<Cfg::ACC>(acc, C, ldc, m0 + cw * WG_M, n0, M, N, alpha, beta, vec2);
    }
#endif
}

/* ---- host side ------------------------------------------------------------------------------- */
/* cudaSuccess when the kernel can run on this GPU (its sm_90a code, the shared memory it opts
 * into); cudaErrorNotSupported when not; the failed call's error otherwise */
template <class T, class Cfg, class Pairs, int GROUP> static cudaError_t mw_kernel_ready(void)
{
    const void *kernel = (const void *)gemm_multiword<T, Cfg, Pairs, GROUP>;
    const cudaError_t e = wg_code_runs_here(kernel);
    return e != cudaSuccess ? e : smem_optin(kernel, Cfg::SMEM_BYTES);
}

/* C = alpha (the products of the words) + beta C, C M x N row-major f32 (ldc), from the words'
 * tensor maps (K-major, 128-byte boxes by Cfg::BM rows for A and Cfg::BN rows for B) */
template <class T, class Cfg, class Pairs, int GROUP>
static cudaError_t mw_launch(const mw_maps<Cfg::WORDS> &maps, int M, int N, int K, float *C,
                             long ldc, float alpha, float beta, cudaStream_t stream)
{
    gemm_multiword<T, Cfg, Pairs, GROUP>
        <<<tile_count(M, N, Cfg::BM, Cfg::BN), (Cfg::CONSUMERS + 1) * WG_THREADS, Cfg::SMEM_BYTES,
           stream>>>(M, N, K, maps, C, ldc, alpha, beta, wg_c_vec2(C, ldc));
    return cudaGetLastError();
}

#endif /* TC_WGMMA_MULTIWORD_CUH */
