/* common/wgmma_ptx.cuh - the inline PTX of Hopper's warpgroup MMA (sm_90a): warpgroup MMA
 * (wgmma), the tensor memory accelerator (TMA) and the mbarriers its copies complete on, one
 * small function per instruction. Chapter 05 part 2 teaches it (f16, bf16); chapter 04 uses it
 * for tf32, chapter 07 for int8. This is the file to copy (with common/ldmatrix.cuh for smem_u32).
 *
 *   wgmma_desc_sw128         the 64-bit shared-memory matrix descriptor (128-byte swizzle)
 *   wgmma_fence              wgmma.fence.sync.aligned
 *   wgmma_commit_group       wgmma.commit_group.sync.aligned
 *   wgmma_wait_group<N>      wgmma.wait_group.sync.aligned N
 *   wgmma_m64n{128,256}k16_f32_{f16,bf16}, wgmma_m64n{128,256}k8_f32_tf32,
 *   wgmma_m64n{128,256}k32_f32_{e4m3,e5m2}
 *                            wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16},
 *                            m64nNk8.f32.tf32 and m64nNk32.f32.{e4m3,e5m2}: D (+)= A B;
 *                            wgmma_op<T, N> picks one by type
 *   wgmma_m64n128k32_s32_s8  m64n128k32.s32.s8.s8: int8 in, exact int32 sums (chapter 07)
 *   wgmma_m64n256k32_s32_s8  the same, n = 256 (chapter 07's v7)
 *   mbar_init, mbar_arrive, mbar_arrive_expect_tx, mbar_wait, mbar_arrive_cluster
 *                            mbarrier.init / arrive / arrive.expect_tx / try_wait.parity; an
 *                            arrive on the same barrier of another CTA of the cluster (mapa)
 *   tma_load_2d, tma_load_2d_multicast
 *                            cp.async.bulk.tensor.2d.shared::cluster.global.tile
 *                            .mbarrier::complete_tx::bytes [.multicast::cluster]
 *   bulk_store, bulk_commit, bulk_wait_read<N>, bulk_wait<N>
 *                            cp.async.bulk.global.shared::cta.bulk_group; commit_group;
 *                            wait_group[.read] N
 *   fence_proxy_async        fence.proxy.async.shared::cta
 *   fence_mbarrier_init      fence.mbarrier_init.release.cluster
 *   setmaxnreg_inc<R>, setmaxnreg_dec<R>
 *                            setmaxnreg.{inc,dec}.sync.aligned.u32 R
 *   ld_acquire_gpu, st_release_gpu
 *                            ld.acquire.gpu / st.release.gpu: a flag between blocks
 *   cluster_ctarank, cluster_sync
 *                            %cluster_ctarank; barrier.cluster.arrive.release + wait.acquire
 *
 * The layouts below are the PTX ISA's ("Asynchronous Warpgroup Level Matrix Multiply-Accumulate":
 * the register fragment of D, the shared-memory layouts and the matrix descriptor; "Tensor
 * Copy": the swizzle modes), checked on the GPU by 05_wgmma_probe --test before any GEMM uses
 * them.
 *
 * ---- A warpgroup and its accumulator --------------------------------------------------------
 * A warpgroup is 4 consecutive warps whose first warp index is a multiple of 4 (threads
 * 128 w .. 128 w + 127). The 128 threads issue one wgmma together: D (64 x N, f32) += A (64 x 16)
 * * B (16 x N). Warp j of the group (j = warp % 4) owns rows 16 j .. 16 j + 15 of D, and inside
 * its 16 rows the layout is mma.sync's C fragment (chapter 05 part 1) repeated N / 8 times along
 * n. With lane = 4 g + t (g = lane / 4, t = lane % 4), register d[i] of a thread holds
 *
 *     row = 16 j + g + 8 * ((i / 2) % 2)          col = 8 * (i / 4) + 2 t + i % 2
 *
 *              cols 8c .. 8c+7 (c = i / 4)
 *            +-------------------------+
 *   row g    | d[4c]   d[4c+1]         |   at cols 8c + 2t, 8c + 2t + 1
 *   row g+8  | d[4c+2] d[4c+3]         |
 *            +-------------------------+
 *
 * so N / 2 registers per thread: 64 for N = 128, 128 for N = 256. Pairs (d[2h], d[2h+1]) are
 * neighbours in a row: an epilogue can store them as one float2.
 *
 * ---- Operands in shared memory: K-major, 128-byte swizzle -------------------------------------
 * Both operands here are K-major (a row of A, a column of B: 16-bit values contiguous along k),
 * in tiles of ROWS x 64 values: one row of a tile is 64 values = 128 bytes, and row r sits at
 * byte 128 r of the tile. Inside a row, its eight 16-byte chunks are permuted by the row's
 * position in its group of 8 rows (the "128-byte swizzle"):
 *
 *     byte offset of (row r, k) = 128 r + 16 * ((k / 8) XOR (r % 8)) + 2 * (k % 8)
 *
 *     chunk c ->   0  1  2  3  4  5  6  7          (16 bytes = 8 values each)
 *     row 0       0  1  2  3  4  5  6  7         stored chunk position
 *     row 1       1  0  3  2  5  4  7  6
 *     row 2       2  3  0  1  6  7  4  5
 *     ...
 *     row 7       7  6  5  4  3  2  1  0
 *
 * Eight rows x 128 bytes = 1024 bytes is one swizzle atom; a tile must start at a multiple of
 * 1024 bytes, because the hardware takes r % 8 from address bits 7..9. This is the layout the
 * TMA writes with CU_TENSOR_MAP_SWIZZLE_128B and a 64-value (128-byte) inner box, and the layout
 * a wgmma descriptor with swizzle mode "128B" reads: the copy engine and the tensor cores agree,
 * and no thread ever computes an address inside the tile. It is conflict-free for both (every
 * 8 rows of one 16-byte column fall into 8 different bank groups), like the swizzle of part 1.
 *
 * ---- The matrix descriptor ---------------------------------------------------------------------
 * A wgmma takes each shared-memory operand as a 64-bit descriptor:
 *
 *     bits  0..13  start address >> 4      (of the first 16 x 8 or 64 x 16 piece the wgmma reads)
 *     bits 16..29  leading byte offset >> 4  (for swizzled K-major layouts: unused, set to 1)
 *     bits 32..45  stride byte offset >> 4   (from one 8-row group to the next: 1024 bytes)
 *     bits 49..51  base offset               (0: every tile starts 1024-byte aligned)
 *     bits 62..63  swizzle mode              (0 none, 1 = 128 bytes, 2 = 64, 3 = 32)
 *
 * tf32 values are 4 bytes: the same 128-byte rows hold 32 of them, fp8 values 1 byte: 128 of
 * them; everything above holds when counted in bytes (the TMA writes a 128-byte box with the same
 * swizzle).
 *
 * One wgmma reads 32 bytes of each row: k = 16 16-bit values, k = 8 tf32 or k = 32 fp8 values.
 * The k-th step inside a tile starts 32 k bytes into row 0: the byte address moves by 32 k (the
 * descriptor is rebuilt from it, so its start field, in 16-byte units, moves by 2 k) and
 * everything else stays; the hardware applies the XOR to the addresses it generates, so the
 * un-swizzled offset is the right one to add. A's 64 rows for warpgroup w of a block start at
 * 128 * 64 w bytes (w 8-row groups times 8, all SBO apart).
 *
 * ---- Asynchrony: fence, commit, wait ----------------------------------------------------------
 * wgmma.mma_async returns before the tensor cores are done. Between issue and completion the
 * accumulator registers belong to the tensor cores and the operand shared memory must not be
 * overwritten. The protocol, per warpgroup:
 *
 *     wgmma_fence();                 registers written by ordinary instructions are ready for wgmma
 *     wgmma_...(d, a, b, 1); x 4     any number of wgmmas, chained on the same accumulator
 *     wgmma_commit_group();          they form one group
 *     wgmma_wait_group<N>();         at most N groups of this thread still pending
 *
 * Only after the wait may ordinary instructions read d, or may the stage the group read be
 * refilled. wgmma_fence_operand(d) (an empty asm that "modifies" every register) keeps the
 * compiler from moving reads or writes of d across the wgmma, the commit or the wait.
 *
 * ---- mbarriers and the TMA ---------------------------------------------------------------------
 * An mbarrier is a 64-bit word in shared memory with an expected arrival count, a pending
 * transaction count (bytes) and a phase bit. A phase completes when every expected thread has
 * arrived and every expected byte has landed; then the phase bit flips and the counts reset.
 * mbar_wait(bar, parity) spins until the phase with that parity has completed: a ring of stages
 * uses parity (use / STAGES) % 2 for the use-th fill of a stage. The TMA copy (tma_load_2d) moves
 * a whole box of a tensor (described by a CUtensorMap made on the host) into shared memory and
 * reports its bytes to the barrier ("complete_tx"); the thread that issues it first announces the
 * bytes with mbar_arrive_expect_tx. Boxes that reach past the edge of the tensor are filled with
 * zeros, and still count their full size.
 *
 * Requires sm_90a ("a": these instructions are not forward compatible), CUDA 12.x or 13.x. */
