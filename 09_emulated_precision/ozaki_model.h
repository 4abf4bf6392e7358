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

#ifdef __cplusplus
}
#endif
#endif
