/* tests/test_gemm_inputs.c - the GEMM driver's random inputs (tc_gemm_fill_matrix): the uniform
 * default is the same stream as before the distributions and host roundings existed (seeds keep
 * their meaning), a precision row with a host rounding (tf32) stores rounded values and keeps the
 * f32 data they came from, and the wide distribution covers its range with exact f32 values.
 * Also the bench CSV file every --bench writes (tc_bench_csv_open), the output guards, and
 * --test's order and seeds (tc_gemm_test_order, tc_gemm_test_seed). */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include "unit.h"

#include "gemm_driver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { ROWS = 29, COLS = 37, LD = 33 }; /* column-major 29 x 37 with 4 elements of padding */

static float *fill(const char *precision, tc_input_dist dist, uint64_t seed, float **h32)
{
    tc_rng rng;
    tc_rng_seed(&rng, seed);
    float *h = malloc((size_t)(COLS * LD) * sizeof *h);
    *h32 = malloc((size_t)(COLS * LD) * sizeof **h32);
    tc_gemm_fill_matrix(h, *h32, tc_precision_get(precision), dist, ROWS, COLS, TC_COL_MAJOR, LD,
                        &rng);
    return h;
}

static int unit_gemm_inputs_uniform_unchanged(void)
{
    float *h32, *h = fill("f32", TC_INPUTS_UNIFORM, 5, &h32);
    tc_rng rng;
    tc_rng_seed(&rng, 5);
    for (long j = 0; j < COLS; j++)
        for (long i = 0; i < LD; i++) {
            size_t idx = (size_t)(j * LD + i);
            if (i >= ROWS) { /* padding is poisoned (a NaN) */
                UNIT_CHECK(tc_is_poison(h, TC_F32, idx) && isnan(h32[idx]),
                           "padding (%ld,%ld) not poisoned", i, j);
                continue;
            }
            float want = tc_rng_uniform(&rng, -1.0f, 1.0f);
            UNIT_CHECK(h[idx] == want && h32[idx] == want, "(%ld,%ld): %a, want %a", i, j, h[idx],
                       want);
        }
    free(h);
    free(h32);
    return 0;
}

static int unit_gemm_inputs_f64_full_precision(void)
{
    /* f64 rows get 53-bit data in [-1, 1): nearly every value needs more than f32's 24 bits, and
     * the padding holds the poison (a NaN) */
    tc_rng rng;
    tc_rng_seed(&rng, 7);
    double *h = malloc((size_t)(COLS * LD) * sizeof *h);
    tc_gemm_fill_matrix(h, NULL, tc_precision_get("f64"), TC_INPUTS_UNIFORM, ROWS, COLS,
                        TC_COL_MAJOR, LD, &rng);
    long wide = 0;
    for (long j = 0; j < COLS; j++)
        for (long i = 0; i < LD; i++) {
            size_t idx = (size_t)(j * LD + i);
            if (i >= ROWS) {
                UNIT_CHECK(tc_is_poison(h, TC_F64, idx) && isnan(h[idx]),
                           "padding (%ld,%ld) not poisoned", i, j);
                continue;
            }
            UNIT_CHECK(h[idx] >= -1.0 && h[idx] < 1.0, "(%ld,%ld): %a outside [-1, 1)", i, j,
                       h[idx]);
            wide += (double)(float)h[idx] != h[idx];
        }
    UNIT_CHECK(wide > ROWS * COLS * 9 / 10, "only %ld of %d values need more than 24 bits", wide,
               ROWS * COLS);
    free(h);
    return 0;
}

static int unit_gemm_inputs_tf32_rounded_on_host(void)
{
    float *h32, *h = fill("tf32", TC_INPUTS_UNIFORM, 6, &h32);
    float *f32_h32, *f32_h = fill("f32", TC_INPUTS_UNIFORM, 6, &f32_h32);
    long changed = 0;
    for (long j = 0; j < COLS; j++)
        for (long i = 0; i < ROWS; i++) {
            size_t idx = (size_t)(j * LD + i);
            UNIT_CHECK(h32[idx] == f32_h[idx], "(%ld,%ld): the f32 data differ from the f32 row's",
                       i, j);
            UNIT_CHECK(h[idx] == tc_f32_to_tf32_rna(h32[idx]) &&
                           (tc_f32_bits(h[idx]) & 0x1FFFu) == 0,
                       "(%ld,%ld): stored %a is not tf32_rna(%a)", i, j, h[idx], h32[idx]);
            changed += h[idx] != h32[idx];
        }
    /* 24 random bits: almost every value has some of its low 13 bits set */
    UNIT_CHECK(changed > ROWS * COLS * 9 / 10, "only %ld of %d values were rounded", changed,
               ROWS * COLS);
    free(h);
    free(h32);
    free(f32_h);
    free(f32_h32);
    return 0;
}

