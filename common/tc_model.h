/* common/tc_model.h - a bit-accurate CPU model of what a tensor core computes for one output
 * element, D = A*B + C, parameterised by the features that differ between GPU generations
 * (chapter 08). Integer significands only: no host floating-point arithmetic decides a bit.
 *
 * The model (one mma instruction, K products, accumulator c):
 *
 *   1. Each product a_k*b_k is formed exactly (two p-bit significands give a 2p-bit one).
 *   2. The K products are split into blocks of `block` products: consecutive ones, or, with
 *      `interleave` = g > 0, runs of g consecutive products dealt to the blocks in turn (the
 *      map is tc_model_block_of). Each block is one multi-term addition: its addends (the
 *      block's products, and under TC_CHAIN_FUSED the running accumulator: c for the first
 *      block) are aligned to the largest exponent among them, emax, keeping `frac_bits` (F) bits
 *      below it: every addend is cut to a multiple of 2^(emax - F), each on its own, with
 *      `align_round` (truncation: TC_RZ). The aligned addends are added exactly (no carry is
 *      lost) and the sum is normalised and rounded once.
 *
 *            exponent:  emax          emax-F
 *                         |             |
 *     largest addend    1.xxxxxxxxxxxxxx|
 *     addend 2            001.xxxxxxxxxx|xxx        <- bits right of the line are dropped
 *     addend 3            0000001.xxxxxx|xxxxxxx       (per addend, before the addition)
 *                       ----------------+
 *     sum, rounded once (to the chain format, or to the output for the last block)
 *
 *   3. Blocks chain: TC_CHAIN_FUSED puts the running accumulator into the next block's alignment
 *      as one more addend (so c and earlier blocks lose bits below the next block's 2^(emax-F));
 *      TC_CHAIN_ADD sums each block alone, rounds it, and adds it to the accumulator with one
 *      rounded addition.
 *   4. The last block rounds to the output format (f32 or f16) with `out_round`; earlier blocks
 *      round to `chain_fmt` with `chain_round`. With `result_bits` = P > 0, a block's sum is first
 *      cut toward zero to its P leading bits (counted from the sum's own leading bit, whatever
 *      the format; always RZ), then rounded as above (exact, unless the result is subnormal).
 *      This is a block's result only: not the add chain's addition, not c after the blocks.
 *      (Hopper's wgmma with FP8 inputs and an f32 accumulator: F = 13 and P = 14.)
 *   5. With `c_after`, c is no addend of any block: the blocks chain as in 3 from a zero
 *      accumulator, and c is added to the last block's result at the end, with one addition
 *      rounded to the output format by `c_round`. (What ptxas makes of FP8 mma.sync on sm_90:
 *      two f16 mma from zero, then an FADD or HADD2 of c; see chapter 08's README.)
 *   6. `tiny_zero`: the sign of a zero that a rounding makes from a non-zero sum (one too small
 *      for the smallest subnormal; only a negative one shows it, and RD never makes a zero of
 *      it). TC_TINY_SIGNED is IEEE 754: the zero keeps the sum's sign. TC_TINY_POS gives +0, what
 *      a datapath does that rounds the fixed-point sum before it takes the sign from it (a
 *      negative sum rounded to zero is all zero bits), or that has one encoding for a zero
 *      significand. It applies to every rounding of a sum in the model: block results (to
 *      chain_fmt), the last block (to out, and to f32 first with out_via_f32), the add chain's
 *      additions and c after the blocks, because one normaliser does them all (in the FP8
 *      emulation on sm_90 block 0's rounding is an f16 mma's final one). An exact zero from
 *      non-zero terms keeps IEEE's rule (+0, -0 under RD); a flushed subnormal result keeps its
 *      sign.
 *
 *   Blocks of 16 in k = 32, contiguous (interleave 0) and in runs of 2 (interleave 2), with
 *   c after them:
 *
 *     k:          0 1 2 3 4 5 6 7 8 9 ... 15 16 17 18 19 ... 28 29 30 31
 *     contiguous  0 0 0 0 0 0 0 0 0 0 ...  0  1  1  1  1 ...  1  1  1  1
 *     interleave  0 0 1 1 0 0 1 1 0 0 ...  1  0  0  1  1 ...  0  0  1  1   (block = (k/2) mod 2)
 *
 *     0 --> [block 0: align, cut, add, round to chain_fmt] --> [block 1, with block 0's result
 *           when fused: align, cut, add, round to out] --> [+ c, rounded to out by c_round] --> d
 *
 * A dot product longer than one instruction is a chain of instructions, each one's D being the
 * next one's C (what every GEMM's k-loop does), so tc_model_dot takes any k.
 *
 * Element bits travel as uint32_t: an f16/bf16 in the low 16 bits, an e4m3/e5m2 in the low 8,
 * tf32 as the f32 bit pattern (the model ignores its low 13 bits, as the tensor core does). The
 * accumulator and the result are f32 bits or f16 bits (low 16) by the output format. */
