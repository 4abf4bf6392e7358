/* 05_mma_ptx/wgmma_rungs.cuh - what the two files of the Hopper ladder share (wgmma_gemm.cu: the
 * f16/bf16 rungs; wgmma_fp8.cu: the FP8 rungs): the tile order, the cluster size of the persistent
 * rungs, and the hooks of a gemm_warpspec rung (common/wgmma_pipeline.cuh). */
#ifndef WGMMA_RUNGS_CUH
#define WGMMA_RUNGS_CUH

#include "wgmma_gemm.h"
#include "wgmma_pipeline.cuh"

/* tiles in groups of GROUP_M rows (or cluster units) down a column of C, for L2 reuse */
constexpr int GROUP_M = 8;
/* the persistent rungs' clusters: 2 vertically neighbouring blocks share B */
constexpr int V4_CLUSTER = 2;

/* prepare() and launch() of a gemm_warpspec rung: input type T1 when IS_T1(v), else T0 */
#define WS_HOOKS(vn, T0, T1, IS_T1, CFG, PERSISTENT, CLUSTER_M, PROMOTE, STREAMK)                  \
    extern "C" const char *wgmma_##vn##_prepare(const tc_gemm_variant *v, tc_gemm_problem *p)      \
    {                                                                                              \
        return IS_T1(v)                                                                            \
                   ? ws_prepare<T1, CFG, PERSISTENT, CLUSTER_M, GROUP_M, PROMOTE, STREAMK>(p)      \
                   : ws_prepare<T0, CFG, PERSISTENT, CLUSTER_M, GROUP_M, PROMOTE, STREAMK>(p);     \
    }                                                                                              \
    extern "C" void wgmma_##vn##_launch(const tc_gemm_variant *v, const tc_gemm_problem *p,        \
                                        cudaStream_t stream)                                       \
    {                                                                                              \
        if (IS_T1(v))                                                                              \
            ws_launch<T1, CFG, PERSISTENT, CLUSTER_M, GROUP_M, PROMOTE, STREAMK>(p, stream);       \
        else                                                                                       \
            ws_launch<T0, CFG, PERSISTENT, CLUSTER_M, GROUP_M, PROMOTE, STREAMK>(p, stream);       \
    }

#endif
