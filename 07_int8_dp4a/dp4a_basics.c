/* 07_int8_dp4a/dp4a_basics.c - the host driver of 07_dp4a_basics (kernels in dp4a_basics.cu):
 * what __dp4a and __dp2a compute, checked bit for bit against the CPU model of
 * dp4a_model.c; the one-warp unit tests of the int8 tensor-core path (mma.m16n8k32 .s8,
 * ldmatrix on 8-bit data, the GEMM's tile loaders); and the throughput ceilings of dp4a, dp2a and
 * int8 mma.sync on the running GPU, printed next to cuBLAS int8. The ceilings are what the GEMM
 * ladder (07_int8_gemm) is judged against: a kernel built on an instruction cannot beat it.
 *
 * Build and run
 *   make && build/bin/07_dp4a_basics            # the worked example, the edge table, the unit
 *                                               # tests, then the three ceilings and cuBLAS
 *   build/bin/07_dp4a_basics --test             # semantics (edge + random words, bit-exact),
 *                                               # the mma unit tests, short exact benchmark runs
 *   build/bin/07_dp4a_basics --variant dp4a     # only the dp4a sweep
 *   build/bin/07_dp4a_basics --bench            # CSV rows for make bench: the ceilings, cuBLAS
 *   build/bin/07_dp4a_basics --list             # what is tested and measured
 *
 * "Variants" here are the instructions whose throughput is measured: dp4a, dp2a (.lo) and the
 * int8 mma.sync (m16n8k32). */
#include "dp4a_basics.h"

#include "check.h"
#include "convert.h"
#include "cublas_gemm.h"
#include "dp4a_model.h"
#include "harness.h"
#include "program.h"
#include "sweep.h"
#include "verify.h"

#include <stdlib.h>
#include <string.h>

#define PROGRAM "07_dp4a_basics"
#define MIN_CC  75 /* the chapter's build floor (dp4a itself exists from sm_61) */

/* ---- the benchmarked instructions (the "variants") ------------------------------------------- */
static const char *const kind_names[PEAK_N_KINDS] = {"dp4a", "dp2a", "mma_s8"};
static const char *const kind_what[PEAK_N_KINDS] = {
    "dp4a.s32.s32 (__dp4a): 4 int8 products + accumulate per thread, 8 ops",
    "dp2a.lo.s32.s32 (__dp2a_lo): 2 int16 x int8 products + accumulate per thread, 4 ops",
    "mma.sync.m16n8k32 .s8 .s32: 16x8x32 products + accumulate per warp, 8192 ops"};
/* integer operations (a multiply-add is 2) per thread instruction (dp) or warp instruction (mma) */
static const double kind_ops[PEAK_N_KINDS] = {8.0, 4.0, 2.0 * 16 * 8 * 32};
static const int kind_min_cc[PEAK_N_KINDS] = {61, 61, 80};
static const char *const kind_row[PEAK_N_KINDS] = {"dp4a_ceiling", "dp2a_ceiling",
                                                   "mma_s8_ceiling"};
static const char *const kind_precision[PEAK_N_KINDS] = {"i8i32", "i16i8i32", "i8i32"};

/* the sweep: accumulator chains x warps per SM (blocks of PEAK_THREADS = 4 warps) */
enum { PEAK_WARPS = PEAK_THREADS / 32 };
static const int sweep_chains[] = {1, 2, 4, 8};
static const int sweep_warps_per_sm[] = {1 * PEAK_WARPS, 2 * PEAK_WARPS, 4 * PEAK_WARPS,
                                         8 * PEAK_WARPS, 16 * PEAK_WARPS};
enum {
    N_CHAINS = TC_COUNT(sweep_chains),
    PEAK_ITERS_DP = 16384,
    PEAK_ITERS_MMA = 8192,
    TEST_ITERS = 64,
    CUBLAS_N = 8192,
    N_RANDOM_WORDS = 1 << 16
};

/* ---- the CUDA forms of dp4a and dp2a (the order of dp_op) ------------------------------------ */
typedef struct {
    dp_op op;
    const char *name, *form;
    int dp2a, hi, a_signed, b_signed;
} op_info;
/* hand-aligned table */
// clang-format off
static const op_info ops[DP_N_OPS] = {
    {.op = DP_DP4A_INT,        .name = "dp4a_int",        .form = "__dp4a(int, int, int)",
     .a_signed = 1, .b_signed = 1},
    {.op = DP_DP4A_UINT,       .name = "dp4a_uint",       .form = "__dp4a(unsigned, unsigned, unsigned)",
     /* unsigned a and b */},
    {.op = DP_DP4A_CHAR4,      .name = "dp4a_char4",      .form = "__dp4a(char4, char4, int)",
     .a_signed = 1, .b_signed = 1},
    {.op = DP_DP4A_UCHAR4,     .name = "dp4a_uchar4",     .form = "__dp4a(uchar4, uchar4, unsigned)",
     /* unsigned a and b */},
    {.op = DP_DP4A_U_S,        .name = "dp4a_u8_s8",      .form = "asm dp4a.u32.s32 (a unsigned, b signed)",
     .b_signed = 1},
    {.op = DP_DP4A_S_U,        .name = "dp4a_s8_u8",      .form = "asm dp4a.s32.u32 (a signed, b unsigned)",
     .a_signed = 1},
    {.op = DP_DP2A_LO_INT,     .name = "dp2a_lo_int",     .form = "__dp2a_lo(int, int, int)",
     .dp2a = 1, .a_signed = 1, .b_signed = 1},
    {.op = DP_DP2A_HI_INT,     .name = "dp2a_hi_int",     .form = "__dp2a_hi(int, int, int)",
     .dp2a = 1, .hi = 1, .a_signed = 1, .b_signed = 1},
    {.op = DP_DP2A_LO_UINT,    .name = "dp2a_lo_uint",    .form = "__dp2a_lo(unsigned, unsigned, unsigned)",
     .dp2a = 1},
    {.op = DP_DP2A_HI_UINT,    .name = "dp2a_hi_uint",    .form = "__dp2a_hi(unsigned, unsigned, unsigned)",
     .dp2a = 1, .hi = 1},
    {.op = DP_DP2A_LO_SHORT2,  .name = "dp2a_lo_short2",  .form = "__dp2a_lo(short2, char4, int)",
     .dp2a = 1, .a_signed = 1, .b_signed = 1},
    {.op = DP_DP2A_HI_USHORT2, .name = "dp2a_hi_ushort2", .form = "__dp2a_hi(ushort2, uchar4, unsigned)",
     .dp2a = 1, .hi = 1},
};
// clang-format on

