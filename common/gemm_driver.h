/* common/gemm_driver.h - the shared driver of every GEMM chapter.
 *
 * A chapter declares one variant table (CONTRIBUTING.md, "The variant table") and calls tc_gemm_main.
 * Everything else is derived from the table: --list, the --variant dispatcher, the --test matrix
 * and the --bench rows. The driver owns inputs, poisoning, the CPU reference, the checker, the
 * timing and the output; a variant owns only its launch.
 *
 * The problem is C = alpha * A * B + beta * C with A M x K, B K x N, C M x N, in the layouts the
 * variant declares. The harness always uses alpha = 1, beta = 0 (so that C can be poisoned); a
 * launcher must still honour alpha and beta as given. */
#ifndef TC_GEMM_DRIVER_H
#define TC_GEMM_DRIVER_H

#include "harness.h"
#include "tc_model.h"
#include "verify.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int M, N, K;
    const tc_precision *prec;
    tc_layout a_layout, b_layout, c_layout;
    long lda, ldb, ldc;    /* leading dimensions, in elements */
    const void *d_a, *d_b; /* device pointers */
    void *d_c;
    float alpha, beta;
    void *chapter_ctx; /* what the chapter's init returned (library handles...) */
    void *plan;        /* what the variant's prepare stored, if anything */
    /* 0: the launcher makes its run-time choices (tile width, split, grid) itself, as it does
     * for a user; i >= 1: --test forces the variant's choice i (forced_names[i - 1]) */
    int force;
    /* block-scaled variants only (tc_gemm_variant.scaling, below): the f32 scales on the device,
     * sa(i, kb) = d_scale_a[kb * ld_scale_a + i] (M fastest, ld_scale_a = M rounded up to 4) and
     * sb(kb, nb) = d_scale_b[nb * ld_scale_b + kb] (K blocks fastest, ld_scale_b = ceil(K / 128)
     * rounded up to a multiple of 4), each 16-byte aligned; NULL otherwise */
    const float *d_scale_a, *d_scale_b;
    long ld_scale_a, ld_scale_b;
} tc_gemm_problem;

/* How A and B hold their values.
 *   TC_GEMM_SCALING_NONE      as stored: C = alpha A B + beta C (every row but the ones below);
 *   TC_GEMM_SCALING_BLOCK128  block-scaled FP8, as models are trained (the DeepSeek-V3 recipe):
 *       A(i, k) = a(i, k) sa(i, k / 128)     one f32 scale per 1 x 128 slice of a row of A,
 *       B(k, j) = b(k, j) sb(k / 128, j / 128)  one per 128 x 128 block of B,
 *     a and b the stored fp8 values, the scales in p->d_scale_a / d_scale_b (laid out as
 *     PyTorch hands them to cuBLASLt's VEC128 and BLK128x128 modes). The driver quantises its f32 data
 *     with power-of-two scales: s = the smallest power of two with max |x| / s <= the format's
 *     largest value over the block, a = fp8(x / s); so every scaled value is exact in f32 and the
 *     FP64 reference applies the scales exactly. K must be a multiple of 128 (mult_k). */
typedef enum { TC_GEMM_SCALING_NONE, TC_GEMM_SCALING_BLOCK128 } tc_gemm_scaling;
#define TC_GEMM_SCALE_BLOCK 128

/* The scales of a block-scaled problem on the host, as the driver made them (for the checks):
 * the layout of tc_gemm_problem's d_scale_a, d_scale_b */
typedef struct {
    const float *a, *b;
    long ld_a, ld_b;
} tc_gemm_host_scales;

/* Prefix of a prepare() message that skips the case instead of failing it. */
#define TC_GEMM_SKIP "skip: "

/* Memory alignment in bytes (0: none): of an operand's first element (ptr) and of its leading
 * dimension times the element size (ld). */
typedef struct {
    int ptr, ld;
} tc_align;

/* What a variant computes, bit for bit, where the arithmetic is known: chapter 08 measured the
 * tensor cores' sums (common/tc_model.h, the record of an H200), and a kernel whose schedule is
 * fixed computes element (i, j) of C = A B as
 *     total = +0;  for each run of k_run products along k, in order:  total = fl32(total + run)
 * where `run` is the tensor cores' sum of the run from a zero accumulator (instructions chained
 * as the model says); k_run = 0: one run of all of K, whose sum is the element (a kernel that
 * keeps its accumulators in the tensor cores' chain). On a GPU of compute capability `cc`, --test
 * compares up to TC_GEMM_EXACT_ELEMENTS elements of every case with this emulation, on the bits
 * the kernel read: bit for bit when alpha = 1 and beta = 0, otherwise within the three roundings
 * of alpha total + beta C. So a changed promotion interval, a dropped or repeated k-step, or a
 * run boundary moved by one k-step fails, where the FP64 reference's tolerance cannot tell. */
