/* 05_mma_ptx/mma/mma_probe.c - the host driver of 05_mma_probe (kernels in mma_probe.cu): the
 * one-warp unit tests of the PTX wrappers, and the mma.sync throughput benchmark printed next to
 * cuBLAS. The benchmark's best figure is the ceiling the GEMM ladder (05_mma_gemm) is judged
 * against: a kernel built on mma.sync cannot beat the instruction.
 *
 * Build and run
 *   make && build/bin/05_mma_probe             # unit tests, the throughput table, cuBLAS beside it
 *   build/bin/05_mma_probe --test              # the unit tests (and a short, exact benchmark run)
 *   build/bin/05_mma_probe --variant bf16f32   # only the bf16 half
 *   build/bin/05_mma_probe --bench             # CSV rows for make bench: the ceiling and cuBLAS
 *   build/bin/05_mma_probe --list              # what is tested and measured
 *
 * "Variants" here are the two input types of mma.sync m16n8k16 with f32 accumulate. */
#include "mma_probe.h"

#include "check.h"
#include "convert.h"
#include "cublas_gemm.h"
#include "harness.h"
#include "program.h"
#include "sweep.h"
#include "verify.h"

#include <stdlib.h>
#include <string.h>

#define PROGRAM "05_mma_probe"

enum { N_TYPES = 2 };
static const char *const type_names[N_TYPES] = {"f16f32", "bf16f32"};
static const char *const type_problem[N_TYPES] = {"FP16 GEMM", "BF16 GEMM"};
static const char *const type_cublas[N_TYPES] = {"cublas_f16f32", "cublas_bf16f32"};

/* the benchmark sweep: accumulator chains per warp x warps per SM (blocks of MMA_PEAK_WARPS) */
static const int sweep_chains[] = {1, 2, 4, 8};
static const int sweep_warps_per_sm[] = {1 * MMA_PEAK_WARPS, 2 * MMA_PEAK_WARPS, 4 * MMA_PEAK_WARPS,
                                         8 * MMA_PEAK_WARPS};
enum { N_CHAINS = TC_COUNT(sweep_chains), PEAK_ITERS = 8192, TEST_ITERS = 64, CUBLAS_N = 8192 };

/* ---- small helpers --------------------------------------------------------------------------- */
static uint16_t to_bits(int bf16, float x) { return bf16 ? tc_f32_to_bf16(x) : tc_f32_to_f16(x); }
static float from_bits(int bf16, uint16_t b) { return bf16 ? tc_bf16_to_f32(b) : tc_f16_to_f32(b); }
static int small_int(tc_rng *rng, int lo, int hi)
{
    return lo + (int)(tc_rng_next_u64(rng) % (uint64_t)(hi - lo + 1));
}

/* The lane map of mma_m16n8k16 (mma_sync.cuh), on the host: fragments of a 16x16 A
 * (row-major) and a 16x8 B (row-major k x n), and where accumulator element i of a lane sits. */
static uint32_t pack(uint16_t lo, uint16_t hi) { return (uint32_t)lo | ((uint32_t)hi << 16); }
static void a_fragment(const uint16_t *a, int lane, uint32_t r[4])
{
    const int g = lane / 4, t = lane % 4;
    for (int j = 0; j < 4; j++) {
        const int row = g + 8 * (j % 2), col = 2 * t + 8 * (j / 2);
        r[j] = pack(a[row * 16 + col], a[row * 16 + col + 1]);
    }
}
static void b_fragment(const uint16_t *b, int lane, uint32_t r[2])
{
    const int g = lane / 4, t = lane % 4;
    for (int j = 0; j < 2; j++)
        r[j] = pack(b[(2 * t + 8 * j) * 8 + g], b[(2 * t + 8 * j + 1) * 8 + g]);
}
static void c_position(int lane, int i, int *row, int *col)
{
    *row = lane / 4 + 8 * (i / 2);
    *col = 2 * (lane % 4) + i % 2;
}

