/* 10_flash_attention/attn_ref.h - the FP64 reference of attention, its tolerance, the rows it is
 * checked on, and the checker (plain C, no GPU).
 *
 * The reference. For row i of head (b, h), with s_j = scale * q_i . k_j over the keys the row sees
 * (j < attn_key_end(i), attn_layout.h), m = max_j s_j, w_j = exp(s_j - m), Z = sum_j w_j:
 *     p_j = w_j / Z,   O[i] = sum_j p_j v_j,   L[i] = m + log Z   (natural log)
 * all in double, from exactly the values the GPU was given (f16 or bf16; every product of two of
 * them is exact in double). A row that sees no key (causal, Sq > Sk) has O = 0 and L = -inf, and
 * must match them exactly.
 *
 * The tolerance (per element, from the rounding model of the kernels; lambda = TC_TOL_LAMBDA = 4,
 * the repository's margin for the tail of the error distribution, common/verify.h). What a correct
 * kernel (FlashAttention, the unfused one, cuDNN's) rounds that the reference does not:
 *
 *   1. P is rounded to the input type T before the second product (the A operand of an f16/bf16
 *      mma): each term p_j v_j is off by at most (u_p p_j + t_p) |v_j|, u_p the unit roundoff of T
 *      (2^-11 for f16, 2^-8 for bf16) and t_p the absolute rounding below T's normal range (half
 *      the smallest subnormal: 2^-25 for f16, 2^-134 for bf16). A flash kernel rounds the
 *      unnormalised exp(s_j - m_running) <= 1 and divides by the f32 sum of the unrounded values,
 *      whose final value is >= 1: relative to O the same bound holds. The errors of different j
 *      are independent (round to nearest), so they add like a random walk:
 *          sqrt( sum_j ((u_p + 2 e_s) p_j + t_p)^2 ) * vmax
 *      with vmax = max |v_j| over the row's keys. Against the worst case (u_p vmax) this is
 *      sqrt(sum p_j^2), about 1 / sqrt(n) for the near-uniform softmax of random data: at n = 8192
 *      keys, 90 times tighter, which is what lets the check see a lost tile of 64 keys there.
 *   2. The scores: s_j comes from an f32 tensor-core sum of D products (the accumulator truncated
 *      once per k-step of 16: 2 u_acc per step, u_acc = 2^-23, as common/verify.c models it), then
 *      exp2 of an f32 argument (two roundings of size <= max |s|, and ex2.approx's ~2^-22). As a
 *      relative error of every w_j:
 *          e_s = scale 2 u_acc ceil(D/16) sum_d |q_d| kmax + 2^-22 (1 + max_j |s_j|)
 *      It moves O by sum_j p_j e_j (v_j - O), hence the 2 e_s beside u_p in term 1 (|v_j - O| <=
 *      2 vmax). A shift common to all terms (the running max) cancels between P V and the sum.
 *   3. P V's f32 accumulator: truncated once per k-step of 16 keys, and rescaled (one f32
 *      multiplication) once per tile of keys: at most 2 ceil(n/16) roundings, each of at most
 *      2 u_acc times the partial sum it rounds. The reference follows the partial sums in key
 *      order (the order the kernels add tiles in) and takes their largest magnitude P_d (at least
 *      max_j p_j vmax, the size of a single term):
 *          2 u_acc * 2 ceil(n/16) * max(P_d, pmax vmax)
 *      Linear in the count (truncation is biased), but P_d is small (a normalised partial sum:
 *      about vmax / sqrt(n) for random data), so this stays below term 1 except for short rows.
 *   4. The f32 row sum (the normaliser): a relative error of about 2^-24 sqrt(n) of O.
 *   5. O is rounded to T: rtol = 2 u_out, as every row of common/verify.c.
 * So element d of row i passes when, written so that a NaN fails,
 *     |got - O_d| <= lambda (vmax sqrt(sum_j ((u_p + 2 e_s) p_j + t_p)^2)
 *                            + 4 u_acc ceil(n/16) max(P_d, pmax vmax) + 2^-24 sqrt(n) |O_d|)
 *                    + 2 u_out |O_d|.
 * L: the scores' error moves the max and log Z alike (term 2, in absolute terms), the f32 sum adds
 * 2^-24 sqrt(n), L is stored in f32:
 *     |got - L| <= lambda (e_s + 2^-24 sqrt(n)) + 2^-23 |L|.
 * What this assumes: inputs random and symmetric (the repository's uniform [-1, 1)), so that the
 * rounding errors of term 1 have random signs and the partial sums of term 3 stay small. For data
 * of one sign (all v_j = 1) term 3's partial sums are as large as O and the bound follows them;
 * term 1's random walk would then need the worst case instead. What it catches (test_attn.c
 * shows each on the CPU, with a simulation of a correct flash kernel that passes): a dropped tile
 * of 64 keys up to Sk = 8192 in bf16 and f16, a running sum or output not rescaled, the causal
 * diagonal off by one, the K tail unmasked, L off, a fully masked row not zero, P's lane map.
 *
 * Rows. A small problem is checked on every row; a large one on a sample: in every head the rows
 * 0, 1, Sq/2, Sq-2, Sq-1, the last fully masked and the first unmasked row (causal, Sq > Sk), and
 * a number of random rows; every element of those rows, and L for each. */
