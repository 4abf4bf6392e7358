/* 06_sparse_stencil/stencil_probe.c - the host side of the one-warp probes (stencil_probe.cu):
 * builds each probe's registers from the documented lane maps (stencil_bands.h), runs it, and
 * compares with the product computed here, exactly (small integers). When the sparse mma differs,
 * it recomputes the product under the likely misreadings of the A, B and metadata layouts and
 * names the one the GPU agrees with, so the first GPU run says what to fix. */
#include "stencil_probe.h"

#include "stencil_bands.h"
#include "stencil_kernels.h"

#include "check.h"
#include "convert.h"
#include "harness.h"
#include "sweep.h"
#include "verify.h"

#include <stdlib.h>
#include <string.h>

static double lo16(uint32_t w) { return tc_f16_to_f32((uint16_t)(w & 0xFFFF)); }
static double hi16(uint32_t w) { return tc_f16_to_f32((uint16_t)(w >> 16)); }
static int small(tc_rng *rng, int lo, int hi) { return (int)tc_rng_int(rng, lo, hi); }

/* ---- how the sparse mma might read its operands: the documented maps and the misreadings ----- */
enum {
    H_DOC,          /* the PTX ISA, as stencil_bands.h reads it */
    H_IDX_SWAPPED,  /* idx0 in bits 3:2 of a nibble, idx1 in 1:0 */
    H_CHUNKS_REV,   /* the 4 chunks of a 16-bit half in reverse order */
    H_ROWS_SWAPPED, /* bits 15:0 row g + 8, 31:16 row g */
    H_LANE_ROWS,    /* lane h = 0 row g, h = 1 row g + 8; halves = column halves */
    H_SEL_ODD,      /* selector 0 = lanes t = 0, 2; 1 = t = 1, 3 */
    H_A_REGS,       /* A registers: row g + 8 (j >> 1), chunk t + 4 (j & 1) */
    H_B_CHUNKED,    /* B: lane t holds k = 4t .. 4t+3 (b0, b1) and 16 + 4t .. (b2, b3) */
    N_HYP
};
static const char *const hyp_name[N_HYP] = {
    "documented layout",
    "metadata: idx0/idx1 swapped inside a nibble",
    "metadata: chunk order reversed in each 16-bit half",
    "metadata: bits 15:0 hold row g+8, 31:16 row g",
    "metadata: lane parity selects the row, halves the column halves",
    "metadata: selector 0 reads lanes t=0,2 (not 0,1)",
    "A registers: a[1] is row g chunk t+4, a[2] row g+8 chunk t",
    "B registers: lane t holds k = 4t..4t+3 and 16+4t..16+4t+3",
};

/* D = A B + C as hypothesis h reads the registers: a[lane*4+j], b[lane*4+j], e[lane], selector */
static void sparse_product(int h, const uint32_t *a, const uint32_t *b, const uint32_t *e, int sel,
                           const double C[16][8], double D[16][8])
{
    double A[16][32], B[32][8];
    memset(A, 0, sizeof A);
    for (int lane = 0; lane < 32; lane++)
        for (int j = 0; j < 4; j++) {
            const int g = lane / 4, t = lane % 4;
            int row = st_frag_a_row(lane, j), chunk = st_frag_a_col(lane, j) / 2;
            if (h == H_A_REGS) row = g + 8 * (j >> 1), chunk = t + 4 * (j & 1);
            /* the chunk's metadata nibble under hypothesis h */
            const int rh = row / 8, cq = chunk % 4, ch = chunk / 4;
            int ml = 4 * g + 2 * sel + ch, shift = 16 * rh + 4 * cq;
            if (h == H_CHUNKS_REV) shift = 16 * rh + 4 * (3 - cq);
            if (h == H_ROWS_SWAPPED) shift = 16 * (1 - rh) + 4 * cq;
            if (h == H_LANE_ROWS) ml = 4 * g + 2 * sel + rh, shift = 16 * ch + 4 * cq;
            if (h == H_SEL_ODD) ml = 4 * g + sel + 2 * ch;
            const unsigned nib = (e[ml] >> shift) & 0xF;
            int i0 = nib & 3, i1 = nib >> 2;
            if (h == H_IDX_SWAPPED) i0 = nib >> 2, i1 = nib & 3;
            A[row][4 * chunk + i0] += lo16(a[lane * 4 + j]);
            A[row][4 * chunk + i1] += hi16(a[lane * 4 + j]);
        }
    for (int lane = 0; lane < 32; lane++)
        for (int j = 0; j < 4; j++)
            for (int hf = 0; hf < 2; hf++) {
                int k = st_frag_b_k(lane, j, hf);
                if (h == H_B_CHUNKED) k = 4 * (lane % 4) + 2 * (j & 1) + hf + 16 * (j >> 1);
                B[k][st_frag_b_n(lane)] = hf ? hi16(b[lane * 4 + j]) : lo16(b[lane * 4 + j]);
            }
    for (int i = 0; i < 16; i++)
        for (int n = 0; n < 8; n++) {
            double s = C[i][n];
            for (int k = 0; k < 32; k++) s += A[i][k] * B[k][n];
            D[i][n] = s;
        }
}

