/* common/harness.c - see harness.h. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include "check.h"
#include "convert.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- errors -------------------------------------------------------------------------------- */
void tc_check_fail(const char *file, int line, const char *lib, const char *expr, const char *name,
                   const char *detail)
{
    fprintf(stderr, "%s:%d: %s error: %s failed: %s%s%s%s\n", file, line, lib, expr, name,
            detail && *detail ? " (" : "", detail ? detail : "", detail && *detail ? ")" : "");
    exit(TC_EXIT_WRONG);
}

void tc_skip(const char *program, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("SKIP: %s: ", program);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    exit(TC_EXIT_SKIP);
}

void tc_usage_error(const char *program, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", program);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (try --help)\n");
    va_end(ap);
    exit(TC_EXIT_USAGE);
}

void *tc_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "error: out of host memory allocating %zu bytes\n", bytes);
        exit(TC_EXIT_WRONG);
    }
    return p;
}

size_t tc_host_memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : (size_t)0;
}

int tc_cpu_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)(n > 256 ? 256 : n) : 1;
}

typedef struct {
    void (*fn)(void *, int, int);
    void *ctx;
    int tid, n;
} parallel_arg;

static void *parallel_entry(void *arg)
{
    parallel_arg *a = (parallel_arg *)arg;
    a->fn(a->ctx, a->tid, a->n);
    return NULL;
}

void tc_parallel(void (*fn)(void *ctx, int tid, int nthreads), void *ctx)
{
    int n = tc_cpu_threads();
    pthread_t *th = (pthread_t *)tc_xmalloc((size_t)n * sizeof *th);
    parallel_arg *args = (parallel_arg *)tc_xmalloc((size_t)n * sizeof *args);
    for (int t = 0; t < n; t++) {
        args[t] = (parallel_arg){fn, ctx, t, n};
        if (t > 0 && pthread_create(&th[t], NULL, parallel_entry, &args[t]) != 0) {
            fprintf(stderr, "error: pthread_create failed\n");
            exit(TC_EXIT_WRONG);
        }
    }
    fn(ctx, 0, n);
    for (int t = 1; t < n; t++) pthread_join(th[t], NULL);
    free(th);
    free(args);
}

/* ---- element types ------------------------------------------------------------------------- */
size_t tc_dtype_size(tc_dtype t)
{
    switch (t) {
    case TC_F64: return 8;
    case TC_F32:
    case TC_I32: return 4;
    case TC_F16:
    case TC_BF16: return 2;
    case TC_I8:
    case TC_E4M3:
    case TC_E5M2: return 1;
    }
    return 0;
}

const char *tc_dtype_name(tc_dtype t)
{
    switch (t) {
    case TC_F32: return "f32";
    case TC_F16: return "f16";
    case TC_BF16: return "bf16";
    case TC_I8: return "i8";
    case TC_I32: return "i32";
    case TC_E4M3: return "e4m3";
    case TC_E5M2: return "e5m2";
    case TC_F64: return "f64";
    }
    return "?";
}

int tc_dtype_is_integer(tc_dtype t) { return t == TC_I8 || t == TC_I32; }

double tc_load(const void *base, tc_dtype t, size_t idx)
{
    switch (t) {
    case TC_F32: return (double)((const float *)base)[idx];
    case TC_F16: return (double)tc_f16_to_f32(((const uint16_t *)base)[idx]);
    case TC_BF16: return (double)tc_bf16_to_f32(((const uint16_t *)base)[idx]);
    case TC_I8: return (double)((const int8_t *)base)[idx];
    case TC_I32: return (double)((const int32_t *)base)[idx];
    case TC_E4M3: return (double)tc_e4m3_to_f32(((const uint8_t *)base)[idx]);
    case TC_E5M2: return (double)tc_e5m2_to_f32(((const uint8_t *)base)[idx]);
    case TC_F64: return ((const double *)base)[idx];
    }
    return 0.0;
}

