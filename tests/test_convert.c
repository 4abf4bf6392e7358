/* tests/test_convert.c - CPU unit tests of common/convert.c (conversions and the RNG).
 *
 * The references here are deliberately computed a different way from the implementation:
 * format values come from ldexp on the mantissa/exponent fields in double arithmetic, and
 * rounding is checked against a nearest-neighbour search over the sorted table of a format's
 * values (ties to the even code), so a bug in the bit manipulation cannot hide in a shared
 * helper. */
#include "unit.h"

#include "convert.h"

#include <math.h>
#include <stdint.h>

/* ---- reference helpers --------------------------------------------------------------------- */

static float f_bits(uint32_t u) { return tc_f32_from_bits(u); }

/* value of an f16 bit pattern: (-1)^s * 2^(e-15) * (1 + m/2^10), subnormal 2^-14 * m/2^10 */
static double ref_f16(uint16_t h)
{
    int s = (h >> 15) & 1, e = (h >> 10) & 0x1F, m = h & 0x3FF;
    double v;
    if (e == 31)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)m, -24);
    else
        v = ldexp((double)(m + 1024), e - 25);
    return s ? -v : v;
}

/* e4m3 (fn): bias 7, S.1111.111 is NaN, no inf */
static double ref_e4m3(uint8_t c)
{
    int s = (c >> 7) & 1, e = (c >> 3) & 0xF, m = c & 7;
    double v;
    if (e == 15 && m == 7)
        v = NAN;
    else if (e == 0)
        v = ldexp((double)m, -9); /* 2^(1-7) * m/8 */
    else
        v = ldexp((double)(m + 8), e - 10); /* 2^(e-7) * (8+m)/8 */
    return s ? -v : v;
}

/* e5m2: bias 15, IEEE-like */
static double ref_e5m2(uint8_t c)
{
    int s = (c >> 7) & 1, e = (c >> 2) & 0x1F, m = c & 3;
    double v;
    if (e == 31)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)m, -16); /* 2^(1-15) * m/4 */
    else
        v = ldexp((double)(m + 4), e - 17); /* 2^(e-15) * (4+m)/4 */
    return s ? -v : v;
}

/* Round x >= 0 (not NaN) to the sorted table tab[0..n-1] of a format's non-negative finite
 * values (tab[i] is the value of code i), with `next` the value code n would have if the
 * exponent range went on. Returns the index of the nearest entry, ties to the even index (even
 * code = even mantissa), or n when x rounds to `next` or beyond (overflow).
 * Differences are exact in double: x and the neighbours are within a factor 2 of each other
 * (Sterbenz), or the lower neighbour is 0. */
