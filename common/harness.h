/* common/harness.h - what every chapter binary shares: data types, the device block and the
 * capability gate, command-line parsing with the exit-code contract, GPU timing, and bench rows.
 *
* Exit codes (CONTRIBUTING.md): 0 pass, 1 a result was wrong, 2 bad usage, 77 skipped. */
#ifndef TC_HARNESS_H
#define TC_HARNESS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { TC_EXIT_PASS = 0, TC_EXIT_WRONG = 1, TC_EXIT_USAGE = 2, TC_EXIT_SKIP = 77 };

/* ---- element types ------------------------------------------------------------------------ */
typedef enum { TC_F32, TC_F16, TC_BF16, TC_I8, TC_I32, TC_E4M3, TC_E5M2, TC_F64 } tc_dtype;

size_t tc_dtype_size(tc_dtype t);
const char *tc_dtype_name(tc_dtype t);
int tc_dtype_is_integer(tc_dtype t);
/* Element idx of an array of type t, exactly, as a double. */
double tc_load(const void *base, tc_dtype t, size_t idx);
/* Stores x at element idx, rounded to t: to f32 first, then to nearest (ties to even) in the
 * narrow float formats; saturated for int8; exactly for int32 (x must be an integer in range). */
void tc_store(void *base, tc_dtype t, size_t idx, double x);
/* Byte that fills an output before a kernel runs: 0xFF (a NaN in every float format) or 0x80
 * for integers (0x80808080 = -2139062144, which no int8 GEMM with K < 131072 can produce). */
unsigned char tc_poison_byte(tc_dtype t);
int tc_is_poison(const void *base, tc_dtype t, size_t idx);

/* ---- the device block and the capability gate --------------------------------------------- */
typedef struct {
    int device;
    char name[256];
    int cc; /* 90 for compute capability 9.0 */
    int sms;
    int clock_mhz; /* peak SM clock reported by the driver */
    int mem_clock_mhz;
    int l2_bytes;
    size_t mem_total, mem_free;
    size_t smem_optin; /* max dynamic shared memory per block after cudaFuncSetAttribute */
    int driver_version, runtime_version;
} tc_device_info;

/* Opens device 0 (or $CUDA_VISIBLE_DEVICES' first), fills info. Exits 77 with one line when
 * there is no usable GPU or its compute capability is below min_cc (e.g. 80). */
void tc_device_open(tc_device_info *info, int min_cc, const char *program);
/* Prints the block every binary shows: GPU, CC, SMs, clocks, memory, driver and runtime. */
void tc_device_print(const tc_device_info *info, FILE *f);
/* One "key : value" line in the same style, for library versions etc. */
void tc_info_line(FILE *f, const char *key, const char *fmt, ...);
/* Exits 77 with "SKIP: <program>: <reason>". */
void tc_skip(const char *program, const char *fmt, ...);
/* Prints "<program>: <message>" to stderr and exits 2. */
void tc_usage_error(const char *program, const char *fmt, ...);

/* ---- targets: can this build's code for this GPU run a variant? ---------------------------- */
/* The one decision every driver makes before a variant (or a program) that needs particular code.
 * target: "90a", arch-specific code, which runs on compute capability 9.0 alone (wgmma,
 * setmaxnreg; "100a" would be Blackwell's); "90", code for sm_90 or newer, which needs a GPU of
 * 9.0 or newer and a build whose code for it is sm_90 or newer; NULL or "": nothing. build_targets:
 * the targets this program was compiled for, e.g. "80 90a" (TC_BUILD_TARGETS), or NULL when not
 * known (a build outside the Makefile): then only the GPU is checked, and the kernel's own launcher
 * finds out the rest. Returns NULL when it can run, else why not, one line (static storage). */
const char *tc_target_unsupported(const char *target, int cc, const char *build_targets);
/* The targets of this build: the Makefile compiles every source of a program with
 * -DTC_BUILD_TARGETS='"80 90a"'. */
#ifndef TC_BUILD_TARGETS
#define TC_BUILD_TARGETS NULL
#endif

/* ---- command line ------------------------------------------------------------------------- */
typedef enum { TC_MODE_DEFAULT, TC_MODE_TEST, TC_MODE_BENCH, TC_MODE_LIST, TC_MODE_HELP } tc_mode;

#define TC_MAX_CHAPTER_FLAGS 6

typedef struct {
    tc_mode mode;
    const char *variant; /* NULL: the chapter's default; "all": every variant */
    long m, n, k;        /* from --size MxNxK; 0 when not given */
    int reps, warmup;
    uint64_t seed;
    const char *csv_path; /* --csv FILE, NULL for stdout in bench mode */
    /* values of the chapter's own flags (tc_cli_spec.flags), NULL when not given; the chapter
     * checks them itself, before any CUDA call, with tc_usage_error */
    const char *flag_values[TC_MAX_CHAPTER_FLAGS];
} tc_args;

/* A chapter-specific flag that takes a value, e.g.
 * {.name = "--layer", .metavar = "NAME", .help = "one layer or all"}. */
typedef struct {
    const char *name, *metavar, *help;
} tc_cli_flag;

/* The number of entries of an array (not of a pointer). */
#define TC_COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* What a chapter tells the parser. Variant names are checked here, before any CUDA call. */
typedef struct {
    const char *program; /* e.g. "01_cublas_tensor_op" */
    const char *summary; /* one line for --help */
    /* the variant table: n_variants entries of variant_size bytes, each starting with its name (a
     * const char *): an array of names, or of structs whose first member is the name;
     * TC_VARIANT_TABLE(table) sets the three fields from an array */
    const void *variants;
    size_t variant_size;
    int n_variants;
    long max_dim; /* largest accepted M, N or K; 0: the chapter takes no --size */
    int default_reps, default_warmup;
    const tc_cli_flag *flags; /* the chapter's own flags (at most TC_MAX_CHAPTER_FLAGS) */
    int n_flags;
} tc_cli_spec;