void tc_store(void *base, tc_dtype t, size_t idx, double x)
{
    float f = (float)x;
    switch (t) {
    case TC_F32: ((float *)base)[idx] = f; break;
    case TC_F16: ((uint16_t *)base)[idx] = tc_f32_to_f16(f); break;
    case TC_BF16: ((uint16_t *)base)[idx] = tc_f32_to_bf16(f); break;
    case TC_I8: ((int8_t *)base)[idx] = tc_f32_to_i8_sat(f); break;
    case TC_I32: ((int32_t *)base)[idx] = (int32_t)x; break;
    case TC_E4M3: ((uint8_t *)base)[idx] = tc_f32_to_e4m3(f); break;
    case TC_E5M2: ((uint8_t *)base)[idx] = tc_f32_to_e5m2(f); break;
    case TC_F64: ((double *)base)[idx] = x; break; /* the only type that keeps x whole */
    }
}

unsigned char tc_poison_byte(tc_dtype t) { return tc_dtype_is_integer(t) ? 0x80 : 0xFF; }

int tc_is_poison(const void *base, tc_dtype t, size_t idx)
{
    size_t w = tc_dtype_size(t);
    const unsigned char *p = (const unsigned char *)base + idx * w;
    for (size_t b = 0; b < w; b++)
        if (p[b] != tc_poison_byte(t)) return 0;
    return 1;
}

/* ---- device block -------------------------------------------------------------------------- */
void tc_device_open(tc_device_info *info, int min_cc, const char *program)
{
    memset(info, 0, sizeof *info);
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    /* Skipped (77) only when there is nothing to run on: no GPU, or no (new enough) driver. Any
     * other error (a broken driver, busy or unavailable devices) is a failure that names it. */
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || (!err && count == 0))
        tc_skip(program, "no CUDA GPU visible (cudaGetDeviceCount: %s)",
                err != cudaSuccess ? cudaGetErrorName(err) : "0 devices");
    if (err != cudaSuccess) {
        fprintf(stderr, "%s: the CUDA runtime cannot use the GPU: cudaGetDeviceCount: %s (%s)\n",
                program, cudaGetErrorName(err), cudaGetErrorString(err));
        exit(TC_EXIT_WRONG);
    }
    info->device = 0;
    TC_CUDA_CHECK(cudaSetDevice(info->device));
    struct cudaDeviceProp prop;
    TC_CUDA_CHECK(cudaGetDeviceProperties(&prop, info->device));
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->cc = prop.major * 10 + prop.minor;
    info->sms = prop.multiProcessorCount;
    info->l2_bytes = prop.l2CacheSize;
    info->mem_total = prop.totalGlobalMem;
    info->smem_optin = prop.sharedMemPerBlockOptin;
    int khz = 0;
    TC_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, info->device));
    info->clock_mhz = khz / 1000;
    TC_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, info->device));
    info->mem_clock_mhz = khz / 1000;
    TC_CUDA_CHECK(cudaDriverGetVersion(&info->driver_version));
    TC_CUDA_CHECK(cudaRuntimeGetVersion(&info->runtime_version));
    size_t total = 0;
    TC_CUDA_CHECK(cudaMemGetInfo(&info->mem_free, &total));
    if (info->cc < min_cc)
        tc_skip(program, "needs compute capability %d.%d or newer; %s is %d.%d", min_cc / 10,
                min_cc % 10, info->name, info->cc / 10, info->cc % 10);
}

void tc_info_line(FILE *f, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(f, "%-10s: ", key);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    va_end(ap);
}