#ifndef WGMMA_PTX_CUH
#define WGMMA_PTX_CUH

#include "ldmatrix.cuh" /* smem_u32 */

#include <cuda.h> /* CUtensorMap */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

/* The instructions exist only in sm_90a code. A file built for sm_90a alone (chapter 05 part 2)
 * uses them freely; a file built for several targets (chapter 04: sm_80 and up, sm_90a for 90)
 * compiles its wgmma kernels' bodies only #if TC_SM90A and checks on the host that the GPU runs
 * its sm_90a code (wg_code_runs_here in wgmma_parts.cuh). Compiling for sm_90 without the
 * "a" is the one mistake caught here. */
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TC_SM90A 1
#else
#define TC_SM90A 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && !TC_SM90A
#error "wgmma_ptx.cuh is sm_90a code: build with -gencode=arch=compute_90a,code=sm_90a"
#endif

/* ---- the shared-memory matrix descriptor (K-major, 128-byte swizzle) ------------------------- */
static __device__ __forceinline__ uint64_t wgmma_desc_sw128(uint32_t smem_addr)
{
    const uint64_t start = (smem_addr & 0x3FFFF) >> 4; /* 14 bits: shared memory is < 256 KiB */
    const uint64_t leading = 1;                        /* unused for swizzled K-major tiles */
    const uint64_t stride = 1024 >> 4;                 /* 8 rows x 128 bytes */
    const uint64_t swizzle_128b = 1;
    return start | leading << 16 | stride << 32 | swizzle_128b << 62;
}

