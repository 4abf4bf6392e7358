/* attn_v1_mma - FlashAttention-2's forward pass on mma.sync: one block per 64 query rows, K and V
 * streamed through shared memory, the softmax online, P kept in registers.
 *
 * Rung v1 of chapter 10's attention ladder (f16 and bf16 in, f32 accumulate, O in the input type,
 * L in f32). Parent: v0_unfused (v0_unfused.cuh). What changes, and why it is faster: v0 writes
 * the whole score matrix S (Sq x Sk floats per head) and the probabilities P to memory and reads
 * them back; here neither ever leaves the chip. Each warp keeps its 16 query rows of Q as A
 * fragments for the whole loop, and for every tile of 64 keys
 *   1. S = Q K^T into registers (mma m16n8k16, K's rows are the columns of B: ldmatrix, no .trans);
 *   2. the mask (only on tiles that cross Sk or the causal diagonal), the row max m_new over the
 *      tile and the running max, alpha = exp2((m_old - m_new) scale log2e), P = exp2(S scale log2e
 *      - m_new scale log2e), the running sum l = alpha l + sum P, the output O = alpha O;
 *   3. O += P V with P's accumulators repacked as the A operand (the lane map below: no shuffle,
 *      no shared memory) and V's rows read transposed (ldmatrix .trans);
 * and at the end O / l and L = (m scale log2e + log2 l) ln 2, once per row. K and V tiles are
 * double-buffered (cp.async: tile j+1 loads while tile j is used), the tiles are XOR-swizzled
 * (attn_tile.cuh), and blocks with the causal mask stop at their last row's diagonal.
 *
 * The lane map (the trick of FlashAttention-2 on mma.sync). S's accumulator of n8 block nb gives
 * lane (g, t) the scores of rows g and g + 8 at keys 8 nb + 2t, 8 nb + 2t + 1 (c[0], c[1] and c[2],
 * c[3]). The A fragment of k-step kk (keys 16 kk .. 16 kk + 15) wants from the same lane rows g,
 * g + 8 at keys 2t, 2t + 1 (a[0], a[1]) and 2t + 8, 2t + 9 (a[2], a[3]) of the step: exactly the
 * accumulators of n8 blocks 2 kk and 2 kk + 1. So
 *     a[0] = pack(c_2kk[0], c_2kk[1])      a[2] = pack(c_2kk+1[0], c_2kk+1[1])
 *     a[1] = pack(c_2kk[2], c_2kk[3])      a[3] = pack(c_2kk+1[2], c_2kk+1[3])
 *
 * Problem: O = softmax(scale Q K^T + mask) V per (batch, head), BSHD tensors with any strides whose
 * rows are 16-byte aligned (attn_layout.h); L = the row log-sum-exp (natural log), f32, B x H x Sq,
 * or not written (L = NULL). D = 64 or 128 (a template parameter); any B, H <= 65535, any Sq, Sk
 * >= 1: rows of Q and keys past the end are zero-filled and masked; the causal mask is aligned to
 * the bottom right, and rows that see no key (Sq > Sk) get O = 0 and L = -inf.
 *
 * Tiles: BLOCK_M = 64 query rows (4 warps of 16), BLOCK_N = 64 keys, D = 64 or 128; shared memory
 * Q + 2 x (K + V) = 40 KiB (D = 64) or 80 KiB (D = 128). Grid: (ceil(Sq / 64), H, B).
 *
 * The plain launcher (no harness types; attn_tile.cuh and common/ headers only):
 *   attn_v1_mma_forward<T>(B, H, Sq, Sk, D, Q, qs, K, ks, V, vs, O, os, L, causal, scale, stream)
 * or attn_v1_mma_prepare<T>(&plan, ...the same but stream) once (the checks, the shared-memory
 * opt-in, the grid) and attn_v1_mma_run<T>(&plan, stream) per call. T = __half or __nv_bfloat16;
 * device pointers; strides in elements (attn_strides). They return cudaSuccess,
 * cudaErrorInvalidValue for a size below 1 or a null pointer, cudaErrorNotSupported for a problem
 * or GPU the kernel does not take (attn_v1_mma_unsupported says why; nothing is launched), or the
 * failed call's error.
 *
 * Requires sm_80 (cp.async, bf16 mma, ldmatrix), CUDA 12.x or 13.x. */
