/* 07_int8_dp4a/test_correlator.c - CPU tests of 07_correlator's layouts and arithmetic (the index
 * formulas and host helpers of 07_int8_dp4a/correlator.h, which the kernels use too):
 *   - the baseline numbering and its inverse (also with the float estimate the kernels use);
 *   - the packed layout, byte for byte, with the zero padding of the last time block;
 *   - the int64 reference against complex arithmetic written out independently, and Hermitian;
 *   - a host model of the dp4a packing (byte permutes, one's complement, correction sum) read from
 *     the packed layout, equal to the reference on int8 edge values; a saturated "negated copy"
 *     is wrong for -128 (negative control);
 *   - a host model of the IMMA formulation (Re = XrXr' + XiXi', Im = XiXr' - XrXi' per 32-sample
 *     block) equal to the reference, and int32 headroom at T = 65535 with every value -128;
 *   - the FP32 exactness bound: FP32 accumulation is exact when the bound is <= 2^24, and a case
 *     past it is inexact but within the rounding bound. */
#include "unit.h"

#include "correlator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void fill(int8_t *x, size_t n, int edge, tc_rng *rng)
{
    static const int8_t edges[8] = {-128, -128, 127, 127, -127, 0, 1, -1};
    for (size_t i = 0; i < n; i++) {
        const uint64_t w = tc_rng_next_u64(rng);
        x[i] = edge ? edges[w & 7] : (int8_t)(uint8_t)(w & 0xFF);
    }
}

static int unit_corr_baseline_index_roundtrip(void)
{
    long b = 0;
    for (long i = 0; i < 3000; i++)
        for (long j = 0; j <= i; j++, b++) {
            UNIT_CHECK(corr_baseline(i, j) == b, "baseline(%ld,%ld) = %ld, want %ld", i, j,
                       corr_baseline(i, j), b);
            long ii, jj;
            corr_baseline_stations(b, &ii, &jj);
            UNIT_CHECK(ii == i && jj == j, "b=%ld -> (%ld,%ld), want (%ld,%ld)", b, ii, jj, i, j);
        }
    UNIT_CHECK(corr_baselines(3000) == b, "S(S+1)/2");
    /* the kernels estimate the row with a float square root; the correction makes it exact */
    for (long bb = 0; bb < (1L << 22); bb += 7) {
        const long est = (long)((sqrtf(8.0f * (float)bb + 1.0f) - 1.0f) * 0.5f);
        long i, j;
        corr_baseline_stations(bb, &i, &j);
        UNIT_CHECK(corr_triangle_row(bb, est) == i, "float estimate at b=%ld", bb);
    }
    /* wild estimates are corrected too; the largest baseline of the largest array */
    UNIT_CHECK(corr_triangle_row(5, 0) == 2 && corr_triangle_row(5, 100) == 2, "bad estimates");
    const long S = CORR_MAX_STATIONS, last = corr_baselines(S) - 1;
    long i, j;
    corr_baseline_stations(last, &i, &j);
    UNIT_CHECK(i == S - 1 && j == S - 1, "last baseline -> (%ld,%ld)", i, j);
    return 0;
}

