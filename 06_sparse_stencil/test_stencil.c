/* 06_sparse_stencil/test_stencil.c - CPU tests of 06_sparse_stencil's host-side transforms and of
 * the lane-level arithmetic of its tensor-core kernels (06_sparse_stencil/stencil_bands.h):
 *   - the banded matrices reproduce one stencil row, for every radius 1..7, box and star;
 *   - the strided swap is a permutation, and after it every 4-chunk of every band holds at most
 *     two non-zeros for every radius up to 7 (without it, a chunk holds three: the negative
 *     control), while radius 8 breaks it;
 *   - compression: decompressing gives back the swapped matrix, every metadata nibble is one that
 *     ::ordered_metadata allows, and a chunk with three non-zeros is rejected;
 *   - the sparse product (compressed values and metadata times the permuted window) reproduces the
 *     stencil exactly for every shape; a corrupted nibble makes it differ;
 *   - the lane maps are bijections, and the shared-memory tile is conflict-free for ldmatrix;
 *   - a lane-by-lane emulation of the kernels' warp (shared tile, ldmatrix.x4 by its documented
 *     lane map, the swap, the A and metadata registers as packed, mma.sp / mma.sync by the PTX
 *     ISA's fragment layouts written out again here, the accumulator layout) reproduces the
 *     stencil on a block, dense and sparse, for S = 4 and 8; the wrong sparsity selector does not;
 *   - the reference keeps the frame, leaves small grids alone, its cone (sampled) version equals
 *     the full one, and its error bound holds for an f32 and an f16 accumulation in another order
 *     while it catches a dropped tap;
 *   - the fused rungs' tile plan (stencil_fuse.h): halo, output region, block grid and passes for
 *     every radius and F, and a block-by-block model of a fused pass (tile with zeros outside the
 *     grid, F steps written back to the interior cells of the compute region, output region
 *     stored) equal to the reference cell for cell on odd grids for every F, while a halo one row
 *     short, a skipped step or a write-back that ignores the frame differ. */
#include "unit.h"

#include "stencil_bands.h"
#include "stencil_fuse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* weights of radius r: box or star (star: only dy == 0 or dx == 0), integers in [-3, 3] without
 * zeros (so every tap is structurally present) or f16-rounded uniform values in (0, 1] */
static void weights(int r, int star, int integer, tc_rng *rng, double *w)
{
    const int d = 2 * r + 1;
    for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++) {
            double v = 0;
            if (!star || dy == 0 || dx == 0) {
                if (integer) {
                    v = tc_rng_int(rng, 1, 3) * (tc_rng_int(rng, 0, 1) ? 1 : -1);
                } else {
                    v = tc_f16_to_f32(tc_f32_to_f16(1.0f - tc_rng_uniform01(rng)));
                }
            }
            w[(dy + r) * d + dx + r] = v;
        }
}

static double f16v(tc_rng *rng) { return tc_f16_to_f32(tc_f32_to_f16(tc_rng_uniform(rng, -1, 1))); }

static int unit_stencil_band_matches_weights(void)
{
    tc_rng rng;
    tc_rng_seed(&rng, 11);
    for (int r = 1; r <= ST_R_MAX; r++)
        for (int star = 0; star < 2; star++) {
            double w[ST_D_MAX * ST_D_MAX], in[ST_K];
            weights(r, star, 0, &rng, w);
            for (int k = 0; k < ST_K; k++) in[k] = f16v(&rng);
            for (int dy = -r; dy <= r; dy++) {
                double A[ST_L][ST_K];
                st_band(w, r, dy, A);
                for (int i = 0; i < ST_L; i++) {
                    /* out[x0 + i] = sum_dx w[dy][dx] in[x0 + i + dx], window starts at x0 - 8 */
                    double direct = 0, band = 0;
                    for (int dx = -r; dx <= r; dx++)
                        direct += w[(dy + r) * (2 * r + 1) + dx + r] * in[ST_WIN + i + dx];
                    for (int k = 0; k < ST_K; k++) {
                        band += A[i][k] * in[k];
                        const int dx = k - ST_WIN - i;
                        if (dx < -r || dx > r)
                            UNIT_CHECK(A[i][k] == 0, "r=%d dy=%d A[%d][%d] outside the band", r, dy,
                                       i, k);
                    }
                    UNIT_CHECK(fabs(direct - band) <= 1e-12, "r=%d dy=%d row %d: %.17g vs %.17g", r,
                               dy, i, direct, band);
                }
            }
        }
    return 0;
}

/* the largest number of non-zeros in a 4-chunk of the (swapped) structural band of radius r */
static int max_chunk_nonzeros(int r, int swap)
{
    double w[(2 * 8 + 1) * (2 * 8 + 1)];
    for (int i = 0; i < (2 * r + 1) * (2 * r + 1); i++) w[i] = 1.0;
    double A[ST_L][ST_K], As[ST_L][ST_K];
    /* st_band for r <= 7; r = 8 (one past the limit) written out: columns i+8-r .. i+8+r */
    for (int i = 0; i < ST_L; i++)
        for (int k = 0; k < ST_K; k++) {
            const int dx = k - ST_WIN - i;
            A[i][k] = dx >= -r && dx <= r ? 1.0 : 0.0;
        }
    if (r <= ST_R_MAX) {
        double B[ST_L][ST_K];
        st_band(w, r, 0, B);
        if (memcmp(A, B, sizeof A) != 0) return -1;
    }
    if (swap)
        st_swap_matrix((const double(*)[ST_K])A, As);
    else
        memcpy(As, A, sizeof A);
    int most = 0;
    for (int i = 0; i < ST_L; i++)
        for (int c = 0; c < ST_CHUNKS; c++) {
            int n = 0;
            for (int q = 0; q < 4; q++) n += As[i][4 * c + q] != 0;
            if (n > most) most = n;
        }
    return most;
}

static int unit_stencil_swap_makes_bands_2of4(void)
{
    int seen[ST_K] = {0};
    for (int p = 0; p < ST_K; p++) {
        const int q = st_swap_col(p);
        UNIT_CHECK(q >= 0 && q < ST_K && !seen[q], "st_swap_col is not a permutation at %d", p);
        seen[q] = 1;
        UNIT_CHECK(st_swap_col(q) == p, "st_swap_col is not an involution at %d", p);
        UNIT_CHECK(p % 2 == 0 ? q == p : q == (p + 16) % 32, "p=%d -> %d, not the strided swap", p,
                   q);
    }
    for (int r = 1; r <= ST_R_MAX; r++) {
        UNIT_CHECK(max_chunk_nonzeros(r, 1) == 2, "r=%d: a swapped chunk has %d non-zeros", r,
                   max_chunk_nonzeros(r, 1));
        UNIT_CHECK(max_chunk_nonzeros(r, 0) >= 3, "negative control: r=%d unswapped is 2:4", r);
    }
    /* the limit: with 2r + 1 = 17 > 15 a chunk gets three */
    UNIT_CHECK(max_chunk_nonzeros(8, 1) == 3, "r=8 should break 2:4 (got %d)",
               max_chunk_nonzeros(8, 1));
    return 0;
}