/* ---- fence, commit, wait --------------------------------------------------------------------- */
static __device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
static __device__ __forceinline__ void wgmma_commit_group()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N> static __device__ __forceinline__ void wgmma_wait_group()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/* The compiler must not move accesses of d across the wgmma protocol. */
template <int R> static __device__ __forceinline__ void wgmma_fence_operand(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++) asm volatile("" : "+f"(d[i])::"memory");
}
template <int R> static __device__ __forceinline__ void wgmma_fence_operand(int (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++) asm volatile("" : "+r"(d[i])::"memory");
}

/* ---- wgmma.mma_async m64nNk16 (f16, bf16), m64nNk8 (tf32), m64nNk32 (fp8), f32 accumulate -----
 * D (64 x N) = A (64 x k) B (k x N) + (scale_d ? D : 0), A and B from shared memory through
 * their descriptors, both K-major (for 16-bit types the two "transpose" immediates are 0; tf32
 * and fp8 have none and must be K-major), scale-a = scale-b = 1. A tf32 operand is read from f32
 * bits, of which the tensor core ignores the 13 low ones.
 * d: the N / 2 accumulator registers of this thread in the layout above. Every register must be
 * named in the asm, hence the lists. */
// clang-format off
#define WGMMA_D_REGS_64 \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"

/* 72 = the 64 above and 8 more (m64n144) */
#define WGMMA_D_REGS_72 WGMMA_D_REGS_64 ", %64, %65, %66, %67, %68, %69, %70, %71"

#define WGMMA_D_REGS_128 \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"

#define WGMMA_D_OPERANDS_64(d) \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])

#define WGMMA_D_OPERANDS_72(d) \
    WGMMA_D_OPERANDS_64(d), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), \
        "+f"(d[69]), "+f"(d[70]), "+f"(d[71])

#define WGMMA_D_OPERANDS_128(d) \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
    "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
    "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
    "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
    "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
    "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
    "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
    "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
    "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

/* wgmma_op<T, N>::run: the instruction below chosen by input type (T = __half, __nv_bfloat16,
 * float for tf32, __nv_fp8_e4m3, __nv_fp8_e5m2) and N, for the kernels' templates. */
template <class T, int N> struct wgmma_op;