static int unit_corr_pack_layout(void)
{
    const long S = 3, C = 2, T = 70, R = 2 * S, nb = corr_time_blocks(T);
    UNIT_CHECK(nb == 3, "70 samples -> 3 blocks of 32");
    UNIT_CHECK(corr_packed_bytes(S, C, T) == (size_t)(C * nb * R * 64), "packed size");
    const size_t n = (size_t)C * T * S * 4;
    int8_t *plain = (int8_t *)malloc(n), *packed = (int8_t *)malloc(corr_packed_bytes(S, C, T));
    tc_rng rng;
    tc_rng_seed(&rng, 7);
    fill(plain, n, 0, &rng);
    memset(packed, 0x55, corr_packed_bytes(S, C, T));
    corr_pack(plain, packed, S, C, T);
    for (long c = 0; c < C; c++)
        for (long b = 0; b < nb; b++)
            for (long s = 0; s < S; s++)
                for (int p = 0; p < 2; p++) {
                    /* the record of receiver 2s+p: R records per (channel, block), 64 bytes each */
                    const int8_t *rec = packed + ((c * nb + b) * R + 2 * s + p) * 64;
                    UNIT_CHECK(rec == packed + corr_packed_offset(R, nb, c, b, 2 * s + p),
                               "offset");
                    for (int k = 0; k < 32; k++) {
                        const long t = 32 * b + k;
                        const int8_t re = t < T ? plain[corr_plain_index(S, T, c, t, s, p)] : 0;
                        const int8_t im = t < T ? plain[corr_plain_index(S, T, c, t, s, p) + 1] : 0;
                        UNIT_CHECK(rec[k] == re && rec[32 + k] == im,
                                   "c=%ld t=%ld s=%ld p=%d: (%d,%d), want (%d,%d)", c, t, s, p,
                                   rec[k], rec[32 + k], re, im);
                    }
                }
    /* the plain layout is [c][t][s][p][re, im] */
    UNIT_CHECK(corr_plain_index(S, T, 1, 2, 1, 1) == (size_t)((((1 * T + 2) * S + 1) * 2 + 1) * 2),
               "plain index");
    free(plain);
    free(packed);
    return 0;
}

static int unit_corr_reference_matches_complex(void)
{
    const long S = 5, C = 2, T = 37;
    const size_t n = (size_t)C * T * S * 4;
    int8_t *x = (int8_t *)malloc(n);
    tc_rng rng;
    tc_rng_seed(&rng, 11);
    for (int edge = 0; edge < 2; edge++) {
        fill(x, n, edge, &rng);
        for (long c = 0; c < C; c++)
            for (long i = 0; i < S; i++)
                for (long j = 0; j < S; j++) {
                    int64_t v[8], bound[8], w[8];
                    corr_ref_baseline(x, S, T, c, i, j, v, bound);
                    corr_ref_baseline(x, S, T, c, j, i, w, NULL);
                    for (int p = 0; p < 2; p++)
                        for (int q = 0; q < 2; q++) {
                            /* (a + ib)(c - id) = (ac + bd) + i(bc - ad), in double, then
                             * |products| summed the same way */
                            double re = 0, im = 0, bre = 0, bim = 0;
                            for (long t = 0; t < T; t++) {
                                const int8_t *a = x + corr_plain_index(S, T, c, t, i, p);
                                const int8_t *b = x + corr_plain_index(S, T, c, t, j, q);
                                const double ar = a[0], ai = a[1], br = b[0], bi = -b[1];
                                re += ar * br - ai * bi;
                                im += ar * bi + ai * br;
                                bre += fabs(ar * br) + fabs(ai * bi);
                                bim += fabs(ar * bi) + fabs(ai * br);
                            }
                            const int e = 2 * (2 * p + q);
                            UNIT_CHECK(v[e] == (int64_t)re && v[e + 1] == (int64_t)im,
                                       "V(%ld,%ld)[%d][%d] = %lld%+lldi, want %g%+gi", i, j, p, q,
                                       (long long)v[e], (long long)v[e + 1], re, im);
                            UNIT_CHECK(bound[e] == (int64_t)bre && bound[e + 1] == (int64_t)bim,
                                       "bound");
                            /* Hermitian: V(j,i)[q][p] = conj V(i,j)[p][q] */
                            const int f = 2 * (2 * q + p);
                            UNIT_CHECK(w[f] == v[e] && w[f + 1] == -v[e + 1], "Hermitian");
                        }
                }
    }
    free(x);
    return 0;
}