static uint32_t op_model(const op_info *o, uint32_t a, uint32_t b, uint32_t c)
{
    return o->dp2a ? tc_dp2a(a, o->a_signed, b, o->b_signed, c, o->hi)
                   : tc_dp4a(a, o->a_signed, b, o->b_signed, c);
}

/* The edge words: the worked example, the extremes of every element type, and accumulators next
 * to the wrap-around points. Every form runs on every row. */
typedef struct {
    uint32_t a, b, c;
    const char *what;
} edge_case;
// clang-format off
static const edge_case edges[] = {
    {.a = 0x8003FE01u, .b = 0x02FF057Fu, .c = 1000u,       .what = "the worked example"},
    {.a = 0x80808080u, .b = 0x80808080u, .c = 0u,          .what = "-128 x -128 (s8), 128 x 128 (u8)"},
    {.a = 0x7F7F7F7Fu, .b = 0x7F7F7F7Fu, .c = 0u,          .what = "127 x 127"},
    {.a = 0x7F7F7F7Fu, .b = 0x80808080u, .c = 0u,          .what = "127 x -128: the most negative s8 dot"},
    {.a = 0xFFFFFFFFu, .b = 0xFFFFFFFFu, .c = 0u,          .what = "255 x 255 (u8), -1 x -1 (s8)"},
    {.a = 0x01010101u, .b = 0x01010101u, .c = 0x7FFFFFFFu, .what = "INT32_MAX + 4 wraps to INT32_MIN + 3"},
    {.a = 0x80808080u, .b = 0x7F7F7F7Fu, .c = 0x80000000u, .what = "INT32_MIN - 65024 wraps to positive"},
    {.a = 0x01010101u, .b = 0x01010101u, .c = 0xFFFFFFFFu, .what = "UINT32_MAX + 4 wraps to 3"},
    {.a = 0x7FFF8000u, .b = 0xFF017F80u, .c = 0u,          .what = "dp2a: -32768 and 32767 against -128, 127, 1, -1"},
    {.a = 0x80008000u, .b = 0x80808080u, .c = 0x7FFFFFFFu, .what = "dp2a: (-32768)(-128) twice on INT32_MAX"},
    {.a = 0x00FF00FFu, .b = 0xFF00FF00u, .c = 12345u,      .what = "products that are all zero"},
    {.a = 0x12345678u, .b = 0x9ABCDEF0u, .c = 0xCAFEF00Du, .what = "arbitrary bits"},
};
// clang-format on
enum { N_EDGES = sizeof edges / sizeof edges[0] };

/* ---- small helpers --------------------------------------------------------------------------- */
static void report_skip(const char *name, const char *why, int *skipped)
{
    printf("SKIP %-44s %s\n", name, why);
    fflush(stdout);
    (*skipped)++;
}
static int small_int(tc_rng *rng, int lo, int hi) { return tc_rng_int(rng, lo, hi); }
static int wanted(const tc_args *a, int kind)
{
    return !a->variant || strcmp(a->variant, "all") == 0 ||
           strcmp(a->variant, kind_names[kind]) == 0;
}

/* ---- the semantics probe --------------------------------------------------------------------- */
/* Runs form o on n words on the GPU; got[i] = its results. */
static void run_op(const op_info *o, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                   uint32_t *got, int n)
{
    const size_t bytes = (size_t)n * 4;
    uint32_t *d_a = tc_device_copy(a, bytes), *d_b = tc_device_copy(b, bytes),
             *d_c = tc_device_copy(c, bytes), *d_d = tc_device_copy(NULL, bytes);
    TC_CUDA_CHECK(cudaMemset(d_d, 0xA5, bytes));
    dp_probe_launch(o->op, d_a, d_b, d_c, d_d, n, 0);
    tc_device_fetch(got, d_d, bytes);
    TC_CUDA_CHECK(cudaFree(d_a));
    TC_CUDA_CHECK(cudaFree(d_b));
    TC_CUDA_CHECK(cudaFree(d_c));
    TC_CUDA_CHECK(cudaFree(d_d));
}

/* Every form on the edge words and on N_RANDOM_WORDS random triples; each result must equal the
 * model's bits. Returns the number of forms that failed. */