#ifndef ATTN_V1_MMA_CUH
#define ATTN_V1_MMA_CUH

#include "attn_tile.cuh"

#include <float.h>
#include <math_constants.h>
#include <stdio.h>

constexpr int ATTN_V1_BLOCK_M = 64, ATTN_V1_BLOCK_N = 64, ATTN_V1_WARPS = 4;
constexpr int ATTN_V1_THREADS = 32 * ATTN_V1_WARPS;

template <int D> struct attn_v1_config {
    typedef attn_tile<ATTN_V1_BLOCK_M, D> QTile;
    typedef attn_tile<ATTN_V1_BLOCK_N, D> KVTile;          /* K and V tiles alike */
    static constexpr int KSTEPS = D / 16;                  /* k-steps of S = Q K^T */
    static constexpr int NB_S = ATTN_V1_BLOCK_N / 8;       /* n8 blocks of S (keys) */
    static constexpr int KSTEPS_PV = ATTN_V1_BLOCK_N / 16; /* k-steps of O += P V */
    static constexpr int NB_O = D / 8;                     /* n8 blocks of O (dims) */
    static constexpr size_t SMEM_BYTES = QTile::BYTES + 4 * KVTile::BYTES;
    static_assert(ATTN_V1_BLOCK_M == 16 * ATTN_V1_WARPS, "a warp owns 16 query rows");
    static_assert(ATTN_V1_BLOCK_N % 16 == 0 && D % 16 == 0, "whole m16n8k16 k-steps");
    static_assert(NB_S % 2 == 0 && NB_O % 2 == 0, "B fragments come in pairs of n8 blocks");
    static_assert(D == 64 || D == 128, "the kernel is instantiated for D = 64 and 128");
};

