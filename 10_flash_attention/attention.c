/* 10_flash_attention/attention.c - the host driver of 10_flash_attention: the forward pass of
 * attention, O = softmax(Q K^T / sqrt(D) + mask) V and L = the row log-sum-exp, on cuDNN's fused
 * kernel, the unfused three-kernel version and the FlashAttention rungs, in one table.
 *
 * What it teaches
 *   A fused kernel against the library's fused kernel and against the unfused textbook: every row
 *   of --bench prints TFLOP/s (4 B H Sq Sk D for the two products, half of it with the causal
 *   mask) and its share of cudnn_sdpa's rate on the same problem, type and run.
 *
 * The problem (attn_layout.h): Q, K, V, O in BSHD, f16 or bf16 (the variant's row says which), f32
 * accumulation, O in the input type, L in f32 (natural log), scale 1/sqrt(D), the causal mask
 * aligned to the bottom right, rows that see no key O = 0 and L = -inf.
 *
 * Verification (attn_ref.h): inputs uniform in [-1, 1) from the printed seed, rounded to the input
 * type; the FP64 reference of those values; the per-element tolerance derived in attn_ref.h; O
 * and L poisoned (NaN) before every run, the elements before and after them and the padding
 * between rows too, all checked after; input padding holds NaN, so a read of it shows; a second
 * launch must write the same bits. Small problems are checked on every row, large ones on a
 * sample (first, middle, last, mask-boundary and random rows of every head).
 *
 * Build and run
 *   make                                           # build/bin/10_flash_attention
 *   build/bin/10_flash_attention                   # v1_mma_bf16 and cudnn_sdpa_bf16, 2,16,4096,128
 *   build/bin/10_flash_attention --variant all --shape 1,8,2048,1024,64 --causal 1
 *   build/bin/10_flash_attention --test            # every row on the test matrix
 *   build/bin/10_flash_attention --bench           # CSV rows, B 2, H 16, S 1024..8192, D 64, 128
 *   build/bin/10_flash_attention --bench --shape 2,16,8192,128   # one shape (make bench QUICK=1)
 *   build/bin/10_flash_attention --list            # the variant table */
#define _POSIX_C_SOURCE 200809L
#include "attn_ref.h"
#include "attn_variant.h"

#include "check.h"
#include "convert.h"
#include "harness.h"
#include "program.h"
#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "10_flash_attention"

/* ---- the variant table ------------------------------------------------------------------------
 * Every row of the ladder, f16 first, then bf16 (the same kernels); each is compared with the
 * cuDNN row of its type. */
/* the softmax's path: float4 online, scalar online, the row in a group of 32 .. 256 threads */
static const char *const v0_forced[] = {"vec4", "scalar", "row32", "row64", "row128", "row256"};

// clang-format off
#define CUDNN_HOOKS .prepare = hook_cudnn_prepare, .launch = hook_cudnn_launch, \
                    .release = hook_cudnn_release, .file = "attn_cudnn.c", \
                    .sizes = "causal: Sq <= Sk"
#define V0_HOOKS    .prepare = hook_v0_unfused_prepare, .launch = hook_v0_unfused_launch, \
                    .release = hook_v0_unfused_release, .file = "v0_unfused.cuh", .sizes = "any", \
                    .n_forced = 6, .forced_names = v0_forced
#define V1_HOOKS    .prepare = hook_v1_mma_prepare, .launch = hook_v1_mma_launch, \
                    .release = hook_plan_release, .file = "v1_mma.cuh", .sizes = "D 64, 128"
#define V2_HOOKS    .prepare = hook_v2_wgmma_prepare, .launch = hook_v2_wgmma_launch, \
                    .release = hook_plan_release, .file = "v2_wgmma.cuh", .sizes = "D 64, 128"
#define V3_HOOKS    .prepare = hook_v3_pingpong_prepare, .launch = hook_v3_pingpong_launch, \
                    .release = hook_plan_release, .file = "v3_pingpong.cuh", .sizes = "D 64, 128"
#define V4_HOOKS    .prepare = hook_v4_overlap_prepare, .launch = hook_v4_overlap_launch, \
                    .release = hook_plan_release, .file = "v4_overlap.cuh", .sizes = "D 64, 128"
#define CUDNN_WHAT  "cuDNN's fused SDPA forward (backend graph API): the baseline"
#define V0_WHAT     "cuBLAS S = Q K^T (f32), a softmax kernel, cuBLAS O = P V"
#define V1_WHAT     "FlashAttention-2 on mma.sync: 64x64 tiles, online softmax, P in registers"
#define V2_WHAT     "wgmma + TMA ring, producer + 2 consumer warpgroups, 128x128, P from registers"
#define V3_WHAT     "v2 with the ping-pong: the consumers take turns on the tensor cores (named barriers)"
#define V4_WHAT     "v3 + overlap in a warpgroup: S of tile j runs beside P V of tile j-1, 3 stages"
static const attn_variant variants[] = {
    {.name = "cudnn_sdpa",      .precision = "f16f32h",  .min_cc = 80, .description = CUDNN_WHAT, CUDNN_HOOKS},
    {.name = "v0_unfused",      .precision = "f16f32h",  .min_cc = 80, .description = V0_WHAT,
     .baseline = "cudnn_sdpa", V0_HOOKS},
    {.name = "v1_mma",          .precision = "f16f32h",  .min_cc = 80, .description = V1_WHAT,
     .baseline = "cudnn_sdpa", V1_HOOKS},
    {.name = "v2_wgmma",        .precision = "f16f32h",  .min_cc = 90, .target = "90a",
     .description = V2_WHAT, .baseline = "cudnn_sdpa", V2_HOOKS},
    {.name = "v3_pingpong",     .precision = "f16f32h",  .min_cc = 90, .target = "90a",
     .description = V3_WHAT, .baseline = "cudnn_sdpa", V3_HOOKS},
    {.name = "v4_overlap",      .precision = "f16f32h",  .min_cc = 90, .target = "90a",
     .description = V4_WHAT, .baseline = "cudnn_sdpa", V4_HOOKS},
    {.name = "cudnn_sdpa_bf16", .precision = "bf16f32b", .min_cc = 80, .description = CUDNN_WHAT, CUDNN_HOOKS},
    {.name = "v0_unfused_bf16", .precision = "bf16f32b", .min_cc = 80, .description = V0_WHAT,
     .baseline = "cudnn_sdpa_bf16", V0_HOOKS},
    {.name = "v1_mma_bf16",     .precision = "bf16f32b", .min_cc = 80, .description = V1_WHAT,
     .baseline = "cudnn_sdpa_bf16", V1_HOOKS},
    {.name = "v2_wgmma_bf16",   .precision = "bf16f32b", .min_cc = 90, .target = "90a",
     .description = V2_WHAT, .baseline = "cudnn_sdpa_bf16", V2_HOOKS},
    {.name = "v3_pingpong_bf16", .precision = "bf16f32b", .min_cc = 90, .target = "90a",
     .description = V3_WHAT, .baseline = "cudnn_sdpa_bf16", V3_HOOKS},
    {.name = "v4_overlap_bf16", .precision = "bf16f32b", .min_cc = 90, .target = "90a",
     .description = V4_WHAT, .baseline = "cudnn_sdpa_bf16", V4_HOOKS},
};
// clang-format on
enum { N_VARIANTS = sizeof variants / sizeof variants[0] };
/* the default run's rung, in each input type: v1_mma and v1_mma_bf16 (the name without "_bf16") */
static const char *const default_rung = "v1_mma";

