/* common/convert.c - host-side number format conversions and the RNG; see convert.h.
 *
 * Every conversion works on the integer bits of the f32 (memcpy bit casts only), so the
 * results do not depend on the host's rounding mode, on x87 excess precision, or on compiler
 * support for _Float16.
 *
 * The narrow float formats (f16, e4m3, e5m2) share one rounding routine: a finite f32 is
 * written as sig * 2^exp2 (sig an integer below 2^24), the quantum of the target format at that
 * magnitude is 2^q, and the value is rounded to an integer number of quanta with ties to even.
 * For a normal result the code is ((E + bias - 1) << mbits) + units, where units lies in
 * [2^mbits, 2^(mbits+1)]: the implicit leading 1 adds into the exponent field, so a rounding
 * carry (units == 2^(mbits+1)) lands on the next binade by itself. For a subnormal result the
 * code is simply units, and units == 2^mbits is the smallest normal. */
#include "convert.h"

#include <math.h>
#include <string.h>

/* ---- bit casts ---------------------------------------------------------------------------- */
uint32_t tc_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

float tc_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- shared helpers ------------------------------------------------------------------------ */

/* round(sig / 2^shift) to nearest, ties to even; sig < 2^24, shift >= 1 */
static uint32_t rne_shift(uint32_t sig, int shift)
{
    if (shift >= 26) return 0; /* sig / 2^shift < 2^-2: rounds to 0 */
    uint32_t q = sig >> shift;
    uint32_t rem = sig & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) q++;
    return q;
}

/* Round the magnitude bits `a` of a finite f32 (sign cleared, exponent field < 255) to a float
 * format with `mbits` mantissa bits and exponent bias `bias`, to nearest, ties to even, without
 * an upper exponent limit: the caller clamps codes above its largest finite code. Returns the
 * magnitude code (exponent field << mbits | mantissa). Valid for target formats whose smallest
 * normal exponent is well above f32's and mbits <= 10 (f16, e4m3, e5m2). */
static uint32_t round_to_narrow(uint32_t a, int mbits, int bias)
{
    int fexp = (int)(a >> 23);
    uint32_t sig;
    int exp2; /* value = sig * 2^exp2 */
    if (fexp == 0) {
        sig = a & 0x7FFFFFu;
        exp2 = -149;
    } else {
        sig = (a & 0x7FFFFFu) | 0x800000u;
        exp2 = fexp - 150;
    }
    if (sig == 0) return 0;
    int nbits = 0; /* bit length of sig */
    while ((sig >> nbits) != 0) nbits++;
    int E = exp2 + nbits - 1;               /* floor(log2(value)) */
    int emin = 1 - bias;                    /* exponent of the smallest normal */
    int q = (E >= emin ? E : emin) - mbits; /* quantum exponent at this magnitude */
    /* shift = q - exp2 >= 13 for f32 normals (nbits = 24, mbits <= 10) and is larger for f32
     * subnormals, so it is always >= 1 as rne_shift needs. */
    uint32_t units = rne_shift(sig, q - exp2);
    if (E < emin) return units; /* subnormal (units == 2^mbits: smallest normal) */
    /* E <= 127, so the code stays far below 2^32 even when it is out of the target's range */
    return ((uint32_t)(E + bias - 1) << mbits) + units;
}

/* exact f32 bits of (-1)^sign * mant * 2^e2 with mant < 2^24 (nonzero), e2 such that the value is
 * a normal f32 (true for every f16/e4m3/e5m2 value) */
static uint32_t compose_f32(uint32_t sign, uint32_t mant, int e2)
{
    int top = 0; /* position of the leading 1 of mant */
    while ((mant >> (top + 1)) != 0) top++;
    uint32_t frac = (mant << (23 - top)) & 0x7FFFFFu;
    uint32_t fexp = (uint32_t)(e2 + top + 127);
    return sign | (fexp << 23) | frac;
}

/* decode a finite narrow-float magnitude (exponent field e, mantissa m) to f32 bits */
static uint32_t decode_narrow(uint32_t sign, uint32_t e, uint32_t m, int mbits, int bias)
{
    if (e == 0) {
        if (m == 0) return sign; /* signed zero */
        return compose_f32(sign, m, 1 - bias - mbits);
    }
    return compose_f32(sign, m | (1u << mbits), (int)e - bias - mbits);
}

/* ---- f16 ---------------------------------------------------------------------------------- */
/* Rounds a magnitude a (finite, below the overflow threshold) to a multiple of the f16 quantum
 * at its exponent. `dir` says where the exact magnitude lies when a is only its leading part
 * (the high word of a two-term sum): +1 above a, -1 below, 0 a is exact. It matters only when a
 * is exactly halfway between two f16 values. */