/* The kernel. Q, K, V, O as 16-bit words; strides in elements (= words). */
template <class T, int D>
__global__ void __launch_bounds__(ATTN_V1_THREADS)
    attn_v1_mma_kernel(int H, int Sq, int Sk, const uint16_t *__restrict__ Q, attn_strides qs,
                       const uint16_t *__restrict__ K, attn_strides ks,
                       const uint16_t *__restrict__ V, attn_strides vs, uint16_t *__restrict__ O,
                       attn_strides os, float *__restrict__ L, int causal, float scale_log2)
{
    typedef attn_v1_config<D> Cfg;
    typedef typename Cfg::QTile QTile;
    typedef typename Cfg::KVTile KVTile;
    extern __shared__ __align__(128) unsigned char smem[];
    const uint32_t sQ = smem_u32(smem), sK = sQ + QTile::BYTES, sV = sK + 2 * KVTile::BYTES;
    const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * ATTN_V1_BLOCK_M;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const uint16_t *Qh = Q + b * qs.batch + h * qs.head;
    const uint16_t *Kh = K + b * ks.batch + h * ks.head;
    const uint16_t *Vh = V + b * vs.batch + h * vs.head;

    /* The keys this block needs: all of them, or up to its last row's diagonal (bottom right:
     * row i sees keys j <= i + Sk - Sq). 0 tiles: every row is fully masked. */
    long kv_end = Sk;
    if (causal) {
        const long e = (long)q0 + ATTN_V1_BLOCK_M + Sk - Sq;
        kv_end = e < 0 ? 0 : e < Sk ? e : Sk;
    }
    const int n_tiles = (int)((kv_end + ATTN_V1_BLOCK_N - 1) / ATTN_V1_BLOCK_N);
    /* the diagonal of this block's first row: tiles with keys past it need the mask */
    const long diag0 = (long)q0 + Sk - Sq;

    /* Prologue: Q, and K, V tile 0, as one group. */
    attn_load_tile<QTile, ATTN_V1_THREADS>(sQ, Qh, qs.seq, q0, Sq);
    if (n_tiles > 0) {
        attn_load_tile<KVTile, ATTN_V1_THREADS>(sK, Kh, ks.seq, 0, Sk);
        attn_load_tile<KVTile, ATTN_V1_THREADS>(sV, Vh, vs.seq, 0, Sk);
    }
    cp_async_commit_group();
    cp_async_wait_group<0>();
    __syncthreads();
    uint32_t qf[Cfg::KSTEPS][4]; /* this warp's 16 rows of Q, for the whole loop */
#pragma unroll
    for (int kk = 0; kk < Cfg::KSTEPS; kk++) attn_frag_a<QTile>(qf[kk], sQ, 16 * warp, kk);

    float o[Cfg::NB_O][4];
#pragma unroll
    for (int nb = 0; nb < Cfg::NB_O; nb++) o[nb][0] = o[nb][1] = o[nb][2] = o[nb][3] = 0.0f;
    float m[2] = {-CUDART_INF_F, -CUDART_INF_F}; /* running max of rows g and g + 8 (raw S) */
    float l[2] = {0.0f, 0.0f}; /* running sum, this lane's columns only (quad-summed at the end) */
    const int row_in_tile = 16 * warp + g; /* rows row_in_tile and row_in_tile + 8 */

    for (int j = 0; j < n_tiles; j++) {
        const int buf = j & 1;
        /* tile j + 1 into the other buffer (free since the barrier that ended tile j - 1) */
        if (j + 1 < n_tiles) {
            const int nbuf = buf ^ 1;
            attn_load_tile<KVTile, ATTN_V1_THREADS>(sK + nbuf * KVTile::BYTES, Kh, ks.seq,
                                                    (j + 1) * ATTN_V1_BLOCK_N, Sk);
            attn_load_tile<KVTile, ATTN_V1_THREADS>(sV + nbuf * KVTile::BYTES, Vh, vs.seq,
                                                    (j + 1) * ATTN_V1_BLOCK_N, Sk);
        }
        cp_async_commit_group();
        cp_async_wait_group<1>(); /* tile j (committed one iteration ago) has landed */
        __syncthreads();
        const uint32_t tK = sK + buf * KVTile::BYTES, tV = sV + buf * KVTile::BYTES;

        /* 1. S = Q K^T for this warp's 16 rows and the tile's 64 keys */
        float s[Cfg::NB_S][4];
#pragma unroll
        for (int nb = 0; nb < Cfg::NB_S; nb++) s[nb][0] = s[nb][1] = s[nb][2] = s[nb][3] = 0.0f;
#pragma unroll
        for (int kk = 0; kk < Cfg::KSTEPS; kk++)
#pragma unroll
            for (int nb = 0; nb < Cfg::NB_S; nb += 2) {
                uint32_t b0[2], b1[2];
                attn_frag_b<KVTile>(b0, b1, tK, 8 * nb, kk);
                mma_f32<T>::run(s[nb], qf[kk], b0);
                mma_f32<T>::run(s[nb + 1], qf[kk], b1);
            }

        /* 2. the mask: keys past Sk, and (causal) past each row's diagonal; only tiles that
         * reach past Sk or past the first row's diagonal can hold such keys */
        const int k0 = j * ATTN_V1_BLOCK_N;
        if (k0 + ATTN_V1_BLOCK_N > Sk || (causal && k0 + ATTN_V1_BLOCK_N - 1 > diag0)) {
#pragma unroll
            for (int nb = 0; nb < Cfg::NB_S; nb++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const long key = k0 + 8 * nb + 2 * t + (e & 1);
                    const long diag = diag0 + row_in_tile + 8 * (e >> 1);
                    if (key >= Sk || (causal && key > diag)) s[nb][e] = -CUDART_INF_F;
                }
        }

        /* the online softmax, rows g (r = 0: s[.][0..1]) and g + 8 (r = 1: s[.][2..3]) */
#pragma unroll
        for (int r = 0; r < 2; r++) {
            float mx = m[r];
#pragma unroll
            for (int nb = 0; nb < Cfg::NB_S; nb++)
                mx = fmaxf(mx, fmaxf(s[nb][2 * r], s[nb][2 * r + 1]));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1)); /* the quad holds the row */
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            /* a row with no key yet keeps max -inf: exponents against 0 then give 0, not NaN */
            const float m_use = mx == -CUDART_INF_F ? 0.0f : mx * scale_log2;
            const float alpha = mx == -CUDART_INF_F ? 1.0f : attn_exp2(m[r] * scale_log2 - m_use);
            float rowsum = 0.0f;
#pragma unroll
            for (int nb = 0; nb < Cfg::NB_S; nb++)
#pragma unroll
                for (int e = 2 * r; e < 2 * r + 2; e++) {
                    s[nb][e] = attn_exp2(fmaf(s[nb][e], scale_log2, -m_use));
                    rowsum += s[nb][e];
                }
            l[r] = alpha * l[r] + rowsum;
#pragma unroll
            for (int nb = 0; nb < Cfg::NB_O; nb++) o[nb][2 * r] *= alpha, o[nb][2 * r + 1] *= alpha;
            m[r] = mx;
        }

        /* 3. O += P V: the accumulators of n8 blocks 2kk and 2kk+1 are the A fragment of k-step
         * kk (the lane map of the header) */