static int is_default_rung(const attn_variant *v)
{
    const size_t n = strlen(default_rung);
    return strncmp(v->name, default_rung, n) == 0 &&
           (v->name[n] == '\0' || strcmp(v->name + n, "_bf16") == 0);
}

static tc_dtype variant_type(const attn_variant *v) { return tc_precision_get(v->precision)->in; }

static int find_variant(const char *name)
{
    for (int i = 0; i < N_VARIANTS; i++)
        if (strcmp(variants[i].name, name) == 0) return i;
    return -1;
}

/* the row a variant is compared with: its baseline, or itself */
static int baseline_of(int i)
{
    return variants[i].baseline ? find_variant(variants[i].baseline) : i;
}

/* ---- command line -------------------------------------------------------------------------- */
enum { FLAG_SHAPE, FLAG_CAUSAL, FLAG_DTYPE };
static const tc_cli_flag flags[] = {
    [FLAG_SHAPE] = {.name = "--shape",
                    .metavar = "B,H,S,D|B,H,SQ,SK,D",
                    .help = "batch, heads, query and key lengths, head dimension (64 or 128); "
                            "default 2,16,4096,128"},
    [FLAG_CAUSAL] = {.name = "--causal",
                     .metavar = "0|1",
                     .help = "1: the causal mask, aligned to the bottom right (default 0)"},
    [FLAG_DTYPE] = {.name = "--dtype",
                    .metavar = "f16|bf16|all",
                    .help = "the rows of this input type (default bf16; all for --test, --bench "
                            "and --variant all)"},
};
enum { MAX_BH = 65535, MAX_SEQ = 1 << 20 };
#define MAX_ELEMS 2147483648.0 /* per tensor: 2^31 elements, 4 GiB in f16 */

/* What check_args makes of the flags */
static struct {
    int B, H, Sq, Sk, D, causal;
    int dtype;                     /* -1: every type, else TC_F16 or TC_BF16 */
    int shape_given, causal_given; /* --bench: only this shape, only this mask */
} opts = {.B = 2, .H = 16, .Sq = 4096, .Sk = 4096, .D = 128, .causal = 0, .dtype = TC_BF16};

static void parse_shape(const char *text)
{
    long v[5];
    int n = 0;
    const char *p = text;
    for (;;) {
        char *end = NULL;
        if (*p < '0' || *p > '9') goto bad;
        v[n++] = strtol(p, &end, 10);
        p = end;
        if (n == 5 || *p != ',') break;
        p++;
    }
    if (*p != '\0' || (n != 4 && n != 5)) goto bad;
    if (n == 4) v[4] = v[3], v[3] = v[2]; /* B,H,S,D: Sq = Sk = S */
    static const char *names[5] = {"B", "H", "SQ", "SK", "D"};
    const long hi[5] = {MAX_BH, MAX_BH, MAX_SEQ, MAX_SEQ, 1 << 16};
    for (int i = 0; i < 5; i++)
        if (v[i] < 1 || v[i] > hi[i])
            tc_usage_error(PROGRAM, "bad --shape '%s': %s = %ld is out of range 1..%ld", text,
                           names[i], v[i], hi[i]);
    if (v[4] != 64 && v[4] != 128)
        tc_usage_error(PROGRAM,
                       "bad --shape '%s': head dimension D = %ld is not supported (64 or 128)",
                       text, v[4]);
    const double q = (double)v[0] * v[1] * v[2] * v[4], k = (double)v[0] * v[1] * v[3] * v[4];
    if (q > MAX_ELEMS || k > MAX_ELEMS)
        tc_usage_error(PROGRAM,
                       "bad --shape '%s': too many elements: Q holds %.3g and K %.3g (at most "
                       "2^31 each)",
                       text, q, k);
    opts.B = (int)v[0], opts.H = (int)v[1], opts.Sq = (int)v[2], opts.Sk = (int)v[3];
    opts.D = (int)v[4];
    return;
bad:
    tc_usage_error(PROGRAM,
                   "bad --shape '%s': expected B,H,S,D or B,H,SQ,SK,D with integers, e.g. "
                   "2,16,4096,128",
                   text);
}