/* NAME, N, K, the register count and its two lists (the D registers in the PTX string, the
 * operands that bind them), the type in PTX, the operand numbers of desc_a, desc_b, scale_d,
 * the C++ input type, and the immediates after scale_d (scale-a, scale-b, and for 16-bit types
 * the two "transpose" flags, which tf32 does not have: its operands are always K-major); defines
 * NAME and the wgmma_op specialisation that calls it */
#define WGMMA_DEFINE(NAME, N, K, REGS, D_REGS, D_OPERANDS, TYPE, IA, IB, IS, CTYPE, IMM)          \
    static __device__ __forceinline__ void NAME(float (&d)[REGS], uint64_t desc_a,               \
                                                uint64_t desc_b, int scale_d)                      \
    {                                                                                              \
        asm volatile("{\n"                                                                         \
                     ".reg .pred p;\n"                                                             \
                     "setp.ne.b32 p, %" #IS ", 0;\n"                                               \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k" #K ".f32." TYPE "." TYPE " "       \
                     "{" D_REGS "}, %" #IA ", %" #IB ", p, " IMM ";\n"                               \
                     "}\n"                                                                         \
                     : D_OPERANDS(d)                                                               \
                     : "l"(desc_a), "l"(desc_b), "r"(scale_d));                                    \
    }                                                                                              \
    template <> struct wgmma_op<CTYPE, N> {                                                        \
        static __device__ __forceinline__ void run(float (&d)[REGS], uint64_t a, uint64_t b, int s) \
        {                                                                                          \
            NAME(d, a, b, s);                                                                      \
        }                                                                                          \
    };
WGMMA_DEFINE(wgmma_m64n128k16_f32_f16, 128, 16, 64, WGMMA_D_REGS_64, WGMMA_D_OPERANDS_64, "f16", 64, 65, 66, __half, "1, 1, 0, 0")
WGMMA_DEFINE(wgmma_m64n128k16_f32_bf16, 128, 16, 64, WGMMA_D_REGS_64, WGMMA_D_OPERANDS_64, "bf16", 64, 65, 66, __nv_bfloat16, "1, 1, 0, 0")
WGMMA_DEFINE(wgmma_m64n256k16_f32_f16, 256, 16, 128, WGMMA_D_REGS_128, WGMMA_D_OPERANDS_128, "f16", 128, 129, 130, __half, "1, 1, 0, 0")
WGMMA_DEFINE(wgmma_m64n256k16_f32_bf16, 256, 16, 128, WGMMA_D_REGS_128, WGMMA_D_OPERANDS_128, "bf16", 128, 129, 130, __nv_bfloat16, "1, 1, 0, 0")
WGMMA_DEFINE(wgmma_m64n128k8_f32_tf32, 128, 8, 64, WGMMA_D_REGS_64, WGMMA_D_OPERANDS_64, "tf32", 64, 65, 66, float, "1, 1")
WGMMA_DEFINE(wgmma_m64n256k8_f32_tf32, 256, 8, 128, WGMMA_D_REGS_128, WGMMA_D_OPERANDS_128, "tf32", 128, 129, 130, float, "1, 1")
WGMMA_DEFINE(wgmma_m64n128k32_f32_e4m3, 128, 32, 64, WGMMA_D_REGS_64, WGMMA_D_OPERANDS_64, "e4m3", 64, 65, 66, __nv_fp8_e4m3, "1, 1")
WGMMA_DEFINE(wgmma_m64n144k32_f32_e4m3, 144, 32, 72, WGMMA_D_REGS_72, WGMMA_D_OPERANDS_72, "e4m3", 72, 73, 74, __nv_fp8_e4m3, "1, 1")
WGMMA_DEFINE(wgmma_m64n144k32_f32_e5m2, 144, 32, 72, WGMMA_D_REGS_72, WGMMA_D_OPERANDS_72, "e5m2", 72, 73, 74, __nv_fp8_e5m2, "1, 1")
WGMMA_DEFINE(wgmma_m64n256k32_f32_e4m3, 256, 32, 128, WGMMA_D_REGS_128, WGMMA_D_OPERANDS_128, "e4m3", 128, 129, 130, __nv_fp8_e4m3, "1, 1")
WGMMA_DEFINE(wgmma_m64n128k32_f32_e5m2, 128, 32, 64, WGMMA_D_REGS_64, WGMMA_D_OPERANDS_64, "e5m2", 64, 65, 66, __nv_fp8_e5m2, "1, 1")
WGMMA_DEFINE(wgmma_m64n256k32_f32_e5m2, 256, 32, 128, WGMMA_D_REGS_128, WGMMA_D_OPERANDS_128, "e5m2", 128, 129, 130, __nv_fp8_e5m2, "1, 1")
#undef WGMMA_DEFINE

