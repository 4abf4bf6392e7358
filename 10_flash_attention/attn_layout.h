/* 10_flash_attention/attn_layout.h - the memory layout of the attention tensors, shared by the
 * host driver (C), the reference (C) and the kernels' plain launchers (CUDA C++). No harness type:
 * a rung file that includes it can be copied into any program.
 *
 * Q (B x Sq x H x D), K and V (B x Sk x H x D) and O (B x Sq x H x D) are "BSHD": element
 * (b, s, h, d) of a tensor lives at
 *
 *     base[b * batch + s * seq + h * head + d]          (strides in elements, d contiguous)
 *
 * Packed BSHD has head = D, seq = H * D, batch = S * H * D (attn_strides_bshd). Other strides
 * describe the same tensors inside bigger buffers: Q, K and V interleaved by a fused QKV
 * projection (seq = 3 H D), or rows padded to a multiple of some size. L, the row log-sum-exp,
 * is f32 and packed B x H x Sq: L[(b * H + h) * Sq + i] (cuDNN's "stats" layout).
 *
 * The mask: row i of Q (0 <= i < Sq) sees the keys j < attn_key_end(i): all Sk of them, or with
 * the causal mask those with j <= i + Sk - Sq, the diagonal aligned to the bottom right (the last
 * query sees every key; FlashAttention 2.1 and later, cuDNN's "bottom right" alignment). When
 * Sq > Sk the first Sq - Sk rows see no key at all: they are "fully masked", and the contract is
 * O = 0 and L = -inf for them. */
#ifndef ATTN_LAYOUT_H
#define ATTN_LAYOUT_H

#if defined(__CUDACC__)
#define ATTN_HOST_DEVICE __host__ __device__
#else
#define ATTN_HOST_DEVICE
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    long batch, seq, head; /* in elements; the d stride is 1 */
} attn_strides;

/* packed BSHD for S rows of H heads of D values */
static inline attn_strides attn_strides_bshd(long S, long H, long D)
{
    attn_strides s;
    s.batch = S * H * D, s.seq = H * D, s.head = D;
    return s;
}

/* Row i sees keys 0 .. attn_key_end(i) - 1: Sk without the mask; with it, bottom-right aligned,
 * clamped to 0 .. Sk (0: the row is fully masked). Host and device. */
static inline ATTN_HOST_DEVICE long attn_key_end(long Sq, long Sk, int causal, long i)
{
    if (!causal) return Sk;
    const long end = i + Sk - Sq + 1;
    return end < 0 ? 0 : end > Sk ? Sk : end;
}

#ifdef __cplusplus
}
#endif
#endif /* ATTN_LAYOUT_H */