static uint16_t f16_round_magnitude(double a, int dir)
{
    int e;
    frexp(a, &e); /* a = m * 2^e with m in [0.5, 1): the leading bit is 2^(e-1) */
    int lead = e - 1 < -14 ? -14 : e - 1; /* subnormals share the quantum of 2^-14 */
    double q = ldexp(1.0, lead - 10);     /* f16 keeps 10 bits after the leading one */
    double t = a / q;                     /* exact: q is a power of two */
    double lo = floor(t), frac = t - lo;
    int up = frac > 0.5 || (frac == 0.5 && (dir > 0 || (dir == 0 && fmod(lo, 2.0) == 1.0)));
    double r = (up ? lo + 1.0 : lo) * q; /* exact, at most 65504 or 65536 */
    return tc_f32_to_f16((float)r); /* r is an f16 value (or 65536 -> inf): no second rounding */
}

/* d rounded to f16; `above` = +1 / -1 / 0: the exact value is above / below / equal to d */
static uint16_t f64_to_f16_dir(double d, int above)
{
    uint16_t sign = signbit(d) ? 0x8000u : 0;
    if (isnan(d)) return (uint16_t)(sign | 0x7E00u);
    double a = fabs(d);
    int dir = signbit(d) ? -above : above; /* the same, for the magnitude */
    /* 65520 is the midpoint between 65504 (odd mantissa) and 65536 (= overflow): ties to inf */
    if (a > 65520.0 || (a == 65520.0 && dir >= 0)) return (uint16_t)(sign | 0x7C00u);
    return (uint16_t)(sign | f16_round_magnitude(a, dir));
}

uint16_t tc_f64_to_f16(double d) { return f64_to_f16_dir(d, 0); }

uint16_t tc_f16_fma(uint16_t a, uint16_t b, uint16_t c)
{
    double p = (double)tc_f16_to_f32(a) * (double)tc_f16_to_f32(b); /* exact: 11 x 11 bits */
    double x = (double)tc_f16_to_f32(c);
    if (isnan(p) || isnan(x) || isinf(p) || isinf(x)) return tc_f64_to_f16(p + x);
    /* two-sum: s + err == p + x exactly. s rounds correctly to f16 unless it sits exactly on a
     * midpoint between two f16 values, where the sign of err breaks the tie. */
    double s = p + x, bp = s - x, err = (p - bp) + (x - (s - bp));
    if (s == 0.0) {
        /* exact zero: +0 unless both addends are -0 (IEEE round-to-nearest rule) */
        return (signbit(p) && signbit(x)) ? 0x8000u : 0;
    }
    return f64_to_f16_dir(s, err > 0 ? 1 : err < 0 ? -1 : 0);
}

uint16_t tc_f32_to_f16(float f)
{
    uint32_t u = tc_f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) /* NaN: quiet, keep the sign and the top payload bits */
        return (uint16_t)(sign | 0x7E00u | ((a & 0x7FFFFFu) >> 13));
    if (a == 0x7F800000u) return (uint16_t)(sign | 0x7C00u);
    uint32_t code = round_to_narrow(a, 10, 15);
    if (code > 0x7C00u) code = 0x7C00u; /* overflow (>= 65520 after rounding) -> inf */
    return (uint16_t)(sign | code);
}

float tc_f16_to_f32(uint16_t h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t e = ((uint32_t)h >> 10) & 0x1Fu;
    uint32_t m = (uint32_t)h & 0x3FFu;
    if (e == 0x1Fu) return tc_f32_from_bits(sign | 0x7F800000u | (m << 13)); /* inf / NaN */
    return tc_f32_from_bits(decode_narrow(sign, e, m, 10, 15));
}