static void check_args(const tc_args *a)
{
    const char *shape = a->flag_values[FLAG_SHAPE], *causal = a->flag_values[FLAG_CAUSAL],
               *dtype = a->flag_values[FLAG_DTYPE];
    if (a->mode == TC_MODE_TEST && (shape || causal))
        tc_usage_error(PROGRAM, "--test runs its own shapes and masks; drop --shape/--causal");
    if (shape) parse_shape(shape);
    opts.shape_given = shape != NULL, opts.causal_given = causal != NULL;
    if (causal) {
        if (strcmp(causal, "0") != 0 && strcmp(causal, "1") != 0)
            tc_usage_error(PROGRAM, "bad value '%s' for --causal: expected 0 or 1", causal);
        opts.causal = causal[0] == '1';
    }
    const int all = a->mode == TC_MODE_TEST || a->mode == TC_MODE_BENCH ||
                    (a->variant && strcmp(a->variant, "all") == 0);
    opts.dtype = all ? -1 : TC_BF16;
    if (a->variant && !all) opts.dtype = variant_type(&variants[find_variant(a->variant)]);
    if (dtype) {
        const int t = strcmp(dtype, "f16") == 0    ? TC_F16
                      : strcmp(dtype, "bf16") == 0 ? TC_BF16
                      : strcmp(dtype, "all") == 0  ? -1
                                                   : -2;
        if (t == -2)
            tc_usage_error(PROGRAM, "unknown dtype '%s' for --dtype; allowed: f16, bf16, all",
                           dtype);
        if (a->variant && !all && t != -1 && t != opts.dtype)
            tc_usage_error(PROGRAM, "--variant %s is %s; --dtype %s excludes it", a->variant,
                           tc_dtype_name((tc_dtype)opts.dtype), dtype);
        opts.dtype = t;
    }
    if (a->mode != TC_MODE_TEST && (a->mode != TC_MODE_BENCH || shape)) {
        /* host memory: the inputs as f32 data and rounded, the output, the reference's rows */
        const double elems = (double)opts.B * opts.H * opts.D * (2.0 * opts.Sq + 2.0 * opts.Sk);
        const double need = elems * 6 + 256.0 * (1 << 20), host = (double)tc_host_memory_bytes();
        if (host > 0 && need > host)
            tc_usage_error(PROGRAM,
                           "bad --shape %d,%d,%d,%d,%d: needs %.1f GiB of host memory, this "
                           "machine has %.1f GiB",
                           opts.B, opts.H, opts.Sq, opts.Sk, opts.D, need / (1 << 30),
                           host / (1 << 30));
    }
}

static void check_device(const tc_args *a, const tc_device_info *dev)
{
    if (a->mode == TC_MODE_TEST || (a->mode == TC_MODE_BENCH && !opts.shape_given)) return;
    const double bytes =
        2.0 * opts.B * opts.H * opts.D * (2.0 * opts.Sq + 2.0 * opts.Sk) + (256.0 * (1 << 20));
    if (bytes > (double)dev->mem_free)
        tc_usage_error(PROGRAM,
                       "bad --shape %d,%d,%d,%d,%d: Q, K, V and O need %.1f GiB of GPU memory, %s "
                       "has %.1f GiB free",
                       opts.B, opts.H, opts.Sq, opts.Sk, opts.D, bytes / (1 << 30), dev->name,
                       (double)dev->mem_free / (1 << 30));
}

static void print_list(void)
{
    printf("%s - attention forward (FlashAttention) on tensor cores, against cuDNN's fused "
           "kernel\n\n",
           PROGRAM);
    printf("%-16s %-9s %-6s %-17s %-15s %s\n", "variant", "precision", "min_sm", "sizes", "file",
           "description");
    for (int i = 0; i < N_VARIANTS; i++) {
        const attn_variant *v = &variants[i];
        char sm[16]; /* sm_80, or the arch-specific code a row needs: sm_90a */
        if (v->target && strchr(v->target, 'a'))
            snprintf(sm, sizeof sm, "sm_%s", v->target);
        else
            snprintf(sm, sizeof sm, "sm_%d", v->min_cc);
        printf("%-16s %-9s %-6s %-17s %-15s %s%s", v->name, v->precision, sm, v->sizes, v->file,
               v->description,
               !v->baseline         ? " [baseline]"
               : is_default_rung(v) ? " [default]"
                                    : "");
        for (int f = 0; f < v->n_forced; f++)
            printf("%s%s", f ? ", " : " (--test forces: ", v->forced_names[f]);
        printf("%s\n", v->n_forced ? ")" : "");
    }
    printf("\nEvery row: any B, H <= 65535 (v1-v4: grid), Sq, Sk >= 1 (up to 2^20 from the "
           "command line), D 64 or 128,\nQ, K, V, O in BSHD (any strides, rows 16-byte aligned for "
           "v1-v4), L f32 B x H x Sq. TFLOP/s = 4 B H Sq Sk D / s,\nhalf of it with the causal "
           "mask. The sm_90a rows v2_wgmma, v3_pingpong, v4_overlap need an H100 or H200 (HOPPER.md):\n"
           "--test passed on both, and the record's rows are the H200's.\n");
}

/* ---- one problem on the host -------------------------------------------------------------------
 * The layouts the test matrix runs: packed BSHD; every row padded by 8 elements (the padding of
 * O must stay poisoned, that of the inputs holds NaN); Q, K and V interleaved in one buffer, as a
 * fused QKV projection leaves them (Sq = Sk; O packed). */
typedef enum { LAYOUT_PACKED, LAYOUT_PADDED, LAYOUT_QKV } layout_kind;
static const char *layout_names[] = {"packed", "padded", "qkv"};

typedef struct {
    attn_dims p;
    tc_dtype t;
    layout_kind layout;
    attn_strides qs, ks, vs, os;
    size_t in_elems; /* the input buffer: Q, K, V one after another (or interleaved) */
    size_t q_off, k_off, v_off;
    size_t o_elems; /* O's extent */
    uint16_t *h_in; /* the inputs as the GPU gets them (type t) */
    float *f_in;    /* the f32 data they were rounded from */
    attn_rows rows;
    attn_ref ref, ref_data;
} problem;

static attn_strides strides_for(layout_kind k, long S, long H, long D)
{
    attn_strides s = attn_strides_bshd(S, H, D);
    if (k == LAYOUT_PADDED) s.seq = H * D + 8, s.batch = S * s.seq;
    if (k == LAYOUT_QKV) s.seq = 3 * H * D, s.batch = S * s.seq;
    return s;
}

static size_t extent(const attn_dims *p, long S, attn_strides s)
{
    return (size_t)((p->B - 1) * s.batch + (S - 1) * s.seq + (p->H - 1) * s.head + p->D);
}

static attn_tensor tensor_at(const problem *pr, const void *base, tc_dtype t, size_t off,
                             attn_strides st)
{
    attn_tensor x;
    x.data = (const char *)base + off * tc_dtype_size(t);
    x.type = t;
    x.st = st;
    return x;
}