static int ref_round(const double *tab, int n, double next, double x)
{
    if (x >= next) return n;
    int lo = 0, hi = n - 1; /* largest i with tab[i] <= x */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (tab[mid] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    if (tab[lo] == x) return lo;
    double up = lo + 1 < n ? tab[lo + 1] : next;
    double dlo = x - tab[lo], dhi = up - x;
    if (dlo < dhi) return lo;
    if (dhi < dlo) return lo + 1;
    return (lo & 1) ? lo + 1 : lo;
}

static int f16_is_nan(uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0; }

/* ---- f16 ----------------------------------------------------------------------------------- */

static int unit_f16_exhaustive(void)
{
    for (uint32_t i = 0; i < 65536; i++) {
        uint16_t h = (uint16_t)i;
        double ref = ref_f16(h);
        float f = tc_f16_to_f32(h);
        uint16_t back = tc_f32_to_f16(f);
        if (isnan(ref)) {
            UNIT_CHECK(isnan(f) && !signbit(f) == !signbit(ref), "f16 0x%04X -> %g", i, (double)f);
            UNIT_CHECK(f16_is_nan(back) && (back & 0x8000) == (h & 0x8000) && (back & 0x200),
                       "NaN f16 0x%04X -> f32 -> 0x%04X (not a quiet NaN of the same sign)", i,
                       back);
            continue;
        }
        /* == on doubles plus the sign bit: catches -0 vs +0 as well */
        UNIT_CHECK((double)f == ref && !signbit(f) == !signbit(ref),
                   "f16 0x%04X -> %.17g, reference %.17g", i, (double)f, ref);
        UNIT_CHECK(back == h, "f16 0x%04X -> f32 -> 0x%04X", i, back);
    }
    return 0;
}

static int unit_f16_from_f32_edges(void)
{
    /* f16 quantum at [1,2) is 2^-10; 1.0 = 0x3C00; 65504 = 0x7BFF is the largest finite; the
     * smallest subnormal is 2^-24 = 0x0001, the largest 1023*2^-24 = 0x03FF, the smallest
     * normal 2^-14 = 0x0400. In f32 bits, 1 + 2^-11 = 0x3F801000 (bit 12 = half an f16 ulp). */
    static const struct {
        uint32_t in;
        uint16_t want;
        const char *why;
    } cases[] = {
        {0x3F800000u, 0x3C00, "1.0"},
        {0x3F801000u, 0x3C00, "1 + 2^-11: tie, 0x3C00 even"},
        {0x3F803000u, 0x3C02, "1 + 3*2^-11: tie between 0x3C01/0x3C02 -> even 0x3C02 = 1 + 2^-9"},
        {0x3F800FFFu, 0x3C00, "just below the halfway point"},
        {0x3F801001u, 0x3C01, "just above the halfway point"},
        {0x3FFFF000u, 0x4000, "(2 - 2^-10) + 2^-11: tie, 0x3FFF odd -> carry into exponent: 2.0"},
        {0x3FFFEFFFu, 0x3FFF, "just below that tie"},
        {0x477FE000u, 0x7BFF, "65504 stays"},
        {0x477FEFFFu, 0x7BFF, "65519.996 (just below 65520) -> 65504"},
        {0x477FF000u, 0x7C00, "65520: tie between 65504 (0x7BFF, odd) and 65536 -> inf"},
        {0x47800000u, 0x7C00, "65536 -> inf"},
        {0x7F7FFFFFu, 0x7C00, "FLT_MAX -> inf"},
        {0xC77FF000u, 0xFC00, "-65520 -> -inf"},
        {0x33800000u, 0x0001, "2^-24: smallest subnormal"},
        {0x33000000u, 0x0000, "2^-25: tie between 0 and 2^-24 -> even 0"},
        {0x33000001u, 0x0001, "2^-25 + 1 f32 ulp -> 2^-24"},
        {0xB3000000u, 0x8000, "-2^-25 -> -0"},
        {0x32800000u, 0x0000, "2^-26 -> 0"},
        {0x00000001u, 0x0000, "smallest f32 subnormal -> 0"},
        {0x80000001u, 0x8000, "-smallest f32 subnormal -> -0"},
        {0x33C00000u, 0x0002, "3*2^-25 = 1.5*2^-24: tie between 1 and 2 -> 2"},
        {0x34B00000u, 0x0006, "5.5*2^-24: tie between 5 and 6 -> 6"},
        {0x34900000u, 0x0004, "4.5*2^-24: tie between 4 and 5 -> 4"},
        {0x387FC000u, 0x03FF, "1023*2^-24: largest subnormal"},
        {0x387FE000u, 0x0400, "1023.5*2^-24: tie, 0x03FF odd -> smallest normal 2^-14"},
        {0x387FD000u, 0x03FF, "1023.25*2^-24 -> largest subnormal"},
        {0x38800000u, 0x0400, "2^-14: smallest normal"},
        {0x00000000u, 0x0000, "+0"},
        {0x80000000u, 0x8000, "-0 keeps its sign"},
        {0x7F800000u, 0x7C00, "+inf"},
        {0xFF800000u, 0xFC00, "-inf"},
        {0xBF800000u, 0xBC00, "-1.0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint16_t got = tc_f32_to_f16(f_bits(cases[i].in));
        UNIT_CHECK(got == cases[i].want, "f32 0x%08X (%s) -> 0x%04X, want 0x%04X", cases[i].in,
                   cases[i].why, got, cases[i].want);
    }
    /* NaN stays NaN with its sign, including a payload only in bits the f16 drops */
    static const uint32_t nans[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800001u,
                                    0x7FFFFFFFu, 0xFFFFFFFFu, 0x7FA00000u};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        uint16_t got = tc_f32_to_f16(f_bits(nans[i]));
        UNIT_CHECK(f16_is_nan(got) && (got >> 15) == (nans[i] >> 31) && (got & 0x200),
                   "NaN 0x%08X -> 0x%04X", nans[i], got);
    }

    /* Random f32 bit patterns against the nearest-neighbour reference over the table of all
     * 31744 non-negative finite f16 values (codes 0..0x7BFF, increasing); code 0x7C00 (inf)
     * plays the part of the next value 65536, so ref_round's overflow index is the inf code. */
    static double tab[0x7C00];
    for (int c = 0; c < 0x7C00; c++) tab[c] = ref_f16((uint16_t)c);
    tc_rng rng;
    tc_rng_seed(&rng, 12345);
    for (int i = 0; i < 4000000; i++) {
        uint64_t r = tc_rng_next_u64(&rng);
        uint32_t u = (uint32_t)r;
        uint32_t hi = (uint32_t)(r >> 32);
        switch (i & 3) {
        case 0: /* any pattern (mostly far outside the f16 range: zero / inf / NaN paths) */ break;
        case 1: /* exponent 2^-25 .. 2^16: subnormal, normal and overflow range of f16 */
            u = (u & 0x807FFFFFu) | ((102u + hi % 42u) << 23);
            break;
        case 2: { /* within a few f32 ulps of the halfway point above a random f16 value */
            uint32_t c = hi % 0x7C00u;
            uint32_t base = tc_f32_bits((float)tab[c]);
            u = (u & 0x80000000u) | (base + 0x1000u + (u & 7u) - 3u);
            break;
        }
        default: /* within a few f32 ulps of a random f16 value (exact, or just off it) */
            u = (u & 0x80000000u) | (tc_f32_bits((float)tab[hi % 0x7C00u]) + (u & 7u) - 3u);
            break;
        }
        float x = f_bits(u);
        uint16_t got = tc_f32_to_f16(x);
        if (isnan(x)) {
            UNIT_CHECK(f16_is_nan(got) && (got >> 15) == (u >> 31), "NaN 0x%08X -> 0x%04X", u, got);
            continue;
        }
        int idx = ref_round(tab, 0x7C00, 65536.0, fabs((double)x));
        uint16_t want = (uint16_t)((u >> 16 & 0x8000u) | (uint32_t)idx);
        UNIT_CHECK(got == want, "f32 0x%08X (%.9g) -> 0x%04X, reference 0x%04X", u, (double)x, got,
                   want);
    }
    return 0;
}

/* ---- bf16 ---------------------------------------------------------------------------------- */

static int unit_bf16_rounding_edges(void)
{
    /* bf16 = top 16 bits of the f32; bit 15 is half a bf16 ulp. */
    static const struct {
        uint32_t in;
        uint16_t want;
        const char *why;
    } cases[] = {
        {0x3F800000u, 0x3F80, "1.0"},
        {0x3F808000u, 0x3F80, "1 + 2^-8: tie, 0x3F80 even"},
        {0x3F818000u, 0x3F82, "tie above odd 0x3F81 -> 0x3F82"},
        {0x3F807FFFu, 0x3F80, "just below half"},
        {0x3F808001u, 0x3F81, "just above half"},
        {0xBF808001u, 0xBF81, "negative, just above half"},
        {0xBF818000u, 0xBF82, "negative tie to even"},
        {0x3FFFFFFFu, 0x4000, "carry into the exponent: 2.0"},
        {0x3FFF8000u, 0x4000, "tie above odd 0x3FFF -> 2.0"},
        {0x7F7F7FFFu, 0x7F7F, "just below the tie above max finite 0x7F7F"},
        {0x7F7F8000u, 0x7F80, "tie above max finite (odd) -> inf"},
        {0x7F7FFFFFu, 0x7F80, "FLT_MAX -> inf"},
        {0xFF7FFFFFu, 0xFF80, "-FLT_MAX -> -inf"},
        {0x00008000u, 0x0000, "subnormal tie -> 0 (even)"},
        {0x00008001u, 0x0001, "subnormal just above half"},
        {0x00018000u, 0x0002, "subnormal tie above odd -> 0x0002"},
        {0x007FFFFFu, 0x0080, "largest f32 subnormal -> smallest normal"},
        {0x80000000u, 0x8000, "-0"},
        {0x7F800000u, 0x7F80, "inf stays"},
        {0xFF800000u, 0xFF80, "-inf stays"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint16_t got = tc_f32_to_bf16(f_bits(cases[i].in));
        UNIT_CHECK(got == cases[i].want, "f32 0x%08X (%s) -> 0x%04X, want 0x%04X", cases[i].in,
                   cases[i].why, got, cases[i].want);
    }
    /* NaN stays a quiet NaN of the same sign; a naive +0x7FFF on 0x7FFFFFFF would carry into
     * the sign bit, on 0x7F800001 it would leave inf after truncation. */
    static const uint32_t nans[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800001u,
                                    0x7FFFFFFFu, 0xFFFFFFFFu, 0x7F808000u};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        uint16_t got = tc_f32_to_bf16(f_bits(nans[i]));
        UNIT_CHECK((got & 0x7F80) == 0x7F80 && (got & 0x7F) != 0 && (got & 0x40) &&
                       (got >> 15) == (nans[i] >> 31),
                   "NaN 0x%08X -> 0x%04X", nans[i], got);
    }
    /* bf16 -> f32 is the bit shift; every non-NaN bf16 round-trips */
    for (uint32_t b = 0; b < 65536; b++) {
        float f = tc_bf16_to_f32((uint16_t)b);
        UNIT_CHECK(tc_f32_bits(f) == b << 16, "bf16 0x%04X -> f32 0x%08X", b, tc_f32_bits(f));
        uint16_t back = tc_f32_to_bf16(f);
        if (isnan(f))
            UNIT_CHECK((back & 0x7F80) == 0x7F80 && (back & 0x7F), "0x%04X", b);
        else
            UNIT_CHECK(back == b, "bf16 0x%04X -> f32 -> 0x%04X", b, back);
    }
    /* random finite patterns against the round-to-nearest rule written out on the low half */
    tc_rng rng;
    tc_rng_seed(&rng, 777);
    for (int i = 0; i < 1000000; i++) {
        uint32_t u = (uint32_t)tc_rng_next_u64(&rng);
        if ((u & 0x7F800000u) == 0x7F800000u) continue;
        uint32_t low = u & 0xFFFFu, trunc = u >> 16;
        uint32_t want = low > 0x8000u || (low == 0x8000u && (trunc & 1u)) ? trunc + 1u : trunc;
        uint16_t got = tc_f32_to_bf16(f_bits(u));
        UNIT_CHECK(got == want, "f32 0x%08X -> 0x%04X, want 0x%04X", u, got, want);
    }
    return 0;
}

/* ---- tf32 ---------------------------------------------------------------------------------- */

static int unit_tf32_rounding_edges(void)
{
    /* tf32 keeps 10 mantissa bits: bit 13 is its ulp, bit 12 (0x1000) half an ulp. */
    static const struct {
        uint32_t in, rne, rna, rz;
        const char *why;
    } cases[] = {
        {0x3F800000u, 0x3F800000u, 0x3F800000u, 0x3F800000u, "1.0"},
        {0x3F801000u, 0x3F800000u, 0x3F802000u, 0x3F800000u, "1 + 2^-11: tie; even / away"},
        {0x3F803000u, 0x3F804000u, 0x3F804000u, 0x3F802000u, "tie above odd: both up"},
        {0xBF801000u, 0xBF800000u, 0xBF802000u, 0xBF800000u, "-(1 + 2^-11): away = more negative"},
        {0x3F800FFFu, 0x3F800000u, 0x3F800000u, 0x3F800000u, "just below half"},
        {0x3F801001u, 0x3F802000u, 0x3F802000u, 0x3F800000u, "just above half"},
        {0x3F801FFFu, 0x3F802000u, 0x3F802000u, 0x3F800000u, "rz truncates"},
        {0x3FFFFFFFu, 0x40000000u, 0x40000000u, 0x3FFFE000u, "carry into the exponent: 2.0"},
        {0x3FFFF000u, 0x40000000u, 0x40000000u, 0x3FFFE000u, "tie above odd max mantissa -> 2.0"},
        {0x7F7FFFFFu, 0x7F800000u, 0x7F800000u, 0x7F7FE000u, "FLT_MAX: inf for rne/rna, not rz"},
        {0x7F7FF000u, 0x7F800000u, 0x7F800000u, 0x7F7FE000u, "tie above odd max tf32 -> inf"},
        {0x7F7FEFFFu, 0x7F7FE000u, 0x7F7FE000u, 0x7F7FE000u, "just below that tie"},
        {0xFF7FFFFFu, 0xFF800000u, 0xFF800000u, 0xFF7FE000u, "-FLT_MAX"},
        {0x00001000u, 0x00000000u, 0x00002000u, 0x00000000u, "subnormal tie"},
        {0x00003000u, 0x00004000u, 0x00004000u, 0x00002000u, "subnormal tie above odd"},
        {0x00000001u, 0x00000000u, 0x00000000u, 0x00000000u, "smallest subnormal"},
        {0x007FFFFFu, 0x00800000u, 0x00800000u, 0x007FE000u,
         "largest subnormal -> smallest normal"},
        {0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u, "-0"},
        {0x7F800000u, 0x7F800000u, 0x7F800000u, 0x7F800000u, "inf"},
        {0xFF800000u, 0xFF800000u, 0xFF800000u, 0xFF800000u, "-inf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float x = f_bits(cases[i].in);
        uint32_t rne = tc_f32_bits(tc_f32_to_tf32_rne(x));
        uint32_t rna = tc_f32_bits(tc_f32_to_tf32_rna(x));
        uint32_t rz = tc_f32_bits(tc_f32_to_tf32_rz(x));
        UNIT_CHECK(rne == cases[i].rne, "rne 0x%08X (%s) -> 0x%08X, want 0x%08X", cases[i].in,
                   cases[i].why, rne, cases[i].rne);
        UNIT_CHECK(rna == cases[i].rna, "rna 0x%08X (%s) -> 0x%08X, want 0x%08X", cases[i].in,
                   cases[i].why, rna, cases[i].rna);
        UNIT_CHECK(rz == cases[i].rz, "rz 0x%08X (%s) -> 0x%08X, want 0x%08X", cases[i].in,
                   cases[i].why, rz, cases[i].rz);
    }
    /* NaN stays NaN with its sign and the low 13 bits zero: 0x7F800001's payload lives only in
     * the cleared bits, 0x7FFFFFFF would carry out of the mantissa if rounded. */
    static const uint32_t nans[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800001u,
                                    0x7FFFFFFFu, 0xFFFFFFFFu, 0x7F801000u};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        float x = f_bits(nans[i]);
        float r[3] = {tc_f32_to_tf32_rne(x), tc_f32_to_tf32_rna(x), tc_f32_to_tf32_rz(x)};
        for (int k = 0; k < 3; k++) {
            uint32_t b = tc_f32_bits(r[k]);
            UNIT_CHECK(isnan(r[k]) && (b >> 31) == (nans[i] >> 31) && (b & 0x1FFFu) == 0,
                       "NaN 0x%08X, mode %d -> 0x%08X", nans[i], k, b);
        }
    }
    /* random finite patterns: rz only clears the low 13 bits; rne/rna are rz or rz plus one tf32
     * ulp on the magnitude, chosen by the low 13 bits */
    tc_rng rng;
    tc_rng_seed(&rng, 4242);
    for (int i = 0; i < 1000000; i++) {
        uint32_t u = (uint32_t)tc_rng_next_u64(&rng);
        if ((u & 0x7F800000u) == 0x7F800000u) continue;
        float x = f_bits(u);
        uint32_t trunc = u & ~0x1FFFu, low = u & 0x1FFFu;
        uint32_t want_rne =
            low > 0x1000u || (low == 0x1000u && (u & 0x2000u)) ? trunc + 0x2000u : trunc;
        uint32_t want_rna = low >= 0x1000u ? trunc + 0x2000u : trunc;
        uint32_t rne = tc_f32_bits(tc_f32_to_tf32_rne(x));
        uint32_t rna = tc_f32_bits(tc_f32_to_tf32_rna(x));
        uint32_t rz = tc_f32_bits(tc_f32_to_tf32_rz(x));
        UNIT_CHECK(rz == trunc, "rz 0x%08X -> 0x%08X", u, rz);
        UNIT_CHECK(rne == want_rne, "rne 0x%08X -> 0x%08X, want 0x%08X", u, rne, want_rne);
        UNIT_CHECK(rna == want_rna, "rna 0x%08X -> 0x%08X, want 0x%08X", u, rna, want_rna);
    }
    return 0;
}

/* The 3xTF32 split of chapter 04, modelled on the host (cvt.rna = tc_f32_to_tf32_rna): x = big +
 * small + r with big = tf32(x), small = tf32(x - big). For 2^e <= |x| < 2^(e+1): x - big is exact
 * in f32 (Sterbenz), |small| <= 2^(e-11) and |r| <= 2^(e-23). A product computed as
 * big_a*big_b + big_a*small_b + small_a*big_b is then within 2^-21 (1 + 2^-10) |a b| of a*b: the
 * bound behind U_3XTF32 in common/verify.c. Also checks that the bound is nearly reached (it is
 * not a vacuous bound) and that dropping small_a*small_b is what dominates it. */
static void split3(float x, float *big, float *small, float *rest)
{
    *big = tc_f32_to_tf32_rna(x);
    float d = x - *big;
    *small = tc_f32_to_tf32_rna(d);
    *rest = d - *small;
}

static int unit_tf32_split_error_bound(void)
{
    tc_rng rng;
    tc_rng_seed(&rng, 303);
    double worst = 0;
    for (int i = 0; i < 1000000; i++) {
        float x[2];
        for (int k = 0; k < 2; k++) /* normal values over a wide range of exponents */
            x[k] = ldexpf(tc_rng_uniform(&rng, 1.0f, 2.0f), tc_rng_int(&rng, -60, 60)) *
                   (tc_rng_next_u64(&rng) & 1 ? -1.0f : 1.0f);
        float big[2], small[2], rest[2];
        for (int k = 0; k < 2; k++) {
            split3(x[k], &big[k], &small[k], &rest[k]);
            int e = ilogbf(x[k]);
            UNIT_CHECK((tc_f32_bits(big[k]) & 0x1FFFu) == 0 &&
                           (tc_f32_bits(small[k]) & 0x1FFFu) == 0,
                       "x = %a: big %a or small %a is not a tf32 value", x[k], big[k], small[k]);
            UNIT_CHECK((double)x[k] == (double)big[k] + (double)small[k] + (double)rest[k],
                       "x = %a: the split is not exact", x[k]);
            UNIT_CHECK(fabs(small[k]) <= ldexp(1.0, e - 11), "x = %a: |small| = %a", x[k],
                       small[k]);
            UNIT_CHECK(fabs(rest[k]) <= ldexp(1.0, e - 23), "x = %a: |rest| = %a", x[k], rest[k]);
        }
        /* every term is exact in double (at most 22 + 22 significant bits, 34 bits apart) */
        double exact = (double)x[0] * (double)x[1];
        double three =
            (double)big[0] * big[1] + (double)big[0] * small[1] + (double)small[0] * big[1];
        double ratio = fabs(three - exact) / fabs(exact);
        UNIT_CHECK(ratio <= 0x1p-21 * (1 + 0x1p-10), "a = %a, b = %a: relative error %g > 2^-21",
                   x[0], x[1], ratio);
        if (ratio > worst) worst = ratio;
    }
    /* seed 303 reaches 0.89 of it */
    UNIT_CHECK(worst > 0.75 * 0x1p-21, "largest error %g: the bound 2^-21 is far from reached",
               worst);
    return 0;
}

/* ---- fp8 ----------------------------------------------------------------------------------- */

static int unit_fp8_conversions(void)
{
    /* decode all 256 codes of each format against the field formula; round-trip the rest */
    for (uint32_t c = 0; c < 256; c++) {
        double ref = ref_e4m3((uint8_t)c);
        float f = tc_e4m3_to_f32((uint8_t)c);
        if (isnan(ref)) {
            UNIT_CHECK(isnan(f) && !signbit(f) == !signbit(ref), "e4m3 0x%02X -> %g", c, (double)f);
            uint8_t back = tc_f32_to_e4m3(f);
            UNIT_CHECK(back == c, "e4m3 NaN 0x%02X -> f32 -> 0x%02X", c, back);
            continue;
        }
        UNIT_CHECK((double)f == ref && !signbit(f) == !signbit(ref),
                   "e4m3 0x%02X -> %.17g, reference %.17g", c, (double)f, ref);
        uint8_t back = tc_f32_to_e4m3(f);
        UNIT_CHECK(back == c, "e4m3 0x%02X -> f32 -> 0x%02X", c, back);
    }
    for (uint32_t c = 0; c < 256; c++) {
        double ref = ref_e5m2((uint8_t)c);
        float f = tc_e5m2_to_f32((uint8_t)c);
        uint8_t back = tc_f32_to_e5m2(f);
        if (isnan(ref)) {
            UNIT_CHECK(isnan(f) && !signbit(f) == !signbit(ref), "e5m2 0x%02X -> %g", c, (double)f);
            UNIT_CHECK((back & 0x7C) == 0x7C && (back & 3) && (back & 0x80) == (c & 0x80),
                       "e5m2 NaN 0x%02X -> f32 -> 0x%02X", c, back);
            continue;
        }
        UNIT_CHECK((double)f == ref && !signbit(f) == !signbit(ref),
                   "e5m2 0x%02X -> %.17g, reference %.17g", c, (double)f, ref);
        /* inf decodes to inf but encodes (satfinite) to the largest finite 0x7B */
        uint8_t want = (c & 0x7F) == 0x7C ? (uint8_t)((c & 0x80) | 0x7B) : (uint8_t)c;
        UNIT_CHECK(back == want, "e5m2 0x%02X -> f32 -> 0x%02X, want 0x%02X", c, back, want);
    }
    /* spot values of the decoders */
    UNIT_CHECK(tc_e4m3_to_f32(0x7E) == 448.0f, "e4m3 max");
    UNIT_CHECK(tc_e4m3_to_f32(0x38) == 1.0f, "e4m3 1.0");
    UNIT_CHECK(tc_e4m3_to_f32(0x01) == 0x1p-9f, "e4m3 smallest subnormal 2^-9");
    UNIT_CHECK(tc_e5m2_to_f32(0x7B) == 57344.0f, "e5m2 max");
    UNIT_CHECK(tc_e5m2_to_f32(0x01) == 0x1p-16f, "e5m2 smallest subnormal 2^-16");
    UNIT_CHECK(isinf(tc_e5m2_to_f32(0xFC)) && tc_e5m2_to_f32(0xFC) < 0, "e5m2 -inf");

    /* e4m3: 1.0 = 0x38, ulp at [1,2) = 2^-3; smallest normal 2^-6 = 0x08; subnormal ulp 2^-9 */
    static const struct {
        float in;
        uint8_t want;
        const char *why;
    } e4[] = {
        {1000.0f, 0x7E, "1000 saturates to 448"},
        {-1e9f, 0xFE, "-1e9 saturates to -448"},
        {INFINITY, 0x7E, "inf -> 448 (satfinite)"},
        {-INFINITY, 0xFE, "-inf -> -448"},
        {448.0f, 0x7E, "448"},
        {464.0f, 0x7E, "464 (halfway to 480) saturates"},
        {1.0625f, 0x38, "1 + 2^-4: tie, 0x38 even"},
        {1.1875f, 0x3A, "1 + 3*2^-4: tie above odd 0x39 -> 1.25"},
        {1.0626f, 0x39, "just above the tie"},
        {0x1p-9f, 0x01, "2^-9: smallest subnormal"},
        {0x1p-10f, 0x00, "2^-10: tie -> 0"},
        {0x1.0002p-10f, 0x01, "just above 2^-10"},
        {-0x1p-10f, 0x80, "-2^-10 -> -0"},
        {0x3p-10f, 0x02, "1.5*2^-9: tie above odd 1 -> 2"},
        {0x7.8p-9f, 0x08, "7.5*2^-9: tie above the largest subnormal -> 2^-6"},
        {0x7p-9f, 0x07, "largest subnormal"},
        {-0.0f, 0x80, "-0"},
    };
    for (size_t i = 0; i < sizeof e4 / sizeof e4[0]; i++) {
        uint8_t got = tc_f32_to_e4m3(e4[i].in);
        UNIT_CHECK(got == e4[i].want, "e4m3(%g) (%s) -> 0x%02X, want 0x%02X", (double)e4[i].in,
                   e4[i].why, got, e4[i].want);
    }
    /* e5m2: 1.0 = 0x3C, ulp at [1,2) = 2^-2; smallest normal 2^-14 = 0x04; subnormal ulp 2^-16 */
    static const struct {
        float in;
        uint8_t want;
        const char *why;
    } e5[] = {
        {60000.0f, 0x7B, "60000 saturates to 57344"},
        {-1e9f, 0xFB, "-1e9 -> -57344"},
        {61440.0f, 0x7B, "61440 (halfway to 65536) saturates"},
        {INFINITY, 0x7B, "inf -> 57344 (satfinite)"},
        {-INFINITY, 0xFB, "-inf -> -57344"},
        {57344.0f, 0x7B, "57344"},
        {1.125f, 0x3C, "1 + 2^-3: tie, 0x3C even"},
        {1.375f, 0x3E, "1 + 3*2^-3: tie above odd 0x3D -> 1.5"},
        {1.126f, 0x3D, "just above the tie"},
        {0x1p-16f, 0x01, "2^-16: smallest subnormal"},
        {0x1p-17f, 0x00, "2^-17: tie -> 0"},
        {0x1.0002p-17f, 0x01, "just above 2^-17"},
        {0x3.8p-16f, 0x04, "3.5*2^-16: tie above the largest subnormal -> 2^-14"},
        {-0.0f, 0x80, "-0"},
    };
    for (size_t i = 0; i < sizeof e5 / sizeof e5[0]; i++) {
        uint8_t got = tc_f32_to_e5m2(e5[i].in);
        UNIT_CHECK(got == e5[i].want, "e5m2(%g) (%s) -> 0x%02X, want 0x%02X", (double)e5[i].in,
                   e5[i].why, got, e5[i].want);
    }
    /* NaN -> NaN with sign */
    UNIT_CHECK(tc_f32_to_e4m3(NAN) == 0x7F, "e4m3(NaN) = 0x%02X", tc_f32_to_e4m3(NAN));
    UNIT_CHECK(tc_f32_to_e4m3(f_bits(0xFF800001u)) == 0xFF, "e4m3(-NaN)");
    {
        uint8_t p = tc_f32_to_e5m2(NAN), n = tc_f32_to_e5m2(f_bits(0xFF800001u));
        UNIT_CHECK(p == 0x7E || p == 0x7F, "e5m2(NaN) = 0x%02X", p);
        UNIT_CHECK(n == 0xFE || n == 0xFF, "e5m2(-NaN) = 0x%02X", n);
    }

    /* random values against the nearest-neighbour reference; the overflow index (the value
     * one ulp above max: 480 / 65536) maps to the saturated max code */
    double t4[0x7F], t5[0x7C];
    for (int c = 0; c < 0x7F; c++) t4[c] = ref_e4m3((uint8_t)c);
    for (int c = 0; c < 0x7C; c++) t5[c] = ref_e5m2((uint8_t)c);
    tc_rng rng;
    tc_rng_seed(&rng, 88);
    for (int i = 0; i < 2000000; i++) {
        uint64_t r = tc_rng_next_u64(&rng);
        uint32_t u = (uint32_t)r;
        if (i & 1) /* exponents 2^-27 .. 2^18 around both formats' ranges */
            u = (u & 0x807FFFFFu) | ((100u + (uint32_t)(r >> 32) % 46u) << 23);
        float x = f_bits(u);
        if (isnan(x)) continue;
        uint32_t sign = (u >> 24) & 0x80u;
        double ax = fabs((double)x);
        int i4 = ref_round(t4, 0x7F, 480.0, ax);
        int i5 = ref_round(t5, 0x7C, 65536.0, ax);
        uint8_t w4 = (uint8_t)(sign | (uint32_t)(i4 > 0x7E ? 0x7E : i4));
        uint8_t w5 = (uint8_t)(sign | (uint32_t)(i5 > 0x7B ? 0x7B : i5));
        uint8_t g4 = tc_f32_to_e4m3(x), g5 = tc_f32_to_e5m2(x);
        UNIT_CHECK(g4 == w4, "e4m3(0x%08X = %.9g) = 0x%02X, reference 0x%02X", u, (double)x, g4,
                   w4);
        UNIT_CHECK(g5 == w5, "e5m2(0x%08X = %.9g) = 0x%02X, reference 0x%02X", u, (double)x, g5,
                   w5);
    }
    return 0;
}

/* ---- int8 ---------------------------------------------------------------------------------- */

static int unit_i8_saturation(void)
{
    static const struct {
        float in;
        int want;
    } cases[] = {
        {127.5f, 127}, /* would round to 128 (even): saturates */
        {126.5f, 126}, /* tie to even */
        {125.5f, 126}, /* tie to even */
        {-128.7f, -128}, {-129.0f, -128},   {-127.5f, -128}, /* tie to even -128 */
        {-128.5f, -128},                                     /* tie to even -128 */
        {2.5f, 2},       {-2.5f, -2},       {1.5f, 2},       {-1.5f, -2},    {0.5f, 0},
        {-0.5f, 0},      {0.5000001f, 1},   {0.4999999f, 0}, {-0.7f, -1},    {3.49f, 3},
        {3.51f, 4},      {0.0f, 0},         {-0.0f, 0},      {0x1p-149f, 0}, {255.9f, 127},
        {256.0f, 127},   {-256.0f, -128},   {1e30f, 127},    {-1e30f, -128}, {100.0f, 100},
        {INFINITY, 127}, {-INFINITY, -128}, {NAN, 0},        {-NAN, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = tc_f32_to_i8_sat(cases[i].in);
        UNIT_CHECK(got == cases[i].want, "i8(%.9g) = %d, want %d", (double)cases[i].in, got,
                   cases[i].want);
    }
    UNIT_CHECK(tc_f32_to_i8_sat(f_bits(0x7F800001u)) == 0, "signaling NaN");
    /* random values in (-300, 300) against floor-based rounding in double */
    tc_rng rng;
    tc_rng_seed(&rng, 9);
    for (int i = 0; i < 1000000; i++) {
        float x = tc_rng_uniform(&rng, -300.0f, 300.0f);
        if (i % 4 == 1) x = (float)tc_rng_int(&rng, -260, 260) + 0.5f; /* exact ties */
        double fl = floor((double)x), d = (double)x - fl;
        double r = d > 0.5 ? fl + 1 : d < 0.5 ? fl : (fmod(fl, 2.0) == 0.0 ? fl : fl + 1);
        int want = r > 127 ? 127 : r < -128 ? -128 : (int)r;
        int got = tc_f32_to_i8_sat(x);
        UNIT_CHECK(got == want, "i8(%.9g) = %d, want %d", (double)x, got, want);
    }
    return 0;
}

/* ---- RNG ----------------------------------------------------------------------------------- */

static int unit_rng_determinism(void)
{
    tc_rng a, b;
    /* splitmix64 with seed 0: the published reference sequence starts 0xE220A8397B1DCDAF,
     * 0x6E789E6AA1B965F4, 0x06C45D188009454F. */
    tc_rng_seed(&a, 0);
    UNIT_CHECK(a.s[0] == 0xE220A8397B1DCDAFull && a.s[1] == 0x6E789E6AA1B965F4ull &&
                   a.s[2] == 0x06C45D188009454Full,
               "splitmix64(0) state %016llX %016llX %016llX", (unsigned long long)a.s[0],
               (unsigned long long)a.s[1], (unsigned long long)a.s[2]);
    /* Seed 1, splitmix64 by hand (computed independently with Python big integers):
     *   x1 = 1 + 0x9E3779B97F4A7C15                 = 0x9E3779B97F4A7C16
     *   z  = (x1 ^ x1>>30) * 0xBF58476D1CE4E5B9     = 0xAD70FC62AE96589B
     *   z  = (z  ^ z >>27) * 0x94D049BB133111EB     = 0x910A2DEDAB16071A
     *   s0 = z ^ z>>31                              = 0x910A2DEC89025CC1
     * and likewise s1 = 0xBEEB8DA1658EEC67, s2 = 0xF893A2EEFB32555E, s3 = 0x71C18690EE42C90B.
     * xoshiro256** first output = rotl(s1 * 5, 7) * 9:
     *   s1 * 5 = 0xBA99C426FBCA9E03, rotl 7 = 0x4CE2137DE54F01DD, * 9 = 0xB3F2AF6D0FC710C5;
     * then 0x853B559647364CEA. */
    tc_rng_seed(&a, 1);
    UNIT_CHECK(a.s[0] == 0x910A2DEC89025CC1ull && a.s[1] == 0xBEEB8DA1658EEC67ull &&
                   a.s[2] == 0xF893A2EEFB32555Eull && a.s[3] == 0x71C18690EE42C90Bull,
               "seed 1 state %016llX %016llX %016llX %016llX", (unsigned long long)a.s[0],
               (unsigned long long)a.s[1], (unsigned long long)a.s[2], (unsigned long long)a.s[3]);
    uint64_t v0 = tc_rng_next_u64(&a), v1 = tc_rng_next_u64(&a);
    UNIT_CHECK(v0 == 0xB3F2AF6D0FC710C5ull && v1 == 0x853B559647364CEAull,
               "seed 1 outputs %016llX %016llX", (unsigned long long)v0, (unsigned long long)v1);
    /* first uniform01 for seed 1: top 24 bits 0xB3F2AF = 11793071, / 2^24 */
    tc_rng_seed(&a, 1);
    UNIT_CHECK(tc_rng_uniform01(&a) == 11793071.0f * 0x1p-24f, "first uniform01 of seed 1");

    /* same seed, same 1000 values (in all the output forms); different seeds differ */
    tc_rng_seed(&a, 2024);
    tc_rng_seed(&b, 2024);
    for (int i = 0; i < 1000; i++) {
        uint64_t x = tc_rng_next_u64(&a), y = tc_rng_next_u64(&b);
        UNIT_CHECK(x == y, "value %d differs", i);
        float fa = tc_rng_uniform(&a, -1.0f, 1.0f), fb = tc_rng_uniform(&b, -1.0f, 1.0f);
        UNIT_CHECK(tc_f32_bits(fa) == tc_f32_bits(fb), "uniform %d differs", i);
        UNIT_CHECK(tc_rng_int(&a, -5, 17) == tc_rng_int(&b, -5, 17), "int %d differs", i);
    }
    tc_rng_seed(&a, 2024);
    tc_rng_seed(&b, 2025);
    int same = 0;
    for (int i = 0; i < 1000; i++) same += tc_rng_next_u64(&a) == tc_rng_next_u64(&b);
    UNIT_CHECK(same == 0, "seeds 2024 and 2025 agree on %d of 1000 values", same);

    /* uniform: within [lo, hi), multiples of 2^-24 for [0, 1), mean of [-1, 1) near 0 */
    tc_rng_seed(&a, 3);
    double sum = 0;
    const int n = 1000000;
    for (int i = 0; i < n; i++) {
        float u = tc_rng_uniform01(&a);
        UNIT_CHECK(u >= 0.0f && u < 1.0f, "uniform01 = %.9g", (double)u);
        double scaled = (double)u * 16777216.0;
        UNIT_CHECK(scaled == floor(scaled), "uniform01 = %.9g is not k*2^-24", (double)u);
        float v = tc_rng_uniform(&a, -1.0f, 1.0f);
        UNIT_CHECK(v >= -1.0f && v < 1.0f, "uniform(-1,1) = %.9g", (double)v);
        float w = tc_rng_uniform(&a, 3.0f, 7.5f);
        UNIT_CHECK(w >= 3.0f && w < 7.5f, "uniform(3,7.5) = %.9g", (double)w);
        sum += (double)v;
    }
    /* standard deviation of the mean: sqrt(1/3)/1000 = 5.8e-4, so 0.01 is ~17 sigma */
    UNIT_CHECK(fabs(sum / n) < 0.01, "mean of uniform(-1,1) = %g", sum / n);

    /* ints: [lo, hi] inclusive, both endpoints hit, nothing outside */
    int hits[7] = {0};
    for (int i = 0; i < 10000; i++) {
        int32_t k = tc_rng_int(&a, -3, 3);
        UNIT_CHECK(k >= -3 && k <= 3, "tc_rng_int(-3, 3) = %d", (int)k);
        hits[k + 3]++;
    }
    for (int k = 0; k < 7; k++)
        UNIT_CHECK(hits[k] > 1000 && hits[k] < 1900,
                   "value %d hit %d times of 10000 (expect ~1429)", k - 3, hits[k]);
    UNIT_CHECK(tc_rng_int(&a, 5, 5) == 5, "degenerate range");
    int saw_neg = 0, saw_pos = 0;
    for (int i = 0; i < 100; i++) { /* the full int32 range must not overflow */
        int32_t k = tc_rng_int(&a, INT32_MIN, INT32_MAX);
        saw_neg |= k < 0;
        saw_pos |= k > 0;
    }
    UNIT_CHECK(saw_neg && saw_pos, "full-range ints one-sided");
    /* Unbiasedness: for range R = 3*2^30 the multiply-shift maps 32 random bits x to
     * floor(3x/4), so without rejection the offsets r = 0 mod 3 (x = 0 mod 4 and x = 1 mod 4)
     * would come up half the time instead of a third. */
    int mod3 = 0;
    const int draws = 30000;
    for (int i = 0; i < draws; i++) {
        /* [-2^31, 2^30 - 1]: 3*2^30 values */
        int64_t r = (int64_t)tc_rng_int(&a, INT32_MIN, 0x3FFFFFFF) - (int64_t)INT32_MIN;
        mod3 += r % 3 == 0;
    }
    /* expect 10000, standard deviation 82 */
    UNIT_CHECK(mod3 > 9400 && mod3 < 10600, "%d of %d offsets are 0 mod 3 (want ~1/3)", mod3,
               draws);
    /* a range where lo + (hi - lo) * u rounds onto hi for u > 3/4: hi = 1 + 2^-22, so
     * (hi - lo) * u < 2^-22 but 1 + that rounds to a multiple of 2^-23 */
    for (int i = 0; i < 1000; i++) {
        float w = tc_rng_uniform(&a, 1.0f, 1.0f + 0x1p-22f);
        UNIT_CHECK(w >= 1.0f && w < 1.0f + 0x1p-22f, "uniform(1, 1+2^-22) = %a", (double)w);
    }
    return 0;
}

/* ---- f64 -> f16 with one rounding, and the fma.rn.f16 model ------------------------------- */

/* every finite f16 value converts to itself; midpoints between neighbours go to the even code,
 * and the doubles just beside a midpoint go to the nearer neighbour */
static int unit_f16_from_f64_and_fma(void)
{
    for (uint32_t h = 0; h < 0x7C00u; h++) {
        double v = ref_f16((uint16_t)h);
        double next = h < 0x7BFFu ? ref_f16((uint16_t)(h + 1)) : 65536.0; /* 65536: overflow */
        UNIT_CHECK(tc_f64_to_f16(v) == h, "%a -> 0x%04x, want 0x%04x", v, tc_f64_to_f16(v), h);
        UNIT_CHECK(tc_f64_to_f16(-v) == (h | 0x8000u), "-%a", v);
        double mid = 0.5 * (v + next); /* exact in double */
        uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
        UNIT_CHECK(tc_f64_to_f16(mid) == even, "midpoint %a -> 0x%04x, want 0x%04x", mid,
                   tc_f64_to_f16(mid), even);
        UNIT_CHECK(tc_f64_to_f16(nextafter(mid, 0.0)) == h, "just below midpoint %a", mid);
        UNIT_CHECK(tc_f64_to_f16(nextafter(mid, 1e9)) == h + 1, "just above midpoint %a", mid);
    }
    UNIT_CHECK(tc_f64_to_f16(1e6) == 0x7C00u && tc_f64_to_f16(-1e6) == 0xFC00u, "overflow");
    UNIT_CHECK(tc_f64_to_f16(1e-9) == 0 && tc_f64_to_f16(-1e-9) == 0x8000u, "underflow");

    /* fma against an exact integer model: every f16 value is an integer times 2^-24, so a*b + c
     * is the integer S = ia*ib + ic*2^24 times 2^-48 (at most ~2^81: __int128), and the result
     * is the f16 value nearest to S (ties to the even code), found by comparing integers. */
    tc_rng rng;
    tc_rng_seed(&rng, 99);
    for (int it = 0; it < 2000000; it++) {
        uint16_t a = (uint16_t)(tc_rng_next_u64(&rng) & 0xFFFFu),
                 b = (uint16_t)(tc_rng_next_u64(&rng) & 0xFFFFu),
                 c = (uint16_t)(tc_rng_next_u64(&rng) & 0xFFFFu);
        if (it % 4 == 0) b = (uint16_t)((b & 0x83FFu) | 0x3800u); /* |b| ~ 0.5..1: cancellation */
        if (((a >> 10) & 31) == 31 || ((b >> 10) & 31) == 31 || ((c >> 10) & 31) == 31) continue;
        __int128 ia = (__int128)ldexp(ref_f16(a), 24), ib = (__int128)ldexp(ref_f16(b), 24),
                 ic = (__int128)ldexp(ref_f16(c), 24);
        __int128 S = ia * ib + ic * ((__int128)1 << 24);
        uint16_t got = tc_f16_fma(a, b, c);
        if (S == 0) {
            uint16_t want = ((a ^ b) & 0x8000u) && (c & 0x8000u) ? 0x8000u : 0;
            UNIT_CHECK(got == want, "fma(0x%04x,0x%04x,0x%04x) zero: got 0x%04x", a, b, c, got);
            continue;
        }
        /* the nearest f16 by integer comparisons: the largest h with value(h) <= |S| (binary
         * search: magnitudes grow with the code), then h or h + 1, the code past 0x7BFF being
         * the overflow point 65536 = inf */
        int neg = S < 0;
        __int128 mag = neg ? -S : S;
        uint32_t lo = 0, hi = 0x7BFFu;
        while (lo < hi) {
            uint32_t mid = (lo + hi + 1) / 2;
            if (((__int128)ldexp(ref_f16((uint16_t)mid), 24) << 24) <= mag)
                lo = mid;
            else
                hi = mid - 1;
        }
        __int128 v = (__int128)ldexp(ref_f16((uint16_t)lo), 24) << 24;
        __int128 vn = lo < 0x7BFFu ? (__int128)ldexp(ref_f16((uint16_t)(lo + 1)), 24) << 24
                                   : (__int128)65536 << 48;
        __int128 dlo = mag - v, dhi = vn - mag;
        uint16_t best = (uint16_t)(dlo < dhi ? lo : dlo > dhi ? lo + 1 : (lo & 1) ? lo + 1 : lo);
        uint16_t want = (uint16_t)(best | (neg ? 0x8000u : 0));
        UNIT_CHECK(got == want, "fma(0x%04x,0x%04x,0x%04x) = 0x%04x, want 0x%04x", a, b, c, got,
                   want);
    }
    return 0;
}

static const tc_unit tests[] = {
    {.name = "f16_exhaustive", .fn = unit_f16_exhaustive},
    {.name = "f16_from_f32_edges", .fn = unit_f16_from_f32_edges},
    {.name = "bf16_rounding_edges", .fn = unit_bf16_rounding_edges},
    {.name = "tf32_rounding_edges", .fn = unit_tf32_rounding_edges},
    {.name = "tf32_split_error_bound", .fn = unit_tf32_split_error_bound},
    {.name = "fp8_conversions", .fn = unit_fp8_conversions},
    {.name = "i8_saturation", .fn = unit_i8_saturation},
    {.name = "f16_from_f64_and_fma", .fn = unit_f16_from_f64_and_fma},
    {.name = "rng_determinism", .fn = unit_rng_determinism},
};

int main(int argc, char **argv) { return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests)); }