/* ---- the dp4a formulation on the host -------------------------------------------------------- */
static uint32_t byte_perm(uint32_t x, uint32_t y, uint32_t s) /* CUDA __byte_perm, selectors 0-7 */
{
    const uint64_t v = ((uint64_t)y << 32) | x;
    uint32_t r = 0;
    for (int k = 0; k < 4; k++)
        r |= (uint32_t)((v >> (8 * ((s >> (4 * k)) & 7))) & 0xFF) << (8 * k);
    return r;
}
static int32_t dp4a(uint32_t a, uint32_t b, int32_t c) /* CUDA __dp4a, signed */
{
    for (int k = 0; k < 4; k++)
        c += (int32_t)(int8_t)(a >> (8 * k)) * (int32_t)(int8_t)(b >> (8 * k));
    return c;
}
static uint32_t word(const int8_t *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}
static int8_t sat_neg(int8_t v) { return v == -128 ? 127 : (int8_t)-v; }

/* V[c][i,j][p][q] from the packed layout the way corr_dp4a_kernel computes it (negated = 1: with
 * a saturated negated copy instead, the tempting wrong way) */
static void dp4a_model(const int8_t *packed, long S, long T, long c, long i, long j, int p, int q,
                       int negated, int32_t *re, int32_t *im)
{
    const long R = 2 * S, nb = corr_time_blocks(T);
    int32_t acc = 0, d = 0, colsum = 0;
    for (long b = 0; b < nb; b++) {
        const int8_t *ra = packed + corr_packed_offset(R, nb, c, b, 2 * i + p);
        const int8_t *rb = packed + corr_packed_offset(R, nb, c, b, 2 * j + q);
        for (int w4 = 0; w4 < 8; w4++) { /* words of four samples */
            const uint32_t are = word(ra + 4 * w4), aim = word(ra + 32 + 4 * w4);
            const uint32_t bre = word(rb + 4 * w4), bim = word(rb + 32 + 4 * w4);
            uint32_t nre = ~are;
            if (negated) {
                int8_t t[4];
                memcpy(t, &are, 4);
                for (int k = 0; k < 4; k++) t[k] = sat_neg(t[k]);
                memcpy(&nre, t, 4);
            }
            for (int h = 0; h < 2; h++) {
                const uint32_t sel = h ? 0x7362 : 0x5140;
                const uint32_t wa = byte_perm(are, aim, sel), wca = byte_perm(aim, nre, sel);
                const uint32_t wb = byte_perm(bre, bim, sel);
                acc = dp4a(wa, wb, acc);
                d = dp4a(wca, wb, d);
            }
            colsum = dp4a(bim, 0x01010101u, colsum);
        }
    }
    *re = acc;
    *im = negated ? d : d + colsum;
}

static int unit_corr_dp4a_packing_model(void)
{
    const long S = 4, C = 1, T = 100;
    const size_t n = (size_t)C * T * S * 4;
    int8_t *x = (int8_t *)malloc(n), *packed = (int8_t *)malloc(corr_packed_bytes(S, C, T));
    tc_rng rng;
    tc_rng_seed(&rng, 3);
    /* the words: (re0, im0, re1, im1) and (im0, ~re0, im1, ~re1) from planar bytes */
    UNIT_CHECK(byte_perm(0x03020100u, 0x13121110u, 0x5140) == 0x11011000u, "0x5140");
    UNIT_CHECK(byte_perm(0x03020100u, 0x13121110u, 0x7362) == 0x13031202u, "0x7362");
    UNIT_CHECK((int8_t) ~(uint8_t)(int8_t)-128 == 127 && (int8_t) ~(uint8_t)127 == -128,
               "one's complement stays in int8");
    int negated_wrong = 0;
    for (int edge = 0; edge < 2; edge++) {
        fill(x, n, edge, &rng);
        corr_pack(x, packed, S, C, T);
        for (long i = 0; i < S; i++)
            for (long j = 0; j <= i; j++) {
                int64_t v[8];
                corr_ref_baseline(x, S, T, 0, i, j, v, NULL);
                for (int e = 0; e < 4; e++) {
                    int32_t re, im;
                    dp4a_model(packed, S, T, 0, i, j, e / 2, e % 2, 0, &re, &im);
                    UNIT_CHECK(re == v[2 * e] && im == v[2 * e + 1],
                               "edge=%d (%ld,%ld) pols %d: %d%+di, want %lld%+lldi", edge, i, j, e,
                               re, im, (long long)v[2 * e], (long long)v[2 * e + 1]);
                    dp4a_model(packed, S, T, 0, i, j, e / 2, e % 2, 1, &re, &im);
                    negated_wrong += im != v[2 * e + 1];
                }
            }
    }
    /* negative control: -(-128) saturated to 127 must show on the edge values */
    UNIT_CHECK(negated_wrong > 0, "a saturated negated copy went unnoticed");
    free(x);
    free(packed);
    return 0;
}