static int unit_stencil_compress_roundtrip_metadata(void)
{
    tc_rng rng;
    tc_rng_seed(&rng, 12);
    for (int r = 1; r <= ST_R_MAX; r++)
        for (int star = 0; star < 2; star++) {
            double w[ST_D_MAX * ST_D_MAX];
            weights(r, star, 0, &rng, w);
            for (int dy = -r; dy <= r; dy++) {
                double A[ST_L][ST_K], As[ST_L][ST_K], back[ST_L][ST_K];
                st_sparse_a c;
                st_band(w, r, dy, A);
                st_swap_matrix((const double(*)[ST_K])A, As);
                UNIT_CHECK(st_compress((const double(*)[ST_K])As, &c) == 0, "r=%d dy=%d not 2:4", r,
                           dy);
                st_decompress(&c, back);
                UNIT_CHECK(memcmp(back, As, sizeof As) == 0, "r=%d dy=%d: decompress differs", r,
                           dy);
                for (int i = 0; i < ST_L; i++)
                    for (int ch = 0; ch < ST_CHUNKS; ch++) {
                        const unsigned nib = c.nib[i][ch];
                        UNIT_CHECK(st_nibble_valid(nib) && (nib & 3) < (nib >> 2),
                                   "r=%d dy=%d row %d chunk %d: nibble 0x%X", r, dy, i, ch, nib);
                    }
            }
        }
    /* exactly the six increasing pairs are valid */
    int valid = 0;
    for (unsigned n = 0; n < 16; n++) {
        valid += st_nibble_valid(n);
        UNIT_CHECK(st_nibble_valid(n) == ((n & 3) < (n >> 2)), "nibble 0x%X", n);
    }
    UNIT_CHECK(valid == 6, "%d valid nibbles", valid);
    /* negative control: three non-zeros in a chunk */
    double M[ST_L][ST_K];
    memset(M, 0, sizeof M);
    M[5][8] = M[5][9] = M[5][11] = 1.0;
    st_sparse_a c;
    UNIT_CHECK(st_compress((const double(*)[ST_K])M, &c) == -1, "a chunk of 3 was accepted");
    /* chunks with one or no non-zero still name two increasing positions, values exact */
    memset(M, 0, sizeof M);
    M[0][0] = 2.0, M[1][7] = 3.0;
    UNIT_CHECK(st_compress((const double(*)[ST_K])M, &c) == 0, "sparse matrix rejected");
    UNIT_CHECK(c.nib[0][0] == 0x4 && c.v[0][0] == 2.0 && c.v[0][1] == 0.0, "one at position 0");
    UNIT_CHECK(c.nib[1][1] == (0 | 3 << 2) && c.v[1][2] == 0.0 && c.v[1][3] == 3.0, "one at 3");
    UNIT_CHECK(c.nib[2][4] == 0x4 && c.v[2][8] == 0.0 && c.v[2][9] == 0.0, "an empty chunk");
    return 0;
}

/* out[i] of the compressed, swapped band times the window, as mma.sp computes it: each chunk's two
 * values times the window at the positions the metadata names, the window read through the swap */
static void sparse_row_product(const st_sparse_a *c, const double *in, double out[ST_L])
{
    for (int i = 0; i < ST_L; i++) {
        double s = 0;
        for (int ch = 0; ch < ST_CHUNKS; ch++) {
            const int p0 = 4 * ch + (c->nib[i][ch] & 3), p1 = 4 * ch + (c->nib[i][ch] >> 2);
            s += c->v[i][2 * ch] * in[st_swap_col(p0)] + c->v[i][2 * ch + 1] * in[st_swap_col(p1)];
        }
        out[i] = s;
    }
}

static int unit_stencil_sparse_product_reproduces_stencil(void)
{
    tc_rng rng;
    tc_rng_seed(&rng, 13);
    for (int r = 1; r <= ST_R_MAX; r++)
        for (int star = 0; star < 2; star++)
            for (int integer = 0; integer < 2; integer++) {
                const int d = 2 * r + 1;
                double w[ST_D_MAX * ST_D_MAX], in[ST_D_MAX][ST_K];
                weights(r, star, integer, &rng, w);
                for (int dd = 0; dd < d; dd++)
                    for (int k = 0; k < ST_K; k++)
                        in[dd][k] = integer ? tc_rng_int(&rng, -3, 3) : f16v(&rng);
                double got[ST_L] = {0}, want[ST_L] = {0};
                for (int dy = -r; dy <= r; dy++) {
                    double A[ST_L][ST_K], As[ST_L][ST_K], part[ST_L];
                    st_sparse_a c;
                    st_band(w, r, dy, A);
                    st_swap_matrix((const double(*)[ST_K])A, As);
                    UNIT_CHECK(st_compress((const double(*)[ST_K])As, &c) == 0, "r=%d", r);
                    sparse_row_product(&c, in[dy + r], part);
                    for (int i = 0; i < ST_L; i++) {
                        got[i] += part[i];
                        for (int dx = -r; dx <= r; dx++)
                            want[i] += w[(dy + r) * d + dx + r] * in[dy + r][ST_WIN + i + dx];
                    }
                    if (dy == 0) { /* negative control: another valid nibble changes the result */
                        double probe_in[ST_K], pg[ST_L], pb[ST_L];
                        for (int k = 0; k < ST_K; k++) probe_in[k] = f16v(&rng);
                        sparse_row_product(&c, probe_in, pg);
                        /* the first chunk with a value: a valid nibble that moves every value */
                        static const uint8_t valid_nibs[6] = {0x4, 0x8, 0x9, 0xC, 0xD, 0xE};
                        int corrupted = 0;
                        for (int i = 0; i < ST_L && !corrupted; i++)
                            for (int ch = 0; ch < ST_CHUNKS && !corrupted; ch++) {
                                const unsigned old = c.nib[i][ch];
                                if (c.v[i][2 * ch] == 0 && c.v[i][2 * ch + 1] == 0) continue;
                                for (int q = 0; q < 6 && !corrupted; q++) {
                                    const unsigned nib = valid_nibs[q];
                                    if ((c.v[i][2 * ch] != 0 && (nib & 3) == (old & 3)) ||
                                        (c.v[i][2 * ch + 1] != 0 && (nib >> 2) == (old >> 2)))
                                        continue;
                                    st_sparse_a bad = c;
                                    bad.nib[i][ch] = (uint8_t)nib;
                                    sparse_row_product(&bad, probe_in, pb);
                                    UNIT_CHECK(pb[i] != pg[i],
                                               "r=%d: a corrupted nibble went unnoticed", r);
                                    corrupted = 1;
                                }
                            }
                        UNIT_CHECK(corrupted, "r=%d: no chunk to corrupt", r);
                    }
                }
                for (int i = 0; i < ST_L; i++)
                    UNIT_CHECK(integer ? got[i] == want[i] : fabs(got[i] - want[i]) <= 1e-12,
                               "r=%d star=%d int=%d out[%d]: %.17g vs %.17g", r, star, integer, i,
                               got[i], want[i]);
            }
    return 0;
}

/* ---- the PTX ISA's fragment layouts, transcribed again from its text, independently of the
 * st_frag_* functions (groupID g = lane >> 2, threadID_in_group t = lane % 4) -------------------
 */
/* sparse m16n8k32 .f16 A: elements a0..a7 (register i/2, half i%2): row g for a0,a1,a4,a5, else
 * g + 8; the chunk starting at column 4t for i < 4, 4t + 16 for i >= 4 */
