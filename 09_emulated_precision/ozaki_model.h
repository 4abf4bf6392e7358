/* 09_emulated_precision/ozaki_model.h - the Ozaki scheme with int8 slices, as exact CPU code: what
 * v2_ozaki computes, step by step, for the unit tests and for the lesson.
 *
 * An FP64 product from int8 tensor cores. Each row i of A is scaled by a power of two, 2^-e_i,
 * so that every |A(i,k) 2^-e_i| < 1, and cut into s "slices" of 7 bits:
 *
 *     A(i,k) = 2^e_i ( sum_{p=1..s} D_p(i,k) 2^(-7p) + r ),   D_p(i,k) in [-127, 127], |r| < 2^(-7s)
 *
 * (d = trunc(128 x), x <- 128 x - d, s times: every step exact in double). B is cut the same way
 * by columns (exponent f_j, slices E_q). Then
 *
 *     (AB)(i,j) ~= 2^(e_i + f_j) sum_{p+q <= s+1} 2^(-7(p+q)) (D_p E_q)(i,j)
 *
 * Every D_p E_q is an int8 GEMM, exact in int32 while K * 127^2 < 2^31. The terms with p + q > s + 1
 * are smaller than the truncation r and are left out, so s(s+1)/2 int8 products remain. Grouped
 * by t = p + q ("diagonals"), sum_{p+q=t} D_p E_q is ONE int8 GEMM over t - 1 slices laid end to
 * end along k: [D_1 ... D_{t-1}] times [E_{t-1}; ...; E_1]. With A's slices stored in the order
 * D_1 .. D_s along k and B's in the order E_s .. E_1, diagonal t uses a prefix of A's slices and a
 * suffix of B's: s GEMMs, no copies. The diagonals are then added in double, the smallest first,
 * and the sum scaled by 2^(e_i + f_j): the only roundings of the whole scheme.
 *
 * Error (per product a b, relative to 2^(e_i + f_j) <= 4 |A row i|_max |B col j|_max): the
 * truncations r of a and b, and the dropped diagonals: at most (s + 2) 2^(-7s) (oz_product_bound). */
#ifndef OZAKI_MODEL_H
#define OZAKI_MODEL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OZ_SLICE_BITS 7
#define OZ_MAX_SLICES 10

/* e such that |x| < 2^e for every x of the n values x[0], x[stride], ...; the smallest such e
 * for the largest |x| (frexp's exponent), and 0 when every value is 0 */
int oz_exponent(const double *x, long n, long stride);

/* the s slices of x 2^-e (|x| < 2^e): d[0..s-1] = D_1 .. D_s; returns the rest r (|r| < 2^-7s,
 * in units of 2^e: x = 2^e (sum d[p-1] 2^(-7p) + r)) */
double oz_split(double x, int e, int s, int8_t *d);

/* 2^e sum_p d[p-1] 2^(-7p), exactly (s <= 7 keeps it within 53 bits) */
double oz_join(const int8_t *d, int e, int s);

/* One element of the emulated product, as the GPU computes it: a (K values of a row of A, its
 * exponent ea) times b (K values of a column of B, exponent eb), s slices. diag[t] (t = 2 .. s+1)
 * receives the exact integer sum of diagonal t (may be NULL). */
double oz_dot(const double *a, int ea, const double *b, int eb, long K, int s, int64_t *diag);

/* The bound on |a b - emulated| for one product, in units of 2^(ea + eb): (s + 2) 2^(-7s) */
double oz_product_bound(int s);

/* The largest K for which an int8 GEMM of diagonal s + 1 (s slices along k) stays exact in int32 */
long oz_k_exact_int32(int s);

/* Diagonal t of `words` slices per value, A's slices in the order 1 .. words along k, B's in the
 * order words .. 1: the pairs p + q = t are A's slots first .. first + count - 1 against B's slots
 * b_first .. b_first + count - 1, slot by slot (p ascending, q descending). Shared by v2 (for t up
 * to s + 1) and v3 (any t from 2 to 2 words); count 0 when t has no pair. */
void oz_diagonal(int words, int t, int *first, int *b_first, int *count);