/* ---- unit test: mma_m16n8k16 ----------------------------------------------------------------- */
static void test_mma(int bf16, tc_rng *rng, int *passed, int *failed)
{
    uint16_t a[16 * 16], b[16 * 8];
    float c[16 * 8], d[16 * 8];
    double want[16 * 8];
    for (int i = 0; i < 16 * 16; i++) a[i] = to_bits(bf16, (float)small_int(rng, -3, 3));
    for (int i = 0; i < 16 * 8; i++) b[i] = to_bits(bf16, (float)small_int(rng, -3, 3));
    for (int i = 0; i < 16 * 8; i++) c[i] = (float)small_int(rng, -20, 20);
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 8; n++) {
            double s = c[m * 8 + n];
            for (int k = 0; k < 16; k++)
                s += (double)from_bits(bf16, a[m * 16 + k]) * from_bits(bf16, b[k * 8 + n]);
            want[m * 8 + n] = s; /* small integers: exact in f32 too */
        }
    uint16_t *d_a = tc_device_copy(a, sizeof a), *d_b = tc_device_copy(b, sizeof b);
    float *d_c = tc_device_copy(c, sizeof c), *d_d = tc_device_copy(NULL, sizeof d);
    TC_CUDA_CHECK(cudaMemset(d_d, 0xFF, sizeof d));
    probe_mma_launch(bf16, d_a, d_b, d_c, d_d, 0);
    tc_device_fetch(d, d_d, sizeof d);
    int bad = 0;
    char detail[160] = "16x8 D = A B + C exact; registers packed by the documented map";
    for (int e = 0; e < 16 * 8; e++)
        if (!(d[e] == want[e])) {
            if (!bad++)
                snprintf(detail, sizeof detail, "D(%d,%d) = %g, want %g (lane %d, d[%d]); %s",
                         e / 8, e % 8, d[e], want[e], 4 * (e / 8 % 8) + e % 8 / 2,
                         2 * (e / 8 / 8) + e % 2, "check the A, B and C maps");
        }
    char name[64];
    snprintf(name, sizeof name, "mma_m16n8k16_%s", type_names[bf16]);
    tc_test_report(!bad, name, detail, passed, failed);
    TC_CUDA_CHECK(cudaFree(d_a));
    TC_CUDA_CHECK(cudaFree(d_b));
    TC_CUDA_CHECK(cudaFree(d_c));
    TC_CUDA_CHECK(cudaFree(d_d));
}

/* ---- unit test: mma_m8n8k4_f64, mma_m16n8k16_f64 ---------------------------------------------- */
static void test_dmma(int m16, tc_rng *rng, int *passed, int *failed, int *skipped)
{
    const int M = m16 ? 16 : 8, N = 8, K = m16 ? 16 : 4;
    const char *name = m16 ? "mma_m16n8k16_f64" : "mma_m8n8k4_f64";
    double a[16 * 16], b[16 * 8], c[16 * 8], d[16 * 8], want[16 * 8];
    for (int i = 0; i < M * K; i++) a[i] = small_int(rng, -3, 3);
    for (int i = 0; i < K * N; i++) b[i] = small_int(rng, -3, 3);
    for (int i = 0; i < M * N; i++) c[i] = small_int(rng, -20, 20);
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double s = c[m * N + n];
            for (int k = 0; k < K; k++) s += a[m * K + k] * b[k * N + n]; /* small integers */
            want[m * N + n] = s;
        }
    double *d_a = tc_device_copy(a, sizeof a), *d_b = tc_device_copy(b, sizeof b);
    double *d_c = tc_device_copy(c, sizeof c), *d_d = tc_device_copy(NULL, sizeof d);
    TC_CUDA_CHECK(cudaMemset(d_d, 0xFF, sizeof d)); /* NaN: a lane that writes nothing fails */
    if (!probe_dmma_launch(m16, d_a, d_b, d_c, d_d, 0)) {
        printf("SKIP %-44s the GPU does not run this build's sm_90 code\n", name);
        (*skipped)++;
    } else {
        tc_device_fetch(d, d_d, sizeof d);
        int bad = 0;
        char detail[160];
        snprintf(detail, sizeof detail, "%dx%d D = A B + C exact; fragments by the documented map",
                 M, N);
        for (int e = 0; e < M * N; e++)
            if (!(d[e] == want[e]) && !bad++)
                snprintf(detail, sizeof detail, "D(%d,%d) = %g, want %g; check the A, B and C maps",
                         e / N, e % N, d[e], want[e]);
        tc_test_report(!bad, name, detail, passed, failed);
    }
    TC_CUDA_CHECK(cudaFree(d_a));
    TC_CUDA_CHECK(cudaFree(d_b));
    TC_CUDA_CHECK(cudaFree(d_c));
    TC_CUDA_CHECK(cudaFree(d_d));
}