void tc_device_print(const tc_device_info *d, FILE *f)
{
    tc_info_line(f, "GPU", "%s (compute capability %d.%d, %d SMs, %d MHz peak SM clock)", d->name,
                 d->cc / 10, d->cc % 10, d->sms, d->clock_mhz);
    tc_info_line(f, "memory", "%.1f GiB (%.1f GiB free), L2 %.0f MiB, %zu KiB shared/block opt-in",
                 (double)d->mem_total / (1 << 30), (double)d->mem_free / (1 << 30),
                 (double)d->l2_bytes / (1 << 20), d->smem_optin / 1024);
    tc_info_line(f, "CUDA", "driver supports %d.%d, runtime %d.%d", d->driver_version / 1000,
                 d->driver_version % 1000 / 10, d->runtime_version / 1000,
                 d->runtime_version % 1000 / 10);
    tc_info_line(f, "host", "%d CPU threads for the reference and the checks, %.1f GiB of memory",
                 tc_cpu_threads(), (double)tc_host_memory_bytes() / (1 << 30));
    const char *tf32 = getenv("NVIDIA_TF32_OVERRIDE");
    if (tf32 && *tf32)
        tc_info_line(f, "WARNING",
                     "NVIDIA_TF32_OVERRIDE=%s is set: it changes what FP32 library "
                     "calls compute",
                     tf32);
}

/* ---- command line -------------------------------------------------------------------------- */
void tc_print_usage(const tc_cli_spec *spec, FILE *f)
{
    int w = (int)strlen(spec->program);
    fprintf(f, "%s - %s\n\nusage: %s [--variant NAME|all]%s", spec->program, spec->summary,
            spec->program, spec->max_dim ? " [--size MxNxK]" : "");
    for (int i = 0; i < spec->n_flags; i++)
        fprintf(f, " [%s %s]", spec->flags[i].name, spec->flags[i].metavar);
    fprintf(f,
            "\n       %*s [--reps N] [--warmup N] [--seed S] [--test] [--bench] [--csv FILE]\n"
            "       %*s [--list] [--help]\n\n"
            "  (no mode)      run the default variant on the default size: verify, time, print\n"
            "  --test         every variant on the test matrix against the CPU reference\n"
            "  --bench        the bench sizes, CSV rows to stdout or to --csv FILE\n"
            "  --list         the variant table\n"
            "  --variant V    one variant (see --list) or 'all'\n",
            w, "", w, "");
    if (spec->max_dim) fprintf(f, "  --size MxNxK   problem size, each in 1..%ld\n", spec->max_dim);
    for (int i = 0; i < spec->n_flags; i++) {
        char left[48];
        snprintf(left, sizeof left, "%s %s", spec->flags[i].name, spec->flags[i].metavar);
        fprintf(f, "  %-14s %s\n", left, spec->flags[i].help);
    }
    fprintf(f,
            "  --reps N       timed repetitions, 1..100000 (default %d); the median is reported\n"
            "  --warmup N     untimed runs first, 0..100000 (default %d)\n"
            "  --seed S       seed of the random inputs, 0..2^64-1 (default 1)\n\n"
            "exit codes: 0 pass, 1 a result was wrong, 2 bad usage, 77 skipped (no GPU, GPU too\n"
            "old, library missing)\n",
            spec->default_reps, spec->default_warmup);
}

long tc_parse_long(const char *program, const char *flag, const char *text, long lo, long hi)
{
    char *end = NULL;
    errno = 0;
    /* strtol also takes leading blanks and '+': accept only an optional '-' and digits */
    const char *digits = text[0] == '-' ? text + 1 : text;
    long v = *digits >= '0' && *digits <= '9' ? strtol(text, &end, 10) : 0;
    if (!end || errno || end == text || *end != '\0' || v < lo || v > hi)
        tc_usage_error(program, "bad value '%s' for %s: expected an integer in %ld..%ld", text,
                       flag, lo, hi);
    return v;
}

static const char *table_name(const void *table, size_t entry_size, int i)
{
    /* an entry starts with its name: a pointer to a struct points to its first member too */
    return *(const char *const *)(const void *)((const char *)table + (size_t)i * entry_size);
}

int tc_table_find(const void *table, size_t entry_size, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(name, table_name(table, entry_size, i)) == 0) return i;
    return -1;
}

void tc_unknown_name(const char *program, const char *what, const char *value, const void *table,
                     size_t entry_size, int n)
{
    fprintf(stderr, "%s: unknown %s '%s'; allowed: all", program, what, value);
    for (int i = 0; i < n; i++) fprintf(stderr, ", %s", table_name(table, entry_size, i));
    fprintf(stderr, "\n");
    exit(TC_EXIT_USAGE);
}

