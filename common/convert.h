/* common/convert.h - host-side number format conversions and the RNG.
 *
 * Every chapter converts its random f32 inputs on the host with these routines, uploads the
 * converted bits, and hands the same bits to the CPU reference. The reference therefore sees
 * exactly what the GPU sees, and the only differences left are accumulation order and
 * accumulator precision.
 *
 * All conversions are bit-exact software implementations (no reliance on the host's FP
 * rounding mode or on compiler support for _Float16), tested exhaustively where that is
 * possible (all 65536 f16 bit patterns) by tests/test_convert.c.
 */
#ifndef TC_CONVERT_H
#define TC_CONVERT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- bit casts ---------------------------------------------------------------------------- */
uint32_t tc_f32_bits(float f);
float tc_f32_from_bits(uint32_t u);

/* ---- IEEE binary16 (f16): 1 sign, 5 exponent, 10 mantissa bits ---------------------------
 * f32 -> f16 rounds to nearest, ties to even; handles subnormals, overflow to inf, and keeps
 * NaN a NaN (quiet, sign kept). f16 -> f32 is exact. */
uint16_t tc_f32_to_f16(float f);
float tc_f16_to_f32(uint16_t h);
/* f64 -> f16 with one rounding (to nearest, ties to even): what an exact result becomes when
 * the hardware rounds it to f16 once. (Going through f32 would round twice.) */
uint16_t tc_f64_to_f16(double d);
/* fma.rn.f16 (CUDA's __hfma): a*b + c computed exactly, rounded once to f16, ties to even.
 * A bit-exact host model of the GPU instruction for finite inputs and results, overflow to
 * inf included; a NaN result is a NaN, but its bits may differ from the GPU's canonical NaN. */
uint16_t tc_f16_fma(uint16_t a, uint16_t b, uint16_t c);

/* ---- bfloat16 (bf16): 1 sign, 8 exponent, 7 mantissa bits: the top half of an f32 ---------
 * f32 -> bf16 rounds to nearest, ties to even; NaN stays a quiet NaN. bf16 -> f32 is exact. */
uint16_t tc_f32_to_bf16(float f);
float tc_bf16_to_f32(uint16_t b);

/* ---- TensorFloat-32 (tf32): f32 with the low 13 mantissa bits zero (19 bits used) ----------
 * Returned as an f32 whose low 13 bits are zero.
 *   _rne: round to nearest, ties to even (what cuBLAS/cuDNN document for FAST_TF32 inputs);
 *   _rna: round to nearest, ties away from zero (PTX cvt.rna.tf32.f32 = wmma::__float_to_tf32);
 *   _rz:  truncation (what the tensor core does to f32 bits it is handed unconverted).
 * inf and NaN pass through (NaN stays NaN); a rounding carry may overflow to inf. */
float tc_f32_to_tf32_rne(float f);
float tc_f32_to_tf32_rna(float f);
float tc_f32_to_tf32_rz(float f);

/* ---- 8-bit floats (OCP FP8) --------------------------------------------------------------
 * e4m3 ("fn" variant): bias 7, no inf, max 448, NaN = S.1111.111. Conversion rounds to nearest
 * even and saturates finite overflow to +-448 (as cuBLAS/PTX .satfinite do), inf -> +-448 too;
 * NaN -> NaN (S.1111.111).
 * e5m2: bias 15, IEEE-like (inf and NaN), max 57344; rounds to nearest even, saturates finite
 * overflow to +-57344; inf -> +-57344 too (satfinite); NaN -> NaN. */
uint8_t tc_f32_to_e4m3(float f);
float tc_e4m3_to_f32(uint8_t v);
uint8_t tc_f32_to_e5m2(float f);
float tc_e5m2_to_f32(uint8_t v);

/* ---- int8 -------------------------------------------------------------------------------
 * Round to nearest (ties to even), saturate to [-128, 127]; NaN -> 0. */
int8_t tc_f32_to_i8_sat(float f);

/* ---- deterministic RNG (splitmix64 seeding a xoshiro256** stream) --------------------------
 * Same seed, same sequence on every platform and compiler. */
typedef struct {
    uint64_t s[4];
} tc_rng;

void tc_rng_seed(tc_rng *rng, uint64_t seed);
uint64_t tc_rng_next_u64(tc_rng *rng);
/* uniform in [0, 1) with 24 random bits (exactly representable as f32) */
float tc_rng_uniform01(tc_rng *rng);
/* uniform in [lo, hi) */
float tc_rng_uniform(tc_rng *rng, float lo, float hi);
/* uniform integer in [lo, hi] inclusive (lo <= hi) */
int32_t tc_rng_int(tc_rng *rng, int32_t lo, int32_t hi);

#ifdef __cplusplus
}
#endif
#endif /* TC_CONVERT_H */