static int test_semantics(uint64_t seed, int *passed, int *failed)
{
    const int n = N_EDGES + N_RANDOM_WORDS;
    uint32_t *a = (uint32_t *)tc_xmalloc((size_t)n * 4), *b = (uint32_t *)tc_xmalloc((size_t)n * 4),
             *c = (uint32_t *)tc_xmalloc((size_t)n * 4),
             *got = (uint32_t *)tc_xmalloc((size_t)n * 4);
    tc_rng rng;
    tc_rng_seed(&rng, seed);
    for (int i = 0; i < n; i++) {
        if (i < N_EDGES) {
            a[i] = edges[i].a, b[i] = edges[i].b, c[i] = edges[i].c;
        } else {
            a[i] = (uint32_t)tc_rng_next_u64(&rng), b[i] = (uint32_t)tc_rng_next_u64(&rng);
            c[i] = (uint32_t)tc_rng_next_u64(&rng);
        }
    }
    int bad_forms = 0;
    for (int k = 0; k < DP_N_OPS; k++) {
        const op_info *o = &ops[k];
        run_op(o, a, b, c, got, n);
        int bad = 0;
        char detail[200];
        snprintf(detail, sizeof detail, "%-40s %d edge + %d random words, bit-exact", o->form,
                 N_EDGES, N_RANDOM_WORDS);
        for (int i = 0; i < n; i++) {
            const uint32_t want = op_model(o, a[i], b[i], c[i]);
            if (got[i] != want && !bad++)
                snprintf(detail, sizeof detail,
                         "a=0x%08x b=0x%08x c=0x%08x: GPU 0x%08x, model 0x%08x (%s)", a[i], b[i],
                         c[i], got[i], want, i < N_EDGES ? edges[i].what : "random");
        }
        char name[64];
        snprintf(name, sizeof name, "semantics %s", o->name);
        tc_test_report(!bad, name, detail, passed, failed);
        bad_forms += bad != 0;
    }
    free(a), free(b), free(c), free(got);
    return bad_forms;
}

/* a line of the worked example: the four bytes of w, element 0 first, in hex, as int8, as uint8 */
static void print_word_bytes(const char *name, uint32_t w)
{
    printf("    bytes of %s (element 0 first): ", name);
    for (int k = 0; k < 4; k++) printf("0x%02X ", (w >> (8 * k)) & 0xFF);
    printf("  as int8: ");
    for (int k = 0; k < 4; k++) printf("%d ", tc_byte_of(w, k, 1));
    printf(" as uint8: ");
    for (int k = 0; k < 4; k++) printf("%d ", tc_byte_of(w, k, 0));
    printf("\n");
}

/* The lesson: the packing, the worked example with its products written out, and the edge table.
 * Returns the number of results that differ from the model. */
static int print_lesson(void)
{
    const edge_case *ex = &edges[0];
    const uint32_t words[3] = {ex->a, ex->b, ex->c};
    printf("dp4a: four 8-bit products and a 32-bit accumulator in one instruction\n\n"
           "  A 32-bit register holds four 8-bit elements, element k in bits 8k..8k+7, so the "
           "word loaded\n  from four consecutive int8 values in memory has element 0 = the "
           "lowest address:\n\n"
           "      bits   31     24 23     16 15      8 7       0\n"
           "            +---------+---------+---------+---------+\n"
           "    a =     |  a[3]   |  a[2]   |  a[1]   |  a[0]   |   memory: a[0] a[1] a[2] a[3]\n"
           "            +---------+---------+---------+---------+\n"
           "    __dp4a(a, b, c) = c + a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]\n"
           "    (elements sign-extended for int/char4, zero-extended for unsigned/uchar4; the sum"
           " wraps mod 2^32)\n\n");
    printf("  Worked example: a = 0x%08X, b = 0x%08X, c = %u\n", ex->a, ex->b, ex->c);
    print_word_bytes("a", ex->a);
    print_word_bytes("b", ex->b);
    printf("\n");

    int bad = 0;
    const int show[] = {DP_DP4A_INT, DP_DP4A_UINT, DP_DP4A_U_S, DP_DP4A_S_U};
    for (size_t s = 0; s < sizeof show / sizeof show[0]; s++) {
        const op_info *o = &ops[show[s]];
        uint32_t got;
        run_op(o, &words[0], &words[1], &words[2], &got, 1);
        const uint32_t want = op_model(o, ex->a, ex->b, ex->c);
        printf("    %-42s ", o->form);
        for (int k = 0; k < 4; k++)
            printf("%s(%d)(%d)", k ? " + " : "", tc_byte_of(ex->a, k, o->a_signed),
                   tc_byte_of(ex->b, k, o->b_signed));
        printf(" + %u\n    %42s = %ld  GPU %ld  %s\n", ex->c, "",
               o->a_signed || o->b_signed ? (long)(int32_t)want : (long)want,
               o->a_signed || o->b_signed ? (long)(int32_t)got : (long)got,
               got == want ? "ok" : "WRONG");
        bad += got != want;
    }
    printf("\n  dp2a: a holds two 16-bit elements, b four bytes; .lo uses b's bytes 0 and 1, .hi "
           "bytes 2 and 3:\n    __dp2a_lo(a, b, c) = c + a.lo16*b[0] + a.hi16*b[1]    "
           "__dp2a_hi(a, b, c) = c + a.lo16*b[2] + a.hi16*b[3]\n\n");

    /* the edge table: dp4a in its four signednesses, dp2a lo/hi signed and unsigned */
    const int cols[] = {DP_DP4A_INT,    DP_DP4A_UINT,    DP_DP4A_U_S,    DP_DP2A_LO_INT,
                        DP_DP2A_HI_INT, DP_DP2A_LO_UINT, DP_DP2A_HI_UINT};
    enum { N_COLS = sizeof cols / sizeof cols[0] };
    printf("  Edge cases: every CUDA form on the GPU, compared bit for bit with common/"
           "dp4a_model.c\n  (signed forms printed as int32, unsigned as uint32; 'ok' = all %d "
           "forms match the model)\n",
           DP_N_OPS);
    printf("    %-10s %-10s %-10s %12s %11s %11s %11s %11s %11s %11s  %s\n", "a", "b", "c",
           "dp4a s.s", "dp4a u.u", "dp4a u.s", "dp2a.lo s", "dp2a.hi s", "dp2a.lo u", "dp2a.hi u",
           "check / what");
    uint32_t ea[N_EDGES], eb[N_EDGES], ec[N_EDGES], got[DP_N_OPS][N_EDGES];
    for (int i = 0; i < N_EDGES; i++) ea[i] = edges[i].a, eb[i] = edges[i].b, ec[i] = edges[i].c;
    for (int k = 0; k < DP_N_OPS; k++) run_op(&ops[k], ea, eb, ec, got[k], N_EDGES);
    for (int i = 0; i < N_EDGES; i++) {
        int row_bad = 0;
        for (int k = 0; k < DP_N_OPS; k++)
            row_bad += got[k][i] != op_model(&ops[k], ea[i], eb[i], ec[i]);
        printf("    0x%08X 0x%08X 0x%08X", ea[i], eb[i], ec[i]);
        for (int j = 0; j < N_COLS; j++) {
            const op_info *o = &ops[cols[j]];
            if (o->a_signed || o->b_signed)
                printf(" %*d", j ? 11 : 12, (int32_t)got[cols[j]][i]);
            else
                printf(" %*u", j ? 11 : 12, got[cols[j]][i]);
        }
        printf("  %s %s\n", row_bad ? "WRONG" : "ok", edges[i].what);
        bad += row_bad;
    }
    printf("\n");
    return bad;
}

