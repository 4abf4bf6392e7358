/* 05_mma_ptx/wgmma_fp8.cu - the FP8 rungs of the Hopper GEMM ladder (part 2 of chapter 05):
 * e4m3 or e5m2 inputs through wgmma, f32 accumulate and output. sm_90a only.
 *
 * Problem and layout: those of wgmma_gemm.cu (A row-major, B column-major: both K-major, which
 * FP8 wgmma requires; C row-major f32), with 8-bit A and B. The pipeline is v4's (common/
 * wgmma_pipeline.cuh: TMA, mbarrier ring, warp specialisation, clusters of 2 sharing B); a
 * k-tile holds 128 values (one 128-byte swizzle row), and one wgmma m64nNk32 takes 32 of them.
 * The baseline is cuBLASLt's e4m3 GEMM (it has no e5m2 x e5m2).
 *
 * The rungs (e4m3 or e5m2 in, f32 out; K a multiple of 16: the TMA's 16-byte rows)
 *   v5_fp8        v4's pipeline with m64n128k32 FP8 wgmma on 128 x 128 tiles. The tensor cores'
 *                 running FP8 sum keeps about 14 bits (chapter 08), so each k-tile (128 values of
 *                 K) goes into a fresh partial sum that the CUDA cores add to the f32 total once
 *                 the group is complete ("promotion", PROMOTE_TILE): each consumer's wgmma queue
 *                 runs empty once per k-tile while it waits and adds.
 *   v6_fp8        The same sums with two partial sums taken in turn (PROMOTE_PAIRS): k-tile j
 *                 runs on the tensor cores while the CUDA cores add k-tile j-1's, so the queue
 *                 runs empty once per run of 32 k-tiles. Runs, not one loop, because ptxas
 *                 serialises every wgmma when a group in flight crosses a loop's back edge and is
 *                 read after it (promote_pairs_run in common/wgmma_pipeline.cuh).
 *   v8_fp8        v6 on 128 x 144 tiles (m64n144k32, 3 x 72 accumulators) or 128 x 128 ones,
 *                 whichever leaves less of the persistent grid's last round idle (the rounds
 *                 times the tile's width): a wider tile reads fewer operand bytes per flop, and
 *                 144 is the widest whose three sets of accumulators fit the 232 registers.
 *   v9_fp8        v8 with C through shared memory (epilogue_staged): each consumer writes its
 *                 64 rows there, 64 threads hand one row each to the copy engine, and the tensor
 *                 cores start the next tile while the copies write C. The staging (76 or 68
 *                 KiB: the f32 tile, rows padded by 8 floats) leaves room for 4 stages, not 6.
 *   v12_fp8       v8 with C out through TMA stores (epilogue_tma, as v10 in wgmma_gemm.cu), the 6
 *                 stages kept: 64 x 32 boxes on 128-wide tiles, 64 x 16 boxes (the 64-byte
 *                 swizzle) on 144-wide ones.
 */
#include "wgmma_rungs.cuh"

/*                     BN  STAGES CONSUMERS */
typedef wg_config<128, 6, 2> V5; /* 64 accumulators per set, 6 stages of 32 KiB; also v6 */
typedef wg_config<144, 6, 2> V8; /* 72 accumulators per set, 6 stages of 34 KiB */
/* v9: the staging memory of C (68 and 76 KiB) leaves room for 4 stages */
typedef wg_config<128, 4, 2, 128> V9N;
typedef wg_config<144, 4, 2, 144> V9W;
/* v12: v8 with C out through TMA stores, the 6 stages kept: 64 x 32 boxes on 128-wide tiles,
 * 64 x 16 on 144-wide ones (16 and 32 KiB) */
typedef wg_config<128, 6, 2, 0, 32> V12N;
typedef wg_config<144, 6, 2, 0, 16> V12W;

static bool is_e5m2(const tc_gemm_variant *v)
{
    return *(const wgmma_input *)v->impl == WGMMA_IN_E5M2;
}