static void parse_size(const tc_cli_spec *spec, const char *text, tc_args *a)
{
    long v[3];
    const char *p = text;
    for (int i = 0; i < 3; i++) {
        char *end = NULL;
        errno = 0;
        if (*p < '0' || *p > '9') goto bad;
        v[i] = strtol(p, &end, 10);
        if (errno || end == p) goto bad;
        if (v[i] < 1 || v[i] > spec->max_dim)
            tc_usage_error(spec->program,
                           "bad --size '%s': every dimension must be in 1..%ld (got %ld)", text,
                           spec->max_dim, v[i]);
        p = end;
        if (i < 2) {
            if (*p != 'x' && *p != 'X') goto bad;
            p++;
        }
    }
    if (*p != '\0') goto bad;
    a->m = v[0];
    a->n = v[1];
    a->k = v[2];
    return;
bad:
    tc_usage_error(spec->program,
                   "bad --size '%s': expected MxNxK with positive integers, e.g. "
                   "4096x4096x4096",
                   text);
}

/* The options every program takes; the chapter's own flags follow them in the getopt table. */
enum {
    OPT_VARIANT = 1000,
    OPT_SIZE,
    OPT_REPS,
    OPT_WARMUP,
    OPT_SEED,
    OPT_CSV,
    OPT_TEST,
    OPT_BENCH,
    OPT_LIST,
    OPT_HELP,
    OPT_CHAPTER /* + index of the chapter's flag */
};
static const struct option common_options[] = {
    {"variant", required_argument, NULL, OPT_VARIANT},
    {"size", required_argument, NULL, OPT_SIZE},
    {"reps", required_argument, NULL, OPT_REPS},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"seed", required_argument, NULL, OPT_SEED},
    {"csv", required_argument, NULL, OPT_CSV},
    {"test", no_argument, NULL, OPT_TEST},
    {"check", no_argument, NULL, OPT_TEST},
    {"bench", no_argument, NULL, OPT_BENCH},
    {"list", no_argument, NULL, OPT_LIST},
    {"help", no_argument, NULL, OPT_HELP},
};
enum { N_COMMON_OPTIONS = TC_COUNT(common_options) };

/* "--name" of the option getopt_long just returned (for messages) */
static const char *option_name(const struct option *opts, int code, char *buf, size_t size)
{
    for (int i = 0; opts[i].name; i++)
        if (opts[i].val == code) {
            snprintf(buf, size, "--%s", opts[i].name);
            return buf;
        }
    return "-h";
}