/* Random inputs (uniform [-1, 1), rounded to t), NaN in every gap; the reference of the rows. */
static void problem_make(problem *pr, int B, int H, int Sq, int Sk, int D, int causal, tc_dtype t,
                         layout_kind layout, uint64_t seed, double full_limit, int with_data)
{
    memset(pr, 0, sizeof *pr);
    pr->p = (attn_dims){.B = B,
                        .H = H,
                        .Sq = Sq,
                        .Sk = Sk,
                        .D = D,
                        .causal = causal,
                        .scale = 1.0 / sqrt((double)D)};
    pr->t = t, pr->layout = layout;
    pr->qs = strides_for(layout, Sq, H, D);
    pr->ks = strides_for(layout, Sk, H, D);
    pr->vs = pr->ks;
    pr->os = strides_for(layout == LAYOUT_QKV ? LAYOUT_PACKED : layout, Sq, H, D);
    if (layout == LAYOUT_QKV) {
        pr->q_off = 0, pr->k_off = (size_t)H * D, pr->v_off = 2 * (size_t)H * D;
        pr->in_elems = (size_t)B * Sq * 3 * H * D;
    } else {
        const size_t nq = extent(&pr->p, Sq, pr->qs), nk = extent(&pr->p, Sk, pr->ks);
        const size_t a = 64; /* keep each tensor 128-byte aligned in the buffer */
        pr->q_off = 0, pr->k_off = (nq + a - 1) / a * a,
        pr->v_off = pr->k_off + (nk + a - 1) / a * a;
        pr->in_elems = pr->v_off + nk;
    }
    pr->o_elems = extent(&pr->p, Sq, pr->os);
    pr->h_in = (uint16_t *)tc_xmalloc(pr->in_elems * 2);
    pr->f_in = (float *)tc_xmalloc(pr->in_elems * sizeof(float));
    memset(pr->h_in, 0xFF, pr->in_elems * 2); /* NaN in the gaps */
    for (size_t i = 0; i < pr->in_elems; i++) pr->f_in[i] = NAN;
    tc_rng rng;
    tc_rng_seed(&rng, seed);
    const size_t offs[3] = {pr->q_off, pr->k_off, pr->v_off};
    const attn_strides sts[3] = {pr->qs, pr->ks, pr->vs};
    const long lens[3] = {Sq, Sk, Sk};
    for (int x = 0; x < 3; x++)
        for (long b = 0; b < B; b++)
            for (long s = 0; s < lens[x]; s++)
                for (long h = 0; h < H; h++) {
                    const size_t at =
                        offs[x] + (size_t)(b * sts[x].batch + s * sts[x].seq + h * sts[x].head);
                    for (int d = 0; d < D; d++) {
                        const float f = tc_rng_uniform(&rng, -1.0f, 1.0f);
                        pr->f_in[at + d] = f;
                        pr->h_in[at + d] = t == TC_F16 ? tc_f32_to_f16(f) : tc_f32_to_bf16(f);
                    }
                }
    pr->rows = attn_rows_make(&pr->p, full_limit, 16, &rng);
    const attn_tensor q = tensor_at(pr, pr->h_in, t, pr->q_off, pr->qs),
                      k = tensor_at(pr, pr->h_in, t, pr->k_off, pr->ks),
                      v = tensor_at(pr, pr->h_in, t, pr->v_off, pr->vs);
    const attn_rounding rd =
        attn_rounding_for(tc_precision_get(t == TC_F16 ? "f16f32h" : "bf16f32b"));
    attn_reference(&pr->p, &q, &k, &v, &pr->rows, &rd, &pr->ref);
    if (with_data) { /* the rel_err_vs_data column: the same rows from the f32 data */
        const attn_tensor fq = tensor_at(pr, pr->f_in, TC_F32, pr->q_off, pr->qs),
                          fk = tensor_at(pr, pr->f_in, TC_F32, pr->k_off, pr->ks),
                          fv = tensor_at(pr, pr->f_in, TC_F32, pr->v_off, pr->vs);
        attn_reference(&pr->p, &fq, &fk, &fv, &pr->rows, &rd, &pr->ref_data);
    }
}

static void problem_free(problem *pr)
{
    free(pr->h_in), free(pr->f_in);
    attn_rows_free(&pr->rows);
    attn_ref_free(&pr->ref);
    attn_ref_free(&pr->ref_data);
}

/* ---- one problem on the device ------------------------------------------------------------------
 * O and L sit in buffers with a guard before and after them (at least 256 bytes and a row of O),
 * poisoned before every run and checked after it, with the padding between O's rows. */
enum { GUARD_O = 128, GUARD_L = 64 }; /* elements before the data; after: max(guard, a row) */

typedef struct {
    void *in;      /* Q, K, V */
    void *o_base;  /* guard + O + guard, 2-byte elements */
    float *l_base; /* guard + L + guard */
    size_t o_total, l_total, o_tail;
    size_t l_elems;
    unsigned char *o_mask; /* 1 where O has an element (host, o_elems) */
} device_problem;

static void device_make(device_problem *d, const problem *pr)
{
    memset(d, 0, sizeof *d);
    TC_CUDA_CHECK(cudaMalloc(&d->in, pr->in_elems * 2));
    TC_CUDA_CHECK(cudaMemcpy(d->in, pr->h_in, pr->in_elems * 2, cudaMemcpyHostToDevice));
    d->o_tail = (size_t)pr->os.seq > GUARD_O ? (size_t)pr->os.seq : GUARD_O;
    d->o_total = GUARD_O + pr->o_elems + d->o_tail;
    d->l_elems = (size_t)pr->p.B * pr->p.H * pr->p.Sq;
    d->l_total = GUARD_L + d->l_elems + GUARD_L;
    TC_CUDA_CHECK(cudaMalloc(&d->o_base, d->o_total * 2));
    TC_CUDA_CHECK(cudaMalloc((void **)&d->l_base, d->l_total * sizeof(float)));
    d->o_mask = (unsigned char *)calloc(pr->o_elems, 1);
    if (!d->o_mask) tc_xmalloc((size_t)-1);
    for (long b = 0; b < pr->p.B; b++)
        for (long s = 0; s < pr->p.Sq; s++)
            for (long h = 0; h < pr->p.H; h++)
                memset(d->o_mask + b * pr->os.batch + s * pr->os.seq + h * pr->os.head, 1,
                       (size_t)pr->p.D);
}

static void device_free(device_problem *d)
{
    TC_CUDA_CHECK(cudaFree(d->in));
    TC_CUDA_CHECK(cudaFree(d->o_base));
    TC_CUDA_CHECK(cudaFree(d->l_base));
    free(d->o_mask);
}

static void device_poison(const device_problem *d, cudaStream_t stream)
{
    TC_CUDA_CHECK(cudaMemsetAsync(d->o_base, 0xFF, d->o_total * 2, stream));
    TC_CUDA_CHECK(cudaMemsetAsync(d->l_base, 0xFF, d->l_total * sizeof(float), stream));
}