/* ---- wgmma.mma_async m64n128k32 and m64n256k32 .s32.s8.s8: int8 in, exact int32 accumulate ----
 * The same D layout as the f32 forms, in int32 registers; no scale or transpose immediates (the
 * integer forms have none), A and B K-major. (The integer shapes are not every n: ptxas takes
 * n = 224, 240 and 256 and refuses 232.) */
#define WGMMA_D_IOPERANDS_64(d) \
    "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), \
    "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), \
    "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), \
    "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), \
    "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), \
    "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), \
    "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), \
    "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63])

#define WGMMA_D_IOPERANDS_128(d) \
    "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), \
    "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), \
    "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), \
    "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), \
    "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), \
    "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), \
    "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), \
    "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]), \
    "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]), \
    "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), \
    "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), \
    "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), \
    "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]), \
    "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]), \
    "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), \
    "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])

static __device__ __forceinline__ void wgmma_m64n128k32_s32_s8(int (&d)[64], uint64_t desc_a,
                                                               uint64_t desc_b, int scale_d)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 "
                 "{" WGMMA_D_REGS_64 "}, %64, %65, p;\n"
                 "}\n"
                 : WGMMA_D_IOPERANDS_64(d)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

static __device__ __forceinline__ void wgmma_m64n256k32_s32_s8(int (&d)[128], uint64_t desc_a,
                                                               uint64_t desc_b, int scale_d)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 "
                 "{" WGMMA_D_REGS_128 "}, %128, %129, p;\n"
                 "}\n"
                 : WGMMA_D_IOPERANDS_128(d)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}
// clang-format on

/* wgmma_op<int8_t, N>: the two s8 forms under the same name as the float ones, so that one k-tile
 * function (wgmma_k_tile) serves both accumulator types */
template <> struct wgmma_op<int8_t, 128> {
    static __device__ __forceinline__ void run(int (&d)[64], uint64_t a, uint64_t b, int s)
    {
        wgmma_m64n128k32_s32_s8(d, a, b, s);
    }
};
template <> struct wgmma_op<int8_t, 256> {
    static __device__ __forceinline__ void run(int (&d)[128], uint64_t a, uint64_t b, int s)
    {
        wgmma_m64n256k32_s32_s8(d, a, b, s);
    }
};

/* ---- mbarriers ----------------------------------------------------------------------------------
 * All take a pointer to the 8-byte barrier in shared memory. */
static __device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned expected_arrivals)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)),
                 "r"(expected_arrivals)
                 : "memory");
}
/* One arrival of this thread. */
static __device__ __forceinline__ void mbar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}
/* One arrival, and `bytes` more expected in this phase (what the TMA copies will bring). */
static __device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)),
                 "r"(bytes)
                 : "memory");
}
/* Spins until the phase of the given parity (0 or 1) has completed. try_wait suspends the thread
 * for a while inside the instruction before it answers false, so the loop does not hammer the
 * barrier. */
static __device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity)
{
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra WAIT;\n"
                 "}\n" ::"r"(smem_u32(bar)),
                 "r"(parity)
                 : "memory");
}
/* One arrival on the barrier at the same shared-memory offset in CTA `cta` of this cluster
 * (which may be this CTA): mapa turns the local address into the other CTA's. The default
 * semantics (release at CTA scope) is what a consumer releasing a stage needs: its wgmma reads of
 * the stage have completed (wgmma_wait_group) before it arrives. Do not write
 * ".release.cluster": ptxas then puts MEMBAR.ALL.GPU before every arrival, which waits for all of
 * the thread's outstanding global stores (NOTES.md has what that cost the cluster GEMM). */
static __device__ __forceinline__ void mbar_arrive_cluster(uint64_t *bar, unsigned cta)
{
    asm volatile("{\n"
                 ".reg .b32 remote;\n"
                 "mapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
                 "}\n" ::"r"(smem_u32(bar)),
                 "r"(cta)
                 : "memory");
}