static int unit_gemm_inputs_wide_range(void)
{
    float *h32, *h = fill("f32", TC_INPUTS_WIDE, 7, &h32);
    int seen[TC_WIDE_EXP_MAX - TC_WIDE_EXP_MIN + 2] = {0};
    for (long j = 0; j < COLS; j++)
        for (long i = 0; i < ROWS; i++) {
            size_t idx = (size_t)(j * LD + i);
            float x = h[idx];
            UNIT_CHECK(x == h32[idx], "(%ld,%ld): stored %a, data %a", i, j, x, h32[idx]);
            UNIT_CHECK(isfinite(x) && fabsf(x) < ldexpf(1.0f, TC_WIDE_EXP_MAX),
                       "(%ld,%ld) = %a outside +-2^%d", i, j, x, TC_WIDE_EXP_MAX);
            if (x == 0) continue;
            UNIT_CHECK(isnormal(x), "(%ld,%ld) = %a is not a normal f32", i, j, x);
            /* u has 24 random bits on a 2^-23 grid: x is a multiple of 2^(e-23) */
            UNIT_CHECK(fmodf(x, ldexpf(1.0f, TC_WIDE_EXP_MIN - 23)) == 0,
                       "(%ld,%ld) = %a is off the grid", i, j, x);
            int e = ilogbf(x) + 1; /* |x| in [2^(e-1), 2^e) */
            if (e >= TC_WIDE_EXP_MIN && e <= TC_WIDE_EXP_MAX) seen[e - TC_WIDE_EXP_MIN]++;
        }
    /* every binade 2^(e-1)..2^e of the scale range holds values (u is mostly in [1/2, 1)) */
    for (int e = TC_WIDE_EXP_MIN; e <= TC_WIDE_EXP_MAX; e++)
        UNIT_CHECK(seen[e - TC_WIDE_EXP_MIN] > 10, "only %d values in [2^%d, 2^%d)",
                   seen[e - TC_WIDE_EXP_MIN], e - 1, e);
    free(h);
    free(h32);
    return 0;
}

/* tc_bench_csv_open: the file gets exactly the header line; a path that cannot be written gives
 * NULL (the programs turn that into exit 2). */
static int unit_bench_csv_open_writes_header(void)
{
    char path[] = "/tmp/tc_unit_csv_XXXXXX";
    const int fd = mkstemp(path);
    UNIT_CHECK(fd >= 0, "mkstemp failed");
    close(fd);
    FILE *f = tc_bench_csv_open(path);
    UNIT_CHECK(f != NULL && f != stdout, "could not open %s", path);
    tc_bench_csv_close(f);
    FILE *r = fopen(path, "r");
    UNIT_CHECK(r != NULL, "cannot reread %s", path);
    char line[512] = {0};
    const int got = fgets(line, sizeof line, r) != NULL;
    const int more = fgetc(r) != EOF;
    fclose(r);
    remove(path);
    UNIT_CHECK(got && !more, "expected exactly one line");
    line[strcspn(line, "\n")] = 0;
    UNIT_CHECK(strcmp(line, tc_bench_csv_header()) == 0, "header line differs: %s", line);
    UNIT_CHECK(tc_bench_csv_open("/nonexistent-dir/x.csv") == NULL, "unwritable path accepted");
    return 0;
}

/* The guards around C catch a write into the padding between rows, before C and past its end,
 * for every output type, while a C written only inside its rows passes. */
static int unit_gemm_guards_catch_outside_writes(void)
{
    const tc_dtype types[] = {TC_F32, TC_F16, TC_BF16, TC_I32};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        const tc_dtype t = types[ti];
        const long rows = 5, inner = 7, ld = 9; /* 2 elements of padding per row */
        const size_t head = 2, nc = (size_t)(rows * ld), tail = tc_gemm_guard_elems(ld, t);
        UNIT_CHECK(tail >= (size_t)ld && tail * tc_dtype_size(t) >= TC_GEMM_GUARD_BYTES,
                   "guard of %zu elements is shorter than a row or %d bytes", tail,
                   TC_GEMM_GUARD_BYTES);
        const size_t all = head + nc + tail, bytes = tc_dtype_size(t);
        unsigned char *buf = (unsigned char *)tc_xmalloc(all * bytes);
        memset(buf, tc_poison_byte(t), all * bytes);
        for (long r = 0; r < rows; r++)
            for (long c = 0; c < inner; c++) tc_store(buf, t, head + (size_t)(r * ld + c), 1.0);
        UNIT_CHECK(tc_gemm_outside_writes(buf, t, head, nc, ld, inner, tail) == 0,
                   "a C written inside its rows was reported (%s)", tc_dtype_name(t));
        /* one stray element at a time: padding, before C, just past C, at the guard's end */
        const size_t strays[] = {head + (size_t)(2 * ld + inner),
                                 head + (size_t)(ld - 1),
                                 0,
                                 head - 1,
                                 head + nc,
                                 all - 1};
        for (size_t si = 0; si < sizeof strays / sizeof strays[0]; si++) {
            unsigned char saved[8];
            memcpy(saved, buf + strays[si] * bytes, bytes);
            tc_store(buf, t, strays[si], 2.0);
            const long got = tc_gemm_outside_writes(buf, t, head, nc, ld, inner, tail);
            memcpy(buf + strays[si] * bytes, saved, bytes);
            UNIT_CHECK(got == 1, "a write at element %zu of %zu was not caught (%s, got %ld)",
                       strays[si], all, tc_dtype_name(t), got);
        }
        free(buf);
    }
    return 0;
}