static attn_run run_for(const problem *pr, const device_problem *d, int force, void *libs)
{
    attn_run r;
    memset(&r, 0, sizeof r);
    r.B = pr->p.B, r.H = pr->p.H, r.Sq = pr->p.Sq, r.Sk = pr->p.Sk, r.D = pr->p.D;
    r.causal = pr->p.causal, r.scale = (float)pr->p.scale, r.type = pr->t;
    r.q = (const uint16_t *)d->in + pr->q_off;
    r.k = (const uint16_t *)d->in + pr->k_off;
    r.v = (const uint16_t *)d->in + pr->v_off;
    r.o = (uint16_t *)d->o_base + GUARD_O;
    r.l = d->l_base + GUARD_L;
    r.qs = pr->qs, r.ks = pr->ks, r.vs = pr->vs, r.os = pr->os;
    r.force = force, r.libs = libs;
    return r;
}

/* ---- one run: prepare, poison, launch, check, (time) ------------------------------------------ */
typedef struct {
    int ran, pass, skipped, not_applicable;
    char message[320];
    char used[96];
    attn_check check;
    long outside;         /* elements written outside O and L (guards, padding) */
    int nondeterministic; /* a second launch wrote other bits */
    tc_timing timing;
    double rate, rel_err, rel_err_vs_data;
} case_result;

typedef struct {
    const attn_variant *v;
    const attn_run *r;
} launch_ctx;

static void launch_fn(void *ctx, cudaStream_t stream)
{
    const launch_ctx *c = (const launch_ctx *)ctx;
    c->v->launch(c->v, c->r, stream);
}

static void *libs;   /* the cuBLAS handle (attn_hooks_init) */
static int cudnn_ok; /* cuDNN loaded */
static char cudnn_why[200];

/* Counts the elements outside O and L that are not the poison any more. */
static long count_outside(const device_problem *d, const uint16_t *o, const float *l)
{
    long bad = 0;
    for (size_t i = 0; i < d->o_total; i++) {
        const int inside = i >= GUARD_O && i < d->o_total - d->o_tail && d->o_mask[i - GUARD_O];
        bad += !inside && o[i] != 0xFFFF;
    }
    const uint32_t *lw = (const uint32_t *)l;
    for (size_t i = 0; i < d->l_total; i++) {
        const int inside = i >= GUARD_L && i < GUARD_L + d->l_elems;
        bad += !inside && lw[i] != 0xFFFFFFFFu;
    }
    return bad;
}

static void run_case(const attn_variant *v, const problem *pr, const device_problem *d, int force,
                     int warmup, int reps, int repeat_check, case_result *res)
{
    memset(res, 0, sizeof *res);
    if (v->prepare == hook_cudnn_prepare && !cudnn_ok) {
        res->skipped = 1;
        snprintf(res->message, sizeof res->message, "skipped: %s", cudnn_why);
        return;
    }
    attn_run r = run_for(pr, d, force, libs);
    const char *msg = v->prepare ? v->prepare(v, &r) : NULL;
    if (msg) {
        const size_t ns = strlen(ATTN_SKIP), nn = strlen(ATTN_NA);
        if (strncmp(msg, ATTN_SKIP, ns) == 0) {
            res->skipped = 1;
            snprintf(res->message, sizeof res->message, "skipped: %s", msg + ns);
        } else if (strncmp(msg, ATTN_NA, nn) == 0) {
            res->not_applicable = 1;
            snprintf(res->message, sizeof res->message, "%s", msg + nn);
        } else {
            snprintf(res->message, sizeof res->message, "prepare failed: %s", msg);
        }
        return;
    }
    snprintf(res->used, sizeof res->used, "%s", r.used);
    cudaStream_t stream;
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
    uint16_t *h_o = (uint16_t *)tc_xmalloc(d->o_total * 2);
    float *h_l = (float *)tc_xmalloc(d->l_total * sizeof(float));
    device_poison(d, stream);
    tc_poison_shared_memory(stream); /* a tile read before its copy lands shows */
    v->launch(v, &r, stream);
    TC_LAUNCH_CHECK();
    TC_CUDA_CHECK(cudaStreamSynchronize(stream));
    TC_CUDA_CHECK(cudaMemcpy(h_o, d->o_base, d->o_total * 2, cudaMemcpyDeviceToHost));
    TC_CUDA_CHECK(cudaMemcpy(h_l, d->l_base, d->l_total * sizeof(float), cudaMemcpyDeviceToHost));
    res->ran = 1;
    res->outside = count_outside(d, h_o, h_l);
    const attn_tensor o = {h_o + GUARD_O, pr->t, pr->os};
    res->check = attn_check_rows(&pr->p, &o, h_l + GUARD_L, &pr->rows, &pr->ref);
    res->rel_err = res->check.rel_fro_err;
    res->rel_err_vs_data =
        pr->ref_data.o ? attn_rel_fro(&pr->p, &o, &pr->rows, &pr->ref_data) : NAN;
    if (repeat_check) { /* the same bits again, from a fresh poison */
        uint16_t *o2 = (uint16_t *)tc_xmalloc(d->o_total * 2);
        float *l2 = (float *)tc_xmalloc(d->l_total * sizeof(float));
        device_poison(d, stream);
        tc_poison_shared_memory(stream);
        v->launch(v, &r, stream);
        TC_LAUNCH_CHECK();
        TC_CUDA_CHECK(cudaStreamSynchronize(stream));
        TC_CUDA_CHECK(cudaMemcpy(o2, d->o_base, d->o_total * 2, cudaMemcpyDeviceToHost));
        TC_CUDA_CHECK(
            cudaMemcpy(l2, d->l_base, d->l_total * sizeof(float), cudaMemcpyDeviceToHost));
        res->nondeterministic = memcmp(o2, h_o, d->o_total * 2) != 0 ||
                                memcmp(l2, h_l, d->l_total * sizeof(float)) != 0;
        free(o2), free(l2);
    }
    res->pass = res->check.pass && res->outside == 0 && !res->nondeterministic;
    if (reps > 0) {
        launch_ctx c = {v, &r};
        res->timing = tc_time_gpu(launch_fn, &c, stream, warmup, reps);
        res->rate = attn_flops(&pr->p) / (res->timing.ms_median * 1e-3) / 1e12;
    }
    free(h_o), free(h_l);
    TC_CUDA_CHECK(cudaStreamDestroy(stream));
    if (v->release) v->release(v, &r);
}