#ifndef ATTN_REF_H
#define ATTN_REF_H

#include "attn_layout.h"

#include "convert.h"
#include "harness.h"
#include "verify.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The problem's shape: B batches, H heads, Sq queries, Sk keys, head dimension D. */
typedef struct {
    int B, H, Sq, Sk, D;
    int causal;   /* bottom-right aligned (attn_layout.h) */
    double scale; /* of the scores; the chapter uses 1 / sqrt(D) */
} attn_dims;

/* A tensor on the host: element (b, s, h, d) at data[b*st.batch + s*st.seq + h*st.head + d]. type:
 * TC_F16 or TC_BF16 (the values the GPU is given), or TC_F32 (the data they were rounded from, for
 * the rel_err_vs_data column). */
typedef struct {
    const void *data;
    tc_dtype type;
    attn_strides st;
} attn_tensor;

/* The roundings the tolerance models (the header's terms 1, 2, 3 and 5). */
typedef struct {
    double u_p;   /* P rounded to the input type */
    double t_p;   /* the same, absolute, below the type's normal range */
    double u_acc; /* the tensor cores' f32 accumulator (truncation) */
    double u_out; /* O rounded to the input type */
} attn_rounding;

/* From a row of the tolerance table whose output type is the input type: "f16f32h" (f16 in, f32
 * accumulate, f16 out) or "bf16f32b". */
attn_rounding attn_rounding_for(const tc_precision *prec);

/* The rows to check. */
typedef struct {
    long n;
    int *b, *h;
    long *i;
    int full; /* every row of every head, in order */
} attn_rows;

/* Every row when B H Sq Sk D <= full_limit (multiply-adds of one product), else the sample of the
 * header with random_per_head random rows per head (from rng). */
attn_rows attn_rows_make(const attn_dims *p, double full_limit, int random_per_head, tc_rng *rng);
void attn_rows_free(attn_rows *r);

/* The reference of the rows, and the allowed error of each element. */
typedef struct {
    long n;
    int D;
    double *o;     /* n x D */
    double *o_tol; /* n x D: allowed |got - o| before the output rounding (rtol * |o|) */
    double *lse, *lse_tol;
    long *keys;  /* the keys each row sees; 0: fully masked */
    double rtol; /* 2 u_out */
} attn_ref;

/* Computes it (on every CPU thread). q, k, v must be of one type. */
void attn_reference(const attn_dims *p, const attn_tensor *q, const attn_tensor *k,
                    const attn_tensor *v, const attn_rows *rows, const attn_rounding *r,
                    attn_ref *out);
void attn_ref_free(attn_ref *r);

/* The check of O (a host copy, as a tensor of type T with its strides) and L (f32, packed B x H x
 * Sq) on the rows. NaN-safe: an element passes only if the comparison is true; an element still
 * holding the poison (every byte 0xFF) is counted as unwritten and fails. */
typedef struct {
    long checked, bad, nans, unwritten; /* elements of O */
    long l_checked, l_bad;              /* values of L */
    long masked_rows, masked_bad;       /* fully masked rows, and those not O = 0, L = -inf */
    double max_abs_err, max_ratio;      /* the largest |got - ref|, and of |got - ref| / allowed */
    double l_max_abs_err;
    double rel_fro_err; /* ||got - ref||_F / ||ref||_F over the O elements (NaN if any is NaN) */
    /* the element with the largest ratio (d = -1: L) */
    int worst_b, worst_h, worst_d;
    long worst_i;
    double worst_got, worst_ref, worst_allowed;
    int pass;
} attn_check;

attn_check attn_check_rows(const attn_dims *p, const attn_tensor *o, const float *L,
                           const attn_rows *rows, const attn_ref *ref);
/* One line: PASS/FAIL, counts, errors, the worst element. */
void attn_check_print(const attn_check *c, FILE *f);
/* ||got - ref||_F / ||ref||_F of O on the rows, against a reference of the same rows (the
 * rel_err_vs_data column: ref computed from the f32 data). NaN if got holds a NaN. */
double attn_rel_fro(const attn_dims *p, const attn_tensor *o, const attn_rows *rows,
                    const attn_ref *ref);

/* FLOPs of the forward pass as the field counts them: two products of 2 Sq Sk D each per head,
 * half of it with the causal mask (whatever Sq and Sk). */
double attn_flops(const attn_dims *p);

#ifdef __cplusplus
}
#endif
#endif /* ATTN_REF_H */