/* ---- Ozaki scheme II (v5_ozaki2_nN): integers and the Chinese remainder theorem -------------------
 *
 * Each row of A is scaled as in scheme I and rounded toward zero to a k-bit integer,
 * A'(i,k) = trunc(A(i,k) 2^(k - e_i)), |A'| < 2^k (B likewise by columns). The integer product
 * C' = A' B' is then computed exactly, not from slices but modulo n pairwise coprime moduli
 * m_1 .. m_n <= 256: the residues of A' and B' fit int8, so C' mod m_l is ONE int8 GEMM (exact in
 * int32) reduced mod m_l. With P = m_1 ... m_n > 2 |C'|, C' is the unique integer of
 * (-P/2, P/2) with those residues (the Chinese remainder theorem):
 *
 *     C' / P = frac( sum_l t_l / m_l ),   t_l = (C' mod m_l) (P/m_l)^-1 mod m_l,   frac in [-1/2, 1/2)
 *
 * computed in 128-bit fixed point (oz2_reconstruct): F = sum_l t_l W_l mod 2^128 with
 * W_l = round(2^128 / m_l) is the fraction times 2^128 (the wrap-around of the integer sum IS the
 * "frac"), off by at most n * 255 / 2 < 2^11 units of 2^-128; F read as a signed number, times P
 * (a double-double), is C' to within 2^-104 P + 2^-52 |C'|. Then C ~= 2^(e_i + f_j - 2k) C'. n GEMMs
 * instead of s(s+1)/2; the only errors are the truncations to k bits (oz2_product_bound) and the
 * final roundings. The largest k for n moduli: 2 Kc 2^(2k) < P (oz2_k_chunk chooses the chunk Kc). */
#define OZ2_MODULI_LIST                                                                            \
    256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217, 211, 199, 197, 193
#define OZ2_MAX_MODULI 16

typedef struct {
    int n;
    int m[OZ2_MAX_MODULI];         /* the moduli: 256, 255, 253, 251, 247, ... (descending) */
    int inv[OZ2_MAX_MODULI];       /* (P / m_l)^-1 mod m_l */
    uint32_t w[OZ2_MAX_MODULI][4]; /* W_l = round(2^128 / m_l), 32-bit words, lowest first */
    double p_hi, p_lo;             /* P as a double-double */
    double log2_p;
} oz2_consts;

/* the constants of the first n moduli (2 <= n <= OZ2_MAX_MODULI) */
void oz2_consts_init(oz2_consts *c, int n);
/* the largest chunk of K for k-bit integers: 2 Kc 2^(2k) < P (C' stays within (-P/2, P/2)) and
 * Kc 2^14 < 2^31 (every int32 sum exact), rounded down to a multiple of align; 0 if none */
long oz2_k_chunk(const oz2_consts *c, int k, int align);
/* trunc(x 2^(k - e)), |x| < 2^e, k <= 53: an integer of magnitude below 2^k, exact in double */
int64_t oz2_scale(double x, int e, int k);
/* v mod m in the symmetric range that fits int8: [-m/2, m/2) for even m, |r| <= (m-1)/2 for odd */
int oz2_residue(int64_t v, int m);
/* t = (c mod m) inv mod m, in [0, m), from the int32 GEMM result c of modulus m */
int oz2_reduce(int32_t c, int m, int inv);
/* The integer in (-P/2, P/2) with residues given by t[0..n-1], as a double, computed as the GPU
 * does: acc[j] = sum_l t_l w_l[j], then oz2_fixed_to_double. */
double oz2_reconstruct(const oz2_consts *c, const uint8_t *t);
/* One element as the GPU computes it (one chunk): the emulated 2^-2k C' of a row a (exponent ea)
 * and a column b (exponent eb), K values (K <= oz2_k_chunk); exact (optional): the exact integer
 * sum of A' B' as a double-double (hi, lo). Returns 2^(ea + eb - 2k) C'. */
double oz2_dot(const oz2_consts *c, int k, const double *a, int ea, const double *b, int eb, long K,
               double *exact_hi, double *exact_lo);