/* ---- TMA: a 2-D box of a tensor into shared memory ----------------------------------------------
 * The box whose first element is (x, y) = (column, row) of the tensor described by *map (x runs
 * along the contiguous dimension, here k) goes to dst (1024-byte aligned for the 128-byte swizzle)
 * and its bytes complete on *bar. The map must live in constant, parameter or global memory: here a
 * __grid_constant__ kernel parameter. */
static __device__ __forceinline__ void tma_load_2d(void *dst, const CUtensorMap *map, uint64_t *bar,
                                                   int x, int y)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(smem_u32(dst)),
                 "l"((uint64_t)map), "r"(smem_u32(bar)), "r"(x), "r"(y)
                 : "memory");
}
/* The same box written to the same shared-memory offset of every CTA of the cluster whose bit
 * is set in cta_mask, completing on the barrier at the same offset in each of them: one read of
 * L2 feeds several CTAs. */
static __device__ __forceinline__ void tma_load_2d_multicast(void *dst, const CUtensorMap *map,
                                                             uint64_t *bar, int x, int y,
                                                             uint16_t cta_mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(smem_u32(dst)),
                 "l"((uint64_t)map), "r"(smem_u32(bar)), "r"(x), "r"(y), "h"(cta_mask)
                 : "memory");
}

/* The reverse: the box at (x, y) of the tensor of *map written from src (1024-byte aligned, in
 * the map's swizzle) to global memory by the copy engine, as one more copy of the thread's bulk
 * group (commit, wait_read and wait below). The parts of the box outside the tensor are not
 * written: the copy engine clips at the tensor's edges. */
static __device__ __forceinline__ void tma_store_2d(const CUtensorMap *map, const void *src, int x,
                                                    int y)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"
                 " [%0, {%2, %3}], [%1];\n" ::"l"((uint64_t)map),
                 "r"(smem_u32(src)), "r"(x), "r"(y)
                 : "memory");
}

/* ---- bulk copies out of shared memory ------------------------------------------------------------
 * One thread copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from shared to
 * global memory with the copy engine; the copies a thread issued since its last commit form one
 * group. wait_read<N>: at most N of this thread's groups may still be reading shared memory (the
 * source may then be overwritten); wait<N>: the same for whole groups, writes included. */
static __device__ __forceinline__ void bulk_store(void *dst, const void *src, unsigned bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(dst),
                 "r"(smem_u32(src)), "r"(bytes)
                 : "memory");
}
static __device__ __forceinline__ void bulk_commit()
{
    asm volatile("cp.async.bulk.commit_group;\n");
}
template <int N> static __device__ __forceinline__ void bulk_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
template <int N> static __device__ __forceinline__ void bulk_wait()
{
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

/* ---- fences -------------------------------------------------------------------------------------
 * Ordinary stores (and cp.async) write shared memory through the "generic proxy"; wgmma and the TMA
 * read it through the "async proxy". A thread that wrote operand data with the former makes it
 * visible to the latter with this fence, before the barrier that tells the consumers. */
static __device__ __forceinline__ void fence_proxy_async()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
/* Makes mbarrier.init visible to the async proxy and to the other CTAs of the cluster (before
 * the cluster barrier that precedes any use). */
static __device__ __forceinline__ void fence_mbarrier_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* ---- registers: setmaxnreg ----------------------------------------------------------------------
 * Every thread of the warpgroup executes it; the new limit R (24..256, a multiple of 8) applies to
 * the whole warpgroup. dec gives registers back to the SM's pool, inc waits until the pool has
 * them. The kernel must have been compiled with a register cap (__launch_bounds__(T, 1)). */
template <int R> static __device__ __forceinline__ void setmaxnreg_inc()
{
    static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
}
template <int R> static __device__ __forceinline__ void setmaxnreg_dec()
{
    static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
}

/* ---- flags between blocks in global memory ------------------------------------------------------
 * A block that wrote data for another raises a flag with a release store (the data's stores are
 * visible before the flag); the reader spins on an acquire load of it (the data's loads happen
 * after). GPU scope: the blocks may run on any SMs. */
static __device__ __forceinline__ int ld_acquire_gpu(const int *p)
{
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ void st_release_gpu(int *p, int v)
{
    asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* ---- clusters -------------------------------------------------------------------------------- */
static __device__ __forceinline__ unsigned cluster_ctarank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
/* Every thread of every CTA of the cluster; .release/.acquire order shared-memory accesses
 * (mbarrier inits, the last remote arrivals) across the CTAs. */
static __device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::
                     : "memory");
}

#endif /* WGMMA_PTX_CUH */