/* the accumulator registers as a 16 x 8 matrix */
static void unpack_acc(int f16acc, const uint32_t *d, double D[16][8])
{
    for (int lane = 0; lane < 32; lane++) {
        if (f16acc) {
            for (int j = 0; j < 2; j++)
                for (int hf = 0; hf < 2; hf++)
                    D[st_frag_c16_row(lane, j)][st_frag_c16_col(lane, hf)] =
                        hf ? hi16(d[lane * 2 + j]) : lo16(d[lane * 2 + j]);
        } else {
            for (int j = 0; j < 4; j++)
                D[st_frag_c_row(lane, j)][st_frag_c_col(lane, j)] =
                    tc_f32_from_bits(d[lane * 4 + j]);
        }
    }
}

static void pack_acc(int f16acc, const double C[16][8], uint32_t *c)
{
    for (int lane = 0; lane < 32; lane++) {
        if (f16acc) {
            for (int j = 0; j < 2; j++) {
                const int row = st_frag_c16_row(lane, j), col = st_frag_c16_col(lane, 0);
                c[lane * 2 + j] = st_pack_f16x2(C[row][col], C[row][col + 1]);
            }
        } else {
            for (int j = 0; j < 4; j++)
                c[lane * 4 + j] =
                    tc_f32_bits((float)C[st_frag_c_row(lane, j)][st_frag_c_col(lane, j)]);
        }
    }
}

static int same(const double X[16][8], const double Y[16][8])
{
    for (int i = 0; i < 16; i++)
        for (int n = 0; n < 8; n++)
            if (X[i][n] != Y[i][n]) return 0;
    return 1;
}

/* A random 2:4 matrix of small non-zero integers; chunks with 2, 1 or 0 non-zeros */
static void random_24(tc_rng *rng, double A[16][32])
{
    memset(A, 0, sizeof(double) * 16 * 32);
    for (int i = 0; i < 16; i++)
        for (int c = 0; c < 8; c++) {
            const int n = small(rng, 0, 5) == 0 ? small(rng, 0, 1) : 2; /* mostly two */
            int p0 = small(rng, 0, 3), p1 = small(rng, 0, 2);
            if (p1 >= p0) p1++;
            int v0 = small(rng, 1, 3) * (small(rng, 0, 1) ? 1 : -1);
            int v1 = small(rng, 1, 3) * (small(rng, 0, 1) ? 1 : -1);
            if (n >= 1) A[i][4 * c + p0] = v0;
            if (n == 2) A[i][4 * c + p1] = v1;
        }
}

/* Register j of lane's B fragment by the documented map: B[2t + 8j][g] in the low half,
 * B[2t + 8j + 1][g] in the high half (B is k x n, one row per k). */
static uint32_t b_word(const double (*B)[8], int lane, int j)
{
    const int n = st_frag_b_n(lane);
    return st_pack_f16x2(B[st_frag_b_k(lane, j, 0)][n], B[st_frag_b_k(lane, j, 1)][n]);
}