#ifndef TC_MODEL_H
#define TC_MODEL_H

#include "convert.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- number formats ----------------------------------------------------------------------- */
typedef enum {
    TC_FMT_F16,
    TC_FMT_BF16,
    TC_FMT_TF32, /* f32 container, 10 fraction bits used */
    TC_FMT_E4M3,
    TC_FMT_E5M2,
    TC_FMT_F32,
    TC_FMT_COUNT
} tc_fmt;

typedef struct {
    const char *name;
    int storage_bits;   /* 16, 16, 32, 8, 8, 32 */
    int exp_bits;       /* exponent field */
    int frac_bits;      /* fraction bits that count (tf32: 10 of the container's 23) */
    int container_frac; /* fraction bits in the container (tf32: 23) */
    int bias;
    int p;          /* significant bits: frac_bits + 1 */
    int emin, emax; /* unbiased exponents of the smallest and the largest normal */
    int has_inf;    /* 0 for e4m3: no infinities, only S.1111.111 is NaN */
} tc_fmt_info;

const tc_fmt_info *tc_fmt_get(tc_fmt f);
/* "f16", "bf16", "tf32", "e4m3", "e5m2", "f32" -> the format; -1 for anything else */
int tc_fmt_from_name(const char *name);

/* A value unpacked: v = (-1)^neg * m * 2^e with m < 2^p. lead is the exponent the hardware
 * reads from the exponent field: e + p - 1 for a normal number, emin for a subnormal. */
typedef enum { TC_ZERO, TC_FINITE, TC_INF, TC_NAN } tc_class;
typedef struct {
    tc_class cls;
    int neg;
    uint64_t m;
    int e, lead;
    int subnormal;
} tc_unpacked;

tc_unpacked tc_fmt_decode(tc_fmt f, uint32_t bits);
/* Exact encoding of (-1)^neg * m * 2^e (m > 0) as a finite number of f; 0 when it is not
 * representable exactly (too many bits, out of range, or e4m3's NaN code). Zero: neg * sign. */
int tc_fmt_encode(tc_fmt f, int neg, uint64_t m, int e, uint32_t *bits);
/* The value as a double (exact for every format here; for printing and tests only). */
double tc_fmt_to_double(tc_fmt f, uint32_t bits);
int tc_fmt_is_nan(tc_fmt f, uint32_t bits);
/* Largest finite value, and the canonical NaN the GPU writes (f32 0x7FFFFFFF, f16 0x7FFF). */
uint32_t tc_fmt_max_bits(tc_fmt f, int neg);
uint32_t tc_fmt_nan_bits(tc_fmt f);

/* ---- rounding ----------------------------------------------------------------------------- */
typedef enum {
    TC_RZ,  /* toward zero: truncation of the magnitude */
    TC_RNE, /* to nearest, ties to even (IEEE default) */
    TC_RNA, /* to nearest, ties away from zero */
    TC_RD,  /* toward -inf: truncation of a two's-complement number */
    TC_RU,  /* toward +inf */
    TC_ROUND_COUNT
} tc_round;
const char *tc_round_name(tc_round r);

/* ---- the parameters ----------------------------------------------------------------------- */
#define TC_FRAC_EXACT 1000 /* frac_bits: nothing is ever cut (an exact multi-term sum) */