/* ---- the IMMA formulation on the host -------------------------------------------------------- */
static int unit_corr_imma_formulation_model(void)
{
    const long S = 3, C = 2, T = 75, R = 2 * S, nb = corr_time_blocks(T);
    const size_t n = (size_t)C * T * S * 4;
    int8_t *x = (int8_t *)malloc(n), *packed = (int8_t *)malloc(corr_packed_bytes(S, C, T));
    tc_rng rng;
    tc_rng_seed(&rng, 5);
    fill(x, n, 1, &rng);
    corr_pack(x, packed, S, C, T);
    for (long c = 0; c < C; c++)
        for (long i = 0; i < S; i++)
            for (long j = 0; j <= i; j++)
                for (int p = 0; p < 2; p++)
                    for (int q = 0; q < 2; q++) {
                        /* A row = receiver 2i+p, B column = receiver 2j+q; k = the 32 samples of
                         * a block: bytes 0..31 (Xr) and 32..63 (Xi) of the records */
                        int64_t re = 0, P = 0, Q = 0;
                        for (long b = 0; b < nb; b++) {
                            const int8_t *ra = packed + corr_packed_offset(R, nb, c, b, 2 * i + p);
                            const int8_t *rb = packed + corr_packed_offset(R, nb, c, b, 2 * j + q);
                            for (int k = 0; k < 32; k++) {
                                re += ra[k] * rb[k] + ra[32 + k] * rb[32 + k];
                                P += ra[32 + k] * rb[k]; /* Xi Xr^T */
                                Q += ra[k] * rb[32 + k]; /* Xr Xi^T */
                            }
                        }
                        int64_t v[8];
                        corr_ref_baseline(x, S, T, c, i, j, v, NULL);
                        UNIT_CHECK(re == v[2 * (2 * p + q)] && P - Q == v[2 * (2 * p + q) + 1],
                                   "(%ld,%ld)[%d][%d]", i, j, p, q);
                    }
    free(x);
    free(packed);
    /* int32 headroom: every value -128, T = 65535: Re of an autocorrelation is the largest sum
     * the formulation makes (2^15 per sample, all positive), 2^31 - 2^15 <= INT32_MAX; P and Q
     * are 2^14 per sample; one more sample would reach 2^31 */
    const int64_t per_sample = 2 * 128 * 128, t_max = CORR_MAX_T;
    UNIT_CHECK(per_sample * t_max <= INT32_MAX, "T = 65535 fits");
    UNIT_CHECK(per_sample * (t_max + 1) > INT32_MAX, "T = 65536 would not");
    {
        const long S1 = 1, T1 = CORR_MAX_T;
        int8_t *m = (int8_t *)malloc((size_t)T1 * S1 * 4);
        memset(m, 0x80, (size_t)T1 * S1 * 4);
        int64_t v[8];
        corr_ref_baseline(m, S1, T1, 0, 0, 0, v, NULL);
        UNIT_CHECK(v[0] == (int64_t)INT32_MAX - 32767 && v[1] == 0, "Re = 2^31 - 2^15, Im = 0");
        free(m);
    }
    return 0;
}