/* ---- unit test: ldmatrix_x4 and ldmatrix_x4_trans -------------------------------------------- */
static void test_ldmatrix(int trans, int *passed, int *failed)
{
    /* value of (tile j, row r, column c): a distinct 16-bit id, so any misplacement shows */
    uint16_t src[32 * 8];
    int slot[32];
    uint32_t out[32 * 4];
    for (int i = 0; i < 32 * 8; i++) src[i] = (uint16_t)(0x1000 + i);
    for (int i = 0; i < 32; i++) slot[i] = (i * 37 + 11) % PROBE_LDM_SLOTS; /* scattered rows */
    uint16_t *d_src = tc_device_copy(src, sizeof src);
    int *d_slot = tc_device_copy(slot, sizeof slot);
    uint32_t *d_out = tc_device_copy(NULL, sizeof out);
    probe_ldmatrix_launch(trans, d_src, d_slot, d_out, 0);
    tc_device_fetch(out, d_out, sizeof out);
    int bad = 0;
    char detail[200];
    snprintf(detail, sizeof detail, "%s",
             trans ? "r[j] of lane 4r+c = (tile j[2c][r], tile j[2c+1][r]), rows scattered"
                   : "r[j] of lane 4r+c = (tile j[r][2c], tile j[r][2c+1]), rows scattered");
    for (int lane = 0; lane < 32; lane++)
        for (int j = 0; j < 4; j++) {
            const int r = lane / 4, c = lane % 4;
            /* element (row, col) of tile j is src[(8 j + row) * 8 + col] */
            const uint16_t lo = trans ? src[(8 * j + 2 * c) * 8 + r] : src[(8 * j + r) * 8 + 2 * c];
            const uint16_t hi =
                trans ? src[(8 * j + 2 * c + 1) * 8 + r] : src[(8 * j + r) * 8 + 2 * c + 1];
            const uint32_t got = out[lane * 4 + j], want = pack(lo, hi);
            if (got != want && !bad++) {
                const int glo = (int)(got & 0xFFFF) - 0x1000, ghi = (int)(got >> 16) - 0x1000;
                snprintf(detail, sizeof detail,
                         "lane %d r[%d] holds tile %d (%d,%d),(%d,%d); want (%d,%d),(%d,%d)", lane,
                         j, glo / 64, glo % 64 / 8, glo % 8, ghi % 64 / 8, ghi % 8,
                         trans ? 2 * c : r, trans ? r : 2 * c, trans ? 2 * c + 1 : r,
                         trans ? r : 2 * c + 1);
            }
        }
    tc_test_report(!bad, trans ? "ldmatrix_x4_trans" : "ldmatrix_x4", detail, passed, failed);
    TC_CUDA_CHECK(cudaFree(d_src));
    TC_CUDA_CHECK(cudaFree(d_slot));
    TC_CUDA_CHECK(cudaFree(d_out));
}