static void probe_sparse(int f16acc, tc_rng *rng, int *passed, int *failed)
{
    double A0[16][32], A1[16][32], B[32][8], C[16][8], D0[16][8], D1[16][8];
    random_24(rng, A0);
    random_24(rng, A1);
    for (int k = 0; k < 32; k++)
        for (int n = 0; n < 8; n++) B[k][n] = small(rng, -3, 3);
    for (int i = 0; i < 16; i++)
        for (int n = 0; n < 8; n++) C[i][n] = small(rng, -8, 8);
    st_sparse_a c0, c1;
    if (st_compress((const double(*)[32])A0, &c0) || st_compress((const double(*)[32])A1, &c1)) {
        tc_test_report(0, "probe mma.sp", "internal error: random_24 made a chunk of 3", passed,
                       failed);
        return;
    }
    uint32_t a0[128], a1[128], b[128], e[32], c[128], d0[128], d1[128];
    for (int lane = 0; lane < 32; lane++) {
        st_sparse_a_words(&c0, lane, a0 + lane * 4);
        st_sparse_a_words(&c1, lane, a1 + lane * 4);
        e[lane] = st_meta_word(&c0, &c1, lane);
        for (int j = 0; j < 4; j++) b[lane * 4 + j] = b_word((const double(*)[8])B, lane, j);
    }
    pack_acc(f16acc, C, c);
    const size_t nd = f16acc ? 64 : 128;
    uint32_t *da0 = tc_device_copy(a0, sizeof a0), *da1 = tc_device_copy(a1, sizeof a1),
             *db = tc_device_copy(b, sizeof b);
    uint32_t *de = tc_device_copy(e, sizeof e), *dc = tc_device_copy(c, nd * 4);
    uint32_t *dd0 = tc_device_copy(NULL, nd * 4), *dd1 = tc_device_copy(NULL, nd * 4);
    probe_mma_sp_launch(f16acc, da0, da1, db, de, dc, dd0, dd1, 0);
    tc_device_fetch(d0, dd0, nd * 4);
    tc_device_fetch(d1, dd1, nd * 4);
    unpack_acc(f16acc, d0, D0);
    unpack_acc(f16acc, d1, D1);
    double W0[16][8], W1[16][8];
    sparse_product(H_DOC, a0, b, e, 0, (const double(*)[8])C, W0);
    sparse_product(H_DOC, a1, b, e, 1, (const double(*)[8])C, W1);
    const int ok0 = same((const double(*)[8])D0, (const double(*)[8])W0);
    const int ok1 = same((const double(*)[8])D1, (const double(*)[8])W1);
    char name[64], detail[256];
    snprintf(name, sizeof name, "probe mma.sp m16n8k32 %s", f16acc ? "f16f16" : "f16f32");
    if (ok0 && ok1) {
        tc_test_report(1, name, "selector 0 and 1 on one metadata register: exact", passed, failed);
    } else {
        int n = snprintf(detail, sizeof detail,
                         "selector 0 %s, selector 1 %s; the GPU matches:", ok0 ? "ok" : "WRONG",
                         ok1 ? "ok" : "WRONG");
        int found = 0;
        for (int h = 1; h < N_HYP; h++) {
            sparse_product(h, a0, b, e, 0, (const double(*)[8])C, W0);
            sparse_product(h, a1, b, e, 1, (const double(*)[8])C, W1);
            if (same((const double(*)[8])D0, (const double(*)[8])W0) &&
                same((const double(*)[8])D1, (const double(*)[8])W1) && n < (int)sizeof detail)
                n += snprintf(detail + n, sizeof detail - (size_t)n, " [%s]", hyp_name[h]),
                    found = 1;
        }
        if (!found && n < (int)sizeof detail)
            snprintf(detail + n, sizeof detail - (size_t)n, " none of the known misreadings");
        tc_test_report(0, name, detail, passed, failed);
        printf("     D0 row 0 got:");
        for (int q = 0; q < 8; q++) printf(" %g", D0[0][q]);
        printf("\n");
    }
    TC_CUDA_CHECK(cudaFree(da0));
    TC_CUDA_CHECK(cudaFree(da1));
    TC_CUDA_CHECK(cudaFree(db));
    TC_CUDA_CHECK(cudaFree(de));
    TC_CUDA_CHECK(cudaFree(dc));
    TC_CUDA_CHECK(cudaFree(dd0));
    TC_CUDA_CHECK(cudaFree(dd1));
}