static int isa_sp_a_row(int lane, int i)
{
    return (lane >> 2) + ((i < 2 || (i >= 4 && i < 6)) ? 0 : 8);
}
static int isa_sp_a_chunk(int lane, int i) { return ((lane % 4) * 4 + (i >= 4 ? 16 : 0)) / 4; }
/* B of m16n8k16 (b0..b3) and of sparse m16n8k32 (b0..b7): row (k) = 2t + (i & 1) + 8 (i >> 1),
 * column (n) = g */
static int isa_b_k(int lane, int i) { return (lane % 4) * 2 + (i & 1) + 8 * (i >> 1); }
/* A of m16n8k16 (a0..a7): row g + 8 for a2, a3, a6, a7; column 2t + (i & 1) + 8 for i >= 4 */
static int isa_a_row(int lane, int i) { return (lane >> 2) + ((i & 2) ? 8 : 0); }
static int isa_a_col(int lane, int i) { return (lane % 4) * 2 + (i & 1) + (i >= 4 ? 8 : 0); }
/* C/D f32 (c0..c3): row g + 8 for c2, c3; column 2t + (i & 1) */
static int isa_c_row(int lane, int i) { return (lane >> 2) + (i >= 2 ? 8 : 0); }
static int isa_c_col(int lane, int i) { return (lane % 4) * 2 + (i & 1); }

/* the sparse mma of one warp, element by element: D += A B, A given by 4 registers and the
 * metadata register of every lane and the selector */
static void emu_mma_sp(const uint32_t a[32][4], const uint32_t b[32][4], const uint32_t e[32],
                       int sel, double D[16][8])
{
    double A[16][32], B[32][8];
    memset(A, 0, sizeof A);
    for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < 8; i++) {
            const int row = isa_sp_a_row(lane, i), chunk = isa_sp_a_chunk(lane, i);
            /* metadata of (row, chunk): lane 4 (row % 8) + 2 sel + chunk / 4, bits of row / 8 */
            const uint32_t word = e[4 * (row % 8) + 2 * sel + chunk / 4];
            const unsigned nib = (word >> (16 * (row / 8) + 4 * (chunk % 4))) & 0xF;
            const int pos = (i & 1) ? nib >> 2 : nib & 3;
            const uint32_t reg = a[lane][i / 2];
            A[row][4 * chunk + pos] +=
                tc_f16_to_f32((uint16_t)((i & 1) ? reg >> 16 : reg & 0xFFFF));
        }
    for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < 8; i++) {
            const uint32_t reg = b[lane][i / 2];
            B[isa_b_k(lane, i)][lane >> 2] =
                tc_f16_to_f32((uint16_t)((i & 1) ? reg >> 16 : reg & 0xFFFF));
        }
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 8; n++)
            for (int k = 0; k < 32; k++) D[m][n] += A[m][k] * B[k][n];
}

/* dense m16n8k16: D += A B, A by 4 registers, B by 2 */
static void emu_mma(const uint32_t a[32][4], const uint32_t b[32][2], double D[16][8])
{
    double A[16][16], B[16][8];
    for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < 8; i++) {
            const uint32_t reg = a[lane][i / 2];
            A[isa_a_row(lane, i)][isa_a_col(lane, i)] =
                tc_f16_to_f32((uint16_t)((i & 1) ? reg >> 16 : reg & 0xFFFF));
        }
    for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < 4; i++) {
            const uint32_t reg = b[lane][i / 2];
            B[isa_b_k(lane, i)][lane >> 2] =
                tc_f16_to_f32((uint16_t)((i & 1) ? reg >> 16 : reg & 0xFFFF));
        }
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 8; n++)
            for (int k = 0; k < 16; k++) D[m][n] += A[m][k] * B[k][n];
}

/* ldmatrix.x4 (PTX ISA / common/ldmatrix.cuh): lane l gives the address of row l % 8 of matrix
 * l / 8; register j of lane 4 row + c = halves 2c, 2c+1 of row `row` of matrix j */
static void emu_ldmatrix_x4(const uint16_t *smem, const int addr[32], uint32_t r[32][4])
{
    for (int lane = 0; lane < 32; lane++)
        for (int j = 0; j < 4; j++) {
            const int a = addr[8 * j + lane / 4] + 2 * (lane % 4);
            r[lane][j] = (uint32_t)smem[a] | (uint32_t)smem[a + 1] << 16;
        }
}

static int unit_stencil_fragment_maps_are_bijections(void)
{
    int seen_a[16][16] = {{0}}, seen_b[32][8] = {{0}}, seen_c[16][8] = {{0}},
        seen_c16[16][8] = {{0}};
    int seen_m[16][8] = {{0}};
    for (int lane = 0; lane < 32; lane++) {
        for (int j = 0; j < 4; j++) {
            const int row = st_frag_a_row(lane, j), col = st_frag_a_col(lane, j);
            seen_a[row][col]++, seen_a[row][col + 1]++;
            /* the header's sparse A map agrees with the ISA text: register j = elements 2j, 2j+1 */
            UNIT_CHECK(isa_sp_a_row(lane, 2 * j) == row && isa_sp_a_chunk(lane, 2 * j) == col / 2,
                       "sparse A map, lane %d reg %d", lane, j);
            UNIT_CHECK(isa_a_row(lane, 2 * j) == row && isa_a_col(lane, 2 * j) == col,
                       "dense A map, lane %d reg %d", lane, j);
            for (int h = 0; h < 2; h++) {
                seen_b[st_frag_b_k(lane, j, h)][st_frag_b_n(lane)]++;
                UNIT_CHECK(isa_b_k(lane, 2 * j + h) == st_frag_b_k(lane, j, h), "B map");
            }
            seen_c[st_frag_c_row(lane, j)][st_frag_c_col(lane, j)]++;
            UNIT_CHECK(isa_c_row(lane, j) == st_frag_c_row(lane, j) &&
                           isa_c_col(lane, j) == st_frag_c_col(lane, j),
                       "C map");
        }
        for (int j = 0; j < 2; j++)
            for (int h = 0; h < 2; h++)
                seen_c16[st_frag_c16_row(lane, j)][st_frag_c16_col(lane, h)]++;
        if (st_meta_sel(lane) == 0) /* the lanes of one selector cover every (row, chunk) once */
            for (int q = 0; q < 8; q++) seen_m[st_meta_row(lane, q)][st_meta_chunk(lane, q)]++;
    }
    for (int i = 0; i < 16; i++)
        for (int k = 0; k < 16; k++)
            UNIT_CHECK(seen_a[i][k] == 1, "A (%d,%d) x%d", i, k, seen_a[i][k]);
    for (int k = 0; k < 32; k++)
        for (int n = 0; n < 8; n++) UNIT_CHECK(seen_b[k][n] == 1, "B (%d,%d)", k, n);
    for (int i = 0; i < 16; i++)
        for (int n = 0; n < 8; n++) {
            UNIT_CHECK(seen_c[i][n] == 1 && seen_c16[i][n] == 1, "C (%d,%d)", i, n);
            UNIT_CHECK(seen_m[i][n] == 1, "metadata (row %d, chunk %d) x%d", i, n, seen_m[i][n]);
        }
    return 0;
}