typedef enum {
    TC_REF_EXP_SUM, /* a product's alignment exponent is ea + eb (its significand in [1, 4)) */
    TC_REF_VALUE    /* the exponent of the product's value (normalised first) */
} tc_align_ref;

typedef enum { TC_CHAIN_FUSED, TC_CHAIN_ADD } tc_chain;
typedef enum { TC_SUB_KEEP, TC_SUB_FLUSH } tc_sub;
/* the sign of a non-zero sum rounded to zero: IEEE's (the sum's), or always +0 */
typedef enum { TC_TINY_SIGNED, TC_TINY_POS } tc_tiny_zero;

typedef struct {
    tc_fmt in, out; /* out: TC_FMT_F32 or TC_FMT_F16 */
    int k;          /* products per instruction: 16 (f16, bf16), 8 (tf32), 32 (fp8) */
    int block;      /* products per fused block, 1..k, divides k */
    int interleave; /* 0: blocks of consecutive products; g > 0: runs of g products dealt to the
                       blocks in turn (g < block, g divides block, two blocks or more) */
    int frac_bits;  /* F: bits kept below the block's largest exponent; TC_FRAC_EXACT */
    tc_align_ref align_ref;
    tc_round align_round; /* what happens to the bits of an addend right of 2^(emax-F) */
    tc_chain chain;
    tc_fmt chain_fmt;     /* format of a block result that is not the last: F32 or out */
    tc_round chain_round; /* its rounding */
    tc_round out_round;   /* the rounding of the last block into out */
    int out_via_f32;      /* f16 out only: the last sum is rounded to f32 (chain_round) first */
    int c_after;          /* 1: c is in no block; the blocks chain from zero (two or more) */
    tc_round c_round;     /* c_after: c + the last block's result, one addition rounded to out */
    tc_sub sub_in;        /* subnormal a, b */
    tc_sub sub_c;         /* subnormal c */
    tc_sub sub_out;       /* a subnormal result (after rounding) becomes a zero */
    int ovf_inf; /* 1: an overflow always gives inf; 0: IEEE (RZ gives the largest finite) */
    tc_tiny_zero tiny_zero; /* a non-zero sum rounded to zero: its sign (IEEE), or +0 */
    int result_bits; /* 0: none; P in 2 .. out's p - 1: a block's sum keeps its P leading bits,
                        truncated toward zero, before it is rounded to its format (step 4) */
} tc_model_params;

/* The naive models the chapter compares against (both keep subnormals; IEEE overflow):
 * a chain of correctly rounded f32 FMAs in k order (f16 out: the final f32 rounded to f16), and
 * the exact sum of c and the instruction's k products rounded once (RNE). */
void tc_model_params_fma_chain(tc_model_params *p, tc_fmt in, tc_fmt out, int k);
void tc_model_params_exact(tc_model_params *p, tc_fmt in, tc_fmt out, int k);
/* Something to start from: block = k, F = 26 (3 extra bits for f32), truncation everywhere,
 * fused chain, c inside it, subnormals kept, IEEE overflow. Not a measurement of any GPU. */
void tc_model_params_default(tc_model_params *p, tc_fmt in, tc_fmt out, int k);
/* The block that product i (0 <= i < k) of an instruction belongs to, 0 .. k/block - 1:
 * i / block for contiguous blocks; with interleave g, (i / g) mod (k / block). */
int tc_model_block_of(const tc_model_params *p, int i);
/* 0 when valid, else a message (static string) saying what is wrong */
const char *tc_model_params_check(const tc_model_params *p);
int tc_model_params_equal(const tc_model_params *x, const tc_model_params *y);
/* One line: "f16->f32 k16 block 8 F 26 ref=exp-sum align=RZ chain=fused(f32,RZ) out=RZ ...";
 * "interleave g" after the block, "sum=14b" (result_bits) and "c=after(RNE)" after out= and
 * "tiny=+0" at the end only when they are set. */
void tc_model_params_format(const tc_model_params *p, char *buf, int size);
/* The inverse of tc_model_params_format: 1 and *p when `line` is a model line as it prints them
 * (08's "model:" lines, the record below), 0 for anything else or invalid parameters. */