/* The bound on |a b - emulated| for one product in units of 2^(ea + eb): 2^(1 - k) */
double oz2_product_bound(int k);

/* C' from the fixed-point sums acc[j] = sum_l t_l w_l[j] (j = 0..3, each below 2^44): F = sum_j
 * acc[j] 2^(32 j) mod 2^128, read as a signed fraction F 2^-128 in [-1/2, 1/2), cut exactly into
 * x1 2^-53 + x2 2^-106 + x3 2^-128 (integers of 53, 53 and 22 bits), then times P. Shared by the
 * CPU model and oz2_combine, so that both round alike (every fma written out). */
#ifdef __CUDACC__
#define OZ2_HOST_DEVICE __host__ __device__
#else
#define OZ2_HOST_DEVICE
#endif
static inline OZ2_HOST_DEVICE double oz2_fixed_to_double(const uint64_t acc[4], double p_hi,
                                                         double p_lo)
{
    const unsigned __int128 f = (unsigned __int128)acc[0] + ((unsigned __int128)acc[1] << 32) +
                                ((unsigned __int128)acc[2] << 64) +
                                ((unsigned __int128)acc[3] << 96);
    const int64_t top = (int64_t)(uint64_t)(f >> 64); /* the signed upper half */
    const uint64_t low = (uint64_t)f;
    const double x1 = (double)(top >> 11); /* floor(top 2^-11): arithmetic shift */
    const double x2 = (double)(((uint64_t)top & 0x7ff) << 42 | low >> 22);
    const double x3 = (double)(low & 0x3fffff);
    const double hi = x1 * 0x1p-53, lo = fma(x2, 0x1p-106, x3 * 0x1p-128);
    const double p = hi * p_hi, e = fma(hi, p_hi, -p);
    return p + fma(lo, p_hi, fma(hi, p_lo, e));
}

/* ---- the fused rung (v6_ozaki2_fused): the same integers, the CRT sum in 96 bits -------------
 *
 * v6 keeps each output tile's CRT sum on chip, across all n moduli, so the sum must be small: F
 * mod 2^96 with W'_l = round(2^96 / m_l), one 96-bit integer (three 32-bit words, the carries
 * propagated as they arise) instead of v5's four 64-bit word sums. F' 2^-96 is the fraction
 * frac(sum t_l / m_l) to within n 255 / 2 units of 2^-96 (each W'_l off by at most 1/2), so C' is
 * off by at most n 2^-89 P < 2^-84 P, about 2^34 for n = 15: far below the truncation of the k-bit
 * integers (K 2^(k+1) in the same units: 2^65 for k = 51 at K = 8192). And t_l comes from the int32
 * product with multiplies only: the moduli are a run-time index in v6's loop, not a template
 * constant as in v5's oz2_reduce<M>. Both steps are shared by the kernel and the model below. */
typedef struct {
    uint32_t magic[OZ2_MAX_MODULI]; /* floor(2^32 / m_l): Barrett's quotient estimate */
    uint32_t shift[OZ2_MAX_MODULI]; /* (-2^31 inv_l) mod m_l: the bias of x + 2^31, times inv_l */
    uint32_t w[OZ2_MAX_MODULI][3];  /* W'_l = round(2^96 / m_l), 32-bit words, lowest first */
} oz2_fused_consts;

/* v6's constants for the moduli of c */
void oz2_fused_consts_init(oz2_fused_consts *f, const oz2_consts *c);

/* t = (x mod m) inv mod m in [0, m) for any int32 x (oz2_reduce's value), with multiplies only:
 * u = x + 2^31 in [0, 2^32), q = floor(u magic / 2^32) is floor(u / m) or one less, so u - q m
 * lies in [0, 2m) and one subtraction finishes; x inv = (u mod m) inv + shift (mod m), which is
 * below m^2 <= 2^16 and reduced the same way. */