/* ---- the int8 tensor-core unit tests --------------------------------------------------------- */
static void test_imma(tc_rng *rng, int *passed, int *failed)
{
    int8_t a[16 * 32], b[32 * 8];
    int32_t c[16 * 8], d[16 * 8];
    /* the whole int8 range, so that sign extension inside the tensor core is tested too */
    for (int i = 0; i < 16 * 32; i++) a[i] = (int8_t)small_int(rng, -128, 127);
    for (int i = 0; i < 32 * 8; i++) b[i] = (int8_t)small_int(rng, -128, 127);
    a[0] = -128, b[0] = -128, a[1] = 127, b[8] = -128; /* the extremes meet in D(0, 0) */
    for (int i = 0; i < 16 * 8; i++) c[i] = small_int(rng, -1000000, 1000000);
    int8_t *d_a = tc_device_copy(a, sizeof a), *d_b = tc_device_copy(b, sizeof b);
    int32_t *d_c = tc_device_copy(c, sizeof c), *d_d = tc_device_copy(NULL, sizeof d);
    TC_CUDA_CHECK(cudaMemset(d_d, 0x80, sizeof d));
    probe_imma_launch(d_a, d_b, d_c, d_d, 0);
    tc_device_fetch(d, d_d, sizeof d);
    int bad = 0;
    char detail[160] = "16x8 D = A B + C exact, full int8 range; registers by the documented map";
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 8; n++) {
            long long s = c[m * 8 + n];
            for (int k = 0; k < 32; k++) s += (long long)a[m * 32 + k] * b[k * 8 + n];
            if (d[m * 8 + n] != s && !bad++)
                snprintf(detail, sizeof detail, "D(%d,%d) = %d, want %lld (lane %d, d[%d]); %s", m,
                         n, d[m * 8 + n], s, 4 * (m % 8) + n / 2, 2 * (m / 8) + n % 2,
                         "check the A, B and C maps in imma_ptx.cuh");
        }
    tc_test_report(!bad, "mma_m16n8k32_s8", detail, passed, failed);
    TC_CUDA_CHECK(cudaFree(d_a));
    TC_CUDA_CHECK(cudaFree(d_b));
    TC_CUDA_CHECK(cudaFree(d_c));
    TC_CUDA_CHECK(cudaFree(d_d));
}

static void test_ldmatrix_b8(int *passed, int *failed)
{
    /* byte j of word w of row `row` is 1 + 4 row + w + 64 j (mod 256): byte 0 names the word
     * (all 128 words differ) and the four bytes of a word differ, so a word in the wrong place
     * or bytes in the wrong order show */
    uint8_t src[32 * 16];
    int slot[32];
    uint32_t out[32 * 4];
    for (int row = 0; row < 32; row++)
        for (int w = 0; w < 4; w++)
            for (int j = 0; j < 4; j++)
                src[row * 16 + 4 * w + j] = (uint8_t)(4 * row + w + 64 * j + 1);
    for (int i = 0; i < 32; i++) slot[i] = (i * 37 + 11) % PROBE_LDM8_SLOTS; /* scattered rows */
    uint8_t *d_src = tc_device_copy(src, sizeof src);
    int *d_slot = tc_device_copy(slot, sizeof slot);
    uint32_t *d_out = tc_device_copy(NULL, sizeof out);
    probe_ldmatrix_b8_launch(d_src, d_slot, d_out, 0);
    tc_device_fetch(out, d_out, sizeof out);
    int bad = 0;
    char detail[200] = "r[j] of lane 4r+c = bytes 4c..4c+3 of row r of tile j (8x16 bytes), "
                       "rows scattered";
    for (int lane = 0; lane < 32; lane++)
        for (int j = 0; j < 4; j++) {
            const int r = lane / 4, c = lane % 4;
            const uint8_t *p = src + (8 * j + r) * 16 + 4 * c; /* tile j, row r, bytes 4c.. */
            const uint32_t want =
                (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            const uint32_t got = out[lane * 4 + j];
            if (got != want && !bad++) {
                const int id = (int)(got & 0xFF) - 1; /* byte 0 of the word found: 4 row + w */
                snprintf(detail, sizeof detail,
                         "lane %d r[%d] = 0x%08x (row %d, word %d), want 0x%08x (row %d, word %d)",
                         lane, j, got, id / 4, id % 4, want, 8 * j + r, c);
            }
        }
    tc_test_report(!bad, "ldmatrix_x4 on int8 rows", detail, passed, failed);
    TC_CUDA_CHECK(cudaFree(d_src));
    TC_CUDA_CHECK(cudaFree(d_slot));
    TC_CUDA_CHECK(cudaFree(d_out));
}

static void test_imma_tile(int swizzled, tc_rng *rng, int *passed, int *failed)
{
    int8_t a[16 * 64], b[64 * 16];
    int32_t d[16 * 16];
    for (int i = 0; i < 16 * 64; i++) a[i] = (int8_t)small_int(rng, -128, 127);
    for (int i = 0; i < 64 * 16; i++) b[i] = (int8_t)small_int(rng, -128, 127);
    int8_t *d_a = tc_device_copy(a, sizeof a), *d_b = tc_device_copy(b, sizeof b);
    int32_t *d_d = tc_device_copy(NULL, sizeof d);
    TC_CUDA_CHECK(cudaMemset(d_d, 0x80, sizeof d));
    probe_imma_tile_launch(swizzled, d_a, d_b, d_d, 0);
    tc_device_fetch(d, d_d, sizeof d);
    int bad = 0;
    char detail[160];
    snprintf(detail, sizeof detail, "16x16x64 via %s K-major int8 tiles, ldmatrix_x4, exact",
             swizzled ? "XOR-swizzled" : "plain");
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 16; n++) {
            long long s = 0;
            for (int k = 0; k < 64; k++) s += (long long)a[m * 64 + k] * b[k * 16 + n];
            if (d[m * 16 + n] != s && !bad++)
                snprintf(detail, sizeof detail, "D(%d,%d) = %d, want %lld", m, n, d[m * 16 + n], s);
        }
    tc_test_report(!bad, swizzled ? "imma_tile_swizzled" : "imma_tile_plain", detail, passed,
                   failed);
    TC_CUDA_CHECK(cudaFree(d_a));
    TC_CUDA_CHECK(cudaFree(d_b));
    TC_CUDA_CHECK(cudaFree(d_d));
}

