/* 09_emulated_precision/ozaki_model.c - see ozaki_model.h. */
#include "ozaki_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* ---- Ozaki scheme II ----------------------------------------------------------------------------- */
/* pairwise coprime, descending from 256: the int8 range holds their symmetric residues */
static const int oz2_moduli[OZ2_MAX_MODULI] = {OZ2_MODULI_LIST};

/* x^-1 mod m (x, m coprime), by the extended Euclidean algorithm */
static int inverse_mod(int x, int m)
{
    int r0 = m, r1 = x % m, s0 = 0, s1 = 1;
    while (r1 != 0) {
        const int q = r0 / r1, r2 = r0 - q * r1, s2 = s0 - q * s1;
        r0 = r1, r1 = r2, s0 = s1, s1 = s2;
    }
    return ((s0 % m) + m) % m; /* r0 == 1 */
}

/* double-double helpers: the error-free transformations */
static void two_sum(double a, double b, double *s, double *e)
{
    *s = a + b;
    const double v = *s - a;
    *e = (a - (*s - v)) + (b - v);
}
static void two_prod(double a, double b, double *p, double *e)
{
    *p = a * b;
    *e = fma(a, b, -*p);
}
void oz2_consts_init(oz2_consts *c, int n)
{
    c->n = n;
    c->p_hi = 1.0, c->p_lo = 0.0;
    c->log2_p = 0;
    for (int l = 0; l < n; l++) {
        const int m = oz2_moduli[l];
        c->m[l] = m;
        int q = 1; /* (P / m) mod m */
        for (int j = 0; j < n; j++)
            if (j != l) q = (int)((long)q * (oz2_moduli[j] % m) % m);
        c->inv[l] = inverse_mod(q, m);
        /* W = round(2^128 / m): 2^128 = w0 m + rest, rest in [1, m] */
        const unsigned __int128 w0 = ~(unsigned __int128)0 / (unsigned)m;
        const unsigned __int128 rest = ~(unsigned __int128)0 - w0 * (unsigned)m + 1;
        const unsigned __int128 w = w0 + (2 * rest >= (unsigned)m);
        for (int j = 0; j < 4; j++) c->w[l][j] = (uint32_t)(w >> (32 * j));
        double p, e; /* P *= m in double-double */
        two_prod(c->p_hi, m, &p, &e);
        e += c->p_lo * m;
        two_sum(p, e, &c->p_hi, &c->p_lo);
        c->log2_p += log2((double)m);
    }
}

long oz2_k_chunk(const oz2_consts *c, int k, int align)
{
    /* 2 Kc 2^(2k) < P, with a margin for the double-double P: Kc < P 2^(-2k-1) (1 - 2^-40) */
    const double by_crt = ldexp(c->p_hi, -2 * k - 1) * (1 - 0x1p-40);
    const double by_int32 = (0x1p31 - 1) / 0x1p14; /* |residue products| <= 128 * 128 */
    double kc = by_crt < by_int32 ? by_crt : by_int32;
    if (kc >= 0x1p40) kc = 0x1p40;
    const long kc_l = (long)floor(kc) / align * align;
    return kc_l;
}

int64_t oz2_scale(double x, int e, int k) { return (int64_t)trunc(ldexp(x, k - e)); }

int oz2_residue(int64_t v, int m)
{
    int r = (int)(v % m); /* the sign of v */
    if (r < 0) r += m;    /* [0, m) */
    return r >= (m + 1) / 2 ? r - m : r;
}

int oz2_reduce(int32_t c, int m, int inv)
{
    int r = (int)(c % m);
    if (r < 0) r += m;
    return (int)((long)r * inv % m);
}

double oz2_reconstruct(const oz2_consts *c, const uint8_t *t)
{
    uint64_t acc[4] = {0, 0, 0, 0}; /* t_l W_l, word by word: below 16 * 2^40, no carries yet */
    for (int l = 0; l < c->n; l++)
        for (int j = 0; j < 4; j++) acc[j] += (uint64_t)t[l] * c->w[l][j];
    return oz2_fixed_to_double(acc, c->p_hi, c->p_lo);
}

double oz2_dot(const oz2_consts *c, int k, const double *a, int ea, const double *b, int eb, long K,
               double *exact_hi, double *exact_lo)
{
    int32_t acc[OZ2_MAX_MODULI] = {0};
    __int128 exact = 0; /* |x y| < 2^106, K of them: well inside 2^127 for the K a chunk allows */
    for (long i = 0; i < K; i++) {
        const int64_t x = oz2_scale(a[i], ea, k), y = oz2_scale(b[i], eb, k);
        for (int l = 0; l < c->n; l++)
            acc[l] += oz2_residue(x, c->m[l]) * oz2_residue(y, c->m[l]); /* as the int8 GEMM */
        exact += (__int128)x * y;
    }
    uint8_t t[OZ2_MAX_MODULI];
    for (int l = 0; l < c->n; l++) t[l] = (uint8_t)oz2_reduce(acc[l], c->m[l], c->inv[l]);
    if (exact_hi) *exact_hi = (double)exact;
    if (exact_lo) *exact_lo = (double)(exact - (__int128)(double)exact);
    return ldexp(oz2_reconstruct(c, t), ea + eb - 2 * k);
}