/* ---- unit test: cp_async_16, zero fill, commit and wait groups ------------------------------- */
static void test_cp_async(tc_rng *rng, int *passed, int *failed)
{
    unsigned char src[64 * 16], out[64 * 16], want[64 * 16];
    int bytes[32];
    for (int i = 0; i < 64 * 16; i++) src[i] = (unsigned char)(1 + tc_rng_next_u64(rng) % 255);
    for (int l = 0; l < 32; l++) bytes[l] = (l * 7) % 17; /* every value 0..16 */
    memset(want, PROBE_CP_FILL, sizeof want);
    for (int l = 0; l < 32; l++) {
        const int s0 = (5 * l + 3) % 32, s1 = 32 + (7 * l + 1) % 32;
        for (int e = 0; e < 16; e++) {
            want[16 * s0 + e] = e < bytes[l] ? src[16 * l + e] : 0;
            want[16 * s1 + e] = src[16 * (32 + l) + e];
        }
    }
    unsigned char *d_src = tc_device_copy(src, sizeof src),
                  *d_out = tc_device_copy(NULL, sizeof out);
    int *d_bytes = tc_device_copy(bytes, sizeof bytes);
    probe_cp_async_launch(d_src, d_bytes, d_out, 0);
    tc_device_fetch(out, d_out, sizeof out);
    int bad = 0;
    char detail[160] = "src_bytes 0..16 zero-filled to 16; wait_group<1> then <0>";
    for (int i = 0; i < 64 * 16; i++)
        if (out[i] != want[i] && !bad++)
            snprintf(detail, sizeof detail, "slot %d byte %d: 0x%02x, want 0x%02x%s", i / 16,
                     i % 16, out[i], want[i],
                     out[i] == PROBE_CP_FILL ? " (not written: zero fill or wait missing)" : "");
    tc_test_report(!bad, "cp_async_16 + commit/wait_group", detail, passed, failed);
    TC_CUDA_CHECK(cudaFree(d_src));
    TC_CUDA_CHECK(cudaFree(d_out));
    TC_CUDA_CHECK(cudaFree(d_bytes));
}

/* ---- unit test: the GEMM's fragment loaders, shared tiles -> fragments -> mma ---------------- */
static void test_tile(int mode, int bf16, tc_rng *rng, int *passed, int *failed)
{
    static const char *const names[PROBE_TILE_MODES] = {
        "tile_hand", "tile_ldmatrix", "tile_ldmatrix_swizzled", "tile_ldmatrix_trans"};
    static const char *const what[PROBE_TILE_MODES] = {
        "16x16x32 via K-major tiles, fragments by hand", "16x16x32 via K-major tiles, ldmatrix_x4",
        "16x16x32 via XOR-swizzled tiles, ldmatrix_x4",
        "16x16x32, B row-major in smem, ldmatrix_x4_trans"};
    uint16_t a[16 * 32], b[32 * 16];
    float d[16 * 16];
    for (int i = 0; i < 16 * 32; i++) a[i] = to_bits(bf16, (float)small_int(rng, -3, 3));
    for (int i = 0; i < 32 * 16; i++) b[i] = to_bits(bf16, (float)small_int(rng, -3, 3));
    uint16_t *d_a = tc_device_copy(a, sizeof a), *d_b = tc_device_copy(b, sizeof b);
    float *d_d = tc_device_copy(NULL, sizeof d);
    TC_CUDA_CHECK(cudaMemset(d_d, 0xFF, sizeof d));
    probe_tile_launch(mode, bf16, d_a, d_b, d_d, 0);
    tc_device_fetch(d, d_d, sizeof d);
    int bad = 0;
    char detail[160];
    snprintf(detail, sizeof detail, "%s, exact", what[mode]);
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 16; n++) {
            double s = 0;
            for (int k = 0; k < 32; k++)
                s += (double)from_bits(bf16, a[m * 32 + k]) * from_bits(bf16, b[k * 16 + n]);
            if (!(d[m * 16 + n] == s) && !bad++)
                snprintf(detail, sizeof detail, "D(%d,%d) = %g, want %g", m, n, d[m * 16 + n], s);
        }
    char name[64];
    snprintf(name, sizeof name, "%s_%s", names[mode], type_names[bf16]);
    tc_test_report(!bad, name, detail, passed, failed);
    TC_CUDA_CHECK(cudaFree(d_a));
    TC_CUDA_CHECK(cudaFree(d_b));
    TC_CUDA_CHECK(cudaFree(d_d));
}

/* ---- the throughput benchmark ---------------------------------------------------------------- */
typedef struct {
    int bf16, chains, blocks, iters;
    uint32_t *d_frag;
    float *d_c0, *d_out;
    long long *d_clk; /* cycles and ns per block of the latest launch */
} peak_ctx;