static void probe_dense(int f16acc, tc_rng *rng, int *passed, int *failed)
{
    double A[16][32], B[16][8], C[16][8], D[16][8], W[16][8];
    memset(A, 0, sizeof A);
    for (int i = 0; i < 16; i++)
        for (int k = 0; k < 16; k++) A[i][k] = small(rng, -3, 3);
    for (int k = 0; k < 16; k++)
        for (int n = 0; n < 8; n++) B[k][n] = small(rng, -3, 3);
    for (int i = 0; i < 16; i++)
        for (int n = 0; n < 8; n++) C[i][n] = small(rng, -8, 8);
    uint32_t a[128], b[64], c[128], d[128], w8[8];
    for (int lane = 0; lane < 32; lane++) {
        st_dense_a_words((const double(*)[32])A, lane, w8); /* columns 0..15: the first four */
        memcpy(a + lane * 4, w8, 16);
        for (int j = 0; j < 2; j++) b[lane * 2 + j] = b_word((const double(*)[8])B, lane, j);
    }
    pack_acc(f16acc, C, c);
    const size_t nd = f16acc ? 64 : 128;
    uint32_t *da = tc_device_copy(a, sizeof a), *db = tc_device_copy(b, sizeof b),
             *dc = tc_device_copy(c, nd * 4);
    uint32_t *dd = tc_device_copy(NULL, nd * 4);
    probe_mma_dense_launch(f16acc, da, db, dc, dd, 0);
    tc_device_fetch(d, dd, nd * 4);
    unpack_acc(f16acc, d, D);
    for (int i = 0; i < 16; i++)
        for (int n = 0; n < 8; n++) {
            double s = C[i][n];
            for (int k = 0; k < 16; k++) s += A[i][k] * B[k][n];
            W[i][n] = s;
        }
    char name[64];
    snprintf(name, sizeof name, "probe mma.sync m16n8k16 %s", f16acc ? "f16f16" : "f16f32");
    tc_test_report(same((const double(*)[8])D, (const double(*)[8])W), name,
                   "exact against the host product", passed, failed);
    TC_CUDA_CHECK(cudaFree(da));
    TC_CUDA_CHECK(cudaFree(db));
    TC_CUDA_CHECK(cudaFree(dc));
    TC_CUDA_CHECK(cudaFree(dd));
}

/* every cell holds the code (y mod 256) << 8 | (x mod 256), moved as raw bits */
static uint16_t cell_code(long y, long x) { return (uint16_t)(((y & 0xFF) << 8) | (x & 0xFF)); }

static void probe_b(int *passed, int *failed)
{
    int R, S, WX, WY, BX, BY;
    probe_b_geometry(&R, &S, &WX, &WY, &BX, &BY);
    const int NY = 3 * BY, NX = 3 * BX, windows = S + 2 * R;
    uint16_t *g = (uint16_t *)tc_xmalloc((size_t)NY * NX * 2);
    for (long y = 0; y < NY; y++)
        for (long x = 0; x < NX; x++) g[y * NX + x] = cell_code(y, x);
    void *dg = tc_device_copy(g, (size_t)NY * NX * 2);
    const size_t n = (size_t)windows * 32 * 4;
    uint32_t *raw = (uint32_t *)tc_xmalloc(n * 4), *sw = (uint32_t *)tc_xmalloc(n * 4);
    uint32_t *draw = tc_device_copy(NULL, n * 4), *dsw = tc_device_copy(NULL, n * 4);
    long bad = 0;
    char first[200] = "";
    for (int blk = 0; blk < 2; blk++) /* block (0, 0): zero fill past the edges; (1, 1): inside */
        for (int wy = 0; wy < WY; wy++)
            for (int wx = 0; wx < WX; wx++) {
                probe_b_loader_launch(dg, NY, NX, blk, blk, wx, wy, draw, dsw, 0);
                tc_device_fetch(raw, draw, n * 4);
                tc_device_fetch(sw, dsw, n * 4);
                for (int oo = 0; oo < windows; oo++)
                    for (int lane = 0; lane < 32; lane++)
                        for (int j = 0; j < 4; j++)
                            for (int hf = 0; hf < 2; hf++)
                                for (int swapped = 0; swapped < 2; swapped++) {
                                    int k = st_frag_b_k(lane, j, hf);
                                    if (swapped) k = st_swap_col(k);
                                    /* B_o[k][n] = grid[yw + o + S n][xw - 8 + k] */
                                    const long y = (long)blk * BY + 8L * S * wy + (oo - R) +
                                                   (long)S * st_frag_b_n(lane);
                                    const long x = (long)blk * BX + 16L * wx - 8 + k;
                                    const uint16_t want =
                                        y >= 0 && y < NY && x >= 0 && x < NX ? cell_code(y, x) : 0;
                                    const uint32_t word =
                                        (swapped ? sw : raw)[(oo * 32 + lane) * 4 + j];
                                    const uint16_t got =
                                        (uint16_t)(hf ? word >> 16 : word & 0xFFFF);
                                    if (got == want) continue;
                                    if (!bad++)
                                        snprintf(
                                            first, sizeof first,
                                            "first: block %d warp (%d,%d) window %d lane %d "
                                            "%s reg %d half %d: got cell (%d,%d), want (%ld,%ld)",
                                            blk, wx, wy, oo, lane, swapped ? "swapped" : "raw", j,
                                            hf, got >> 8, got & 0xFF, y & 0xFF, x & 0xFF);
                                }
            }
    char detail[300];
    if (bad)
        snprintf(detail, sizeof detail, "%ld wrong halves; %s", bad, first);
    else
        snprintf(detail, sizeof detail,
                 "ldmatrix.x4 and the strided swap: every half of %d windows x %d warps x 2 blocks",
                 windows, WX * WY);
    tc_test_report(!bad, "probe B loader (tile fill, ldmatrix, swap)", detail, passed, failed);
    TC_CUDA_CHECK(cudaFree(dg));
    TC_CUDA_CHECK(cudaFree(draw));
    TC_CUDA_CHECK(cudaFree(dsw));
    free(g), free(raw), free(sw);
}

