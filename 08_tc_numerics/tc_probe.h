/* 08_tc_numerics/tc_probe.h - the probes of chapter 08: crafted dot products that decide, one feature at
 * a time, how a tensor core adds products, and the random search that validates the fitted
 * model. Everything here talks to a "black box" that computes dot products; the chapter program
 * plugs in the GPU's mma.sync, the CPU tests plug in the model itself (tc_box_model) and check
 * that the probes recover the parameters they were given.
 *
 * The probes assume the box belongs to the model family of tc_model.h and find its member; every
 * answer outside the family (an inconsistent pattern, a value no candidate predicts) is reported
 * in tc_probe_report.problem, and the random search is the final word. */
#ifndef TC_PROBE_H
#define TC_PROBE_H

#include "tc_model.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* n dot products of box->k products each: d[i] = c[i] + sum_j a[i*k + j] * b[i*k + j], element
 * bits as in tc_model.h. */
typedef void (*tc_box_fn)(void *ctx, long n, const uint32_t *a, const uint32_t *b,
                          const uint32_t *c, uint32_t *d);
typedef struct {
    tc_fmt in, out;
    int k; /* products per instruction */
    tc_box_fn fn;
    void *ctx;
    long dots; /* dot products evaluated so far */
} tc_box;

/* The model as a box (ctx = the parameters; they must outlive the box). */
void tc_box_model(tc_box *box, const tc_model_params *p);
void tc_box_run(tc_box *box, long n, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                uint32_t *d);

/* Whether a probe decided a feature: */
enum { TC_OBS_NOT = 0, TC_OBS_YES = 1 };

typedef struct {
    tc_model_params fit; /* the member of the model family the probes found */
    int ok;              /* 1: every probe's answer is one the model can express */
    char problem[512];   /* otherwise: what did not fit (the first few) */

    int sane;          /* zeros, ones, unit vectors and c pass through (the box's plumbing) */
    int prod_exact;    /* 1 exact, 0 rounded, -1 not observable (F too small) */
    int frac_limit;    /* the largest shift the F probe could test */
    int frac_by;       /* 0 products, 1 the accumulator c, 2 never cut (exact), 3 by elimination */
    int per_addend;    /* 1 the cut is per addend, 0 it is not, -1 not tested */
    int one_alignment; /* 1 one alignment per block (order inside a block does not matter) */
    int blocks_verified;  /* 1 every block start checked, 0 failed, -1 not tested */
    uint64_t block0_mask; /* bit l: the block probe found product l in block 0 (0: no probe) */
    int tf32_low; /* tf32 operands' low 13 bits (any answer fits the model): 0 ignored, 1 rounded
                     to nearest even, 2 to nearest away, 3 used, 4 none of these; -1 not tf32 */
    /* TC_OBS_YES when the probes decided the field of fit; TC_OBS_NOT: the default stayed */
    int obs_block, obs_frac, obs_ref, obs_align_round, obs_chain, obs_out_round, obs_chain_round,
        obs_chain_fmt, obs_via_f32, obs_sub_in, obs_sub_c, obs_sub_out, obs_ovf, obs_c_round,
        obs_tiny_zero, obs_result_bits;
    int result_limit; /* the widest block sum (significant bits) the result_bits probe made */
    /* monotonicity in c: 1 no violation on the crafted family, 0 violated, -1 not tested */
    int monotone;
    uint32_t mono_c_lo, mono_c_hi, mono_d_lo, mono_d_hi; /* the two c and their results */
    uint32_t mono_xa, mono_xb; /* every one of the k products is mono_xa * mono_xb */
    long dots;                 /* dot products the probes used */
} tc_probe_report;

/* Runs every probe against box; returns r->ok. */
int tc_probe_run(tc_box *box, tc_probe_report *r);
/* The feature table (one line per feature) and the fitted parameters. */
void tc_probe_print(const tc_probe_report *r, FILE *f);

/* ---- the random search --------------------------------------------------------------------- */
typedef struct {
    long n;                        /* dot products compared */
    long per_dist[TC_DIST_COUNT];  /* of them, per distribution */
    long fit_bad[TC_DIST_COUNT];   /* box != fitted model */
    long fma_bad[TC_DIST_COUNT];   /* box != chain of f32 FMAs */
    long exact_bad[TC_DIST_COUNT]; /* box != exact sum rounded once */
    int have_example;              /* the first mismatch with the fitted model */
    uint32_t ex_a[64], ex_b[64], ex_c, ex_box, ex_model;
    int ex_dist;
} tc_search_result;

/* n random dot products (one instruction each), split evenly over the distributions, inputs
 * from seed; compares the box with the fitted model and the two naive models. threads > 1 runs
 * the models on tc_parallel's threads. */
void tc_search(tc_box *box, const tc_model_params *fit, long n, uint64_t seed, int threads,
               tc_search_result *r);
long tc_search_total(const long *per_dist);

#ifdef __cplusplus
}
#endif
#endif /* TC_PROBE_H */