static inline OZ2_HOST_DEVICE uint32_t oz2_reduce_mul(int32_t x, uint32_t m, uint32_t magic,
                                                      uint32_t inv, uint32_t shift)
{
    const uint32_t u = (uint32_t)x ^ 0x80000000u; /* x + 2^31 */
    uint32_t r = u - (uint32_t)(((uint64_t)u * magic) >> 32) * m;
    r = r >= m ? r - m : r;
    const uint32_t y = r * inv + shift;
    uint32_t t = y - (uint32_t)(((uint64_t)y * magic) >> 32) * m;
    return t >= m ? t - m : t;
}

/* f (+)= t W' modulo 2^96: f and w are three 32-bit words, lowest first; exact for any 32-bit t
 * (the middle product with its carries is at most 2^64 - 1; below 2^41 for v6's t < 256) */
static inline OZ2_HOST_DEVICE void oz2_fixed96_add(uint32_t f[3], uint32_t t, const uint32_t w[3])
{
    const uint64_t low = (uint64_t)t * w[0] + f[0];
    const uint64_t mid = (uint64_t)t * w[1] + f[1] + (low >> 32);
    f[0] = (uint32_t)low;
    f[1] = (uint32_t)mid;
    f[2] += t * w[2] + (uint32_t)(mid >> 32);
}

/* ---- the fraction form (v8_ozaki2_frac): the int32 sums into the CRT sum as they are ---------
 *
 * (a mod m) / m and a / m differ by an integer for every integer a, and the CRT fraction is taken
 * modulo 1, so frac(sum_l t_l / m_l) with t_l = (x_l mod m_l) inv_l mod m_l is also
 * frac(sum_l x_l inv_l / m_l) for the int32 sums x_l themselves: no reduction at all. v8 adds
 * F (+)= x_l V_l mod 2^96 with V_l = round(2^96 inv_l / m_l); each V_l is off by at most 1/2, so F
 * is off by at most sum |x_l| / 2 < n 2^30 units of 2^-96 (|x_l| < 2^31), and C' = P F 2^-96 by at
 * most n 2^-66 P. The sums of a chunk of Kc values are below Kc 2^14, so the bound is n Kc 2^-83 P
 * where the k-bit truncation of the inputs allows Kc 2^(k+1): a ratio of n 2^(-84 - k) P, for the
 * chapter's rows 2^-18 (n = 14, k = 48), 2^-13.3 (n = 15, k = 51: 2^51.7 against 2^65 at a chunk of
 * 8192) and 2^-6.6 (n = 16, k = 52). */
typedef struct {
    uint32_t v[OZ2_MAX_MODULI][3]; /* V_l = round(2^96 inv_l / m_l), 32-bit words, lowest first */
    uint32_t bias[3];              /* -2^31 (V_1 + ... + V_n) mod 2^96: the biased sum's start */
} oz2_frac_consts;

/* v8's constants for the moduli of c */
void oz2_frac_consts_init(oz2_frac_consts *fr, const oz2_consts *c);

/* f (+)= x V modulo 2^96 for a signed int32 x: u = x mod 2^32 (its bits) times V, less 2^32 V
 * when x < 0 (u = x + 2^32 then), the three words' carries propagated. The kernel computes the
 * same sum biased, which needs no sign: x + 2^31 is never negative, so F = bias + sum_l
 * (x_l + 2^31) V_l mod 2^96 with bias = -2^31 sum_l V_l, each term one oz2_fixed96_add of the
 * 32-bit x_l ^ 2^31; both are exact modulo 2^96, so their words are equal. */
static inline OZ2_HOST_DEVICE void oz2_frac_add(uint32_t f[3], int32_t x, const uint32_t v[3])
{
    const uint32_t u = (uint32_t)x;
    const uint64_t p0 = (uint64_t)u * v[0];
    uint64_t p12 = (uint64_t)u * v[1] + (p0 >> 32); /* words 1 and 2 of u V, below 2^64 */
    p12 = ((uint64_t)(u * v[2] + (uint32_t)(p12 >> 32)) << 32) | (uint32_t)p12;
    if (x < 0) p12 -= (uint64_t)v[1] << 32 | v[0]; /* less 2^32 V, modulo 2^96 */
    const uint64_t low = (uint64_t)f[0] + (uint32_t)p0;
    const uint64_t mid = (uint64_t)f[1] + (uint32_t)p12 + (low >> 32);
    f[0] = (uint32_t)low;
    f[1] = (uint32_t)mid;
    f[2] += (uint32_t)(p12 >> 32) + (uint32_t)(mid >> 32);
}

