/* 07_int8_dp4a/dp4a_model.h - bit-exact CPU models of the CUDA-core integer dot products of
 * chapter 07: dp4a (__dp4a) and dp2a (__dp2a_lo, __dp2a_hi), in every signedness PTX offers.
 *
 * Packing. A 32-bit word holds four 8-bit elements (dp4a, dp2a's b) or two 16-bit elements
 * (dp2a's a), element k in bits 8k .. 8k+7 (16k .. 16k+15): little-endian, so the word loaded
 * from four consecutive int8 values in memory has element k = the byte at address k. Elements
 * are sign-extended (signed operand) or zero-extended (unsigned operand) to 32 bits.
 *
 *   dp4a:  d = c + a0*b0 + a1*b1 + a2*b2 + a3*b3
 *   dp2a:  d = c + a0*b0 + a1*b1      (.lo: b's bytes 0, 1)
 *          d = c + a0*b2 + a1*b3      (.hi: b's bytes 2, 3)    a0, a1 the 16-bit halves of a
 *
 * The sum is exact (each product fits in 32 bits) and d wraps around modulo 2^32: there is no
 * saturation. The models return d's 32 bits; read them as int32_t for the signed forms (the
 * accumulator of dp4a.s32.s32, .u32.s32, .s32.u32 is signed), as uint32_t for .u32.u32. The same
 * 32 bits come out either way: wrap-around addition does not care.
 *
 * CUDA exposes the forms with a and b of the same signedness (__dp4a(int, int, int),
 * __dp4a(unsigned, unsigned, unsigned) and their char4/uchar4 twins); the mixed forms exist in PTX
 * (dp4a.u32.s32: a unsigned, b signed) and are reached with inline asm. */
#ifndef TC_DP4A_MODEL_H
#define TC_DP4A_MODEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* element k (0..3) of a word of four bytes, sign- or zero-extended */
int32_t tc_byte_of(uint32_t w, int k, int is_signed);
/* element h (0, 1) of a word of two 16-bit halves, sign- or zero-extended */
int32_t tc_half_of(uint32_t w, int h, int is_signed);
/* the word whose byte k is e[k] (the int8 or uint8 bit patterns, as stored in memory) */
uint32_t tc_pack_bytes(const int e[4]);
/* the word whose half h is e[h] (int16 or uint16 bit patterns) */
uint32_t tc_pack_halves(const int e[2]);

/* dp4a.atype.btype d, a, b, c: a_signed/b_signed pick .s32 (1) or .u32 (0) */
uint32_t tc_dp4a(uint32_t a, int a_signed, uint32_t b, int b_signed, uint32_t c);
/* dp2a.mode.atype.btype d, a, b, c: hi = 0 for .lo, 1 for .hi */
uint32_t tc_dp2a(uint32_t a, int a_signed, uint32_t b, int b_signed, uint32_t c, int hi);

#ifdef __cplusplus
}
#endif
#endif