static int unit_stencil_smem_tile_conflict_free(void)
{
    const int WX = 4, R = 3;
    for (int S = 2; S <= 8; S *= 2) {
        const int BY = 8 * S * 2, rows = BY + 2 * R, row_h = 16 * WX + 16;
        const int total = st_smem_halves(rows, S, row_h);
        char *used = (char *)calloc((size_t)total, 1);
        for (int rho = 0; rho < rows; rho++)
            for (int col = 0; col < row_h; col++) {
                const int o = st_smem_offset(rho, col, S, row_h);
                UNIT_CHECK(o >= 0 && o < total && !used[o], "S=%d (%d,%d) -> %d", S, rho, col, o);
                used[o] = 1;
                if (col % 8 == 0) UNIT_CHECK(o % 8 == 0, "row %d not 16-byte aligned", rho);
            }
        free(used);
        /* every ldmatrix phase: 8 lanes, rows S apart, one column block: 8 distinct bank groups */
        for (int wy = 0; wy < 2; wy++)
            for (int oo = 0; oo < S + 2 * R; oo++)
                for (int wx = 0; wx < WX; wx++)
                    for (int phase = 0; phase < 4; phase++) {
                        int groups = 0;
                        for (int l = 8 * phase; l < 8 * phase + 8; l++) {
                            const int o = st_smem_offset(st_ldm_b_rho(l, 8 * S * wy + oo, S),
                                                         st_ldm_b_col(l, 16 * wx), S, row_h);
                            groups |= 1 << ((o / 8) % 8);
                        }
                        UNIT_CHECK(groups == 0xFF, "S=%d wy=%d oo=%d wx=%d phase %d: banks %02x", S,
                                   wy, oo, wx, phase, groups);
                    }
    }
    return 0;
}

/* Rung g's write-back against rung e's: for every lane, pair of output tiles, register and half,
 * stmatrix.x4.trans (the addresses st_stsm_rho/_col, the placement st_stsm_trans_row/_col) puts a
 * value in the tile cell where rung e's per-half store puts it (st_frag_c16_row/_col); every cell
 * of the warp's region once, every address 16-byte aligned, and the 8 rows of every matrix in 8
 * bank groups. A model of the PTX ISA's placement: the GPU's --test checks the instruction. */
static int unit_stencil_stmatrix_writeback_matches(void)
{
    static const int radii[] = {1, 2, 3, 7};
    for (int S = 2; S <= 8; S *= 2)
        for (int ri = 0; ri < 4; ri++) {
            const int R = radii[ri], WX = 4, row_h = 16 * WX + 16, rows = 8 * S * 2 + 2 * R;
            const int total = st_smem_halves(rows, S, row_h);
            for (int wy = 0; wy < 2; wy++)
                for (int wx = 0; wx < WX; wx++) {
                    const int y_warp = 8 * S * wy, x_warp = 16 * wx;
                    char *hit = (char *)calloc((size_t)total, 1);
                    for (int s = 0; s < S; s += 2)
                        for (int lane = 0; lane < 32; lane++)
                            for (int j = 0; j < 4; j++)
                                for (int h = 0; h < 2; h++) {
                                    /* register j of stmatrix = output tile s + j / 2, its f16
                                     * register j % 2 */
                                    const int tile = s + j / 2, c = j % 2;
                                    const int want_rho =
                                        R + y_warp + tile + S * st_frag_c16_col(lane, h);
                                    const int want_col = ST_WIN + x_warp + st_frag_c16_row(lane, c);
                                    const int addr_lane = 8 * j + st_stsm_trans_row(lane, h);
                                    const int rho = st_stsm_rho(addr_lane, s, R, y_warp, S);
                                    const int col =
                                        st_stsm_col(addr_lane, x_warp) + st_stsm_trans_col(lane);
                                    UNIT_CHECK(
                                        rho == want_rho && col == want_col,
                                        "S=%d r=%d warp (%d,%d) s=%d lane %d reg %d half %d: "
                                        "(%d,%d), rung e (%d,%d)",
                                        S, R, wx, wy, s, lane, j, h, rho, col, want_rho, want_col);
                                    const int o = st_smem_offset(rho, col, S, row_h);
                                    UNIT_CHECK(o >= 0 && o < total && !hit[o],
                                               "cell written twice");
                                    hit[o] = 1;
                                }
                    int cells = 0;
                    for (int o = 0; o < total; o++) cells += hit[o];
                    UNIT_CHECK(cells == 16 * 8 * S, "S=%d r=%d: %d cells, not %d", S, R, cells,
                               16 * 8 * S);
                    free(hit);
                    for (int s = 0; s < S; s += 2)
                        for (int j = 0; j < 4; j++) {
                            int groups = 0;
                            for (int n = 0; n < 8; n++) {
                                const int l = 8 * j + n;
                                const int o = st_smem_offset(st_stsm_rho(l, s, R, y_warp, S),
                                                             st_stsm_col(l, x_warp), S, row_h);
                                UNIT_CHECK(o % 8 == 0, "row address not 16-byte aligned");
                                groups |= 1 << ((o / 8) % 8);
                            }
                            UNIT_CHECK(groups == 0xFF, "S=%d r=%d s=%d matrix %d: banks %02x", S, R,
                                       s, j, groups);
                        }
                }
        }
    return 0;
}

/* ---- the kernels' warp, lane by lane ------------------------------------------------------------
 * A block of the grid as stencil_tc.cuh's tc_load_tile fills it, and warp (wx, wy)'s loop: for
 * every window oo, the B fragment through ldmatrix.x4 (and the swap), then one mma per row dy into
 * tile s = oo - dd, with the registers st_pack_fragments made. sel_flip = 1: the wrong sparsity
 * selector (the negative control). Returns the number of output cells that differ from the stencil.
 */