/* ---- the tensor-core rates (probe_rate) --------------------------------------------------------
 * One instruction's registers and the exact product A B they stand for: sparse, a random 2:4
 * 16 x 32 A (compressed; selector 0) times a 32 x 8 B; dense, a 16 x 16 A times a 16 x 8 B.
 * Entries of A in -3..3 and of B in -1..1 keep |A B| <= 48, so the sums of 8 chains of 4096
 * steps stay below 2^24, where f32 is exact. */
enum { RATE_ITERS = 4096, RATE_TEST_ITERS = 64, RATE_FRAG = 9 };
/* the sweep: accumulator chains per warp x warps per SM (blocks of ST_RATE_WARPS) */
static const int rate_chains[] = {2, 4, 8};
static const int rate_warps_per_sm[] = {1 * ST_RATE_WARPS, 2 * ST_RATE_WARPS, 4 * ST_RATE_WARPS,
                                        8 * ST_RATE_WARPS};

static void rate_fragments(int sparse, tc_rng *rng, uint32_t *frag, float *c0, double AB[16][8])
{
    double A[16][32], B[32][8];
    memset(A, 0, sizeof A);
    const int k = sparse ? 32 : 16;
    if (sparse)
        random_24(rng, A);
    else
        for (int i = 0; i < 16; i++)
            for (int q = 0; q < 16; q++) A[i][q] = small(rng, -3, 3);
    for (int q = 0; q < 32; q++)
        for (int n = 0; n < 8; n++) B[q][n] = q < k ? small(rng, -1, 1) : 0;
    st_sparse_a comp;
    if (sparse && st_compress((const double(*)[32])A, &comp)) { /* random_24 makes 2:4 rows */
        fprintf(stderr, "internal error: random_24 made a chunk of three non-zeros\n");
        exit(TC_EXIT_WRONG);
    }
    memset(frag, 0, sizeof(uint32_t) * 32 * RATE_FRAG);
    for (int lane = 0; lane < 32; lane++) {
        uint32_t *f = frag + lane * RATE_FRAG, w8[8];
        if (sparse) {
            st_sparse_a_words(&comp, lane, f);
            f[8] = st_meta_word(&comp, NULL, lane);
        } else {
            st_dense_a_words((const double(*)[32])A, lane, w8);
            memcpy(f, w8, 4 * sizeof(uint32_t));
        }
        for (int j = 0; j < (sparse ? 4 : 2); j++)
            f[4 + j] = b_word((const double(*)[8])B, lane, j);
        for (int j = 0; j < 4; j++) c0[lane * 4 + j] = (float)small(rng, -8, 8);
    }
    for (int i = 0; i < 16; i++)
        for (int n = 0; n < 8; n++) {
            double s = 0;
            for (int q = 0; q < 32; q++) s += A[i][q] * B[q][n];
            AB[i][n] = s;
        }
}