#pragma unroll
        for (int kk = 0; kk < Cfg::KSTEPS_PV; kk++) {
            uint32_t a[4];
            a[0] = attn_pack2<T>(s[2 * kk][0], s[2 * kk][1]);
            a[1] = attn_pack2<T>(s[2 * kk][2], s[2 * kk][3]);
            a[2] = attn_pack2<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]);
            a[3] = attn_pack2<T>(s[2 * kk + 1][2], s[2 * kk + 1][3]);
#pragma unroll
            for (int nb = 0; nb < Cfg::NB_O; nb += 2) {
                uint32_t b0[2], b1[2];
                attn_frag_b_trans<KVTile>(b0, b1, tV, 16 * kk, 8 * nb);
                mma_f32<T>::run(o[nb], a, b0);
                mma_f32<T>::run(o[nb + 1], a, b1);
            }
        }
        __syncthreads(); /* every warp is done with this buffer before tile j + 2 refills it */
    }
    cp_async_wait_group<0>(); /* only empty groups are left; leave none behind */

    /* The epilogue: the row sums over the quad, O / l in T, L. A row with l = 0 saw no key. */
#pragma unroll
    for (int r = 0; r < 2; r++) {
        float sum = l[r];
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        sum += __shfl_xor_sync(0xffffffffu, sum, 2);
        const long i = (long)q0 + row_in_tile + 8 * r;
        if (i >= Sq) continue;
        const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
        uint16_t *orow = O + b * os.batch + i * os.seq + h * os.head;
#pragma unroll
        for (int nb = 0; nb < Cfg::NB_O; nb++)
            *reinterpret_cast<uint32_t *>(orow + 8 * nb + 2 * t) =
                attn_pack2<T>(o[nb][2 * r] * inv, o[nb][2 * r + 1] * inv);
        if (L && t == 0)
            L[((long)b * H + h) * Sq + i] =
                sum > 0.0f ? (m[r] * scale_log2 + log2f(sum)) * 0.69314718056f : -CUDART_INF_F;
    }
}

/* ---- the host side ------------------------------------------------------------------------- */
typedef struct {
    int B, H, Sq, Sk, D, causal;
    const uint16_t *Q, *K, *V;
    uint16_t *O;
    float *L;
    attn_strides qs, ks, vs, os;
    float scale_log2;
    dim3 grid;
    size_t smem;
    const void *kernel; /* the instantiation for D */
} attn_v1_mma_plan;

/* NULL when the kernel can take the problem, else why not */
template <class T>
static const char *attn_v1_mma_unsupported(int B, int H, int Sq, int Sk, int D, const T *Q,
                                           attn_strides qs, const T *K, attn_strides ks, const T *V,
                                           attn_strides vs, const T *O, attn_strides os)
{
    static char why[160];
    if (B < 1 || H < 1 || Sq < 1 || Sk < 1 || D < 1) return "B, H, Sq, Sk and D must be at least 1";
    if (!Q || !K || !V || !O) return "Q, K, V and O must be device pointers";
    if (D != 64 && D != 128) {
        snprintf(why, sizeof why, "head dimension D = %d: the kernel is built for D = 64 and 128",
                 D);
        return why;
    }
    if (B > 65535 || H > 65535) return "B and H must be at most 65535 (the grid's y and z)";
    if (!attn_rows_aligned(Q, qs) || !attn_rows_aligned(K, ks) || !attn_rows_aligned(V, vs) ||
        !attn_rows_aligned(O, os))
        return "rows must start on 16-byte boundaries (cp.async): pointers 16-byte aligned, "
               "strides multiples of 8 elements";
    return NULL;
}

