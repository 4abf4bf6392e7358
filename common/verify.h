/* common/verify.h - CPU references in double and the checker.
 *
 * The contract (CONTRIBUTING.md, "Verification"): the reference is computed in double from exactly the
 * values the GPU sees; an element passes only if |got - ref| <= atol + rtol*|ref| is true (so a
 * NaN fails); outputs are poisoned before every run and an element still holding the poison
 * fails as "unwritten"; integer results must match exactly; large problems are checked on a
 * sample (full rows, full columns and random elements).
 *
 * Tolerances come from one table (tc_precisions in verify.c), one row per precision, with three
 * unit roundoffs: u_in (rounding the GPU applies to the inputs that the reference cannot
 * reproduce, e.g. cuBLAS converting f32 to TF32 inside the library; 0 when the reference sees the
 * GPU's inputs), u_acc (the accumulator) and u_out (the output format). For a K-long dot product
 * of inputs bounded by |a| <= amax, |b| <= bmax, s = amax*bmax:
 *
 *     rtol = 2 u_out
 *     atol = TC_TOL_LAMBDA * s * (u_in * sqrt(K) + u_acc * K)
 *
 * The input term grows like sqrt(K) because independent rounding errors of K products add like a
 * random walk; the accumulator term like K, because the running sum (of size ~ s*sqrt(K)) is
 * rounded about K times and tensor cores truncate rather than round, which biases the errors.
 * TC_TOL_LAMBDA = 4 leaves room for the tail of the distribution. Measured on an H200 (cuBLAS,
 * chapter 01, K up to 8192): the largest error of every precision is a quarter to a third of atol.
 *
 * What the bound must catch: a kernel that loses one k-slice of 16 products makes errors of
 * rms s*4/3 (uniform inputs: each product has rms s/3), independent of K. tests/test_verify.c
 * checks, for every row of the table, that dropping one 16-slice FAILS at K = 4096 and 8192. */
#ifndef TC_VERIFY_H
#define TC_VERIFY_H

#include "convert.h"
#include "harness.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TC_TOL_LAMBDA 4.0

typedef struct {
    const char *name;          /* "f16f32": f16 inputs, f32 accumulate and output */
    tc_dtype in, out;          /* storage type of A and B, and of C */
    double u_in, u_acc, u_out; /* all zero: exact (integers) */
    /* NULL, or a rounding the host applies to every input value before it is stored as `in`. A
     * format that lives in an f32 container (tf32) has no storage type of its own, so the GEMM
     * driver rounds the f32 data with this function, uploads the rounded values and gives the
     * same values to the reference: the kernel sees exactly what the reference sees, and a
     * conversion inside the kernel (wmma::__float_to_tf32) leaves them unchanged. */
    float (*in_round)(float x);
    const char *what; /* one line for tables */
} tc_precision;

/* The rows of the table, for tests: tc_precision_at(i) for i in 0 .. tc_precision_count()-1. */
int tc_precision_count(void);
const tc_precision *tc_precision_at(int i);
/* The row for name; exits 1 with a message if there is none (a programming error). */
const tc_precision *tc_precision_get(const char *name);
int tc_precision_is_exact(const tc_precision *p);
/* atol and rtol for a K-long dot product with input bound s = amax*bmax */
void tc_tolerance(const tc_precision *p, long K, double s, double *atol, double *rtol);
/* The largest K at which the row can still tell a result that lost one product from its own
 * rounding: a lost product of the largest size, s = max|A| max|B|, must be at least twice what
 * the tolerance allows an element of typical size (s sqrt(K) / 3 for uniform data):
 *     atol(K) + rtol s sqrt(K) / 3 <= s / 2.
 * LONG_MAX for exact rows. Beyond it a check catches gross errors only: the GEMM driver tests a
 * variant at this K instead and reports a larger K's check as "coarse", not "pass".
 * (tests/test_verify.c: every row, every K of the test matrix up to this one, K = 16384 and
 * 65536 where they are within it: results that lost a product, a 16-long k-slice, alpha, beta,
 * or that transpose a 16x16 tile FAIL, while a simulation of a correct result PASSES.) */
long tc_precision_k_verifiable(const tc_precision *p);

/* A strided matrix view: element (i, j) is at data[i*rs + j*cs] (in elements).
 * Row-major with leading dimension ld: rs = ld, cs = 1. Column-major: rs = 1, cs = ld. */
