/* common/cp_async.cuh - cp.async (sm_80+): global -> shared memory without a register round trip.
 * Self-contained (no other header of this repository), so that a kernel file can be copied with
 * it. Chapters 03 and 04 reach it through gemm_tiles.cuh, chapter 05 through mma_sync.cuh.
 *
 * cp.async.cg.shared.global [dst], [src], 16, src_bytes copies 16 bytes (dst and src 16-byte
 * aligned) and bypasses L1 (.cg: cache in L2 only). Bytes past src_bytes (0..16) are written as
 * zeros and not read: src_bytes = 0 stores a zero vector, which is how tiles are padded past the
 * edge of a matrix (src must still be a valid address). The copy is asynchronous: it joins the
 * thread's open group; commit_group closes the group; wait_group<N> waits until at most N of
 * this thread's groups are pending. Other threads' copies are visible only after a barrier
 * (__syncthreads, or __syncwarp within a warp) that follows their wait.
 *
 *   thread's timeline:  cp cp cp | commit | cp cp | commit | ... | wait_group<1> | barrier
 *                       group 0           group 1                 (group 0 landed)  (everyone's)
 *
 * Built for a target older than sm_80 (where variants that use it never run), the wrappers fall
 * back to plain synchronous copies, so every file compiles for every target. */
#ifndef TC_CP_ASYNC_CUH
#define TC_CP_ASYNC_CUH

#include <stdint.h>

/* dst: the 32-bit shared-memory address (what __cvta_generic_to_shared returns) */
static __device__ __forceinline__ void cp_async_16(uint32_t smem_dst, const void *gmem_src,
                                                   int src_bytes)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_dst),
                 "l"(__cvta_generic_to_global(gmem_src)), "r"(src_bytes)
                 : "memory");
#else
    uint4 *dst = (uint4 *)__cvta_shared_to_generic(smem_dst);
    *dst = src_bytes ? *(const uint4 *)gmem_src : make_uint4(0, 0, 0, 0);
#endif
}
/* the same with a generic pointer into shared memory */
static __device__ __forceinline__ void cp_async_16(void *smem_dst, const void *gmem_src,
                                                   int src_bytes)
{
    cp_async_16((uint32_t)__cvta_generic_to_shared(smem_dst), gmem_src, src_bytes);
}
static __device__ __forceinline__ void cp_async_commit_group()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N> static __device__ __forceinline__ void cp_async_wait_group()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

#endif