/* Every int8 tensor-core unit test; on a GPU below sm_80 each reports skipped. */
static void run_imma_tests(const tc_args *a, const tc_device_info *dev, int *passed, int *failed,
                           int *skipped)
{
    static const char *const names[] = {"mma_m16n8k32_s8", "ldmatrix_x4 on int8 rows",
                                        "imma_tile_plain", "imma_tile_swizzled"};
    if (dev->cc < kind_min_cc[PEAK_MMA_S8]) {
        char why[96];
        snprintf(why, sizeof why, "needs sm_%d, this GPU is sm_%d", kind_min_cc[PEAK_MMA_S8],
                 dev->cc);
        for (int i = 0; i < 4; i++) report_skip(names[i], why, skipped);
        return;
    }
    tc_rng rng;
    tc_rng_seed(&rng, a->seed + 3);
    test_imma(&rng, passed, failed);
    test_ldmatrix_b8(passed, failed);
    test_imma_tile(0, &rng, passed, failed);
    test_imma_tile(1, &rng, passed, failed);
}

/* ---- the throughput benchmark ---------------------------------------------------------------- */
typedef struct {
    peak_kind kind;
    int chains, blocks, iters;
    uint32_t *d_a, *d_b, *d_out;
    int32_t *d_c0;
    long long *d_clk;
} peak_ctx;

static void peak_run(void *ctx, cudaStream_t stream)
{
    peak_ctx *c = (peak_ctx *)ctx;
    peak_launch(c->kind, c->chains, c->blocks, c->iters, c->d_a, c->d_b, c->d_c0, c->d_out,
                c->d_clk, stream);
    TC_LAUNCH_CHECK();
}

/* The lane map of mma_m16n8k32_s8 on the host: the fragments of a 16x32 A (row-major) and a 32x8
 * B (row-major k x n), and where accumulator element e of a lane sits (imma_ptx.cuh). */
static uint32_t pack_bytes4(const int8_t *p, int stride)
{
    return (uint32_t)(uint8_t)p[0] | (uint32_t)(uint8_t)p[stride] << 8 |
           (uint32_t)(uint8_t)p[2 * stride] << 16 | (uint32_t)(uint8_t)p[3 * stride] << 24;
}
static void imma_fragments(const int8_t *A, const int8_t *B, int lane, uint32_t r[6])
{
    const int g = lane / 4, t = lane % 4;
    for (int j = 0; j < 4; j++) /* a[j]: row g + 8 (j % 2), k = 4t + 16 (j / 2) .. + 3 */
        r[j] = pack_bytes4(A + (g + 8 * (j % 2)) * 32 + 4 * t + 16 * (j / 2), 1);
    for (int j = 0; j < 2; j++) /* b[j]: k = 4t + 16 j .. + 3, column g */
        r[4 + j] = pack_bytes4(B + (4 * t + 16 * j) * 8 + g, 8);
}
static void c_position(int lane, int e, int *row, int *col)
{
    *row = lane / 4 + 8 * (e / 2);
    *col = 2 * (lane % 4) + e % 2;
}

/* Runs one configuration; reps = 0 (args NULL): once, no timing (--test). Checks every thread's
 * (lane's) result exactly. dp4a/dp2a: random words, the sums wrap modulo 2^32 on both sides.
 * mma: A, B in [-16, 15], so that no accumulator comes near 2^31 (|one mma| <= 8192, times
 * iters <= 8192, times 8 chains < 2^29). */