static long emulate_warp(int R, int S, int sparse, int sel_flip, const double *w,
                         const int16_t *grid, int NY, int NX, int xb, int yb, int wx, int wy)
{
    const int WX = 4, BY = 8 * S * 2, rows = BY + 2 * R, row_h = 16 * WX + 16, d = 2 * R + 1;
    uint16_t *smem = (uint16_t *)calloc((size_t)st_smem_halves(rows, S, row_h), 2);
    for (int rho = 0; rho < rows; rho++)
        for (int col = 0; col < row_h; col++) {
            const int y = yb - R + rho, x = xb - ST_WIN + col;
            smem[st_smem_offset(rho, col, S, row_h)] =
                y >= 0 && y < NY && x >= 0 && x < NX ? tc_f32_to_f16((float)grid[y * NX + x]) : 0;
        }
    uint32_t a_words[ST_D_MAX * 32 * 8], meta[ST_PAIRS_MAX * 32];
    if (st_pack_fragments(w, R, sparse, a_words, meta) != 0) return -1;
    double D[8][16][8];
    memset(D, 0, sizeof D);
    for (int oo = 0; oo < S + 2 * R; oo++) {
        int addr[32];
        uint32_t r[32][4], b[32][4];
        for (int l = 0; l < 32; l++)
            addr[l] = st_smem_offset(st_ldm_b_rho(l, 8 * S * wy + oo, S), st_ldm_b_col(l, 16 * wx),
                                     S, row_h);
        emu_ldmatrix_x4(smem, addr, r);
        for (int l = 0; l < 32; l++)
            if (sparse)
                st_swap_b(r[l], b[l]);
            else
                memcpy(b[l], r[l], sizeof b[l]);
        for (int dd = 0; dd < d; dd++) {
            const int s = oo - dd;
            if (s < 0 || s >= S) continue;
            if (sparse) {
                uint32_t a[32][4], e[32];
                for (int l = 0; l < 32; l++) {
                    memcpy(a[l], a_words + (dd * 32 + l) * 4, 16);
                    e[l] = meta[(dd / 2) * 32 + l];
                }
                emu_mma_sp((const uint32_t(*)[4])a, (const uint32_t(*)[4])b, e, (dd & 1) ^ sel_flip,
                           D[s]);
            } else {
                uint32_t a0[32][4], a1[32][4], b0[32][2], b1[32][2];
                for (int l = 0; l < 32; l++) {
                    memcpy(a0[l], a_words + (dd * 32 + l) * 8, 16);
                    memcpy(a1[l], a_words + (dd * 32 + l) * 8 + 4, 16);
                    b0[l][0] = b[l][0], b0[l][1] = b[l][1], b1[l][0] = b[l][2], b1[l][1] = b[l][3];
                }
                emu_mma((const uint32_t(*)[4])a0, (const uint32_t(*)[2])b0, D[s]);
                emu_mma((const uint32_t(*)[4])a1, (const uint32_t(*)[2])b1, D[s]);
            }
        }
    }
    /* D_s[i][n] is out[yw + s + S n][xw + i]: compare the grid cells inside the grid */
    long bad = 0;
    for (int s = 0; s < S; s++)
        for (int i = 0; i < 16; i++)
            for (int n = 0; n < 8; n++) {
                const int y = yb + 8 * S * wy + s + S * n, x = xb + 16 * wx + i;
                if (!st_interior(y, x, NY, NX, R)) continue;
                double want = 0;
                for (int dy = -R; dy <= R; dy++)
                    for (int dx = -R; dx <= R; dx++)
                        want += w[(dy + R) * d + dx + R] * grid[(y + dy) * NX + x + dx];
                bad += D[s][i][n] != want;
            }
    free(smem);
    return bad;
}

static int unit_stencil_lane_emulation_reproduces_stencil(void)
{
    tc_rng rng;
    tc_rng_seed(&rng, 14);
    const int NY = 150, NX = 150;
    int16_t *grid = (int16_t *)malloc((size_t)NY * NX * sizeof *grid);
    for (int i = 0; i < NY * NX; i++) grid[i] = (int16_t)tc_rng_int(&rng, -3, 3);
    const int radii[4] = {1, 2, 3, 7};
    for (int ri = 0; ri < 4; ri++)
        for (int S = 4; S <= 8; S *= 2)
            for (int star = 0; star < 2; star++) {
                const int R = radii[ri];
                if (star && R == 7) continue;
                double w[ST_D_MAX * ST_D_MAX];
                weights(R, star, 1, &rng, w);
                for (int sparse = 0; sparse < 2; sparse++) {
                    /* an inner block and one at the corner (zero fill, frame) */
                    const int blocks[2][2] = {{64, 2 * 8 * S}, {0, 0}};
                    for (int bi = 0; bi < 2; bi++)
                        for (int wy = 0; wy < 2; wy++)
                            for (int wx = 0; wx < 4; wx += 3) {
                                const long bad = emulate_warp(R, S, sparse, 0, w, grid, NY, NX,
                                                              blocks[bi][0], blocks[bi][1], wx, wy);
                                UNIT_CHECK(bad == 0,
                                           "R=%d S=%d %s%s block %d warp (%d,%d): %ld cells wrong",
                                           R, S, sparse ? "sparse" : "dense", star ? " star" : "",
                                           bi, wx, wy, bad);
                            }
                    if (sparse)
                        UNIT_CHECK(emulate_warp(R, S, 1, 1, w, grid, NY, NX, 64, 16 * S, 1, 0) > 0,
                                   "negative control: the wrong selector gave the stencil (R=%d)",
                                   R);
                }
            }
    free(grid);
    return 0;
}

/* ---- the reference --------------------------------------------------------------------------- */
static void random_grid(long n, tc_rng *rng, uint16_t *g)
{
    for (long i = 0; i < n; i++) g[i] = tc_f32_to_f16(tc_rng_uniform(rng, -1, 1));
}

static int unit_stencil_reference_frame_and_cones(void)
{
    tc_rng rng;
    tc_rng_seed(&rng, 15);
    const st_err_model m = {1e-6, 0, 0x1p-11};
    const long NY = 41, NX = 37;
    for (int r = 1; r <= 3; r++) {
        double w[ST_D_MAX * ST_D_MAX];
        weights(r, 0, 0, &rng, w);
        uint16_t *g = (uint16_t *)malloc((size_t)NY * NX * 2);
        random_grid(NY * NX, &rng, g);
        const int T = 4;
        double *full = (double *)malloc((size_t)NY * NX * 8),
               *fb = (double *)malloc((size_t)NY * NX * 8);
        UNIT_CHECK(st_ref_rect(w, r, NY, NX, g, T, &m, (st_window){0, 0, NY, NX}, full, fb, NULL) ==
                       0,
                   "oom");
        for (long y = 0; y < NY; y++)
            for (long x = 0; x < NX; x++) {
                const long i = y * NX + x;
                if (!st_interior(y, x, NY, NX, r))
                    UNIT_CHECK(full[i] == tc_f16_to_f32(g[i]) && fb[i] == 0,
                               "frame (%ld,%ld) moved", y, x);
                else
                    UNIT_CHECK(full[i] == st_round_f16(full[i]) && fb[i] > 0, "(%ld,%ld) not f16",
                               y, x);
            }
        /* one step by hand on a cell */
        double one[1], ob[1], want = 0;
        UNIT_CHECK(st_ref_rect(w, r, NY, NX, g, 1, &m, (st_window){10, 12, 1, 1}, one, ob, NULL) ==
                       0,
                   "oom");
        for (int dy = -r; dy <= r; dy++)
            for (int dx = -r; dx <= r; dx++)
                want +=
                    w[(dy + r) * (2 * r + 1) + dx + r] * tc_f16_to_f32(g[(10 + dy) * NX + 12 + dx]);
        UNIT_CHECK(one[0] == st_round_f16(want), "one step: %.17g vs %.17g", one[0], want);
        /* cones: pieces (a row, a column, single cells at edges and inside) equal the full grid */
        const st_window pieces[5] = {
            {0, 0, 1, NX}, {0, 5, NY, 1}, {20, 3, 3, 9}, {NY - 1, NX - 1, 1, 1}, {2, 2, 1, 1}};
        for (int p = 0; p < 5; p++) {
            double v[64 * 64], b[64 * 64];
            UNIT_CHECK(st_ref_rect(w, r, NY, NX, g, T, &m, pieces[p], v, b, NULL) == 0, "oom");
            for (long y = 0; y < pieces[p].h; y++)
                for (long x = 0; x < pieces[p].w; x++) {
                    const long i = (pieces[p].y0 + y) * NX + pieces[p].x0 + x;
                    UNIT_CHECK(v[y * pieces[p].w + x] == full[i] && b[y * pieces[p].w + x] == fb[i],
                               "piece %d cell (%ld,%ld) differs from the full reference", p, y, x);
                }
        }
        free(full), free(fb), free(g);
    }
    /* grids smaller than 2r + 1 never change */
    uint16_t g[4 * 6];
    random_grid(24, &rng, g);
    double w[49], v[24], b[24];
    weights(3, 0, 0, &rng, w);
    UNIT_CHECK(st_ref_rect(w, 3, 4, 6, g, 5, &m, (st_window){0, 0, 4, 6}, v, b, NULL) == 0, "oom");
    for (int i = 0; i < 24; i++)
        UNIT_CHECK(v[i] == tc_f16_to_f32(g[i]), "small grid changed at %d", i);
    return 0;
}