static void print_result_detail(const case_result *r, FILE *f)
{
    attn_check_print(&r->check, f);
    if (r->outside)
        fprintf(f, "    FAIL: %ld elements written outside O and L (guards, row padding)\n",
                r->outside);
    if (r->nondeterministic) fprintf(f, "    FAIL: a second launch wrote different bits\n");
}

/* ---- --test ----------------------------------------------------------------------------------- */
typedef struct {
    int B, H, Sq, Sk, D;
    layout_kind layout;
} test_shape;
/* tails of every tile, Sq < Sk and Sq > Sk (causal: fully masked rows and blocks; 100 x 36 and
 * 90 x 24 with Sk % 4 == 0, so that v0's float4 paths meet them too, twice), a single query and a single key, whole
 * tiles, padded rows, interleaved QKV, long rows (sampled), and rows of 8196 keys, past what v0's
 * row-in-registers paths hold (its launcher's other float4 choice). v0's row groups: rows of 36 ..
 * 1000 keys choose 32 threads, 2048 64, 3000 128 and 8192 256; 1 x 300, 333 x 1000 (666 rows) and 5
 * x 3000 (15 rows) leave the last block a group past the last row. The first N_SMALL run under
 * TC_TEST_SMALL (make sanitize). */
static const test_shape test_shapes[] = {
    {1, 1, 1, 1, 64, LAYOUT_PACKED},        {1, 2, 17, 33, 64, LAYOUT_PACKED},
    {2, 3, 77, 50, 128, LAYOUT_PACKED},     {1, 1, 64, 64, 64, LAYOUT_PACKED},
    {1, 2, 65, 129, 128, LAYOUT_PADDED},    {2, 2, 130, 63, 64, LAYOUT_PACKED},
    {1, 1, 200, 1, 64, LAYOUT_PACKED},      {1, 1, 1, 300, 128, LAYOUT_PACKED},
    {2, 4, 100, 100, 64, LAYOUT_QKV},       {2, 2, 100, 36, 64, LAYOUT_PACKED},
    {1, 3, 5, 3000, 128, LAYOUT_PACKED},    {1, 2, 333, 1000, 128, LAYOUT_PADDED},
    {1, 2, 2048, 2048, 128, LAYOUT_PACKED}, {1, 1, 1000, 8192, 64, LAYOUT_PACKED},
    {1, 1, 2, 8196, 64, LAYOUT_PACKED},     {1, 3, 90, 24, 128, LAYOUT_PADDED},
};
enum { N_TEST_SHAPES = sizeof test_shapes / sizeof test_shapes[0], N_SMALL = 11 };
#define TEST_FULL_LIMIT 3e8 /* B H Sq Sk D up to which every row is checked */

static int selected_type(tc_dtype t) { return opts.dtype < 0 || opts.dtype == (int)t; }

static int mode_test(const tc_args *a, const tc_device_info *dev)
{
    int passed = 0, failed = 0, skipped = 0, not_applicable = 0;
    const int small = getenv("TC_TEST_SMALL") != NULL;
    /* v0's choice of softmax path, on the host: a wrong one would still pass every case below */
    if (!a->variant || strcmp(a->variant, "all") == 0 ||
        strncmp(a->variant, "v0_unfused", 10) == 0) {
        const int wrong = hook_v0_softmax_path_check(stdout);
        if (!wrong) printf("PASS v0_unfused softmax path choice at the edges of each row group\n");
        passed += !wrong, failed += !!wrong;
    }
    for (int si = 0; si < (small ? N_SMALL : N_TEST_SHAPES); si++)
        for (int causal = 0; causal <= 1; causal++)
            for (int ti = 0; ti < 2; ti++) {
                const tc_dtype t = ti ? TC_BF16 : TC_F16;
                if (!selected_type(t)) continue;
                int any = 0;
                for (int i = 0; i < N_VARIANTS; i++)
                    any |= variant_type(&variants[i]) == t &&
                           (!a->variant || strcmp(a->variant, "all") == 0 ||
                            strcmp(a->variant, variants[i].name) == 0);
                if (!any) continue;
                const test_shape *s = &test_shapes[si];
                problem pr;
                problem_make(&pr, s->B, s->H, s->Sq, s->Sk, s->D, causal, t, s->layout,
                             a->seed * 1000003u + (uint64_t)(4 * si + 2 * causal + ti),
                             TEST_FULL_LIMIT, 0);
                device_problem d;
                device_make(&d, &pr);
                char label[80];
                snprintf(label, sizeof label, "%dx%dx%dx%dx%d%s %s", s->B, s->H, s->Sq, s->Sk, s->D,
                         causal ? " causal" : "", layout_names[s->layout]);
                for (int i = 0; i < N_VARIANTS; i++) {
                    const attn_variant *v = &variants[i];
                    if (variant_type(v) != t) continue;
                    if (a->variant && strcmp(a->variant, "all") != 0 &&
                        strcmp(a->variant, v->name) != 0)
                        continue;
                    const char *why = tc_target_unsupported(v->target, dev->cc, TC_BUILD_TARGETS);
                    if (v->min_cc > dev->cc || why) {
                        printf("SKIP %-16s %-32s needs sm_%d%s%s\n", v->name, label, v->min_cc,
                               why ? ": " : "", why ? why : "");
                        skipped++;
                        continue;
                    }
                    /* the launcher's own choices, then each forced one */
                    for (int force = 0; force <= v->n_forced; force++) {
                        case_result r;
                        run_case(v, &pr, &d, force, 0, 0, 1, &r);
                        char forced[40] = "";
                        if (force)
                            snprintf(forced, sizeof forced, " force=%s",
                                     v->forced_names[force - 1]);
                        if (r.not_applicable || r.skipped || !r.ran) {
                            printf("%s %-16s %-32s%s %s\n",
                                   r.not_applicable ? "n/a "
                                   : r.skipped      ? "SKIP"
                                                    : "FAIL",
                                   v->name, label, forced, r.message);
                            not_applicable += r.not_applicable;
                            skipped += r.skipped;
                            failed += !r.not_applicable && !r.skipped;
                            continue;
                        }
                        printf("%s %-16s %-32s%s ", r.pass ? "PASS" : "FAIL", v->name, label,
                               forced);
                        print_result_detail(&r, stdout);
                        fflush(stdout);
                        passed += r.pass;
                        failed += !r.pass;
                    }
                }
                device_free(&d);
                problem_free(&pr);
            }
    if (not_applicable)
        printf("%d case%s not applicable: outside what the row declares (--list)\n", not_applicable,
               not_applicable > 1 ? "s" : "");
    return tc_test_finish(PROGRAM, passed, failed, skipped);
}