typedef struct {
    int sparse, chains, mix, blocks, iters;
    uint32_t *d_frag;
    float *d_c0, *d_out;
} rate_ctx;

static void rate_launch(void *ctx, cudaStream_t stream)
{
    const rate_ctx *p = (const rate_ctx *)ctx;
    if (probe_rate_launch(p->sparse, p->chains, p->mix, p->blocks, p->iters, p->d_frag, p->d_c0,
                          p->d_out, stream) != 0) {
        fprintf(stderr, "internal error: probe_rate is not built for %d chains and mix %d\n",
                p->chains, p->mix);
        exit(TC_EXIT_WRONG);
    }
    TC_LAUNCH_CHECK();
}

/* One configuration: run once and check every lane of every warp exactly; reps > 0: then time
 * it (rate: TFLOP/s). mix: prmt.b32 per mma (0 .. ST_RATE_MAX_MIX; above 0 at 8 chains only). */
static tc_sweep_point run_rate(int sparse, int chains, int mix, int blocks, int iters, int warmup,
                               int reps, tc_rng *rng)
{
    uint32_t frag[32 * RATE_FRAG];
    float c0[32 * 4];
    double AB[16][8];
    rate_fragments(sparse, rng, frag, c0, AB);
    const size_t warps = (size_t)blocks * ST_RATE_WARPS, n_out = warps * 32 * 4;
    rate_ctx ctx = {.sparse = sparse,
                    .chains = chains,
                    .mix = mix,
                    .blocks = blocks,
                    .iters = iters,
                    .d_frag = tc_device_copy(frag, sizeof frag),
                    .d_c0 = tc_device_copy(c0, sizeof c0),
                    .d_out = tc_device_copy(NULL, n_out * sizeof(float))};
    cudaStream_t stream;
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
    rate_launch(&ctx, stream);
    TC_CUDA_CHECK(cudaStreamSynchronize(stream));
    float *out = (float *)tc_xmalloc(n_out * sizeof(float));
    tc_device_fetch(out, ctx.d_out, n_out * sizeof(float));
    tc_sweep_point r;
    memset(&r, 0, sizeof r);
    r.exact = 1;
    for (int lane = 0; lane < 32; lane++)
        for (int j = 0; j < 4; j++) {
            const int i = st_frag_c_row(lane, j), n = st_frag_c_col(lane, j);
            double want = 0;
            for (int c = 0; c < chains; c++)
                want += c0[lane * 4 + j] + c + (double)iters * AB[i][n];
            for (size_t w = 0; w < warps; w++) r.exact &= out[(w * 32 + lane) * 4 + j] == want;
        }
    free(out);
    if (reps > 0) {
        r.t = tc_time_gpu(rate_launch, &ctx, stream, warmup, reps);
        const double flop = 2.0 * 16 * 8 * (sparse ? 32 : 16) * (double)warps * chains * iters;
        r.rate = flop / (r.t.ms_median * 1e-3) / 1e12;
    }
    TC_CUDA_CHECK(cudaStreamDestroy(stream));
    TC_CUDA_CHECK(cudaFree(ctx.d_frag));
    TC_CUDA_CHECK(cudaFree(ctx.d_c0));
    TC_CUDA_CHECK(cudaFree(ctx.d_out));
    return r;
}

/* --test: every chain count of both kernels once, and 8 chains with each mix, short and
 * untimed: the sums must be exact */
static void probe_rate_kernels(tc_rng *rng, int *passed, int *failed)
{
    for (int sparse = 0; sparse <= 1; sparse++) {
        int ok = 1;
        for (int ci = 0; ci < TC_COUNT(rate_chains); ci++)
            ok &= run_rate(sparse, rate_chains[ci], 0, 3, RATE_TEST_ITERS, 0, 0, rng).exact;
        for (int mix = 1; mix <= ST_RATE_MAX_MIX; mix++)
            ok &= run_rate(sparse, 8, mix, 3, RATE_TEST_ITERS, 0, 0, rng).exact;
        tc_test_report(ok,
                       sparse ? "probe rate kernel mma.sp m16n8k32"
                              : "probe rate kernel mma.sync m16n8k16",
                       "2, 4 and 8 chains, and 8 with 1 and 2 prmt per mma: every mma counted, "
                       "exact",
                       passed, failed);
    }
}