int tc_model_params_parse(const char *line, tc_model_params *p);
/* The C initialiser of p, to paste into a test or a program (.tiny_zero and .result_bits only
 * when they are not the default, so that the lines printed before they existed stay the same) */
void tc_model_params_print_c(const tc_model_params *p, const char *name, FILE *f);

/* ---- the model ---------------------------------------------------------------------------- */
/* d = c + sum_{i<k} a[i]*b[i] as the tensor core described by p computes it: instructions of
 * p->k products (the last one padded with zeros), each one's result the next one's c. */
uint32_t tc_model_dot(const tc_model_params *p, const uint32_t *a, const uint32_t *b, int k,
                      uint32_t c);
/* One element of a GEMM (c = 0) whose tensor cores sum runs of k_run products along k, each from a
 * zero accumulator (instructions of p->k products chained as in tc_model_dot), and whose CUDA
 * cores add each run's sum to an f32 total in order, rounded to nearest even: chapter 05's FP8
 * rungs (k_run = 128, one k-tile: "promotion"). k_run = 0 (or >= k): one run, whose sum is the
 * result, what a kernel computes that keeps its accumulators in the tensor cores' chain. p->out
 * must be f32 when runs are added. */
uint32_t tc_model_gemm_dot(const tc_model_params *p, const uint32_t *a, const uint32_t *b, int k,
                           int k_run);
/* The same for a GEMM on several words per value (chapter 04's 3xTF32, 09's bf16xN): a[w] and b[w]
 * are word w of the row of A and of the column of B (k elements each, word 0 the largest); each
 * run issues, per k-step of p->k products, one instruction per word product of `pairs` (n_pairs
 * (A word, B word) pairs, in issue order), all into one chain from a zero accumulator; the runs'
 * sums are added in f32 as above (k_run = 0: one run of all of k, its sum the result). */
uint32_t tc_model_gemm_dot_words(const tc_model_params *p, const uint32_t *const *a,
                                 const uint32_t *const *b, const int *pairs, int n_pairs, int k,
                                 int k_run);
/* The exact value of c + sum a[i]*b[i] rounded once to the nearest double (ties to even): the
 * reference for error measurements (inf/NaN when an input is). */
double tc_exact_dot(tc_fmt in, tc_fmt out, const uint32_t *a, const uint32_t *b, int k, uint32_t c);

/* ---- the record ------------------------------------------------------------------------------ */
/* The fits chapter 08 recorded on an NVIDIA H200 (compute capability 9.0, CUDA 13.0; 08's NOTES
 * and WGMMA.md print them as model lines), by 08_tc_numerics variant name: "f16f32" .. "e5m2f16"
 * (mma.sync) and "wg_f16f32" .. "wg_e5m2f16" (wgmma); NULL for any other name. 08's --test fits
 * afresh on the GPU it runs on (it does not compare with these); the GEMM driver checks kernels
 * against them bit for bit (tc_gemm_emulation, gemm_driver.h). */
const tc_model_params *tc_model_recorded_sm90(const char *variant);

/* ---- random inputs for the search --------------------------------------------------------- */
typedef enum {
    TC_DIST_UNIFORM,   /* a, b uniform in [-1, 1) rounded to the format; c of the sum's size */
    TC_DIST_WIDE,      /* random sign, exponent and fraction over the whole finite range */
    TC_DIST_MIXED,     /* each product from one of three scales 2^0, 2^-9, 2^-22 */
    TC_DIST_CANCEL,    /* products in nearly cancelling pairs, plus small ones */
    TC_DIST_OVERFLOW,  /* exponents near the top of the input and the output formats */
    TC_DIST_UNDERFLOW, /* exponents near the bottom, subnormals included */
    TC_DIST_COUNT
} tc_dist;
const char *tc_dist_name(tc_dist d);
/* One random dot product of k elements: a[k], b[k] in format in, c in format out. Never inf or
 * NaN inputs (a result may overflow). */
void tc_random_dot(tc_fmt in, tc_fmt out, int k, tc_dist dist, tc_rng *rng, uint32_t *a,
                   uint32_t *b, uint32_t *c);

#ifdef __cplusplus
}
#endif
#endif /* TC_MODEL_H */