/* ---- the timed table (default mode) and --bench -------------------------------------------- */
static int selected(const tc_args *a, int i)
{
    const attn_variant *v = &variants[i];
    if (!selected_type(variant_type(v))) return 0;
    if (!a->variant) return a->mode == TC_MODE_BENCH || is_default_rung(v) || !v->baseline;
    if (strcmp(a->variant, "all") == 0) return 1;
    return strcmp(a->variant, v->name) == 0 || i == baseline_of(find_variant(a->variant));
}

static void print_header(FILE *f)
{
    fprintf(f, "%-16s %-34s %9s %8s %8s %10s %10s %s\n", "variant", "used", "ms(med)", "TFLOP/s",
            "vs base", "rel_err", "vs data", "check");
}

static void print_row(FILE *f, const attn_variant *v, const case_result *r, double base_rate)
{
    if (!r->ran) {
        fprintf(f, "%-16s %s\n", v->name, r->message);
        return;
    }
    char vs[16] = "-";
    if (base_rate > 0 && v->baseline) snprintf(vs, sizeof vs, "%.1f%%", 100 * r->rate / base_rate);
    fprintf(f, "%-16s %-34s %9.3f %8.1f %8s %10.2e %10.2e %s\n", v->name, r->used,
            r->timing.ms_median, r->rate, vs, r->rel_err, r->rel_err_vs_data,
            r->pass ? "PASS" : "FAIL");
    if (!r->pass) {
        fprintf(f, "    ");
        print_result_detail(r, f);
    }
}

/* One problem: every selected row (the baselines first, so that each row has its baseline's rate
 * when it prints), checked and timed; CSV rows when csv is set. Returns the failures. */
static int run_problem(const tc_args *a, const tc_device_info *dev, int B, int H, int Sq, int Sk,
                       int D, int causal, tc_dtype t, FILE *out, FILE *csv, double copy_gbs)
{
    int any = 0;
    for (int i = 0; i < N_VARIANTS; i++) any |= variant_type(&variants[i]) == t && selected(a, i);
    if (!any) return 0;
    problem pr;
    fprintf(out, "\n%s attention, B %d, H %d, Sq %d, Sk %d, D %d%s: %.3g GFLOP\n",
            t == TC_F16 ? "f16" : "bf16", B, H, Sq, Sk, D, causal ? ", causal" : "",
            attn_flops(&(attn_dims){.B = B, .H = H, .Sq = Sq, .Sk = Sk, .D = D, .causal = causal}) /
                1e9);
    problem_make(&pr, B, H, Sq, Sk, D, causal, t, LAYOUT_PACKED,
                 a->seed + (uint64_t)(Sq + 7 * D + causal), 1e8, 1);
    device_problem d;
    device_make(&d, &pr);
    print_header(out);
    case_result res[N_VARIANTS];
    memset(res, 0, sizeof res);
    int failed = 0;
    char size[64];
    snprintf(size, sizeof size, "%dx%dx%dx%dx%d%s", B, H, Sq, Sk, D, causal ? " causal" : "");
    for (int pass = 0; pass < 2; pass++) /* baselines, then the rest */
        for (int i = 0; i < N_VARIANTS; i++) {
            const attn_variant *v = &variants[i];
            if (variant_type(v) != t || !selected(a, i) || (pass == 0) != (v->baseline == NULL))
                continue;
            case_result *r = &res[i];
            const char *why = tc_target_unsupported(v->target, dev->cc, TC_BUILD_TARGETS);
            if (v->min_cc > dev->cc || why) {
                snprintf(r->message, sizeof r->message, "skipped: needs sm_%d%s%s", v->min_cc,
                         why ? ": " : "", why ? why : "");
            } else {
                run_case(v, &pr, &d, 0, a->warmup, a->reps, 0, r);
                /* a wrong result, or a prepare that failed (neither skipped nor not applicable) */
                failed += (r->ran && !r->pass) || (!r->ran && !r->skipped && !r->not_applicable);
            }
            const double base_rate = res[baseline_of(i)].ran ? res[baseline_of(i)].rate : 0;
            print_row(out, v, r, base_rate);
            fflush(out);
            if (csv && r->ran) {
                tc_bench_row row;
                memset(&row, 0, sizeof row);
                row.chapter = PROGRAM, row.variant = v->name;
                row.problem = t == TC_F16 ? "FP16 attention" : "BF16 attention";
                row.precision = v->precision;
                snprintf(row.size, sizeof row.size, "%s", size);
                row.ms_median = r->timing.ms_median, row.ms_min = r->timing.ms_min;
                row.rate = r->rate, row.unit = "TFLOP/s";
                row.baseline = variants[baseline_of(i)].name;
                row.pct_of_baseline = base_rate > 0 ? 100 * r->rate / base_rate : 0;
                row.verified = r->pass;
                row.has_rel_err = !isnan(r->rel_err), row.rel_err = r->rel_err;
                row.has_rel_err_vs_data = !isnan(r->rel_err_vs_data);
                row.rel_err_vs_data = r->rel_err_vs_data;
                tc_bench_csv_write(csv, &row, dev);
            }
            /* --bench: v0's softmax alone, against the copy bandwidth */
            if (csv && r->ran && v->prepare == hook_v0_unfused_prepare && copy_gbs > 0) {
                attn_run run = run_for(&pr, &d, 0, libs);
                if (!v->prepare(v, &run)) {
                    cudaStream_t stream;
                    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
                    v->launch(v, &run, stream); /* S for the softmax to read */
                    const attn_variant soft = {.name = "v0_softmax",
                                               .launch = hook_v0_softmax_launch};
                    launch_ctx c = {&soft, &run};
                    const tc_timing tm = tc_time_gpu(launch_fn, &c, stream, a->warmup, a->reps);
                    TC_CUDA_CHECK(cudaStreamDestroy(stream));
                    const double gbs = hook_v0_softmax_bytes(&run) / (tm.ms_median * 1e-3) / 1e9;
                    fprintf(out, "%-16s %-34s %9.3f %8.0f GB/s, %.1f%% of the copy bandwidth\n",
                            "  its softmax", "S in, P and L out", tm.ms_median, gbs,
                            100 * gbs / copy_gbs);
                    tc_bench_row row;
                    memset(&row, 0, sizeof row);
                    row.chapter = PROGRAM, row.variant = "v0_softmax", row.problem = "softmax";
                    row.precision = v->precision;
                    snprintf(row.size, sizeof row.size, "%s", size);
                    row.ms_median = tm.ms_median, row.ms_min = tm.ms_min;
                    row.rate = gbs, row.unit = "GB/s", row.baseline = "copy_bound";
                    row.pct_of_baseline = 100 * gbs / copy_gbs, row.verified = -1;
                    tc_bench_csv_write(csv, &row, dev);
                    v->release(v, &run);
                }
            }
        }
    device_free(&d);
    problem_free(&pr);
    return failed;
}