/* ---- bf16 --------------------------------------------------------------------------------- */
uint16_t tc_f32_to_bf16(float f)
{
    uint32_t u = tc_f32_bits(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) /* NaN: truncate and set the quiet bit */
        return (uint16_t)((u >> 16) | 0x0040u);
    /* RNE on the top 16 bits; a carry out of the mantissa moves into the exponent, and out of
     * the largest finite binade into inf (0x7F80), never into the sign bit. */
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

float tc_bf16_to_f32(uint16_t b) { return tc_f32_from_bits((uint32_t)b << 16); }

/* ---- tf32 --------------------------------------------------------------------------------- */
/* inf passes through; NaN keeps its sign and top payload bits and gets the quiet bit, so it
 * stays a NaN with the low 13 bits zero (clearing a payload held only in the low 13 bits would
 * otherwise turn it into inf, and rounding it up could carry). Returns 1 if handled. */
static int tf32_special(uint32_t u, float *out)
{
    if ((u & 0x7F800000u) != 0x7F800000u) return 0;
    if ((u & 0x7FFFFFu) != 0) u = (u | 0x00400000u) & ~0x1FFFu;
    *out = tc_f32_from_bits(u);
    return 1;
}

float tc_f32_to_tf32_rne(float f)
{
    uint32_t u = tc_f32_bits(f);
    float r;
    if (tf32_special(u, &r)) return r;
    u += 0xFFFu + ((u >> 13) & 1u);
    return tc_f32_from_bits(u & ~0x1FFFu);
}

float tc_f32_to_tf32_rna(float f)
{
    uint32_t u = tc_f32_bits(f);
    float r;
    if (tf32_special(u, &r)) return r;
    u += 0x1000u; /* on the magnitude bits: ties go away from zero for either sign */
    return tc_f32_from_bits(u & ~0x1FFFu);
}

float tc_f32_to_tf32_rz(float f)
{
    uint32_t u = tc_f32_bits(f);
    float r;
    if (tf32_special(u, &r)) return r;
    return tc_f32_from_bits(u & ~0x1FFFu);
}

/* ---- fp8 ---------------------------------------------------------------------------------- */
uint8_t tc_f32_to_e4m3(float f)
{
    uint32_t u = tc_f32_bits(f);
    uint32_t sign = (u >> 24) & 0x80u;
    uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return (uint8_t)(sign | 0x7Fu);  /* NaN */
    if (a == 0x7F800000u) return (uint8_t)(sign | 0x7Eu); /* inf: satfinite */
    uint32_t code = round_to_narrow(a, 3, 7);
    if (code > 0x7Eu) code = 0x7Eu; /* saturate to 448 (0x7F would be NaN) */
    return (uint8_t)(sign | code);
}

float tc_e4m3_to_f32(uint8_t v)
{
    uint32_t sign = ((uint32_t)v & 0x80u) << 24;
    uint32_t e = ((uint32_t)v >> 3) & 0xFu;
    uint32_t m = (uint32_t)v & 0x7u;
    if (e == 0xFu && m == 0x7u) return tc_f32_from_bits(sign | 0x7FC00000u); /* NaN */
    return tc_f32_from_bits(decode_narrow(sign, e, m, 3, 7));
}

uint8_t tc_f32_to_e5m2(float f)
{
    uint32_t u = tc_f32_bits(f);
    uint32_t sign = (u >> 24) & 0x80u;
    uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return (uint8_t)(sign | 0x7Fu);  /* NaN */
    if (a == 0x7F800000u) return (uint8_t)(sign | 0x7Bu); /* inf: satfinite */
    uint32_t code = round_to_narrow(a, 2, 15);
    if (code > 0x7Bu) code = 0x7Bu; /* saturate to 57344 */
    return (uint8_t)(sign | code);
}

float tc_e5m2_to_f32(uint8_t v)
{
    uint32_t sign = ((uint32_t)v & 0x80u) << 24;
    uint32_t e = ((uint32_t)v >> 2) & 0x1Fu;
    uint32_t m = (uint32_t)v & 0x3u;
    if (e == 0x1Fu) return tc_f32_from_bits(sign | 0x7F800000u | (m << 21)); /* inf / NaN */
    return tc_f32_from_bits(decode_narrow(sign, e, m, 2, 15));
}

/* ---- int8 --------------------------------------------------------------------------------- */
int8_t tc_f32_to_i8_sat(float f)
{
    uint32_t u = tc_f32_bits(f);
    int neg = (u >> 31) != 0;
    uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return 0;                                 /* NaN */
    if (a >= 0x43800000u) return neg ? (int8_t)-128 : (int8_t)127; /* |f| >= 256 (or inf) */
    int fexp = (int)(a >> 23);
    if (fexp < 126) return 0; /* |f| < 0.5 */
    /* |f| = sig * 2^(fexp - 150) with 126 <= fexp <= 134: shift 16..24 */
    uint32_t n = rne_shift((a & 0x7FFFFFu) | 0x800000u, 150 - fexp);
    if (neg) return n >= 128u ? (int8_t)-128 : (int8_t)(-(int32_t)n);
    return n >= 127u ? (int8_t)127 : (int8_t)n;
}

/* ---- RNG ---------------------------------------------------------------------------------- */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void tc_rng_seed(tc_rng *rng, uint64_t seed)
{
    uint64_t x = seed;
    /* four consecutive outputs of a bijection of distinct inputs: never all zero */
    for (int i = 0; i < 4; i++) rng->s[i] = splitmix64(&x);
}

uint64_t tc_rng_next_u64(tc_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl64(s[1] * 5u, 7) * 9u;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

float tc_rng_uniform01(tc_rng *rng)
{
    /* top 24 bits: an integer below 2^24 converts to f32 exactly, and the scaling is exact */
    return (float)(uint32_t)(tc_rng_next_u64(rng) >> 40) * 0x1p-24f;
}

float tc_rng_uniform(tc_rng *rng, float lo, float hi)
{
    float r = lo + (hi - lo) * tc_rng_uniform01(rng);
    /* For ranges like [-1, 1) the result is exact; for others the float rounding could land on
     * hi itself, which the half-open interval excludes. */
    return r < hi ? r : lo;
}

int32_t tc_rng_int(tc_rng *rng, int32_t lo, int32_t hi)
{
    /* Lemire's multiply-shift on 32 random bits with rejection: unbiased for any range up to
     * 2^32 (lo = INT32_MIN, hi = INT32_MAX). */
    uint64_t range = (uint64_t)((int64_t)hi - (int64_t)lo) + 1u; /* 1 .. 2^32 */
    uint64_t threshold = (0x100000000ull - range) % range;       /* 2^32 mod range */
    uint64_t m;
    do {
        uint64_t x = tc_rng_next_u64(rng) >> 32;
        m = x * range; /* < 2^64 */
    } while ((m & 0xFFFFFFFFull) < threshold);
    return (int32_t)((int64_t)lo + (int64_t)(m >> 32));
}