typedef struct {
    const void *data;
    tc_dtype type;
    long rows, cols;
    long rs, cs;
} tc_matrix;

typedef enum { TC_ROW_MAJOR, TC_COL_MAJOR } tc_layout;
tc_matrix tc_matrix_make(const void *data, tc_dtype type, long rows, long cols, tc_layout layout,
                         long ld);

/* The elements of C to check: all of them (full = 1, ii = jj = NULL, n = rows*cols, in
 * row-major order), or an explicit list. */
typedef struct {
    int full;
    long rows, cols;
    long n;
    long *ii, *jj;
} tc_sample;

/* Full when rows*cols*K <= full_limit, else rows {0, M/2, M-1}, columns {0, N/2, N-1} and
 * `random` random elements (the contract asks for at least 1024). */
tc_sample tc_sample_make(long rows, long cols, long K, double full_limit, int random, tc_rng *rng);
/* n_rows whole rows of C (n_rows = min(rows, n), row k = k * rows / n_rows: first, evenly
 * spaced, never the same twice), each in full, row after row: what a per-row error needs. */
tc_sample tc_sample_full_rows(long rows, long cols, int n);
void tc_sample_free(tc_sample *s);
void tc_sample_get(const tc_sample *s, long e, long *i, long *j);

/* ref[e] = sum_k A(i,k) * B(k,j) in double for every element e of the sample (multithreaded).
 * A is rows x K, B is K x cols; all the formats here convert to float exactly, so products are
 * exact in double and only the double accumulation rounds. */
void tc_ref_gemm(const tc_matrix *A, const tc_matrix *B, const tc_sample *s, double *ref);
/* max |x| over a matrix (the s of the tolerance is max|A| * max|B|) */
double tc_matrix_absmax(const tc_matrix *X);

typedef struct {
    long checked, bad, nans, unwritten;
    double max_abs_err, max_rel_err;
    double rel_fro_err; /* ||got - ref||_F / ||ref||_F over the checked elements */
    double atol, rtol;
    long worst_i, worst_j; /* the element with the largest err / allowed */
    double worst_got, worst_ref, worst_ratio;
    int exact;
    int pass;
    int coarse; /* K is beyond tc_precision_k_verifiable: a pass means no gross error, no more */
} tc_check_result;

/* Compares the GPU's C (host copy, as a view) with ref on the sample. */
tc_check_result tc_check(const tc_matrix *C, const tc_sample *s, const double *ref,
                         const tc_precision *p, long K, double s_bound);
/* ||scale*C - ref||_F / ||ref||_F over the sample (NaN if C holds a NaN). */
double tc_rel_fro_error(const tc_matrix *C, const tc_sample *s, const double *ref, double scale);
/* The worst row: the largest ||scale*C_i - ref_i||_2 / ||ref_i||_2 over the rows of a sample made
 * by tc_sample_full_rows (ref in the sample's order); *worst_row gets its index. A row whose
 * reference is all zeros counts with its absolute error. NaN if C holds a NaN (*worst_row: its
 * row). Also takes a full sample (every row, row after row). A Frobenius error
 * over the whole of C is made by its largest rows; this is what its smallest ones lose. */
double tc_worst_row_error(const tc_matrix *C, const tc_sample *rows, const double *ref,
                          double scale, long *worst_row);
/* --test bookkeeping shared by the chapter drivers. tc_test_line_end finishes a test line with
 * the check (or, when the case did not run, the reason) and counts it; tc_test_finish prints
 * "<program> --test: N passed, N failed, N skipped" (tests/run_tests.sh reads that line) and
 * returns the exit code: 1 when a case failed, or when a case was skipped and the environment
 * has TC_REQUIRE_GPU=1 (a run in which everything must run); it exits 77 when nothing could run. */
void tc_test_line_end(int ran, int pass, const tc_check_result *r, const char *why, int *passed,
                      int *failed);
int tc_test_finish(const char *program, int passed, int failed, int skipped);
/* A unit test's line, "PASS name detail" or "FAIL name detail", counted in passed or failed. */
void tc_test_report(int ok, const char *name, const char *detail, int *passed, int *failed);
/* One line: PASS/FAIL, errors, worst element. */
void tc_check_print(const tc_check_result *r, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* TC_VERIFY_H */