void tc_parse_args(int argc, char **argv, const tc_cli_spec *spec, tc_args *a)
{
    memset(a, 0, sizeof *a);
    a->mode = TC_MODE_DEFAULT;
    a->reps = spec->default_reps;
    a->warmup = spec->default_warmup;
    a->seed = 1;

    /* the getopt_long table: the common options, then the chapter's flags without their "--" */
    struct option opts[N_COMMON_OPTIONS + TC_MAX_CHAPTER_FLAGS + 1];
    memcpy(opts, common_options, sizeof common_options);
    if (spec->n_flags > TC_MAX_CHAPTER_FLAGS) { /* a program's table, not its user's input */
        fprintf(stderr, "%s: %d flags of its own, the harness takes at most %d\n", spec->program,
                spec->n_flags, TC_MAX_CHAPTER_FLAGS);
        exit(1);
    }
    const int n_flags = spec->n_flags;
    for (int f = 0; f < n_flags; f++)
        opts[N_COMMON_OPTIONS + f] = (struct option){
            .name = spec->flags[f].name + 2, .has_arg = required_argument, .val = OPT_CHAPTER + f};
    opts[N_COMMON_OPTIONS + n_flags] = (struct option){0};

    int seen[OPT_CHAPTER + TC_MAX_CHAPTER_FLAGS - OPT_VARIANT] = {0};
    const char *mode_flag = NULL;
    char name[64];
    opterr = 0; /* the messages are ours */
    optind = 1;
    int code;
    /* "+": stop at the first argument that is not an option (reported below) instead of moving
     * it; ":": a missing value returns ':' */
    while ((code = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
        if (code == '?') {
            const char *bad = argv[optind - 1];
            if (optopt && optopt != '?')
                tc_usage_error(spec->program, "unknown option '-%c'", optopt);
            tc_usage_error(spec->program, "unknown option '%s'", bad);
        }
        if (code == ':') {
            const char *bad = argv[optind - 1];
            const char *eq = strchr(bad, '=');
            tc_usage_error(spec->program, "%.*s needs a value",
                           eq ? (int)(eq - bad) : (int)strlen(bad), bad);
        }
        if (code == 'h') code = OPT_HELP;
        const char *flag = option_name(opts, code, name, sizeof name);
        if (seen[code - OPT_VARIANT]++)
            tc_usage_error(spec->program, "%s given twice; give each option once", flag);
        const char *val = optarg;
        if (val && !*val) tc_usage_error(spec->program, "%s needs a non-empty value", flag);
        switch (code) {
        case OPT_VARIANT:
            if (strcmp(val, "all") != 0 &&
                tc_table_find(spec->variants, spec->variant_size, spec->n_variants, val) < 0)
                tc_unknown_name(spec->program, "variant", val, spec->variants, spec->variant_size,
                                spec->n_variants);
            a->variant = val;
            break;
        case OPT_SIZE:
            if (!spec->max_dim)
                tc_usage_error(spec->program, "this chapter takes no --size; see --help for its "
                                              "own problem flags");
            parse_size(spec, val, a);
            break;
        case OPT_REPS: a->reps = (int)tc_parse_long(spec->program, flag, val, 1, 100000); break;
        case OPT_WARMUP: a->warmup = (int)tc_parse_long(spec->program, flag, val, 0, 100000); break;
        case OPT_SEED: {
            /* digits only: strtoull would take blanks, '+' and even '-' (negating) */
            char *end = NULL;
            errno = 0;
            unsigned long long v = val[0] >= '0' && val[0] <= '9' ? strtoull(val, &end, 10) : 0;
            if (!end || errno || *end != '\0')
                tc_usage_error(spec->program,
                               "bad value '%s' for --seed: expected an integer in 0..2^64-1", val);
            a->seed = (uint64_t)v;
            break;
        }
        case OPT_CSV: a->csv_path = val; break;
        case OPT_TEST:
        case OPT_BENCH:
        case OPT_LIST:
            if (mode_flag)
                tc_usage_error(spec->program,
                               "%s and %s: --test, --bench and --list exclude each "
                               "other",
                               mode_flag, argv[optind - 1]);
            mode_flag = argv[optind - 1];
            a->mode = code == OPT_TEST    ? TC_MODE_TEST
                      : code == OPT_BENCH ? TC_MODE_BENCH
                                          : TC_MODE_LIST;
            break;
        case OPT_HELP: tc_print_usage(spec, stdout); exit(TC_EXIT_PASS);
        default: a->flag_values[code - OPT_CHAPTER] = val; break;
        }
    }
    if (optind < argc) tc_usage_error(spec->program, "unknown argument '%s'", argv[optind]);
    if (a->csv_path && a->mode != TC_MODE_BENCH)
        tc_usage_error(spec->program, "--csv goes with --bench");
    if (a->csv_path) {
        /* Find out now, not after minutes of measurements, whether the file can be written, but
         * leave it as it is: it is opened (and truncated) only when the rows are written. */
        const int existed = access(a->csv_path, F_OK) == 0;
        FILE *f = fopen(a->csv_path, "a");
        if (!f)
            tc_usage_error(spec->program, "cannot write --csv '%s': %s", a->csv_path,
                           strerror(errno));
        fclose(f);
        if (!existed) remove(a->csv_path);
    }
    if (a->mode == TC_MODE_TEST && a->m)
        tc_usage_error(spec->program, "--test runs its own size matrix; drop --size");
}

/* ---- timing -------------------------------------------------------------------------------- */
static void *flush_buffer;
static size_t flush_bytes;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

tc_timing tc_time_gpu(tc_work_fn fn, void *ctx, cudaStream_t stream, int warmup, int reps)
{
    if (!flush_buffer) {
        int dev = 0, l2 = 0;
        TC_CUDA_CHECK(cudaGetDevice(&dev));
        TC_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : (1 << 20));
        TC_CUDA_CHECK(cudaMalloc(&flush_buffer, flush_bytes));
    }
    for (int i = 0; i < warmup; i++) {
        TC_CUDA_CHECK(cudaMemsetAsync(flush_buffer, i & 0xFF, flush_bytes, stream));
        fn(ctx, stream);
    }
    cudaEvent_t *ev = (cudaEvent_t *)tc_xmalloc(2 * (size_t)reps * sizeof *ev);
    for (int i = 0; i < 2 * reps; i++) TC_CUDA_CHECK(cudaEventCreate(&ev[i]));
    for (int i = 0; i < reps; i++) {
        TC_CUDA_CHECK(cudaMemsetAsync(flush_buffer, i & 0xFF, flush_bytes, stream));
        TC_CUDA_CHECK(cudaEventRecord(ev[2 * i], stream));
        fn(ctx, stream);
        TC_CUDA_CHECK(cudaEventRecord(ev[2 * i + 1], stream));
    }
    TC_CUDA_CHECK(cudaStreamSynchronize(stream));
    double *ms = (double *)tc_xmalloc((size_t)reps * sizeof *ms);
    for (int i = 0; i < reps; i++) {
        float t = 0;
        TC_CUDA_CHECK(cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]));
        ms[i] = t;
    }
    for (int i = 0; i < 2 * reps; i++) TC_CUDA_CHECK(cudaEventDestroy(ev[i]));
    qsort(ms, (size_t)reps, sizeof *ms, cmp_double);
    tc_timing r;
    r.reps = reps;
    r.ms_min = ms[0];
    r.ms_max = ms[reps - 1];
    r.ms_median = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    free(ms);
    free(ev);
    return r;
}

