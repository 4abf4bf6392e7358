/* 04_wmma_tf32/tiles.cuh - the f32 face of common/gemm_tiles.cuh for sgemm.cu (v0_sgemm): every
 * matrix here is f32 in memory. (The WMMA TF32 rungs take plain arguments and use
 * wmma_tf32_tiles.cuh instead; this header includes the GEMM driver's glue.) */
#ifndef TILES_CUH
#define TILES_CUH

#include "gemm_hooks.h"

/* f32 elements per 16-byte vector */
constexpr int VEC4 = 4;

/* Which operands may move in 16-byte vectors: A, B and C are all f32. */
static inline vec_flags vector_paths(const tc_gemm_problem *p)
{
    return vector_paths(p, sizeof(float), sizeof(float));
}

#endif