static tc_sweep_point run_peak(peak_kind kind, int chains, int blocks, int iters, const tc_args *a,
                               tc_rng *rng)
{
    const int mma = kind == PEAK_MMA_S8;
    uint32_t ha[32 * 6], hb[32];
    int32_t c0[32 * 4];
    int8_t A[16 * 32], B[32 * 8];
    if (mma) {
        for (int i = 0; i < 16 * 32; i++) A[i] = (int8_t)small_int(rng, -16, 15);
        for (int i = 0; i < 32 * 8; i++) B[i] = (int8_t)small_int(rng, -16, 15);
        for (int lane = 0; lane < 32; lane++) imma_fragments(A, B, lane, ha + 6 * lane);
        for (int i = 0; i < 32 * 4; i++) c0[i] = small_int(rng, -1000, 1000);
    } else {
        for (int i = 0; i < 32; i++) {
            ha[i] = (uint32_t)tc_rng_next_u64(rng), hb[i] = (uint32_t)tc_rng_next_u64(rng);
            c0[i] = small_int(rng, -1000000, 1000000);
        }
    }
    const size_t threads = (size_t)blocks * PEAK_THREADS;
    const size_t n_out = mma ? threads / 32 * 32 * 4 : threads;
    peak_ctx ctx = {kind,
                    chains,
                    blocks,
                    iters,
                    tc_device_copy(ha, mma ? sizeof ha : 32 * 4),
                    tc_device_copy(hb, sizeof hb),
                    tc_device_copy(NULL, n_out * 4),
                    tc_device_copy(c0, sizeof c0),
                    (long long *)tc_device_copy(NULL, (size_t)blocks * 2 * sizeof(long long))};
    cudaStream_t stream;
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
    peak_run(&ctx, stream);
    TC_CUDA_CHECK(cudaStreamSynchronize(stream));
    uint32_t *out = (uint32_t *)tc_xmalloc(n_out * 4);
    TC_CUDA_CHECK(cudaMemcpy(out, ctx.d_out, n_out * 4, cudaMemcpyDeviceToHost));
    tc_sweep_point r; /* rate: 10^12 integer operations per second */
    memset(&r, 0, sizeof r);
    r.exact = 1;
    if (mma) {
        for (int lane = 0; lane < 32; lane++)
            for (int e = 0; e < 4; e++) {
                int row, col;
                c_position(lane, e, &row, &col);
                int64_t ab = 0, want = 0;
                for (int k = 0; k < 32; k++) ab += (int64_t)A[row * 32 + k] * B[k * 8 + col];
                for (int c = 0; c < chains; c++) want += c0[lane * 4 + e] + c + (int64_t)iters * ab;
                for (size_t w = 0; w < threads / 32; w++)
                    r.exact &= out[(w * 32 + lane) * 4 + e] == (uint32_t)want;
            }
    } else {
        for (size_t i = 0; i < threads; i++) {
            const int lane = (int)(i % 32);
            const uint32_t dot = kind == PEAK_DP4A ? tc_dp4a(ha[lane], 1, hb[lane], 1, 0)
                                                   : tc_dp2a(ha[lane], 1, hb[lane], 1, 0, 0);
            uint32_t want = 0; /* modulo 2^32, like the GPU's registers */
            for (int c = 0; c < chains; c++)
                want += (uint32_t)(c0[lane] + c) + (uint32_t)iters * dot;
            r.exact &= out[i] == want;
        }
    }
    free(out);
    if (a && a->reps > 0) {
        r.t = tc_time_gpu(peak_run, &ctx, stream, a->warmup, a->reps);
        const double instr = mma ? (double)threads / 32 : (double)threads;
        r.rate = kind_ops[kind] * instr * chains * iters / (r.t.ms_median * 1e-3) / 1e12;
        r.mhz = tc_sweep_clock_mhz(ctx.d_clk, blocks);
    }
    TC_CUDA_CHECK(cudaStreamDestroy(stream));
    TC_CUDA_CHECK(cudaFree(ctx.d_a));
    TC_CUDA_CHECK(cudaFree(ctx.d_b));
    TC_CUDA_CHECK(cudaFree(ctx.d_out));
    TC_CUDA_CHECK(cudaFree(ctx.d_c0));
    TC_CUDA_CHECK(cudaFree(ctx.d_clk));
    return r;
}

typedef struct {
    peak_kind kind;
    int iters;
    const tc_args *a;
    const tc_device_info *dev;
    tc_rng *rng;
} sweep_ctx;

static tc_sweep_point sweep_point(void *ctx, int chains, int warps_per_sm)
{
    const sweep_ctx *c = (const sweep_ctx *)ctx;
    return run_peak(c->kind, chains, c->dev->sms * warps_per_sm / PEAK_WARPS, c->iters, c->a,
                    c->rng);
}

/* The sweep for one instruction: prints the table and the ceiling (its best rate) to `info`. */
static tc_sweep_result peak_sweep(peak_kind kind, const tc_args *a, const tc_device_info *dev,
                                  tc_rng *rng, FILE *info)
{
    const int iters = kind == PEAK_MMA_S8 ? PEAK_ITERS_MMA : PEAK_ITERS_DP;
    fprintf(info,
            "\n%s\n  TOP/s (median of %d; %d instructions per chain, chains per %s; every "
            "result checked exactly)\n",
            kind_what[kind], a->reps, iters, kind == PEAK_MMA_S8 ? "warp" : "thread");
    sweep_ctx ctx = {.kind = kind, .iters = iters, .a = a, .dev = dev, .rng = rng};
    const tc_sweep sweep = {.row_name = "chains",
                            .col_name = "warps/SM",
                            .rows = sweep_chains,
                            .n_rows = TC_COUNT(sweep_chains),
                            .cols = sweep_warps_per_sm,
                            .n_cols = TC_COUNT(sweep_warps_per_sm),
                            .run = sweep_point,
                            .ctx = &ctx};
    const tc_sweep_result r = tc_sweep_run(&sweep, info);
    /* instructions per clock per SM at the clock the run held (clock64 cycles / %globaltimer ns
     * over every block), next to the driver's maximum */
    const double mhz = r.best.mhz > 0 ? r.best.mhz : dev->clock_mhz;
    const double per_clk = r.best.rate * 1e12 / kind_ops[kind] / ((double)dev->sms * mhz * 1e6);
    fprintf(info,
            "  ceiling %.1f TOP/s (%d chains, %d warps/SM) = %.1f %s per clock per SM at %.0f MHz "
            "(measured during the run; the driver's maximum is %d MHz)\n",
            r.best.rate, r.row, r.col, per_clk,
            kind == PEAK_MMA_S8 ? "warp-level mma" : "thread instructions", mhz, dev->clock_mhz);
    return r;
}