/* The device's roundings written out: no multiply and add may be contracted into an fma that
 * the host does not make (the host code is compiled with -ffp-contract=off) */
#ifdef __CUDA_ARCH__
#define OZ2_DMUL(a, b) __dmul_rn((a), (b))
#define OZ2_DADD(a, b) __dadd_rn((a), (b))
#else
#define OZ2_DMUL(a, b) ((a) * (b))
#define OZ2_DADD(a, b) ((a) + (b))
#endif

/* C' from F' = f mod 2^96, read as a signed fraction F' 2^-96 in [-1/2, 1/2), cut exactly into
 * x1 2^-53 + x2 2^-96 (integers of 53 and 43 bits), then times P (as oz2_fixed_to_double) */
static inline OZ2_HOST_DEVICE double oz2_fixed96_to_double(const uint32_t f[3], double p_hi,
                                                           double p_lo)
{
    const int64_t top = (int64_t)((uint64_t)f[2] << 32 | f[1]); /* F' 2^-32, signed */
    const double x1 = (double)(top >> 11);                      /* arithmetic shift */
    const double x2 = (double)(((uint64_t)top & 0x7ff) << 32 | f[0]);
    const double hi = OZ2_DMUL(x1, 0x1p-53), lo = OZ2_DMUL(x2, 0x1p-96);
    const double p = OZ2_DMUL(hi, p_hi), e = fma(hi, p_hi, -p);
    return OZ2_DADD(p, fma(lo, p_hi, fma(hi, p_lo, e)));
}

/* The integer of (-P/2, P/2) with residues given by t[0..n-1], as v6 computes it */
double oz2_reconstruct96(const oz2_consts *c, const oz2_fused_consts *f, const uint8_t *t);
/* One element of C as v6 computes it (before alpha and beta): K values of a row a (exponent ea)
 * and a column b (exponent eb), k-bit integers, K cut into chunks of kc (kc <= oz2_k_chunk):
 * per chunk t_l from the exact int32 sums (oz2_reduce_mul), C' by oz2_reconstruct96, times 2^-2k,
 * the chunks added in order in f64, then times 2^(ea + eb). */
double oz2_fused_dot(const oz2_consts *c, const oz2_fused_consts *f, int k, const double *a, int ea,
                     const double *b, int eb, long K, long kc);

/* One element of C as v8 computes it: as oz2_fused_dot, but per chunk F = sum_l x_l V_l mod 2^96
 * from the int32 sums x_l themselves (oz2_frac_add), then oz2_fixed96_to_double */
double oz2_frac_dot(const oz2_consts *c, const oz2_frac_consts *fr, int k, const double *a, int ea,
                    const double *b, int eb, long K, long kc);
/* v8's exact check: as oz2_fused_mismatches, against oz2_frac_dot */
long oz2_frac_mismatches(const oz2_consts *c, const oz2_frac_consts *fr, int k, long kc, long M,
                         long N, long K, const double *A, long lda, const double *B, long ldb,
                         const double *C, long ldc, double alpha, char *message, size_t size);

/* The exact check of v6 (its --test, after the tolerance check): C (M x N row-major, ldc) as the
 * GPU left it with beta = 0, against alpha oz2_fused_dot of A (M x K row-major, lda) and B (K x N
 * column-major, ldb), bit for bit, on every element when M N <= 256, else on 256: the corners
 * and tile edges (rows and columns 0, 63, 64, 127, 128, the middle, the last) and pseudo-random
 * ones. Returns the number that differ, the first described in message. */
long oz2_fused_mismatches(const oz2_consts *c, const oz2_fused_consts *f, int k, long kc, long M,
                          long N, long K, const double *A, long lda, const double *B, long ldb,
                          const double *C, long ldc, double alpha, char *message, size_t size);

#ifdef __cplusplus
}
#endif
#endif