static void peak_launch(void *ctx, cudaStream_t stream)
{
    const peak_ctx *p = (const peak_ctx *)ctx;
    mma_peak_launch(p->bf16, p->chains, p->blocks, p->iters, p->d_frag, p->d_c0, p->d_out, p->d_clk,
                    stream);
    TC_LAUNCH_CHECK();
}

/* Runs one configuration; a NULL: once, no timing (--test). Checks every lane's sum exactly:
 * A and B hold -1, 0, 1 (|A B| <= 16) and c0 small integers, so the sums of all chains stay
 * below 2^24 for iters <= 2^14 and f32 represents every intermediate exactly. */
static tc_sweep_point run_peak(int bf16, int chains, int blocks, int iters, const tc_args *a,
                               tc_rng *rng)
{
    uint16_t ha[16 * 16], hb[16 * 8];
    uint32_t frag[32 * 6];
    float c0[32 * 4];
    for (int i = 0; i < 16 * 16; i++) ha[i] = to_bits(bf16, (float)small_int(rng, -1, 1));
    for (int i = 0; i < 16 * 8; i++) hb[i] = to_bits(bf16, (float)small_int(rng, -1, 1));
    for (int i = 0; i < 32 * 4; i++) c0[i] = (float)small_int(rng, -8, 8);
    for (int lane = 0; lane < 32; lane++) {
        a_fragment(ha, lane, frag + lane * 6);
        b_fragment(hb, lane, frag + lane * 6 + 4);
    }
    const size_t warps = (size_t)blocks * MMA_PEAK_WARPS, n_out = warps * 32 * 4;
    peak_ctx ctx = {bf16,
                    chains,
                    blocks,
                    iters,
                    tc_device_copy(frag, sizeof frag),
                    tc_device_copy(c0, sizeof c0),
                    tc_device_copy(NULL, n_out * sizeof(float)),
                    (long long *)tc_device_copy(NULL, (size_t)blocks * 2 * sizeof(long long))};
    cudaStream_t stream;
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
    peak_launch(&ctx, stream);
    TC_CUDA_CHECK(cudaStreamSynchronize(stream));
    float *out = (float *)tc_xmalloc(n_out * sizeof(float));
    TC_CUDA_CHECK(cudaMemcpy(out, ctx.d_out, n_out * sizeof(float), cudaMemcpyDeviceToHost));
    tc_sweep_point r;
    memset(&r, 0, sizeof r);
    r.exact = 1;
    for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < 4; i++) {
            int row, col;
            c_position(lane, i, &row, &col);
            double ab = 0, want = 0;
            for (int k = 0; k < 16; k++)
                ab += (double)from_bits(bf16, ha[row * 16 + k]) * from_bits(bf16, hb[k * 8 + col]);
            for (int c = 0; c < chains; c++) want += c0[lane * 4 + i] + c + (double)iters * ab;
            for (size_t w = 0; w < warps; w++) r.exact &= out[(w * 32 + lane) * 4 + i] == want;
        }
    free(out);
    if (a && a->reps > 0) {
        r.t = tc_time_gpu(peak_launch, &ctx, stream, a->warmup, a->reps);
        const double flop = 2.0 * 16 * 8 * 16 * (double)warps * chains * iters;
        r.rate = flop / (r.t.ms_median * 1e-3) / 1e12;
        r.mhz = tc_sweep_clock_mhz(ctx.d_clk, blocks);
    }
    TC_CUDA_CHECK(cudaStreamDestroy(stream));
    TC_CUDA_CHECK(cudaFree(ctx.d_frag));
    TC_CUDA_CHECK(cudaFree(ctx.d_c0));
    TC_CUDA_CHECK(cudaFree(ctx.d_out));
    TC_CUDA_CHECK(cudaFree(ctx.d_clk));
    return r;
}

typedef struct {
    int bf16;
    const tc_args *a;
    const tc_device_info *dev;
    tc_rng *rng;
} sweep_ctx;