/* cuBLAS int8 on n^3 in the GEMM's layout (A row-major, B column-major, C row-major int32), on
 * random inputs made on the device; timed like every GEMM of the repository. Returns TOP/s, or 0
 * (with a line on `info`) when this GPU cannot hold the problem or cuBLAS declines it. */
typedef struct {
    tc_gemm_variant v;
    tc_gemm_problem p;
} cublas_ctx;

static void cublas_run(void *ctx, cudaStream_t stream)
{
    cublas_ctx *c = (cublas_ctx *)ctx;
    tc_cublas_launch(&c->v, &c->p, stream);
    TC_LAUNCH_CHECK();
}

static double cublas_rate(int n, const tc_args *a, const tc_device_info *dev, FILE *info,
                          tc_timing *t)
{
    const size_t nn = (size_t)n * n, need = nn * (1 + 1 + 4) + 2 * (size_t)dev->l2_bytes;
    if (need + (64u << 20) > dev->mem_free) {
        fprintf(info, "  cuBLAS %d^3 skipped: needs %.1f GiB, %.1f GiB free\n", n,
                need / 1073741824.0, dev->mem_free / 1073741824.0);
        return 0;
    }
    cublas_ctx c;
    memset(&c, 0, sizeof c);
    c.v.name = "cublas_i8i32";
    c.v.precision = "i8i32";
    c.v.a_layout = TC_ROW_MAJOR, c.v.b_layout = TC_COL_MAJOR, c.v.c_layout = TC_ROW_MAJOR;
    c.v.impl = &tc_cublas_i8i32;
    c.p.M = c.p.N = c.p.K = n;
    c.p.prec = tc_precision_get(c.v.precision);
    c.p.a_layout = c.v.a_layout, c.p.b_layout = c.v.b_layout, c.p.c_layout = c.v.c_layout;
    c.p.lda = n, c.p.ldb = n, c.p.ldc = n;
    c.p.alpha = 1.0f, c.p.beta = 0.0f;
    int8_t *d_a = tc_device_copy(NULL, nn), *d_b = tc_device_copy(NULL, nn);
    int32_t *d_c = tc_device_copy(NULL, nn * 4);
    fill_random_i8(d_a, nn, a->seed, 0);
    fill_random_i8(d_b, nn, a->seed + 1, 0);
    TC_LAUNCH_CHECK();
    TC_CUDA_CHECK(cudaDeviceSynchronize());
    c.p.d_a = d_a, c.p.d_b = d_b, c.p.d_c = d_c;
    cudaStream_t stream;
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
    double rate = 0;
    const char *why = tc_cublas_prepare(&c.v, &c.p);
    if (why) {
        fprintf(info, "  cuBLAS int8: %s\n", why);
    } else {
        *t = tc_time_gpu(cublas_run, &c, stream, a->warmup, a->reps);
        rate = 2.0 * (double)n * n * n / (t->ms_median * 1e-3) / 1e12;
    }
    tc_cublas_release(&c.v, &c.p);
    TC_CUDA_CHECK(cudaStreamDestroy(stream));
    TC_CUDA_CHECK(cudaFree(d_a));
    TC_CUDA_CHECK(cudaFree(d_b));
    TC_CUDA_CHECK(cudaFree(d_c));
    return rate;
}

/* ---- modes ----------------------------------------------------------------------------------- */
/* --test: semantics, the int8 tensor-core unit tests, then every benchmark kernel on a short run,
 * checked exactly */
static int mode_test(const tc_args *a, const tc_device_info *dev)
{
    int passed = 0, failed = 0, skipped = 0;
    test_semantics(a->seed, &passed, &failed);
    if (wanted(a, PEAK_MMA_S8)) run_imma_tests(a, dev, &passed, &failed, &skipped);
    tc_rng rng;
    tc_rng_seed(&rng, a->seed + 7);
    for (int kind = 0; kind < PEAK_N_KINDS; kind++) {
        if (!wanted(a, kind)) continue;
        for (int ci = 0; ci < N_CHAINS; ci++) {
            const int chains = sweep_chains[ci], blocks = 2;
            char name[64], detail[128];
            snprintf(name, sizeof name, "peak_%s_%dchains", kind_names[kind], chains);
            if (dev->cc < kind_min_cc[kind]) {
                snprintf(detail, sizeof detail, "needs sm_%d, this GPU is sm_%d", kind_min_cc[kind],
                         dev->cc);
                report_skip(name, detail, &skipped);
                continue;
            }
            const tc_sweep_point r =
                run_peak((peak_kind)kind, chains, blocks, TEST_ITERS, NULL, &rng);
            snprintf(detail, sizeof detail, "%d warps x %d instructions per chain: every sum exact",
                     blocks * PEAK_THREADS / 32, TEST_ITERS);
            tc_test_report(r.exact, name, detail, &passed, &failed);
        }
    }
    return tc_test_finish(PROGRAM, passed, failed, skipped);
}