/* A stand-in for a GPU: T steps where each cell's sum runs in float, row dy by row dy in reverse
 * order (f16acc: rounded to f16 after every row, like one f16 mma per dy), then rounded to f16.
 * drop = 1 forgets the tap (0, 1). */
static void fake_gpu(const double *w, int r, long NY, long NX, const uint16_t *g0, int T,
                     int f16acc, int drop, double *out)
{
    const int d = 2 * r + 1;
    double *a = (double *)malloc((size_t)NY * NX * 8), *b = (double *)malloc((size_t)NY * NX * 8);
    for (long i = 0; i < NY * NX; i++) a[i] = b[i] = tc_f16_to_f32(g0[i]);
    for (int s = 0; s < T; s++) {
        for (long y = 0; y < NY; y++)
            for (long x = 0; x < NX; x++) {
                if (!st_interior(y, x, NY, NX, r)) continue;
                float acc = 0;
                for (int dy = r; dy >= -r; dy--) {
                    for (int dx = r; dx >= -r; dx--) {
                        if (drop && dy == 0 && dx == 1) continue;
                        acc = fmaf((float)w[(dy + r) * d + dx + r],
                                   (float)a[(y + dy) * NX + x + dx], acc);
                    }
                    if (f16acc) acc = tc_f16_to_f32(tc_f32_to_f16(acc));
                }
                b[y * NX + x] = tc_f16_to_f32(tc_f32_to_f16(acc));
            }
        double *t = a;
        a = b, b = t;
    }
    memcpy(out, a, (size_t)NY * NX * 8);
    free(a), free(b);
}

static int unit_stencil_error_bound_covers_and_catches(void)
{
    tc_rng rng;
    tc_rng_seed(&rng, 16);
    const long NY = 48, NX = 40;
    for (int r = 1; r <= 3; r += 2) {
        const int d = 2 * r + 1, taps = d * d;
        double w[ST_D_MAX * ST_D_MAX], sum = 0;
        weights(r, 0, 0, &rng, w);
        for (int i = 0; i < taps; i++) sum += w[i];
        for (int i = 0; i < taps; i++) w[i] = tc_f16_to_f32(tc_f32_to_f16((float)(w[i] / sum)));
        uint16_t *g = (uint16_t *)malloc((size_t)NY * NX * 2);
        random_grid(NY * NX, &rng, g);
        const int T = 8;
        /* the models stencil.c uses for CUDA cores (f32 FMA per tap) and f16 accumulation (one
         * rounding per row here, two units of f16 per mma there) */
        const st_err_model m32 = {taps * 0x1p-24, 0, 0x1p-11}, m16 = {d * 2 * 0x1p-11, 0, 0x1p-11};
        double *ref = (double *)malloc((size_t)NY * NX * 8),
               *bnd = (double *)malloc((size_t)NY * NX * 8);
        double *got = (double *)malloc((size_t)NY * NX * 8);
        for (int f16acc = 0; f16acc < 2; f16acc++) {
            const st_err_model *m = f16acc ? &m16 : &m32;
            UNIT_CHECK(
                st_ref_rect(w, r, NY, NX, g, T, m, (st_window){0, 0, NY, NX}, ref, bnd, NULL) == 0,
                "oom");
            fake_gpu(w, r, NY, NX, g, T, f16acc, 0, got);
            double worst = 0, worst_err = 0;
            for (long i = 0; i < NY * NX; i++) {
                const double e = fabs(got[i] - ref[i]);
                UNIT_CHECK(e <= bnd[i], "r=%d f16acc=%d cell %ld: err %.3g > bound %.3g", r, f16acc,
                           i, e, bnd[i]);
                if (bnd[i] > 0 && e / bnd[i] > worst) worst = e / bnd[i];
                if (e > worst_err) worst_err = e;
            }
            /* f32 sums of a few taps round to the same f16 almost always; f16 sums must not */
            UNIT_CHECK(worst_err > 0 || !f16acc, "r=%d: the f16 stand-in matched exactly", r);
            /* negative control: a dropped tap (weight ~1/taps of values ~0.1) must fail */
            fake_gpu(w, r, NY, NX, g, T, f16acc, 1, got);
            long bad = 0;
            for (long i = 0; i < NY * NX; i++) bad += !(fabs(got[i] - ref[i]) <= bnd[i]);
            UNIT_CHECK(bad > 0, "r=%d f16acc=%d: a dropped tap passed the bound", r, f16acc);
            (void)worst;
        }
        free(ref), free(bnd), free(got), free(g);
    }
    return 0;
}

/* The guard count the driver applies to both ping-pong buffers after every run: a write into the
 * pitch padding or past the last row is counted, a write inside the grid is not. */
static int unit_stencil_outside_writes_caught(void)
{
    const long ny = 5, nx = 13, ld = 16, guard = 128, n = ny * ld + guard;
    uint16_t *start = (uint16_t *)malloc((size_t)n * 2), *buf = (uint16_t *)malloc((size_t)n * 2);
    for (long i = 0; i < n; i++) start[i] = (uint16_t)(i < ny * ld && i % ld >= nx ? 0 : 0xFFFF);
    memcpy(buf, start, (size_t)n * 2);
    for (long y = 0; y < ny; y++)
        for (long x = 0; x < nx; x++) buf[y * ld + x] = 0x3C00; /* the grid: written, fine */
    UNIT_CHECK(st_count_outside(buf, start, ny, nx, ld, guard) == 0, "writes inside the grid");
    const long strays[] = {0 * ld + nx, 3 * ld + ld - 1, ny * ld, ny * ld + guard - 1};
    for (size_t k = 0; k < sizeof strays / sizeof strays[0]; k++) {
        const uint16_t keep = buf[strays[k]];
        buf[strays[k]] = 0x4000;
        const long got = st_count_outside(buf, start, ny, nx, ld, guard);
        buf[strays[k]] = keep;
        UNIT_CHECK(got == 1, "a write at cell %ld was not caught (%ld)", strays[k], got);
    }
    free(start);
    free(buf);
    return 0;
}