/* ---- FP32 exactness -------------------------------------------------------------------------- */
/* the fp32 kernel's chain for one component: re += ar*br; re += ai*bi (fmaf), over t */
/* The FP32 check compares the kernel's result bit for bit with corr_fp32_emulate (the kernel's
 * FFMA chain on the host): below 2^24 that is the exact sum; past 2^24 it is not, but it lies
 * within the rounding bound; and a result that lost one time sample differs from it, even where
 * the rounding bound (which the check used before) is larger than that sample. */
static int unit_corr_fp32_exactness_bound(void)
{
    const long S = 3, T = 1024;
    int8_t *x = (int8_t *)malloc((size_t)T * S * 4);
    tc_rng rng;
    tc_rng_seed(&rng, 9);
    fill(x, (size_t)T * S * 4, 0, &rng);
    /* uniform int8, T = 1024: every bound below 2^24, every component exact */
    for (long i = 0; i < S; i++)
        for (long j = 0; j <= i; j++) {
            int64_t v[8], bound[8];
            float emu[8];
            corr_ref_baseline(x, S, T, 0, i, j, v, bound);
            corr_fp32_emulate(x, S, T, 0, i, j, emu);
            for (int e = 0; e < 8; e++) {
                UNIT_CHECK(bound[e] <= (1 << 24), "bound %lld at T=1024", (long long)bound[e]);
                UNIT_CHECK((double)emu[e] == (double)v[e], "fp32 inexact below 2^24");
            }
        }
    free(x);
    /* past 2^24: an autocorrelation of odd squares (127^2 + 1^2 = 16130 per sample; at 2^24
     * the float spacing is 2, so odd totals cannot be represented) */
    const long T2 = 4000;
    int8_t *y = (int8_t *)calloc((size_t)T2 * 4, 1);
    for (long t = 0; t < T2; t++) y[4 * t] = 127, y[4 * t + 1] = (int8_t)(t % 2 ? 1 : 0);
    int64_t v[8], bound[8];
    float emu[8], dropped[8];
    corr_ref_baseline(y, 1, T2, 0, 0, 0, v, bound);
    corr_fp32_emulate(y, 1, T2, 0, 0, 0, emu);
    const double nu = 2.0 * T2 * ldexp(1.0, -24), gamma = nu / (1 - nu);
    UNIT_CHECK(bound[0] > (1 << 24), "the case is past 2^24");
    UNIT_CHECK((double)emu[0] != (double)v[0], "fp32 should be inexact here: %.1f vs %lld", emu[0],
               (long long)v[0]);
    UNIT_CHECK(fabs((double)emu[0] - (double)v[0]) <= gamma * (double)bound[0],
               "error %g beyond the rounding bound %g", fabs((double)emu[0] - (double)v[0]),
               gamma * (double)bound[0]);
    /* negative control: the same data with one time sample lost (a kernel that skips it) */
    y[4 * 700] = y[4 * 700 + 1] = 0;
    corr_fp32_emulate(y, 1, T2, 0, 0, 0, dropped);
    const double lost = 127.0 * 127.0;
    UNIT_CHECK(lost <= gamma * (double)bound[0],
               "the case should show that the rounding bound (%g) alone would pass a lost sample",
               gamma * (double)bound[0]);
    UNIT_CHECK((double)dropped[0] != (double)emu[0],
               "a result missing one sample equals the emulation: the check would pass it");
    free(y);
    return 0;
}

static const tc_unit tests[] = {
    {.name = "corr_baseline_index_roundtrip", .fn = unit_corr_baseline_index_roundtrip},
    {.name = "corr_pack_layout", .fn = unit_corr_pack_layout},
    {.name = "corr_reference_matches_complex", .fn = unit_corr_reference_matches_complex},
    {.name = "corr_dp4a_packing_model", .fn = unit_corr_dp4a_packing_model},
    {.name = "corr_imma_formulation_model", .fn = unit_corr_imma_formulation_model},
    {.name = "corr_fp32_exactness_bound", .fn = unit_corr_fp32_exactness_bound},
};

int main(int argc, char **argv) { return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests)); }