WS_HOOKS(v5, __nv_fp8_e4m3, __nv_fp8_e5m2, is_e5m2, V5, true, V4_CLUSTER, PROMOTE_TILE, false)
WS_HOOKS(v6, __nv_fp8_e4m3, __nv_fp8_e5m2, is_e5m2, V5, true, V4_CLUSTER, PROMOTE_PAIRS, false)

/* v8 and v9: v6's kernel on 128- or 144-wide tiles (configurations Narrow and Wide), whichever
 * leaves less of the persistent grid's last round idle: the rounds (units over resident clusters)
 * times the tile's width, the time a round takes being proportional to it. */
template <class T, class Cfg>
static const char *fp8_width_cost(const tc_gemm_problem *p, unsigned long *cost)
{
    const void *kernel =
        (const void *)gemm_warpspec<T, Cfg, true, V4_CLUSTER, GROUP_M, PROMOTE_PAIRS>;
    const char *why = wgmma_kernel_unsupported(kernel);
    if (!why) why = allow_smem(kernel, Cfg::SMEM_BYTES);
    if (why) return why;
    const unsigned units = ws_units<Cfg, V4_CLUSTER>(p);
    const unsigned clusters = ws_resident_blocks<Cfg, V4_CLUSTER>(kernel, ~0u) / V4_CLUSTER;
    *cost = clusters ? (unsigned long)((units + clusters - 1) / clusters) * Cfg::BN : ~0ul;
    return NULL;
}
template <class T, class Narrow, class Wide>
static const char *fp8_width_prepare(tc_gemm_problem *p)
{
    unsigned long narrow = 0, wide = 0;
    const char *why = fp8_width_cost<T, Narrow>(p, &narrow);
    if (!why) why = fp8_width_cost<T, Wide>(p, &wide);
    if (why) return why;
    const int use_wide = wide < narrow;
    why = use_wide ? ws_prepare<T, Wide, true, V4_CLUSTER, GROUP_M, PROMOTE_PAIRS>(p)
                   : ws_prepare<T, Narrow, true, V4_CLUSTER, GROUP_M, PROMOTE_PAIRS>(p);
    if (!why) ((wg_plan *)p->plan)->kernel = use_wide;
    return why;
}
template <class T, class Narrow, class Wide>
static void fp8_width_launch(const tc_gemm_problem *p, cudaStream_t stream)
{
    if (((const wg_plan *)p->plan)->kernel)
        ws_launch<T, Wide, true, V4_CLUSTER, GROUP_M, PROMOTE_PAIRS>(p, stream);
    else
        ws_launch<T, Narrow, true, V4_CLUSTER, GROUP_M, PROMOTE_PAIRS>(p, stream);
}
#define FP8_WIDTH_HOOKS(vn, NARROW, WIDE)                                                          \
    extern "C" const char *wgmma_##vn##_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)      \
    {                                                                                              \
        return is_e5m2(v) ? fp8_width_prepare<__nv_fp8_e5m2, NARROW, WIDE>(p)                      \
                          : fp8_width_prepare<__nv_fp8_e4m3, NARROW, WIDE>(p);                     \
    }                                                                                              \
    extern "C" void wgmma_##vn##_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,        \
                                        cudaStream_t stream)                                       \
    {                                                                                              \
        if (is_e5m2(v))                                                                            \
            fp8_width_launch<__nv_fp8_e5m2, NARROW, WIDE>(p, stream);                              \
        else                                                                                       \
            fp8_width_launch<__nv_fp8_e4m3, NARROW, WIDE>(p, stream);                              \
    }
FP8_WIDTH_HOOKS(v8, V5, V8)
FP8_WIDTH_HOOKS(v9, V9N, V9W)
FP8_WIDTH_HOOKS(v12, V12N, V12W)
#undef FP8_WIDTH_HOOKS