/* default (csv == NULL) and --bench: the sweep of each wanted instruction, cuBLAS int8 beside */
static int mode_measure(const tc_args *a, const tc_device_info *dev, FILE *info, FILE *csv)
{
    int bad = 0, ran = 0;
    tc_rng rng;
    tc_rng_seed(&rng, a->seed);
    double ceiling[PEAK_N_KINDS] = {0};
    tc_sweep_result peak[PEAK_N_KINDS];
    memset(peak, 0, sizeof peak);
    for (int kind = 0; kind < PEAK_N_KINDS; kind++) {
        if (!wanted(a, kind)) continue;
        if (dev->cc < kind_min_cc[kind]) {
            fprintf(info, "\n%s: skipped, needs sm_%d (this GPU is sm_%d)\n", kind_names[kind],
                    kind_min_cc[kind], dev->cc);
            continue;
        }
        peak[kind] = peak_sweep((peak_kind)kind, a, dev, &rng, info);
        ceiling[kind] = peak[kind].best.rate;
        bad += !peak[kind].all_exact;
        ran++;
    }
    if (!ran) tc_skip(PROGRAM, "no selected instruction can run on this GPU");
    tc_timing tb;
    memset(&tb, 0, sizeof tb);
    const double cublas = cublas_rate(CUBLAS_N, a, dev, info, &tb);
    fprintf(info, "\nSummary (same run):\n");
    if (cublas > 0)
        fprintf(info,
                "  %-16s %8.1f TOP/s  (cuBLAS int8 %d^3, A row-major, B column-major, C "
                "int32: the baseline)\n",
                "cublas_i8i32", cublas, CUBLAS_N);
    for (int kind = 0; kind < PEAK_N_KINDS; kind++)
        if (ceiling[kind] > 0) {
            fprintf(info, "  %-16s %8.1f TOP/s", kind_row[kind], ceiling[kind]);
            if (cublas > 0)
                fprintf(info, "  = %5.1f%% of cuBLAS int8", 100.0 * ceiling[kind] / cublas);
            if (kind == PEAK_DP4A)
                fprintf(info, "; a dp4a GEMM at 80%% of it: %.1f TOP/s", 0.8 * ceiling[kind]);
            fprintf(info, "\n");
        }
    if (!csv) return bad ? TC_EXIT_WRONG : TC_EXIT_PASS;
    tc_bench_row row;
    memset(&row, 0, sizeof row);
    row.chapter = PROGRAM;
    row.problem = "INT8 GEMM";
    row.unit = "TOP/s";
    row.baseline = "cublas_i8i32";
    if (cublas > 0) {
        row.variant = "cublas_i8i32";
        row.precision = "i8i32";
        snprintf(row.size, sizeof row.size, "%dx%dx%d", CUBLAS_N, CUBLAS_N, CUBLAS_N);
        row.ms_median = tb.ms_median, row.ms_min = tb.ms_min;
        row.rate = cublas;
        row.pct_of_baseline = 100.0;
        row.verified = -1; /* checked by 07_int8_gemm, which runs it against the reference */
        tc_bench_csv_write(csv, &row, dev);
    }
    for (int kind = 0; kind < PEAK_N_KINDS; kind++) {
        if (ceiling[kind] <= 0) continue;
        row.variant = kind_row[kind];
        row.precision = kind_precision[kind];
        snprintf(row.size, sizeof row.size, "%dchains_%dwarps", peak[kind].row, peak[kind].col);
        row.ms_median = peak[kind].best.t.ms_median, row.ms_min = peak[kind].best.t.ms_min;
        row.rate = ceiling[kind];
        row.pct_of_baseline = cublas > 0 ? 100.0 * ceiling[kind] / cublas : 0;
        row.verified = peak[kind].all_exact;
        tc_bench_csv_write(csv, &row, dev);
    }
    return bad ? TC_EXIT_WRONG : TC_EXIT_PASS;
}

static void print_list(void)
{
    printf("%s - dp4a/dp2a semantics, the int8 tensor-core unit tests, and the throughput "
           "ceilings\n\n",
           PROGRAM);
    printf("variants (--variant): the instructions whose throughput is measured\n");
    for (int k = 0; k < PEAK_N_KINDS; k++)
        printf("  %-8s sm_%d  %s\n", kind_names[k], kind_min_cc[k], kind_what[k]);
    printf("\nsemantics (always; bit-exact against dp4a_model.c on %d edge and %d random "
           "words):\n",
           N_EDGES, N_RANDOM_WORDS);
    for (int k = 0; k < DP_N_OPS; k++) printf("  %-16s %s\n", ops[k].name, ops[k].form);
    printf("\nunit tests of the int8 tensor-core path (with mma_s8; one warp each, exact):\n"
           "  mma_m16n8k32_s8              fragments packed by the documented lane map\n"
           "  ldmatrix_x4 on int8 rows     raw registers against the documented map\n"
           "  imma_tile_{plain,swizzled}   the GEMM's loaders: K-major tile -> ldmatrix -> mma\n"
           "  peak_<variant>_<n>chains     the benchmark kernels, short runs, checked\n"
           "\nbenchmark (default, --bench): chains {1,2,4,8} x warps per SM {4,8,16,32,64}; "
           "cuBLAS int8 %d^3 beside it\n",
           CUBLAS_N);
}

/* default mode: the lesson and the checks first (the benchmark follows) */
static int default_tests(const tc_args *a, const tc_device_info *dev)
{
    const int bad = print_lesson();
    int passed = 0, failed = 0, skipped = 0;
    printf("Bit-exact checks of every form (edge and random words):\n");
    test_semantics(a->seed, &passed, &failed);
    if (wanted(a, PEAK_MMA_S8)) {
        printf("\nUnit tests of the int8 tensor-core path (one warp each, exact against the "
               "CPU):\n");
        run_imma_tests(a, dev, &passed, &failed, &skipped);
    }
    return failed + bad;
}

int main(int argc, char **argv)
{
    static const tc_program program = {
        .cli = {.program = PROGRAM,
                .summary = "dp4a/dp2a semantics, int8 mma.sync unit tests, and the dp4a, dp2a and "
                           "int8 mma.sync throughput ceilings",
                TC_VARIANT_TABLE(kind_names),
                .default_reps = 20,
                .default_warmup = 5},
        .min_cc = MIN_CC,
        .list = print_list,
        .init = tc_cublas_program_init,
        .test = mode_test,
        .measure = mode_measure,
        .default_tests = default_tests,
    };
    return tc_program_main(argc, argv, &program);
}