/* ---- the fused rungs' tile plan (stencil_fuse.h) ---------------------------------------------- */
static int unit_stencil_fuse_plan_geometry(void)
{
    /* {CX, CY}: the kernels' compute regions (stencil_fuse.h, static_asserted by both rungs), a
     * tall one (part 1's 4 x 2 warps at r <= 3) and the model's below */
    const int regions[4][2] = {
        {ST_FUSE_CX, ST_FUSE_CY}, {ST_FUSE_CX_R7, ST_FUSE_CY_R7}, {64, 128}, {32, 24}};
    for (int k = 0; k < 4; k++)
        for (int r = 1; r <= ST_R_MAX; r++)
            for (int f = 1; f <= ST_FUSE_MAX; f++) {
                const int cx = regions[k][0], cy = regions[k][1];
                const long NY = 1000 + 7 * r, NX = 999 + f;
                st_fuse_plan p;
                const int reach = 8 + (f - 1) * r; /* the columns stale after F steps */
                const int fits = cy - 2 * (f - 1) * r >= 1 &&
                                 cx + 16 - 2 * ((reach + 7) / 8 * 8) >= 8;
                const int rc = st_fuse_plan_make(cx, cy, r, f, NY, NX, &p);
                UNIT_CHECK((rc == 0) == fits, "cx=%d cy=%d r=%d F=%d: plan %d, fits %d", cx, cy, r,
                           f, rc, fits);
                if (rc != 0) continue;
                UNIT_CHECK(p.fuse == f && p.halo_y == f * r, "r=%d F=%d: halo_y %d", r, f,
                           p.halo_y);
                UNIT_CHECK(p.halo_x % 8 == 0 && p.halo_x >= reach && p.halo_x < reach + 8,
                           "r=%d F=%d: halo_x %d for a reach of %d", r, f, p.halo_x, reach);
                UNIT_CHECK(p.out_x % 8 == 0 && p.out_x + 2 * p.halo_x == cx + 16,
                           "r=%d F=%d: out_x %d", r, f, p.out_x);
                UNIT_CHECK(p.out_y + 2 * p.halo_y == cy + 2 * r, "r=%d F=%d: out_y %d", r, f,
                           p.out_y);
                UNIT_CHECK((long)p.blocks_x * p.out_x >= NX && (long)(p.blocks_x - 1) * p.out_x < NX &&
                               (long)p.blocks_y * p.out_y >= NY &&
                               (long)(p.blocks_y - 1) * p.out_y < NY,
                           "r=%d F=%d: %dx%d blocks do not just cover %ldx%ld", r, f, p.blocks_y,
                           p.blocks_x, NY, NX);
                if (f == 1) /* one step: the one-step kernel's geometry */
                    UNIT_CHECK(p.halo_x == 8 && p.out_x == cx && p.out_y == cy,
                               "r=%d: F = 1 is not the one-step tile", r);
                UNIT_CHECK(st_fuse_redundancy(cx, cy, &p) >= 1.0 &&
                               st_fuse_bytes(cx, cy, r, &p) > 4.0 / f,
                           "r=%d F=%d: redundancy or bytes below the ideal", r, f);
            }
    /* the kernels' plans at the radius's F: PART2.md's table (halo x / y, output region) */
    const int want[4][6] = {/* r, F, halo_x, halo_y, out_x, out_y */
                            {1, 4, 16, 4, 112, 58},
                            {2, 3, 16, 6, 112, 56},
                            {3, 2, 16, 6, 112, 58},
                            {7, 1, 8, 7, 64, 64}};
    for (int k = 0; k < 4; k++) {
        const int r = want[k][0], cx = r <= 3 ? ST_FUSE_CX : ST_FUSE_CX_R7,
                  cy = r <= 3 ? ST_FUSE_CY : ST_FUSE_CY_R7;
        st_fuse_plan q;
        UNIT_CHECK(st_fuse_default(r) == want[k][1] &&
                       st_fuse_plan_make(cx, cy, r, want[k][1], 10240, 10240, &q) == 0 &&
                       q.halo_x == want[k][2] && q.halo_y == want[k][3] && q.out_x == want[k][4] &&
                       q.out_y == want[k][5],
                   "r=%d: the kernel's plan is not PART2.md's", r);
    }
    st_fuse_plan p;
    UNIT_CHECK(st_fuse_plan_make(40, 128, 1, 1, 10, 10, &p) == -1, "CX not a multiple of 16");
    UNIT_CHECK(st_fuse_plan_make(64, 128, 9, 1, 10, 10, &p) == -1, "r past the 8 free columns");
    UNIT_CHECK(st_fuse_plan_make(64, 128, 1, 0, 10, 10, &p) == -1, "F = 0");
    for (int r = 1; r <= 7; r++) {
        const int f = st_fuse_default(r);
        UNIT_CHECK(f >= 1 && f <= ST_FUSE_MAX, "r=%d: default F %d", r, f);
        UNIT_CHECK((f - 1) * r <= 8, "r=%d: default F %d costs more than 16 columns", r, f);
    }
    UNIT_CHECK(st_fuse_intensity(49, 2) == 49.0, "AI of Box-2D49P at F = 2");
    /* passes: the steps add up, every pass but the last is full, the result follows the passes */
    for (int steps = 0; steps <= 13; steps++)
        for (int f = 1; f <= ST_FUSE_MAX; f++) {
            const int passes = st_fuse_passes(steps, f);
            int sum = 0;
            for (int i = 0; i < passes; i++) {
                const int n = st_fuse_pass_steps(steps, f, i);
                UNIT_CHECK(n >= 1 && n <= f && (i == passes - 1 || n == f),
                           "steps=%d F=%d pass %d: %d steps", steps, f, i, n);
                sum += n;
            }
            UNIT_CHECK(sum == steps, "steps=%d F=%d: passes add up to %d", steps, f, sum);
            UNIT_CHECK(st_fuse_result(steps, f) == (passes == 0 ? 0 : passes % 2 ? 1 : 2),
                       "steps=%d F=%d: result", steps, f);
        }
    UNIT_CHECK(st_fuse_result(4, 2) == 2 && st_fuse_result(4, 1) == 2 && st_fuse_result(5, 2) == 1 &&
                   st_fuse_result(3, 2) == 2,
               "the result buffer follows the passes, not the steps");
    /* stencil.c's fused test grid, 11 steps: at every F > 1 two full passes or more and a short
     * last one of 3, 2, 1 steps (F = 4, 3, 2), and both buffers: p at F = 1, 4, q at F = 2, 3 */
    UNIT_CHECK(st_fuse_passes(11, 4) == 3 && st_fuse_pass_steps(11, 4, 2) == 3 &&
                   st_fuse_passes(11, 3) == 4 && st_fuse_pass_steps(11, 3, 3) == 2 &&
                   st_fuse_passes(11, 2) == 6 && st_fuse_pass_steps(11, 2, 5) == 1 &&
                   st_fuse_result(11, 1) == 1 && st_fuse_result(11, 4) == 1 &&
                   st_fuse_result(11, 3) == 2 && st_fuse_result(11, 2) == 2,
               "11 steps: the passes and result buffers the fused test grid relies on");
    return 0;
}

/* A model of one fused kernel, block by block, in double with every step rounded to f16 as the
 * reference (same taps in the same order, so equal bit for bit when the plan is right). The bugs
 * are the three one-line bugs the mutants 100-105 put into the kernels. */
enum { FUSE_OK, FUSE_HALO_ROW_SHORT, FUSE_SKIP_STEP, FUSE_WRITES_FRAME };