template <class T>
static cudaError_t attn_v1_mma_prepare(attn_v1_mma_plan *plan, int B, int H, int Sq, int Sk, int D,
                                       const T *Q, attn_strides qs, const T *K, attn_strides ks,
                                       const T *V, attn_strides vs, T *O, attn_strides os, float *L,
                                       int causal, float scale)
{
    /* the running max is taken over the raw scores: the max of the scaled ones only for scale > 0 */
    if (B < 1 || H < 1 || Sq < 1 || Sk < 1 || D < 1 || !Q || !K || !V || !O ||
        !(scale > 0.0f && scale <= FLT_MAX))
        return cudaErrorInvalidValue;
    if (attn_v1_mma_unsupported<T>(B, H, Sq, Sk, D, Q, qs, K, ks, V, vs, O, os))
        return cudaErrorNotSupported;
    const void *kernel = D == 64 ? (const void *)attn_v1_mma_kernel<T, 64>
                                 : (const void *)attn_v1_mma_kernel<T, 128>;
    const size_t smem = D == 64 ? attn_v1_config<64>::SMEM_BYTES : attn_v1_config<128>::SMEM_BYTES;
    const cudaError_t e = smem_optin(kernel, smem);
    if (e != cudaSuccess) return e;
    plan->B = B, plan->H = H, plan->Sq = Sq, plan->Sk = Sk, plan->D = D, plan->causal = causal;
    plan->Q = (const uint16_t *)Q, plan->K = (const uint16_t *)K, plan->V = (const uint16_t *)V;
    plan->O = (uint16_t *)O, plan->L = L;
    plan->qs = qs, plan->ks = ks, plan->vs = vs, plan->os = os;
    plan->scale_log2 = scale * 1.4426950408889634f; /* exp(x) = exp2(x log2 e) */
    plan->grid =
        dim3((unsigned)((Sq + ATTN_V1_BLOCK_M - 1) / ATTN_V1_BLOCK_M), (unsigned)H, (unsigned)B);
    plan->smem = smem, plan->kernel = kernel;
    return cudaSuccess;
}

template <class T>
static cudaError_t attn_v1_mma_run(const attn_v1_mma_plan *p, cudaStream_t stream)
{
    if (p->D == 64)
        attn_v1_mma_kernel<T, 64><<<p->grid, ATTN_V1_THREADS, p->smem, stream>>>(
            p->H, p->Sq, p->Sk, p->Q, p->qs, p->K, p->ks, p->V, p->vs, p->O, p->os, p->L, p->causal,
            p->scale_log2);
    else
        attn_v1_mma_kernel<T, 128><<<p->grid, ATTN_V1_THREADS, p->smem, stream>>>(
            p->H, p->Sq, p->Sk, p->Q, p->qs, p->K, p->ks, p->V, p->vs, p->O, p->os, p->L, p->causal,
            p->scale_log2);
    return cudaGetLastError();
}

template <class T>
static cudaError_t attn_v1_mma_forward(int B, int H, int Sq, int Sk, int D, const T *Q,
                                       attn_strides qs, const T *K, attn_strides ks, const T *V,
                                       attn_strides vs, T *O, attn_strides os, float *L, int causal,
                                       float scale, cudaStream_t stream)
{
    attn_v1_mma_plan plan;
    const cudaError_t e = attn_v1_mma_prepare<T>(&plan, B, H, Sq, Sk, D, Q, qs, K, ks, V, vs, O, os,
                                                 L, causal, scale);
    return e == cudaSuccess ? attn_v1_mma_run<T>(&plan, stream) : e;
}

#endif /* ATTN_V1_MMA_CUH */
