/* 09_emulated_precision/ozaki_model.c - see ozaki_model.h. */
#include "ozaki_model.h"

#include <math.h>

int oz_exponent(const double *x, long n, long stride)
{
    double m = 0;
    for (long i = 0; i < n; i++) m = fmax(m, fabs(x[i * stride]));
    if (m == 0) return 0;
    int e;
    frexp(m, &e); /* m = f 2^e, f in [0.5, 1): m < 2^e */
    return e;
}

double oz_split(double x, int e, int s, int8_t *d)
{
    double r = ldexp(x, -e); /* |r| < 1 */
    for (int p = 0; p < s; p++) {
        const double y = ldexp(r, OZ_SLICE_BITS); /* |y| < 128, exact */
        const double t = trunc(y);                /* in [-127, 127] */
        d[p] = (int8_t)t;
        r = y - t; /* exact: the fraction of y; |r| < 1 */
    }
    return ldexp(r, -OZ_SLICE_BITS * s);
}

double oz_join(const int8_t *d, int e, int s)
{
    double x = 0;
    for (int p = s - 1; p >= 0; p--) x = ldexp(x + d[p], -OZ_SLICE_BITS);
    return ldexp(x, e);
}

double oz_dot(const double *a, int ea, const double *b, int eb, long K, int s, int64_t *diag)
{
    int64_t sums[2 * OZ_MAX_SLICES + 1] = {0};
    int8_t da[OZ_MAX_SLICES], db[OZ_MAX_SLICES];
    for (long k = 0; k < K; k++) {
        oz_split(a[k], ea, s, da);
        oz_split(b[k], eb, s, db);
        for (int p = 1; p <= s; p++)
            for (int q = 1; p + q <= s + 1; q++) sums[p + q] += (int64_t)da[p - 1] * db[q - 1];
    }
    /* the diagonals in double, the smallest first, then the scale: the GPU's order */
    double acc = 0;
    for (int t = s + 1; t >= 2; t--) acc += ldexp((double)sums[t], -OZ_SLICE_BITS * t);
    if (diag)
        for (int t = 2; t <= s + 1; t++) diag[t] = sums[t];
    return ldexp(acc, ea + eb);
}

double oz_product_bound(int s) { return (s + 2) * ldexp(1.0, -OZ_SLICE_BITS * s); }

long oz_k_exact_int32(int s)
{
    /* diagonal s + 1 sums s slice products per k, each at most 127^2 in magnitude */
    return (long)(2147483647L / (127L * 127L * s));
}

void oz_diagonal(int words, int t, int *first, int *b_first, int *count)
{
    const int p_lo = t - words > 1 ? t - words : 1, p_hi = t - 1 < words ? t - 1 : words;
    *count = p_hi >= p_lo ? p_hi - p_lo + 1 : 0;
    *first = p_lo - 1;             /* A's slot of slice p is p - 1 */
    *b_first = words - (t - p_lo); /* B's slot of slice q is words - q; q = t - p_lo first */
}