static void fuse_model_pass(const double *w, int r, long NY, long NX, int cx, int cy,
                            const st_fuse_plan *pl, int bug, const double *in, double *out)
{
    const int rows = cy + 2 * r, cols = cx + 2 * ST_FUSE_MARGIN, d = 2 * r + 1;
    double *tile = (double *)malloc((size_t)rows * cols * sizeof(double));
    double *next = (double *)malloc((size_t)rows * cols * sizeof(double));
    const int halo_y = bug == FUSE_HALO_ROW_SHORT ? pl->halo_y - 1 : pl->halo_y;
    for (int by = 0; by < pl->blocks_y; by++)
        for (int bx = 0; bx < pl->blocks_x; bx++) {
            const long yo = (long)by * pl->out_y, xo = (long)bx * pl->out_x;
            const long y_tile = yo - halo_y, x_tile = xo - pl->halo_x;
            for (int i = 0; i < rows; i++)
                for (int j = 0; j < cols; j++) {
                    const long y = y_tile + i, x = x_tile + j;
                    tile[i * cols + j] = y >= 0 && y < NY && x >= 0 && x < NX ? in[y * NX + x] : 0.0;
                }
            const int steps = bug == FUSE_SKIP_STEP ? pl->fuse - 1 : pl->fuse;
            for (int s = 0; s < steps; s++) {
                memcpy(next, tile, (size_t)rows * cols * sizeof(double));
                for (int i = r; i < r + cy; i++)
                    for (int j = ST_FUSE_MARGIN; j < ST_FUSE_MARGIN + cx; j++) {
                        if (bug != FUSE_WRITES_FRAME && !st_interior(y_tile + i, x_tile + j, NY, NX, r))
                            continue;
                        double a = 0;
                        for (int dy = -r; dy <= r; dy++)
                            for (int dx = -r; dx <= r; dx++) {
                                const double wj = w[(dy + r) * d + dx + r];
                                if (wj != 0.0) a += wj * tile[(i + dy) * cols + j + dx];
                            }
                        next[i * cols + j] = st_round_f16(a);
                    }
                memcpy(tile, next, (size_t)rows * cols * sizeof(double));
            }
            for (int i = 0; i < pl->out_y; i++)
                for (int j = 0; j < pl->out_x; j++) {
                    const long y = yo + i, x = xo + j;
                    if (y < NY && x < NX && st_interior(y, x, NY, NX, r))
                        out[y * NX + x] = tile[(halo_y + i) * cols + pl->halo_x + j];
                }
        }
    free(tile), free(next);
}

/* the cells of `steps` steps of the model that differ from the reference */
static long fuse_model_mismatches(const double *w, int r, long NY, long NX, const uint16_t *g0,
                                  int steps, int fuse, int cx, int cy, int bug, const double *ref)
{
    st_fuse_plan pl;
    if (st_fuse_plan_make(cx, cy, r, fuse, NY, NX, &pl) != 0) return -1;
    double *a = (double *)malloc((size_t)NY * NX * sizeof(double));
    double *b = (double *)malloc((size_t)NY * NX * sizeof(double));
    for (long i = 0; i < NY * NX; i++) a[i] = b[i] = tc_f16_to_f32(g0[i]);
    for (int pass = 0; pass < st_fuse_passes(steps, fuse); pass++) {
        st_fuse_plan pp;
        if (st_fuse_plan_make(cx, cy, r, st_fuse_pass_steps(steps, fuse, pass), NY, NX, &pp) != 0)
            pp = pl; /* never: a shorter pass always fits where the full one does */
        fuse_model_pass(w, r, NY, NX, cx, cy, &pp, bug, a, b); /* b's frame is a's */
        double *t = a;
        a = b, b = t;
    }
    long bad = 0;
    for (long i = 0; i < NY * NX; i++) bad += a[i] != ref[i];
    free(a), free(b);
    return bad;
}

static int unit_stencil_fuse_blocks_reproduce_reference(void)
{
    tc_rng rng;
    tc_rng_seed(&rng, 17);
    const st_err_model m = {0, 0, 0x1p-11};
    const long NY = 53, NX = 75; /* no multiple of any output region below */
    const int cx = 32, cy = 24, steps = 7;
    uint16_t *g = (uint16_t *)malloc((size_t)NY * NX * 2);
    double *ref = (double *)malloc((size_t)NY * NX * 8), *bnd = (double *)malloc((size_t)NY * NX * 8);
    for (int r = 1; r <= 3; r++)
        for (int star = 0; star < 2; star++) {
            double w[ST_D_MAX * ST_D_MAX];
            weights(r, star, 0, &rng, w);
            double sum = 0;
            for (int i = 0; i < (2 * r + 1) * (2 * r + 1); i++) sum += w[i];
            for (int i = 0; i < (2 * r + 1) * (2 * r + 1); i++)
                w[i] = tc_f16_to_f32(tc_f32_to_f16((float)(w[i] / sum)));
            random_grid(NY * NX, &rng, g);
            UNIT_CHECK(st_ref_rect(w, r, NY, NX, g, steps, &m, (st_window){0, 0, NY, NX}, ref, bnd,
                                   NULL) == 0,
                       "oom");
            for (int f = 1; f <= ST_FUSE_MAX; f++) {
                st_fuse_plan pl;
                if (st_fuse_plan_make(cx, cy, r, f, NY, NX, &pl) != 0) continue; /* too deep */
                const long bad =
                    fuse_model_mismatches(w, r, NY, NX, g, steps, f, cx, cy, FUSE_OK, ref);
                UNIT_CHECK(bad == 0, "r=%d star=%d F=%d: %ld cells differ from the reference", r,
                           star, f, bad);
                if (f == 1) continue;
                /* the negative controls: every one of the three bugs shows at every F > 1 */
                for (int bug = FUSE_HALO_ROW_SHORT; bug <= FUSE_WRITES_FRAME; bug++)
                    UNIT_CHECK(fuse_model_mismatches(w, r, NY, NX, g, steps, f, cx, cy, bug, ref) > 0,
                               "r=%d star=%d F=%d: bug %d went unnoticed", r, star, f, bug);
            }
        }
    free(g), free(ref), free(bnd);
    return 0;
}

static const tc_unit tests[] = {
    {.name = "stencil_band_matches_weights", .fn = unit_stencil_band_matches_weights},
    {.name = "stencil_swap_makes_bands_2of4", .fn = unit_stencil_swap_makes_bands_2of4},
    {.name = "stencil_compress_roundtrip_metadata", .fn = unit_stencil_compress_roundtrip_metadata},
    {.name = "stencil_sparse_product_reproduces_stencil",
     .fn = unit_stencil_sparse_product_reproduces_stencil},
    {.name = "stencil_fragment_maps_are_bijections",
     .fn = unit_stencil_fragment_maps_are_bijections},
    {.name = "stencil_smem_tile_conflict_free", .fn = unit_stencil_smem_tile_conflict_free},
    {.name = "stencil_stmatrix_writeback_matches", .fn = unit_stencil_stmatrix_writeback_matches},
    {.name = "stencil_lane_emulation_reproduces_stencil",
     .fn = unit_stencil_lane_emulation_reproduces_stencil},
    {.name = "stencil_reference_frame_and_cones", .fn = unit_stencil_reference_frame_and_cones},
    {.name = "stencil_error_bound_covers_and_catches",
     .fn = unit_stencil_error_bound_covers_and_catches},
    {.name = "stencil_outside_writes_caught", .fn = unit_stencil_outside_writes_caught},
    {.name = "stencil_fuse_plan_geometry", .fn = unit_stencil_fuse_plan_geometry},
    {.name = "stencil_fuse_blocks_reproduce_reference",
     .fn = unit_stencil_fuse_blocks_reproduce_reference},
};

int main(int argc, char **argv) { return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests)); }