static tc_sweep_point sweep_point(void *ctx, int chains, int warps_per_sm)
{
    const sweep_ctx *c = (const sweep_ctx *)ctx;
    return run_peak(c->bf16, chains, c->dev->sms * warps_per_sm / MMA_PEAK_WARPS, PEAK_ITERS, c->a,
                    c->rng);
}

/* The sweep for one input type: prints the table and the ceiling (its best rate) to `info`. */
static tc_sweep_result peak_sweep(int bf16, const tc_args *a, const tc_device_info *dev,
                                  tc_rng *rng, FILE *info)
{
    fprintf(info,
            "\nmma.sync.m16n8k16 %s throughput, TFLOP/s (median of %d; %d mma per chain; "
            "every result checked exactly)\n",
            type_names[bf16], a->reps, PEAK_ITERS);
    sweep_ctx ctx = {.bf16 = bf16, .a = a, .dev = dev, .rng = rng};
    const tc_sweep sweep = {.row_name = "chains",
                            .col_name = "warps/SM",
                            .rows = sweep_chains,
                            .n_rows = TC_COUNT(sweep_chains),
                            .cols = sweep_warps_per_sm,
                            .n_cols = TC_COUNT(sweep_warps_per_sm),
                            .run = sweep_point,
                            .ctx = &ctx};
    const tc_sweep_result r = tc_sweep_run(&sweep, info);
    /* flop per clock per SM at the clock the run held (clock64 cycles / %globaltimer ns over
     * every block), next to the driver's maximum: what the tensor pipe does per cycle. The
     * operands here are -1, 0, 1, which draw less power than random data: a GEMM may run at a
     * lower clock than this, and this ceiling is then an upper bound for it. */
    const double mhz = r.best.mhz > 0 ? r.best.mhz : dev->clock_mhz;
    fprintf(info,
            "  ceiling %.1f TFLOP/s (%d chains, %d warps/SM) = %.0f flop/clock/SM at %.0f MHz "
            "(measured during the run; the driver's maximum is %d MHz)\n",
            r.best.rate, r.row, r.col, r.best.rate * 1e12 / ((double)dev->sms * mhz * 1e6), mhz,
            dev->clock_mhz);
    return r;
}

/* cuBLAS on n^3 in the ladder's layout (A row-major, B column-major, C row-major f32), on random
 * inputs made on the device; timed like every GEMM of the repository. Returns TFLOP/s, or 0
 * (with a line on `info`) when this GPU cannot hold the problem. */
typedef struct {
    tc_gemm_variant v;
    tc_gemm_problem p;
} cublas_ctx;

static void cublas_launch(void *ctx, cudaStream_t stream)
{
    cublas_ctx *c = (cublas_ctx *)ctx;
    tc_cublas_launch(&c->v, &c->p, stream);
    TC_LAUNCH_CHECK();
}