double oz2_product_bound(int k) { return ldexp(1.0, 1 - k); }

/* ---- the fused rung --------------------------------------------------------------------------- */
void oz2_fused_consts_init(oz2_fused_consts *f, const oz2_consts *c)
{
    for (int l = 0; l < OZ2_MAX_MODULI; l++) {
        if (l >= c->n) { /* unused */
            f->magic[l] = f->shift[l] = 0;
            f->w[l][0] = f->w[l][1] = f->w[l][2] = 0;
            continue;
        }
        const uint32_t m = (uint32_t)c->m[l];
        f->magic[l] = (uint32_t)((1ull << 32) / m);
        const uint32_t bias = (uint32_t)((1ull << 31) % m); /* 2^31 mod m */
        f->shift[l] = (uint32_t)((m - bias) % m * (uint64_t)c->inv[l] % m);
        /* W' = round(2^96 / m): 2^96 = q m + rest */
        const unsigned __int128 two96 = (unsigned __int128)1 << 96;
        const unsigned __int128 q = two96 / m, rest = two96 - q * m;
        const unsigned __int128 w = q + (2 * rest >= m);
        for (int j = 0; j < 3; j++) f->w[l][j] = (uint32_t)(w >> (32 * j));
    }
}

double oz2_reconstruct96(const oz2_consts *c, const oz2_fused_consts *f, const uint8_t *t)
{
    uint32_t acc[3] = {0, 0, 0};
    for (int l = 0; l < c->n; l++) oz2_fixed96_add(acc, t[l], f->w[l]);
    return oz2_fixed96_to_double(acc, c->p_hi, c->p_lo);
}

/* the int32 sums of one K chunk [k0, k1), one per modulus: what the int8 GEMMs of the chunk make
 * (exact: the chunk is short enough for int32) */
static void chunk_residue_sums(const oz2_consts *c, int k, const double *a, int ea, const double *b,
                               int eb, long k0, long k1, int32_t acc[OZ2_MAX_MODULI])
{
    for (int l = 0; l < OZ2_MAX_MODULI; l++) acc[l] = 0;
    for (long i = k0; i < k1; i++) {
        const int64_t x = oz2_scale(a[i], ea, k), y = oz2_scale(b[i], eb, k);
        for (int l = 0; l < c->n; l++) acc[l] += oz2_residue(x, c->m[l]) * oz2_residue(y, c->m[l]);
    }
}

double oz2_fused_dot(const oz2_consts *c, const oz2_fused_consts *f, int k, const double *a, int ea,
                     const double *b, int eb, long K, long kc)
{
    double sum = 0;
    for (long k0 = 0; k0 < K; k0 += kc) {
        int32_t acc[OZ2_MAX_MODULI];
        chunk_residue_sums(c, k, a, ea, b, eb, k0, K < k0 + kc ? K : k0 + kc, acc);
        uint8_t t[OZ2_MAX_MODULI];
        for (int l = 0; l < c->n; l++)
            t[l] = (uint8_t)oz2_reduce_mul(acc[l], (uint32_t)c->m[l], f->magic[l],
                                           (uint32_t)c->inv[l], f->shift[l]);
        const double v = oz2_reconstruct96(c, f, t) * ldexp(1.0, -2 * k);
        sum = k0 == 0 ? v : sum + v;
    }
    return ldexp(sum, ea + eb);
}

/* ---- the fraction form ------------------------------------------------------------------------- */
void oz2_frac_consts_init(oz2_frac_consts *fr, const oz2_consts *c)
{
    for (int l = 0; l < OZ2_MAX_MODULI; l++) {
        fr->v[l][0] = fr->v[l][1] = fr->v[l][2] = 0;
        if (l >= c->n) continue; /* unused */
        /* V = round(2^96 inv / m): inv 2^96 = q m + rest (inv < m <= 256: below 2^104) */
        const unsigned __int128 m = (unsigned)c->m[l];
        const unsigned __int128 num = (unsigned __int128)(unsigned)c->inv[l] << 96;
        const unsigned __int128 q = num / m, rest = num - q * m;
        const unsigned __int128 v = q + (2 * rest >= m); /* below 2^96: inv < m */
        for (int j = 0; j < 3; j++) fr->v[l][j] = (uint32_t)(v >> (32 * j));
    }
    unsigned __int128 sum = 0; /* -2^31 (V_1 + ... + V_n) mod 2^96 */
    for (int l = 0; l < c->n; l++) {
        unsigned __int128 v = 0;
        for (int j = 0; j < 3; j++) v |= (unsigned __int128)fr->v[l][j] << (32 * j);
        sum += v;
    }
    const unsigned __int128 bias =
        ((unsigned __int128)0 - (sum << 31)) & ((unsigned __int128)-1 >> 32);
    for (int j = 0; j < 3; j++) fr->bias[j] = (uint32_t)(bias >> (32 * j));
}