void tc_timing_release(void)
{
    if (flush_buffer) cudaFree(flush_buffer);
    flush_buffer = NULL;
}

/* ---- targets ------------------------------------------------------------------------------- */
/* "90a" -> 90, arch 1; "80" -> 80, arch 0; 0 for anything else */
static int parse_target(const char *t, size_t len, int *arch)
{
    int n = 0;
    size_t i = 0;
    for (; i < len && t[i] >= '0' && t[i] <= '9'; i++) n = 10 * n + (t[i] - '0');
    *arch = i < len && t[i] == 'a';
    return i > 0 && i + (size_t)*arch == len ? n : 0;
}

const char *tc_target_unsupported(const char *target, int cc, const char *build_targets)
{
    static char why[200];
    if (!target || !*target) return NULL;
    int need_arch, code = 0, have_exact = 0;
    const int need = parse_target(target, strlen(target), &need_arch);
    if (!need) {
        snprintf(why, sizeof why, "the variant names an unknown target '%s'", target);
        return why;
    }
    if (need_arch && cc != need) {
        snprintf(why, sizeof why,
                 "needs sm_%da code, which runs on compute capability %d.%d alone; this GPU is "
                 "sm_%d",
                 need, need / 10, need % 10, cc);
        return why;
    }
    if (!need_arch && cc < need) {
        snprintf(why, sizeof why, "needs sm_%d or newer; this GPU is sm_%d", need, cc);
        return why;
    }
    if (!build_targets) return NULL;
    /* the code this GPU runs: the newest target of the build it can run (an arch-specific one
     * only on its own compute capability) */
    for (const char *t = build_targets; *t;) {
        while (*t == ' ') t++;
        size_t len = strcspn(t, " ");
        int arch;
        const int n = parse_target(t, len, &arch);
        if (n && (arch ? n == cc : n <= cc) && n > code) code = n;
        if (n == need && arch == need_arch) have_exact = 1;
        t += len;
    }
    if (need_arch && !have_exact) {
        snprintf(why, sizeof why, "this build has no sm_%da code (add %d to SM; it has %s)", need,
                 need, build_targets);
        return why;
    }
    if (!code) {
        snprintf(why, sizeof why, "this build has no code for this GPU, sm_%d (it has %s)", cc,
                 build_targets);
        return why;
    }
    if (code < need) {
        snprintf(why, sizeof why,
                 "needs sm_%d code or newer; this GPU runs the build's sm_%d code (add %d to SM)",
                 need, code, need);
        return why;
    }
    return NULL;
}