/* A kernel on several narrow words per f32 value (chapter 04's 3xTF32, 09's bf16xN) computes the
 * words on the GPU first; the emulation makes the same words on the host: */
typedef enum {
    TC_GEMM_WORDS_NONE,   /* the inputs are read as stored */
    TC_GEMM_WORDS_TF32X2, /* big = tf32(x), small = tf32(x - big), to nearest, ties away */
    TC_GEMM_WORDS_BF16X3  /* word p = bf16(x - the words before it), to nearest even */
} tc_gemm_words;

typedef struct {
    const char *model; /* the recorded fit, by chapter 08's variant name ("wg_e4m3f32") */
    int cc;            /* the GPU generation the record holds for: 90 */
    int k_run;         /* products per run before the f32 add; 0: all of K */
    /* words: per k-step of a run, one instruction per (A word, B word) pair of `pairs` (n_pairs
     * pairs, in issue order, word 0 the largest), all into the run's chain
     * (tc_model_gemm_dot_words) */
    tc_gemm_words words;
    const int *pairs;
    int n_pairs;
} tc_gemm_emulation;
#define TC_GEMM_EXACT_ELEMENTS 256

typedef struct tc_gemm_variant tc_gemm_variant;
struct tc_gemm_variant {
    const char *name;           /* "v3_regblock" */
    const char *description;    /* one line */
    const char *precision;      /* row of the tolerance table, e.g. "f16f32" */
    int min_cc;                 /* 80 = sm_80 */
    int mult_m, mult_n, mult_k; /* M, N, K must be multiples of these (0 or 1: any size) */
    /* What the variant needs of A and B, and of C, in memory (shown by --list). A case of the
     * test matrix outside it is not this variant's: --test reports it as not applicable, not as
     * skipped. (The CLI packs the operands at aligned addresses, so there the size rule above
     * is what matters.) */
    tc_align align_ab, align_c;
    tc_layout a_layout, b_layout, c_layout;
    const char *problem;  /* bench group, e.g. "FP16 GEMM" */
    const char *baseline; /* variant whose figure this row is compared with (same run) */
    /* Optional, outside the timed region: build plans, query heuristics, set attributes.
     * Returns NULL on success, or a message why the problem cannot be run: counted as a failure,
     * unless it starts with TC_GEMM_SKIP ("skip: "), which says the problem is valid but outside
     * what the variant or this GPU supports (shared memory it lacks, an algorithm the library
     * does not have): the case is then reported as skipped. An alignment the variant needs
     * belongs in align_ab / align_c instead, where --list shows it. */
    const char *(*prepare)(const tc_gemm_variant *v, tc_gemm_problem *p);
    /* Enqueues the GEMM on stream; must not synchronise or allocate. */
    void (*launch)(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
    void (*release)(const tc_gemm_variant *v, tc_gemm_problem *p); /* optional */
    /* Optional: after a checked case's launches (the stream synchronised), NULL when the state
     * they leave for the next launch is what the launcher promises (a workspace's flags back to
     * zero), else what is wrong: the case fails. A second launch on the same data cannot show a
     * stale flag, since it finds the same partial sums. */
    const char *(*check_state)(const tc_gemm_variant *v, const tc_gemm_problem *p);
    const void *impl; /* chapter data for the launcher */
    /* the code the variant needs beyond min_cc: "90a" (arch-specific, wgmma) or "90" (sm_90 code
     * or newer); NULL: none. The driver skips it, with the reason, when this build's code for
     * this GPU cannot run it (tc_target_unsupported, harness.h). */
    const char *target;
    /* The run-time choices the launcher makes from the problem or the GPU (a tile width, a
     * split, a grid), each forceable: --test runs every case once more per choice, with
     * p->force = 1 .. n_forced, so that every choice is tested whatever the sizes pick and
     * whatever the GPU's SM count; forced_names[i] names choice i + 1 in the output. */
    int n_forced;
    const char *const *forced_names;
    /* optional: the variant's arithmetic, bit for bit, for --test's exact check (above). A
     * block-scaled variant's runs are its scale blocks (k_run = TC_GEMM_SCALE_BLOCK): each
     * run's sum r is added as total = fma(r, sa sb, total), in order */
    const tc_gemm_emulation *emulation;
    tc_gemm_scaling scaling; /* TC_GEMM_SCALING_NONE unless the row says otherwise */
    /* a row whose kernel scales by exponents it finds in the data (a row's or column's largest
     * magnitude): on uniform data nearly every such exponent is 0, and a wrong one would go
     * unseen, so --test draws its inputs wide (TC_INPUTS_WIDE) when the run's are uniform */
    int wide_test_inputs; /* 0 or 1 */
};

/* The distribution of the random inputs, chosen with --inputs (default and --test modes; --bench
 * uses uniform, so that every CSV row means the same thing, except a bench extra whose label names
 * another distribution):
 *   uniform  x uniform in [-1, 1) with 24 random bits (the repository's default); f64 data
 *            (precision rows with in = TC_F64) get 53 random bits instead;
 *   wide     x = u * 2^e, u as above and e a uniform integer in TC_WIDE_EXP_MIN..TC_WIDE_EXP_MAX:
 *            magnitudes spread over 2^16 (and u's own spread below that), every value still an
 *            exact f32 (a power-of-two scaling of a 24-bit value, far from under- or overflow),
 *            or f64. Defined for f32 and f64 data only: variants whose inputs are stored in a
 *            narrower format (f16, bf16, fp8, int8) report the case as skipped. The tolerance scale
 *            s = max|A| * max|B| stays a valid bound (it is then about 2^16). */
/*   skewed   x = u * 2^e with one e per block: per 1 x 128 slice of a row of A (128 values
 *            along K) and per 128 x 128 block of B, e a uniform integer in -8..8: the dynamic
 *            range that per-tensor FP8 loses and block scaling keeps (a row's small slices
 *            fall into e4m3's subnormals). Defined for every floating-point input; int8 skips. */
/*   skewed_rows  A as skewed with one e per whole row (all of K), B uniform: rows of C made only
 *            of small slices, where per-tensor FP8 loses a whole row and block scaling keeps it
 *            (the Frobenius error over C cannot show it; the worst row's error does). Floating
 *            point only. With skewed and skewed_rows the table (default runs and --bench) also
 *            prints the worst row's error against the f32 data (tc_worst_row_error on 64 rows of
 *            C in full, or all of them on small problems; not for f64 rows: no f32 data). */
typedef enum {
    TC_INPUTS_UNIFORM,
    TC_INPUTS_WIDE,
    TC_INPUTS_SKEWED,
    TC_INPUTS_SKEWED_ROWS
} tc_input_dist;
#define TC_WIDE_EXP_MIN (-8)
#define TC_WIDE_EXP_MAX 8
#define TC_SKEW_BLOCK   128

/* An extra bench row that changes one variant's problem: its size, its memory layout (chapter 01
 * shows what misalignment costs) or its inputs' distribution (chapter 05 measures the error of
 * per-tensor and block-scaled FP8 on skewed inputs). */
typedef struct {
    const char *variant;  /* variant to run */
    const char *label;    /* the CSV's variant column, e.g. "f16f32_lda+1" */
    const char *baseline; /* row (label or variant name) it is compared with */
    int M, N, K;
    int ld_pad;           /* added to every leading dimension */
    int offset_elems;     /* A, B and C start this many elements past an aligned address */
    tc_input_dist inputs; /* TC_INPUTS_UNIFORM (0) unless the label names another distribution
                           * (e.g. "fp8_v8_tmastore_e4m3_skewed") */
} tc_gemm_bench_extra;

#define TC_GEMM_DEFAULT_DIM 4096

typedef struct {
    const char *name; /* chapter folder, e.g. "01_cublas_tensor_op" */
    const char *summary;
    const tc_gemm_variant *variants;
    int n_variants;
    /* Left out (NULL, 0), these are the repository's defaults, the same in every GEMM chapter:
     * every variant, M = N = K = TC_GEMM_DEFAULT_DIM, and the bench sizes 4096^3 and 8192^3. */
    const char *default_variant; /* "all" or a name */
    int default_m, default_n, default_k;
    const int (*bench_sizes)[3]; /* M, N, K */
    int n_bench_sizes;
    const tc_gemm_bench_extra *bench_extras;
    int n_bench_extras;
    int min_cc; /* of the whole chapter (the smallest of its variants) */
    /* Optional: create library handles etc. after the device is open; may call tc_skip. Lines
     * it prints (library versions) go to `info`, which is stderr when stdout carries CSV. */
    void *(*init)(const tc_device_info *dev, FILE *info);
    void (*fini)(void *ctx);
} tc_gemm_chapter;

/* Fills the rows x cols matrix stored with leading dimension ld with random values of
 * distribution dist, stored as p->in: f32 data drawn as described above, rounded by p->in_round
 * when the row has one (tf32), then to the storage type (quantised as round(127 x) for int8).
 * The f32 values before any rounding go to h32 (same layout) when it is not NULL. Padding
 * between rows/columns gets the poison pattern, so a kernel that reads padding produces NaNs.
 * The same seed gives the same f32 values for every precision. */
void tc_gemm_fill_matrix(void *h, float *h32, const tc_precision *p, tc_input_dist dist, long rows,
                         long cols, tc_layout layout, long ld, tc_rng *rng);
/* The same for operand B (K x N): skewed inputs get one exponent per 128 x 128 block instead of
 * per 1 x 128 slice (tc_gemm_fill_matrix fills as A), skewed_rows draws B uniform. Uniform and
 * wide draws are the same. */
void tc_gemm_fill_matrix_b(void *h, float *h32, const tc_precision *p, tc_input_dist dist,
                           long rows, long cols, tc_layout layout, long ld, tc_rng *rng);

/* Block quantisation (TC_GEMM_SCALING_BLOCK128) of an operand's f32 data x32 (rows x cols,
 * layout, leading dimension ld; padding left alone) into fp8 values of type t stored in h, with
 * one power-of-two scale per block of block_rows x block_cols: the scale of block (r, c) goes to
 * scales[r * scale_rs + c * scale_cs], and deq (NULL or the same layout as x32) gets the exact
 * f32 values a * s the product is of. A: blocks 1 x 128, B: 128 x 128. */
void tc_gemm_block_quantize(void *h, float *deq, float *scales, const float *x32, tc_dtype t,
                            long rows, long cols, tc_layout layout, long ld, int block_rows,
                            int block_cols, long scale_rs, long scale_cs);

/* The guard after C: at least one row (column, for a column-major C) and TC_GEMM_GUARD_BYTES,
 * poisoned before the launch, like the padding between C's rows and the elements before it. */
#define TC_GEMM_GUARD_BYTES 256
size_t tc_gemm_guard_elems(long ldc, tc_dtype out);
/* The number of elements of C's guards that no longer hold the poison: all_c is C (nc elements,
 * leading dimension ldc, inner_len of each ldc written) with `head` elements before it and `tail`
 * after it. Nonzero means the kernel wrote outside C. */
long tc_gemm_outside_writes(const void *all_c, tc_dtype out, size_t head, size_t nc, long ldc,
                            long inner_len, size_t tail);

/* Parses the command line (exit 2 on bad usage, before any CUDA call), opens the device (exit 77
 * without one) and runs the mode. Returns the process exit code. build_targets: what this program
 * was compiled for (TC_BUILD_TARGETS, which tc_gemm_main passes from the chapter's main). */
int tc_gemm_main_built(int argc, char **argv, const tc_gemm_chapter *ch, const char *build_targets);
#define tc_gemm_main(argc, argv, ch) tc_gemm_main_built((argc), (argv), (ch), TC_BUILD_TARGETS)

/* The exact check on host data, as --test runs it after a launch (exported for the CPU tests):
 * C (with p's sizes, layouts, leading dimensions, alpha and beta; h_c0 is C before the call,
 * NULL when beta is 0) against the variant's emulation on up to TC_GEMM_EXACT_ELEMENTS elements
 * of the sample (scales: a block-scaled variant's, else NULL). Returns the number that differ
 * (the first described in message), or -1 when the emulation does not fit the variant. */
long tc_gemm_exact_mismatches(const tc_gemm_variant *v, const tc_gemm_problem *p, const void *h_a,
                              const void *h_b, const void *h_c, const void *h_c0,
                              const tc_sample *sample, const tc_gemm_host_scales *scales,
                              char *message, size_t size);

/* --test's order and seeds (exported for the CPU tests). tc_gemm_test_order writes every pair
 * (variant vi < n_variants, case ci < n_cases) once into order[2 k], order[2 k + 1]: each
 * variant's small cases (ci < n_small) variant by variant, then each large case for every variant
 * in turn. tc_gemm_test_seed: a small case's inputs are drawn per variant, a large case's (the
 * costly inputs and FP64 references) the same for every variant, so that the rows of one input
 * type in a row reuse the kept problem. */
void tc_gemm_test_order(int n_variants, int n_cases, int n_small, int *order);
uint64_t tc_gemm_test_seed(uint64_t seed, int vi, int ci, int n_small);

/* NULL if the variant supports M x N x K, else a message naming the constraint. */
const char *tc_gemm_unsupported(const tc_gemm_variant *v, long M, long N, long K);

#ifdef __cplusplus
}
#endif
#endif