double oz2_frac_dot(const oz2_consts *c, const oz2_frac_consts *fr, int k, const double *a, int ea,
                    const double *b, int eb, long K, long kc)
{
    double sum = 0;
    for (long k0 = 0; k0 < K; k0 += kc) {
        int32_t acc[OZ2_MAX_MODULI];
        chunk_residue_sums(c, k, a, ea, b, eb, k0, K < k0 + kc ? K : k0 + kc, acc);
        uint32_t f[3] = {0, 0, 0};
        for (int l = 0; l < c->n; l++) oz2_frac_add(f, acc[l], fr->v[l]);
        const double v = oz2_fixed96_to_double(f, c->p_hi, c->p_lo) * ldexp(1.0, -2 * k);
        sum = k0 == 0 ? v : sum + v;
    }
    return ldexp(sum, ea + eb);
}

/* element e of oz2_fused_mismatches's sample */
static void fused_sample(long e, long M, long N, long *i, long *j)
{
    if (M * N <= 256) {
        *i = e / N, *j = e % N;
        return;
    }
    const long edges = 7; /* 0, 63, 64, 127, 128, the middle, the last */
    const long at[7] = {0, 63, 64, 127, 128, -2, -1};
    if (e < edges * edges) {
        const long a = at[e / edges], b = at[e % edges];
        *i = a == -1 ? M - 1 : a == -2 ? M / 2 : a < M ? a : M - 1;
        *j = b == -1 ? N - 1 : b == -2 ? N / 2 : b < N ? b : N - 1;
        return;
    }
    const uint64_t h = (uint64_t)e * 0x9e3779b97f4a7c15ull; /* a fixed, spread-out choice */
    *i = (long)((h >> 32) % (uint64_t)M), *j = (long)((h & 0xffffffffu) % (uint64_t)N);
}

/* the sample's elements of C against alpha model(row i, column j), bit for bit */
typedef double (*oz2_element_fn)(const void *consts, long i, long j);
typedef struct {
    const oz2_consts *c;
    const void *model; /* oz2_fused_consts or oz2_frac_consts */
    int k;
    long kc, K;
    const double *A, *B;
    long lda, ldb;
} oz2_element_args;
static double fused_element(const void *args, long i, long j)
{
    const oz2_element_args *e = (const oz2_element_args *)args;
    const double *a = e->A + i * e->lda, *b = e->B + j * e->ldb;
    return oz2_fused_dot(e->c, (const oz2_fused_consts *)e->model, e->k, a, oz_exponent(a, e->K, 1),
                         b, oz_exponent(b, e->K, 1), e->K, e->kc);
}
static double frac_element(const void *args, long i, long j)
{
    const oz2_element_args *e = (const oz2_element_args *)args;
    const double *a = e->A + i * e->lda, *b = e->B + j * e->ldb;
    return oz2_frac_dot(e->c, (const oz2_frac_consts *)e->model, e->k, a, oz_exponent(a, e->K, 1),
                        b, oz_exponent(b, e->K, 1), e->K, e->kc);
}
static long element_mismatches(oz2_element_fn model, const oz2_element_args *args, const char *name,
                               long M, long N, const double *C, long ldc, double alpha,
                               char *message, size_t size)
{
    const long n = M * N <= 256 ? M * N : 256;
    long bad = 0;
    for (long e = 0; e < n; e++) {
        long i, j;
        fused_sample(e, M, N, &i, &j);
        const double want = alpha * model(args, i, j);
        const double got = C[i * ldc + j];
        if (memcmp(&got, &want, sizeof got) != 0 && bad++ == 0)
            snprintf(message, size,
                     "exact check: C(%ld,%ld) = %a, ozaki_model.c's %s %a (chunks of %ld)", i, j,
                     got, name, want, args->kc);
    }
    if (bad) {
        const size_t used = strlen(message);
        snprintf(message + used, size - used, "; %ld of %ld elements differ", bad, n);
    }
    return bad;
}

long oz2_fused_mismatches(const oz2_consts *c, const oz2_fused_consts *f, int k, long kc, long M,
                          long N, long K, const double *A, long lda, const double *B, long ldb,
                          const double *C, long ldc, double alpha, char *message, size_t size)
{
    const oz2_element_args args = {
        .c = c, .model = f, .k = k, .kc = kc, .K = K, .A = A, .B = B, .lda = lda, .ldb = ldb};
    return element_mismatches(fused_element, &args, "oz2_fused_dot", M, N, C, ldc, alpha, message,
                              size);
}

long oz2_frac_mismatches(const oz2_consts *c, const oz2_frac_consts *fr, int k, long kc, long M,
                         long N, long K, const double *A, long lda, const double *B, long ldb,
                         const double *C, long ldc, double alpha, char *message, size_t size)
{
    const oz2_element_args args = {
        .c = c, .model = fr, .k = k, .kc = kc, .K = K, .A = A, .B = B, .lda = lda, .ldb = ldb};
    return element_mismatches(frac_element, &args, "oz2_frac_dot", M, N, C, ldc, alpha, message,
                              size);
}