/* ---- bench rows ---------------------------------------------------------------------------- */
const char *tc_bench_csv_header(void)
{
    return "chapter,variant,problem,precision,size,ms_median,ms_min,rate,unit,baseline,"
           "pct_of_baseline,verified,rel_err,rel_err_vs_data,gpu,cc,sms,clock_mhz,driver,cuda,"
           "git_sha,date";
}

FILE *tc_bench_csv_open(const char *path)
{
    FILE *f = path ? fopen(path, "w") : stdout;
    if (!f) {
        fprintf(stderr, "error: cannot write %s\n", path);
        return NULL;
    }
    fprintf(f, "%s\n", tc_bench_csv_header());
    return f;
}

void tc_bench_csv_close(FILE *f)
{
    if (f && f != stdout) fclose(f);
}

/* CSV fields we write never contain quotes; names with commas are quoted. */
static void csv_field(FILE *f, const char *s)
{
    if (strchr(s, ','))
        fprintf(f, "\"%s\"", s);
    else
        fputs(s, f);
}

void tc_bench_csv_write(FILE *f, const tc_bench_row *r, const tc_device_info *d)
{
    char date[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const char *sha = getenv("TC_GIT_SHA");
    csv_field(f, r->chapter);
    fputc(',', f);
    csv_field(f, r->variant);
    fputc(',', f);
    csv_field(f, r->problem);
    fprintf(f, ",%s,%s,%.4f,%.4f,%.2f,%s,", r->precision, r->size, r->ms_median, r->ms_min, r->rate,
            r->unit);
    csv_field(f, r->baseline);
    fprintf(f, ",%.1f,%s,", r->pct_of_baseline,
            r->verified == TC_VERIFIED_COARSE ? "coarse"
            : r->verified > 0                 ? "pass"
            : r->verified == 0                ? "FAIL"
                                              : "unchecked");
    /* the error columns: three significant digits, empty where the row has no such check */
    if (r->has_rel_err) fprintf(f, "%.3g", r->rel_err);
    fputc(',', f);
    if (r->has_rel_err_vs_data) fprintf(f, "%.3g", r->rel_err_vs_data);
    fputc(',', f);
    csv_field(f, d->name);
    fprintf(f, ",%d.%d,%d,%d,%d.%d,%d.%d,%s,%s\n", d->cc / 10, d->cc % 10, d->sms, d->clock_mhz,
            d->driver_version / 1000, d->driver_version % 1000 / 10, d->runtime_version / 1000,
            d->runtime_version % 1000 / 10, sha && *sha ? sha : "unknown", date);
}

/* ---- device buffers for the unit tests --------------------------------------------------------
 */
void *tc_device_copy(const void *h, size_t bytes)
{
    void *d = NULL;
    TC_CUDA_CHECK(cudaMalloc(&d, bytes));
    if (h)
        TC_CUDA_CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    else
        TC_CUDA_CHECK(cudaMemset(d, 0xFF, bytes));
    return d;
}

void tc_device_fetch(void *h, const void *d, size_t bytes)
{
    TC_LAUNCH_CHECK();
    TC_CUDA_CHECK(cudaDeviceSynchronize());
    TC_CUDA_CHECK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
}