/* --test's order visits every (variant, case) once, the small cases variant by variant first;
 * the seeds: a small case's differ between variants and cases, a large case's are one per case
 * (shared by the variants) and differ from every small one */
static int unit_gemm_test_order_and_seeds(void)
{
    enum { NV = 7, NC = 43, NS = 38 };
    int order[2 * NV * NC], seen[NV][NC];
    memset(seen, 0, sizeof seen);
    tc_gemm_test_order(NV, NC, NS, order);
    for (int k = 0; k < NV * NC; k++) {
        const int vi = order[2 * k], ci = order[2 * k + 1];
        UNIT_CHECK(vi >= 0 && vi < NV && ci >= 0 && ci < NC, "pair %d out of range (%d, %d)", k, vi,
                   ci);
        seen[vi][ci]++;
        if (k < NV * NS) /* the small cases first, variant by variant */
            UNIT_CHECK(vi == k / NS && ci == k % NS, "pair %d is (%d, %d)", k, vi, ci);
        else /* then case by case, every variant in turn */
            UNIT_CHECK(ci == NS + (k - NV * NS) / NV && vi == (k - NV * NS) % NV,
                       "pair %d is (%d, %d)", k, vi, ci);
    }
    for (int vi = 0; vi < NV; vi++)
        for (int ci = 0; ci < NC; ci++)
            UNIT_CHECK(seen[vi][ci] == 1, "(%d, %d) visited %d times", vi, ci, seen[vi][ci]);
    /* TC_TEST_SMALL: n_cases = n_small, only the first part */
    tc_gemm_test_order(NV, NS, NS, order);
    for (int k = 0; k < NV * NS; k++)
        UNIT_CHECK(order[2 * k] == k / NS && order[2 * k + 1] == k % NS, "small-only pair %d", k);
    for (int vi = 0; vi < NV; vi++)
        for (int ci = 0; ci < NC; ci++) {
            const uint64_t s = tc_gemm_test_seed(1, vi, ci, NS);
            for (int vj = 0; vj < NV; vj++)
                for (int cj = 0; cj < NC; cj++) {
                    if (vj == vi && cj == ci) continue;
                    const int same = tc_gemm_test_seed(1, vj, cj, NS) == s;
                    const int shared = ci >= NS && cj == ci; /* a large case, another variant */
                    UNIT_CHECK(same == shared, "seeds of (%d, %d) and (%d, %d): %s", vi, ci, vj, cj,
                               same ? "equal" : "different");
                }
        }
    UNIT_CHECK(tc_gemm_test_seed(1, 0, 40, NS) != tc_gemm_test_seed(2, 0, 40, NS),
               "the user's --seed does not change a large case's inputs");
    return 0;
}

static const tc_unit tests[] = {
    {.name = "gemm_inputs_uniform_unchanged", .fn = unit_gemm_inputs_uniform_unchanged},
    {.name = "gemm_inputs_f64_full_precision", .fn = unit_gemm_inputs_f64_full_precision},
    {.name = "gemm_inputs_tf32_rounded_on_host", .fn = unit_gemm_inputs_tf32_rounded_on_host},
    {.name = "gemm_inputs_wide_range", .fn = unit_gemm_inputs_wide_range},
    {.name = "bench_csv_open_writes_header", .fn = unit_bench_csv_open_writes_header},
    {.name = "gemm_guards_catch_outside_writes", .fn = unit_gemm_guards_catch_outside_writes},
    {.name = "gemm_test_order_and_seeds", .fn = unit_gemm_test_order_and_seeds},
};

int main(int argc, char **argv) { return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests)); }