typedef struct {
    int sparse, warmup, reps;
    const tc_device_info *dev;
    tc_rng *rng;
} sweep_ctx;

static tc_sweep_point sweep_point(void *ctx, int chains, int warps_per_sm)
{
    const sweep_ctx *c = (const sweep_ctx *)ctx;
    return run_rate(c->sparse, chains, 0, c->dev->sms * warps_per_sm / ST_RATE_WARPS, RATE_ITERS,
                    c->warmup, c->reps, c->rng);
}

void st_rates_measure(FILE *info, const tc_device_info *dev, int warmup, int reps, st_rates *r)
{
    tc_rng rng;
    tc_rng_seed(&rng, 2025);
    memset(r, 0, sizeof *r);
    r->exact = 1;
    for (int sparse = 0; sparse <= 1; sparse++) {
        fprintf(info,
                "\n%s throughput, f16 in, f32 accumulators, TFLOP/s of the dense product it "
                "stands for (%d flop; median of %d; %d per chain; checked exactly)\n",
                sparse ? "mma.sp m16n8k32" : "mma.sync m16n8k16", sparse ? 8192 : 4096, reps,
                RATE_ITERS);
        sweep_ctx ctx = {.sparse = sparse, .warmup = warmup, .reps = reps, .dev = dev, .rng = &rng};
        const tc_sweep sweep = {.row_name = "chains",
                                .col_name = "warps/SM",
                                .rows = rate_chains,
                                .n_rows = TC_COUNT(rate_chains),
                                .cols = rate_warps_per_sm,
                                .n_cols = TC_COUNT(rate_warps_per_sm),
                                .run = sweep_point,
                                .ctx = &ctx};
        const tc_sweep_result s = tc_sweep_run(&sweep, info);
        st_rate *best = sparse ? &r->sparse : &r->dense;
        best->tflops = s.best.rate, best->t = s.best.t;
        best->chains = s.row, best->warps_per_sm = s.col;
        r->exact &= s.all_exact;
    }
    fprintf(info,
            "  best: dense %.1f, sparse %.1f TFLOP/s: the sparse core covers a k-column %.2fx as "
            "fast\n",
            r->dense.tflops, r->sparse.tflops,
            r->dense.tflops > 0 ? r->sparse.tflops / r->dense.tflops : 0);
    /* the mix: ALU work between the mmas, at 8 chains and the sweep's best warps per SM (the
     * sparse stencil's step issues about one PRMT per mma.sp); printed, not recorded */
    for (int sparse = 0; sparse <= 1; sparse++) {
        const st_rate *best = sparse ? &r->sparse : &r->dense;
        const int warps_per_sm = best->warps_per_sm > 0 ? best->warps_per_sm : 8 * ST_RATE_WARPS;
        fprintf(info, "  %s, 8 chains, %d warps/SM, with k prmt.b32 after each mma:",
                sparse ? "mma.sp m16n8k32" : "mma.sync m16n8k16", warps_per_sm);
        double rate0 = 0;
        for (int mix = 0; mix <= ST_RATE_MAX_MIX; mix++) {
            const tc_sweep_point q = run_rate(sparse, 8, mix, dev->sms * warps_per_sm / ST_RATE_WARPS,
                                              RATE_ITERS, warmup, reps, &rng);
            r->exact &= q.exact;
            if (mix == 0) rate0 = q.rate;
            fprintf(info, " k=%d %.1f TFLOP/s (%.1f%%)%s", mix, q.rate,
                    rate0 > 0 ? 100 * q.rate / rate0 : 0, q.exact ? "" : " NOT EXACT");
        }
        fprintf(info, "\n");
    }
}

void st_probes_run(int *passed, int *failed)
{
    tc_rng rng;
    tc_rng_seed(&rng, 2024);
    probe_dense(0, &rng, passed, failed);
    probe_dense(1, &rng, passed, failed);
    probe_sparse(0, &rng, passed, failed);
    probe_sparse(1, &rng, passed, failed);
    probe_b(passed, failed);
    probe_rate_kernels(&rng, passed, failed);
}