#define TC_VARIANT_TABLE(table)                                                                    \
    .variants = (table), .variant_size = sizeof((table)[0]), .n_variants = TC_COUNT(table)

/* Parses argv into args (defaults first). On bad usage prints the problem naming the bad value
 * and what is allowed, and exits 2. --help prints usage and exits 0. */
void tc_parse_args(int argc, char **argv, const tc_cli_spec *spec, tc_args *args);
void tc_print_usage(const tc_cli_spec *spec, FILE *f);

/* The value of a chapter's integer flag: an optional '-' and digits, in lo..hi, else exit 2
 * with a message naming the flag, the value and the range. */
long tc_parse_long(const char *program, const char *flag, const char *text, long lo, long hi);

/* A table of n entries of entry_size bytes, each starting with its name (as tc_cli_spec's
 * variants: the chapter's variants, layers, shapes): the index of the entry called name, or -1. */
int tc_table_find(const void *table, size_t entry_size, int n, const char *name);
/* Prints "<program>: unknown <what> '<value>'; allowed: all, <every name of the table>" to stderr
 * and exits 2. */
void tc_unknown_name(const char *program, const char *what, const char *value, const void *table,
                     size_t entry_size, int n);

/* ---- timing ------------------------------------------------------------------------------- */
typedef struct {
    double ms_median, ms_min, ms_max;
    int reps;
} tc_timing;

typedef void (*tc_work_fn)(void *ctx, cudaStream_t stream);

/* Runs fn `warmup` times, then `reps` times, each timed by its own pair of CUDA events on
 * `stream`. Before every run (warm-up and timed) the L2 cache is flushed by writing a buffer of
 * twice its size, outside the events, so that no repetition reads inputs the previous one left
 * in L2. Returns median, min and max. */
tc_timing tc_time_gpu(tc_work_fn fn, void *ctx, cudaStream_t stream, int warmup, int reps);
/* Frees the L2 flush buffer (optional; the OS does it at exit). */
void tc_timing_release(void);

/* Fills every SM's shared memory with 0xFF bytes (common/shared_poison.cu), on `stream`. The
 * drivers call it before each launch whose result they check: shared memory keeps what the last
 * kernel left, and a block that reads a stage before its copy lands (a wait one group short)
 * would otherwise read the tiles the previous launch of the same inputs left there, and pass. */
void tc_poison_shared_memory(cudaStream_t stream);

/* ---- bench rows (CONTRIBUTING.md, "make bench") ---------------------------------------------- */
typedef struct {
    const char *chapter, *variant, *problem, *precision;
    char size[64];
    double ms_median, ms_min;
    double rate; /* TFLOP/s, TOP/s, GB/s, GStencil/s */
    const char *unit;
    const char *baseline; /* name of the baseline row (same chapter, problem, size) */
    double pct_of_baseline;
    /* 1 pass, 0 fail, -1 not checked, TC_VERIFIED_COARSE: passed a check that catches gross
     * errors only (K beyond what the precision can verify, tc_precision_k_verifiable) */
    int verified;
    /* The error columns, each left empty in the CSV unless its has_ flag is set: rel_err is
     * ||got - ref||_F / ||ref||_F over the checked elements, ref the FP64 (or exact integer)
     * result of the values the GPU was given; rel_err_vs_data the same against the result of
     * the higher-precision data those values were rounded from (the f32 data of f16, bf16, tf32,
     * fp8 and int8 inputs): what the format costs, beside what the arithmetic costs. */
    int has_rel_err, has_rel_err_vs_data;
    double rel_err, rel_err_vs_data;
} tc_bench_row;

#define TC_VERIFIED_COARSE 2

/* The fixed CSV header, without newline. */
const char *tc_bench_csv_header(void);
/* Opens the bench CSV for --bench: the file at path, or stdout when path is NULL, with the header
 * line written. NULL, after a message on stderr, when the file cannot be written (the callers
 * exit 2: a --csv path that cannot be written is bad input). */
FILE *tc_bench_csv_open(const char *path);
/* Closes what tc_bench_csv_open returned; stdout stays open. */
void tc_bench_csv_close(FILE *f);
/* Writes one CSV line, adding the GPU columns from dev, $TC_GIT_SHA and the date. */
void tc_bench_csv_write(FILE *f, const tc_bench_row *row, const tc_device_info *dev);

/* ---- device buffers for the one-warp unit tests (probes) ------------------------------------ */
/* cudaMalloc(bytes), then the bytes at h copied in, or, with h NULL, every byte set to 0xFF (a NaN
 * in every float format, -1 in every integer one), so that an element no kernel wrote shows. */
void *tc_device_copy(const void *h, size_t bytes);
/* After a launch: checks it, waits for the device, and copies bytes of d back to h. */
void tc_device_fetch(void *h, const void *d, size_t bytes);

/* ---- small utilities------------------------------------------------------------------- */
void *tc_xmalloc(size_t bytes); /* exits 1 with a message when the host is out of memory */
size_t tc_host_memory_bytes(void);
int tc_cpu_threads(void); /* online CPUs, at least 1 */
/* Runs fn(ctx, tid, nthreads) for tid = 0 .. nthreads-1 on tc_cpu_threads() threads (tid 0 on the
 * caller's own) and returns when all are done. Each call splits its work by tid. */
void tc_parallel(void (*fn)(void *ctx, int tid, int nthreads), void *ctx);

#ifdef __cplusplus
}
#endif
#endif /* TC_HARNESS_H */