/* GB/s of a device-to-device copy of `bytes` (read + written) */
typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
} copy_ctx;
static void copy_run(void *ctx, cudaStream_t stream)
{
    const copy_ctx *c = (const copy_ctx *)ctx;
    TC_CUDA_CHECK(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, stream));
}
static double copy_bandwidth(size_t bytes, int warmup, int reps)
{
    copy_ctx c = {NULL, NULL, bytes};
    TC_CUDA_CHECK(cudaMalloc(&c.dst, bytes));
    TC_CUDA_CHECK(cudaMalloc((void **)&c.src, bytes));
    TC_CUDA_CHECK(cudaMemset((void *)c.src, 0x3C, bytes));
    cudaStream_t stream;
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
    const tc_timing t = tc_time_gpu(copy_run, &c, stream, warmup, reps);
    TC_CUDA_CHECK(cudaStreamDestroy(stream));
    TC_CUDA_CHECK(cudaFree(c.dst));
    TC_CUDA_CHECK(cudaFree((void *)c.src));
    return 2.0 * (double)bytes / (t.ms_median * 1e-3) / 1e9;
}

/* the bench problems: B 2, H 16, S 1024, 4096, 8192 (Sq = Sk), D 64 and 128, both masks */
static const int bench_seq[] = {1024, 4096, 8192}, bench_dim[] = {64, 128};

static int measure(const tc_args *a, const tc_device_info *dev, FILE *info, FILE *csv)
{
    int failed = 0;
    fprintf(info, "seed %llu, median of %d runs after %d warm-up, L2 flushed before each\n",
            (unsigned long long)a->seed, a->reps, a->warmup);
    if (csv) {
        const size_t bytes = 1ul << 30;
        const double gbs = copy_bandwidth(bytes, a->warmup, a->reps);
        fprintf(info, "copy      : %.0f GB/s device to device, 1 GiB (read + written)\n", gbs);
        tc_bench_row row;
        memset(&row, 0, sizeof row);
        row.chapter = PROGRAM, row.variant = "copy_bound", row.problem = "softmax";
        row.precision = "f32", row.rate = gbs, row.unit = "GB/s";
        snprintf(row.size, sizeof row.size, "1GiB");
        row.baseline = "copy_bound", row.pct_of_baseline = 100.0, row.verified = -1;
        tc_bench_csv_write(csv, &row, dev);
        for (int ti = 0; ti < 2; ti++) {
            const tc_dtype t = ti ? TC_BF16 : TC_F16;
            if (!selected_type(t)) continue;
            if (opts.shape_given) { /* make bench QUICK=1: one shape */
                for (int causal = 0; causal <= 1; causal++)
                    if (!opts.causal_given || causal == opts.causal)
                        failed += run_problem(a, dev, opts.B, opts.H, opts.Sq, opts.Sk, opts.D,
                                              causal, t, info, csv, gbs);
                continue;
            }
            for (int si = 0; si < 3; si++)
                for (int di = 0; di < 2; di++)
                    for (int causal = 0; causal <= 1; causal++)
                        if (!opts.causal_given || causal == opts.causal)
                            failed += run_problem(a, dev, 2, 16, bench_seq[si], bench_seq[si],
                                                  bench_dim[di], causal, t, info, csv, gbs);
        }
    } else {
        for (int ti = 0; ti < 2; ti++) {
            const tc_dtype t = ti ? TC_BF16 : TC_F16;
            if (selected_type(t))
                failed += run_problem(a, dev, opts.B, opts.H, opts.Sq, opts.Sk, opts.D, opts.causal,
                                      t, info, NULL, 0);
        }
        fprintf(info,
                "\nvs base   : rate as a percentage of the row's cuDNN row, same run\n"
                "rel_err   : ||O - ref||_F / ||ref||_F on the checked rows, ref = FP64 of the "
                "f16/bf16 inputs; vs data: ref from the f32 data they were rounded from\n");
    }
    return failed ? TC_EXIT_WRONG : TC_EXIT_PASS;
}

static void init(const tc_args *a, const tc_device_info *dev, FILE *info)
{
    cudnn_ok = attn_cudnn_init(cudnn_why, sizeof cudnn_why) == 0;
    if (cudnn_ok)
        attn_cudnn_print_version(info);
    else
        tc_info_line(info, "cuDNN", "%s (the cudnn_sdpa rows are skipped)", cudnn_why);
    libs = attn_hooks_init();
    if (a->mode != TC_MODE_TEST && a->mode != TC_MODE_BENCH)
        tc_info_line(info, "problem", "B %d, H %d, Sq %d, Sk %d, D %d, %s", opts.B, opts.H, opts.Sq,
                     opts.Sk, opts.D, opts.causal ? "causal (bottom right)" : "no mask");
}

static void fini(void)
{
    attn_hooks_fini(libs);
    attn_cudnn_fini();
}

int main(int argc, char **argv)
{
    static const tc_program program = {
        .cli = {.program = PROGRAM,
                .summary = "attention forward (FlashAttention) on tensor cores, against cuDNN",
                TC_VARIANT_TABLE(variants),
                .default_reps = 20,
                .default_warmup = 3,
                .flags = flags,
                .n_flags = TC_COUNT(flags)},
        .min_cc = 80,
        .list = print_list,
        .check_args = check_args,
        .check_device = check_device,
        .init = init,
        .test = mode_test,
        .measure = measure,
        .fini = fini,
    };
    return tc_program_main(argc, argv, &program);
}
