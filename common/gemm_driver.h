/* common/gemm_driver.h - the shared driver of every GEMM chapter.
 *
 * A chapter declares one variant table (DESIGN.md "The variant table") and calls tc_gemm_main.
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
} tc_gemm_problem;

/* Prefix of a prepare() message that skips the case instead of failing it. */
#define TC_GEMM_SKIP "skip: "

typedef struct tc_gemm_variant tc_gemm_variant;
struct tc_gemm_variant {
    const char *name;           /* "v3_regblock" */
    const char *description;    /* one line */
    const char *precision;      /* row of the tolerance table, e.g. "f16f32" */
    int min_cc;                 /* 80 = sm_80 */
    int mult_m, mult_n, mult_k; /* M, N, K must be multiples of these (1 = any size) */
    tc_layout a_layout, b_layout, c_layout;
    const char *problem;  /* bench group, e.g. "FP16 GEMM" */
    const char *baseline; /* variant whose figure this row is compared with (same run) */
    /* Optional, outside the timed region: build plans, query heuristics, set attributes.
     * Returns NULL on success, or a message why the problem cannot be run: counted as a failure,
     * unless it starts with TC_GEMM_SKIP ("skip: "), which says the problem is valid but outside
     * what the variant or this GPU supports (an alignment it needs, shared memory it lacks):
     * the case is then reported as skipped. */
    const char *(*prepare)(const tc_gemm_variant *v, tc_gemm_problem *p);
    /* Enqueues the GEMM on stream; must not synchronise or allocate. */
    void (*launch)(const tc_gemm_variant *v, const tc_gemm_problem *p, cudaStream_t stream);
    void (*release)(const tc_gemm_variant *v, tc_gemm_problem *p); /* optional */
    const void *impl; /* chapter data for the launcher */
};

/* An extra bench row that changes the memory layout of one variant's problem (used by chapter
 * 01 to show what misalignment costs). */
typedef struct {
    const char *variant;  /* variant to run */
    const char *label;    /* the CSV's variant column, e.g. "f16f32_lda+1" */
    const char *baseline; /* row (label or variant name) it is compared with */
    int M, N, K;
    int ld_pad;       /* added to lda and ldb */
    int offset_elems; /* A, B and C start this many elements past an aligned address */
} tc_gemm_bench_extra;

typedef struct {
    const char *name; /* chapter folder, e.g. "01_cublas_tensor_op" */
    const char *summary;
    const tc_gemm_variant *variants;
    int n_variants;
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

/* Parses the command line (exit 2 on bad usage, before any CUDA call), opens the device (exit 77
 * without one) and runs the mode. Returns the process exit code. */
int tc_gemm_main(int argc, char **argv, const tc_gemm_chapter *ch);

/* NULL if the variant supports M x N x K, else a message naming the constraint. */
const char *tc_gemm_unsupported(const tc_gemm_variant *v, long M, long N, long K);

#ifdef __cplusplus
}
#endif
#endif