static double cublas_rate(int bf16, int n, const tc_args *a, const tc_device_info *dev, FILE *info,
                          tc_timing *t)
{
    const size_t nn = (size_t)n * n, need = nn * (2 + 2 + 4) + 2 * (size_t)dev->l2_bytes;
    if (need + (64u << 20) > dev->mem_free) {
        fprintf(info, "  cuBLAS %d^3 skipped: needs %.1f GiB, %.1f GiB free\n", n,
                need / 1073741824.0, dev->mem_free / 1073741824.0);
        return 0;
    }
    cublas_ctx c;
    memset(&c, 0, sizeof c);
    c.v.name = type_cublas[bf16];
    c.v.precision = type_names[bf16];
    c.v.a_layout = TC_ROW_MAJOR, c.v.b_layout = TC_COL_MAJOR, c.v.c_layout = TC_ROW_MAJOR;
    c.v.impl = bf16 ? &tc_cublas_bf16f32 : &tc_cublas_f16f32;
    c.p.M = c.p.N = c.p.K = n;
    c.p.prec = tc_precision_get(c.v.precision);
    c.p.a_layout = c.v.a_layout, c.p.b_layout = c.v.b_layout, c.p.c_layout = c.v.c_layout;
    c.p.lda = n, c.p.ldb = n, c.p.ldc = n; /* A: rows of K; B: columns of K; C: rows of N */
    c.p.alpha = 1.0f, c.p.beta = 0.0f;
    uint16_t *d_a = tc_device_copy(NULL, nn * 2), *d_b = tc_device_copy(NULL, nn * 2);
    float *d_c = tc_device_copy(NULL, nn * 4);
    probe_fill_random(bf16, d_a, nn, a->seed, 0);
    probe_fill_random(bf16, d_b, nn, a->seed + 1, 0);
    TC_LAUNCH_CHECK();
    TC_CUDA_CHECK(cudaDeviceSynchronize());
    c.p.d_a = d_a, c.p.d_b = d_b, c.p.d_c = d_c;
    cudaStream_t stream;
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
    double rate = 0;
    const char *why = tc_cublas_prepare(&c.v, &c.p);
    if (why) {
        fprintf(info, "  cuBLAS %s: %s\n", type_names[bf16], why);
    } else {
        *t = tc_time_gpu(cublas_launch, &c, stream, a->warmup, a->reps);
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
static int wanted(const tc_args *a, int bf16)
{
    return !a->variant || strcmp(a->variant, "all") == 0 ||
           strcmp(a->variant, type_names[bf16]) == 0;
}

/* Every unit test once; returns the number that failed. */
static int run_unit_tests(const tc_args *a, int *passed, int *failed, int *skipped)
{
    const int failed0 = *failed;
    tc_rng rng;
    tc_rng_seed(&rng, a->seed);
    for (int bf16 = 0; bf16 < N_TYPES; bf16++)
        if (wanted(a, bf16)) test_mma(bf16, &rng, passed, failed);
    if (!a->variant || strcmp(a->variant, "all") == 0) /* FP64: no --variant of its own */
        for (int m16 = 0; m16 < 2; m16++) test_dmma(m16, &rng, passed, failed, skipped);
    test_ldmatrix(0, passed, failed);
    test_ldmatrix(1, passed, failed);
    test_cp_async(&rng, passed, failed);
    for (int bf16 = 0; bf16 < N_TYPES; bf16++)
        for (int mode = 0; mode < PROBE_TILE_MODES && wanted(a, bf16); mode++)
            test_tile(mode, bf16, &rng, passed, failed);
    return *failed - failed0;
}

/* --test: the unit tests, then the benchmark kernel itself on a short run, checked exactly */
static int mode_test(const tc_args *a, const tc_device_info *dev)
{
    int passed = 0, failed = 0, skipped = 0;
    run_unit_tests(a, &passed, &failed, &skipped);
    tc_rng rng;
    tc_rng_seed(&rng, a->seed + 7);
    for (int bf16 = 0; bf16 < N_TYPES; bf16++)
        for (int ci = 0; ci < N_CHAINS && wanted(a, bf16); ci++) {
            const int chains = sweep_chains[ci], blocks = 2;
            const tc_sweep_point r = run_peak(bf16, chains, blocks, TEST_ITERS, NULL, &rng);
            char name[64], detail[96];
            snprintf(name, sizeof name, "mma_peak_%s_%dchains", type_names[bf16], chains);
            snprintf(detail, sizeof detail, "%d warps x %d mma per chain: every lane's sum exact",
                     blocks * MMA_PEAK_WARPS, TEST_ITERS);
            tc_test_report(r.exact, name, detail, &passed, &failed);
        }
    (void)dev;
    return tc_test_finish(PROGRAM, passed, failed, skipped);
}

/* default (csv == NULL) and --bench: the sweep for each type, cuBLAS beside it */
static int mode_measure(const tc_args *a, const tc_device_info *dev, FILE *info, FILE *csv)
{
    int bad = 0;
    tc_rng rng;
    tc_rng_seed(&rng, a->seed);
    for (int bf16 = 0; bf16 < N_TYPES; bf16++) {
        if (!wanted(a, bf16)) continue;
        const tc_sweep_result peak = peak_sweep(bf16, a, dev, &rng, info);
        const double ceiling = peak.best.rate;
        bad += !peak.all_exact;
        tc_timing tb;
        memset(&tb, 0, sizeof tb);
        const double cublas = cublas_rate(bf16, CUBLAS_N, a, dev, info, &tb);
        if (cublas > 0)
            fprintf(info,
                    "  cuBLAS %s at %d^3 (A row-major, B column-major, C row-major f32): %.1f "
                    "TFLOP/s\n  the mma.sync ceiling is %.1f%% of cuBLAS; a GEMM at 85%% of the "
                    "ceiling runs at %.1f TFLOP/s\n",
                    type_names[bf16], CUBLAS_N, cublas, 100.0 * ceiling / cublas, 0.85 * ceiling);
        if (!csv) continue;
        tc_bench_row row;
        memset(&row, 0, sizeof row);
        row.chapter = PROGRAM;
        row.problem = type_problem[bf16];
        row.precision = type_names[bf16];
        row.unit = "TFLOP/s";
        row.baseline = type_cublas[bf16];
        if (cublas > 0) {
            row.variant = type_cublas[bf16];
            snprintf(row.size, sizeof row.size, "%dx%dx%d", CUBLAS_N, CUBLAS_N, CUBLAS_N);
            row.ms_median = tb.ms_median, row.ms_min = tb.ms_min;
            row.rate = cublas;
            row.pct_of_baseline = 100.0;
            row.verified = -1; /* checked by 05_mma_gemm, which runs it against the reference */
            tc_bench_csv_write(csv, &row, dev);
        }
        row.variant = "mma_sync_ceiling";
        snprintf(row.size, sizeof row.size, "%dchains_%dwarps", peak.row, peak.col);
        row.ms_median = peak.best.t.ms_median, row.ms_min = peak.best.t.ms_min;
        row.rate = ceiling;
        row.pct_of_baseline = cublas > 0 ? 100.0 * ceiling / cublas : 0;
        row.verified = peak.all_exact;
        tc_bench_csv_write(csv, &row, dev);
    }
    return bad ? TC_EXIT_WRONG : TC_EXIT_PASS;
}

static void print_list(void)
{
    printf("%s - unit tests of the PTX wrappers, and the mma.sync throughput ceiling\n\n", PROGRAM);
    printf("variants (--variant): the input type of mma.sync m16n8k16, f32 accumulate\n");
    for (int t = 0; t < N_TYPES; t++)
        printf("  %-8s %s in, f32 accumulate\n", type_names[t], t ? "bf16" : "f16");
    printf("\nunit tests (--test; one warp each, exact against the CPU):\n"
           "  mma_m16n8k16_<type>          fragments packed by the documented lane map\n"
           "  ldmatrix_x4, ldmatrix_x4_trans  registers against the documented map\n"
           "  cp_async_16 + commit/wait_group  zero fill and group completion\n"
           "  tile_{hand,ldmatrix,ldmatrix_swizzled,ldmatrix_trans}_<type>  the GEMM's loaders\n"
           "  mma_peak_<type>_<n>chains    the benchmark kernel, short run, checked\n"
           "\nbenchmark (default, --bench): chains per warp {1,2,4,8} x warps per SM {4,8,16,32},\n"
           "%d mma per chain; cuBLAS %d^3 in the same layout beside it\n",
           PEAK_ITERS, CUBLAS_N);
}

/* default mode: the unit tests first (the benchmark follows) */
static int default_tests(const tc_args *a, const tc_device_info *dev)
{
    int passed = 0, failed = 0, skipped = 0;
    printf("Unit tests of the wrappers (one warp each, exact against the CPU):\n");
    run_unit_tests(a, &passed, &failed, &skipped);
    (void)dev;
    return failed;
}

int main(int argc, char **argv)
{
    static const tc_program program = {
        .cli = {.program = PROGRAM,
                .summary = "mma.sync/ldmatrix/cp.async unit tests and the mma.sync throughput "
                           "ceiling",
                TC_VARIANT_TABLE(type_names),
                .default_reps = 20,
                .default_warmup = 5},
        .min_cc = 80,
        .list = print_list,
        .init = tc_cublas_program_init,
        .test = mode_test,
        .measure = mode_measure,
        .default_tests = default_tests,
    };
    return tc_program_main(argc, argv, &program);
}
