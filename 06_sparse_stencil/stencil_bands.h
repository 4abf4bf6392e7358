/* 06_sparse_stencil/stencil_bands.h - a stencil as banded matrices, the strided swap that makes
 * them 2:4 sparse, their compression into mma.sp values + metadata, the fragment lane maps the
 * kernels use, and the CPU reference with its error bound. Everything here is `static inline`:
 * the host driver (stencil.c), the kernels (stencil_tc.cuh, the functions marked ST_HD) and the
 * CPU unit tests (test_stencil.c) use these very functions, so each layout is defined once.
 *
 * ---- the stencil -------------------------------------------------------------------------------
 *
 *   out[y][x] = sum over dy, dx in [-r, r] of w[dy][dx] * in[y + dy][x + dx]
 *
 * for every interior cell (r <= y < NY - r, r <= x < NX - r); the cells of the frame of width r
 * keep their initial value at every step (fixed, "Dirichlet", boundary). A grid smaller than
 * 2r + 1 in either direction has no interior and never changes. Weights live in w[(dy + r) * (2r +
 * 1) + (dx + r)].
 *
 * ---- one stencil row as a banded matrix (the lesson's first idea) ------------------------------
 *
 * Fix a row offset dy and a segment of L = 16 outputs x0 .. x0+15 of one grid row. Their dx taps
 * read the input row y + dy at x0 - r .. x0 + 15 + r: a 16 x 32 matrix times a 32-long window,
 *
 *   out[y][x0 + i] += sum_k A_dy[i][k] * in[y + dy][x0 - 8 + k],  A_dy[i][k] = w[dy][k - 8 - i]
 *
 * (zero where |k - 8 - i| > r). The window starts at x0 - 8, not x0 - r, so that it is 16-byte
 * aligned (x0 is a multiple of 16): r <= 7 keeps the band inside the 32 columns. Row i's band
 * covers columns i+8-r .. i+8+r, so A_dy is a diagonal band of width 2r + 1. For r = 2, with
 * a .. e = w[dy][-2] .. w[dy][+2], row i holds them at columns i+6 .. i+10 (dots: zeros):
 *
 *     k (tens)   0 0 0 0 0 0 0 0 0 0 1 1 1 1 1 1 1 1 1 1 2 2 2 2 2 2 2 2 2 2 3 3
 *     k (units)  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *     i =  0     . . . . . . a b c d e . . . . . . . . . . . . . . . . . . . . .
 *     i =  1     . . . . . . . a b c d e . . . . . . . . . . . . . . . . . . . .
 *       ..
 *     i = 15     . . . . . . . . . . . . . . . . . . . . . a b c d e . . . . . .
 *
 * With N = 8 grid rows as the columns of B (B[k][n] = in[y_n + dy][x0 - 8 + k]), one such
 * product is one mma of shape m16n8k32: dense it is two m16n8k16 (rung c), and 32 - (2r + 1)
 * of every row's 32 products are zeros.
 *
 * ---- the strided swap: a band becomes 2:4 sparse (the lesson's second idea) ---------------------
 *
 * mma.sp wants at most 2 non-zeros in every chunk of 4 consecutive columns. A band of width 3 or
 * more has chunks with 3 or 4. Swap column p with column p + 16 for every odd p < 16:
 *
 *   position p:    0  1  2  3  4  5 ...  14 15 | 16 17 18 19 ... 30 31
 *   holds column:  0 17  2 19  4 21 ...  14 31 | 16  1 18  3 ... 30 15      (p ^ 16 for odd p)
 *
 * Chunk c < 4 then holds columns {4c, 4c+2} and {4c+17, 4c+19}; chunk c >= 4 holds {4c-15,
 * 4c-13} and {4c, 4c+2}. Inside one half the two columns are 2 apart, so a band meets at most 2 of
 * them only if it meets both halves' columns: the closest pair across halves is 13 apart in
 * chunks >= 4 ({4c-13, 4c}) and 15 in chunks < 4, and the two-element runs on either side make any
 * three of the four columns span at least 15 > 2r for r <= 7. So for every r <= 7 every chunk
 * has at most 2 non-zeros: exactly the 2:4 pattern (test_stencil.c proves it for every r
 * and every row). The product is unchanged if B's rows are swapped the same way: A' B' = A P P B.
 *
 *   the chunks of row 0 for r = 2 (band at columns 6..10), as original columns:
 *     chunk    0             1             2             3
 *     holds    0 17  2 19    4 21  6 23    8 25 10 27   12 29 14 31
 *     kept     -             6             8, 10         -
 *     chunk    4             5             6             7
 *     holds   16  1 18  3   20  5 22  7   24  9 26 11   28 13 30 15
 *     kept     -             7             9             -
 *
 * ---- compression and metadata (mma.sp::ordered_metadata) ----------------------------------------
 *
 * Each chunk keeps two values and two 2-bit positions idx0 < idx1 (::ordered_metadata requires
 * increasing order: the nibble idx0 | idx1 << 2 is one of 0x4, 0x8, 0x9, 0xC, 0xD, 0xE). A chunk
 * with fewer non-zeros names zeros to fill its two slots. The values form a 16 x 16 matrix (two
 * per chunk, in chunk order), which is an ordinary m16n8k16 A fragment.
 *
 * Metadata of m16n8k32 (PTX ISA "Matrix fragments for sparse mma.m16n8k32 with .f16"): a 32-bit
 * register per lane, but only two lanes of each quad are read, chosen by the sparsity selector
 * (0: lanes t = 0, 1 of the quad; 1: lanes t = 2, 3). Lane 4g + 2*sel + h supplies
 *
 *   bits  4c+3 .. 4c     : row g,     chunk 4h + c   (c = 0..3: columns 16h .. 16h + 15)
 *   bits 16+4c+3 .. 16+4c: row g + 8, chunk 4h + c
 *
 * so the lanes a selector ignores are free: the kernels put the metadata of a second matrix (the
 * next dy) there and use one register with both selectors. Per pair of stencil rows each lane
 * loads one word, once per kernel:
 *
 *   lane (quad g):  t=0 (h=0)     t=1 (h=1)     t=2 (h=0)      t=3 (h=1)
 *   word bits 15:0  A_dy rows g,  A_dy rows g,  A_dy+1 row g,  A_dy+1 row g,   chunks 4h..4h+3
 *   word bits 31:16 ... row g+8   ... row g+8   ... row g+8    ... row g+8
 *                   (selector 0 reads these)    (selector 1 reads these)
 *
 * ---- fragments (g = lane / 4, t = lane % 4; the low half of a register is the lower index) -----
 *
 *   m16n8k16 A (and the 16x16 compressed values of m16n8k32 sparse A):
 *     reg j: row g + 8*(j & 1), columns 2t + 8*(j >> 1), +1      (sparse: chunk t + 4*(j >> 1))
 *   B (m16n8k16: j = 0, 1; m16n8k32: j = 0..3): reg j: k = 2t + 8j, +1; n = g
 *   C/D f32: reg j: row g + 8*(j >> 1), column 2t + (j & 1);  f16: reg j: row g + 8j, cols 2t, 2t+1
 *
 * ---- B through ldmatrix, and the swap in registers ---------------------------------------------
 *
 * The input tile sits in shared memory row-major (grid rows, x contiguous), which is B stored
 * k-contiguous: ldmatrix.x4 with lane l pointing at (grid row n = l % 8, x = window + 8*(l / 8))
 * gives r[j] = (B[2t+8j][g], B[2t+8j+1][g]), the dense fragment. The swap moves odd k by 16:
 * b[0] = (k 2t, 2t+1) must hold columns (2t, 2t+17) = (low half of r[0], high half of r[2]):
 *
 *   b[0] = lo(r[0]) | hi(r[2])   b[2] = lo(r[2]) | hi(r[0])
 *   b[1] = lo(r[1]) | hi(r[3])   b[3] = lo(r[3]) | hi(r[1])
 *
 * four half-word merges per fragment (on the GPU one __byte_perm each: 4 PRMT in the sm_90
 * SASS), no extra memory traffic: the swap of B's rows is a
 * choice of which loaded halves go where. (No permutation can keep ldmatrix's contiguous rows:
 * four consecutive columns are always 4 consecutive k, and a band covers 3 of them.) */
#ifndef STENCIL_BANDS_H
#define STENCIL_BANDS_H

#include "convert.h" /* tc_f32_to_f16, tc_f64_to_f16, tc_f16_to_f32 */

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__CUDACC__)
#include <cuda_fp16.h> /* st_pack_f16x2 */
#define ST_HD __host__ __device__
#else
#define ST_HD
#endif

enum {
    ST_L = 16,                        /* outputs of one band segment = M of the mma */
    ST_K = 32,                        /* input window = K of m16n8k32 = 2L */
    ST_WIN = 8,                       /* the window starts 8 points left of the segment */
    ST_R_MAX = 7,                     /* 2r + 1 <= 15 = L - 1: the swap's limit */
    ST_D_MAX = 2 * ST_R_MAX + 1,      /* taps along one direction */
    ST_CHUNKS = ST_K / 4,             /* 4-column chunks of a row of A */
    ST_PAIRS_MAX = (ST_D_MAX + 1) / 2 /* metadata words per lane: one per pair of rows dy */
};

/* ---- fragment lane maps (PTX ISA; see the header comment) --------------------------------------
 */
/* A of m16n8k16 (and the compressed 16x16 values of sparse m16n8k32): register j of lane */
static inline ST_HD int st_frag_a_row(int lane, int j) { return lane / 4 + 8 * (j & 1); }
static inline ST_HD int st_frag_a_col(int lane, int j) { return 2 * (lane % 4) + 8 * (j >> 1); }
/* B (k x n) of m16n8k16 (j = 0, 1) and of m16n8k32 (j = 0..3): register j, half h (0 = low) */
static inline ST_HD int st_frag_b_k(int lane, int j, int h) { return 2 * (lane % 4) + 8 * j + h; }
static inline ST_HD int st_frag_b_n(int lane) { return lane / 4; }
/* C/D with f32 accumulators: register j of lane */
static inline ST_HD int st_frag_c_row(int lane, int j) { return lane / 4 + 8 * (j >> 1); }
static inline ST_HD int st_frag_c_col(int lane, int j) { return 2 * (lane % 4) + (j & 1); }
/* C/D with f16 accumulators: register j (0, 1), half h */
static inline ST_HD int st_frag_c16_row(int lane, int j) { return lane / 4 + 8 * j; }
static inline ST_HD int st_frag_c16_col(int lane, int h) { return 2 * (lane % 4) + h; }
/* metadata of sparse m16n8k32 f16: lane 4g + 2*sel + h; the matrix row and chunk of the nibble at
 * bits 4q+3..4q (q = 0..7: q < 4 row g, q >= 4 row g + 8) */
static inline ST_HD int st_meta_sel(int lane) { return (lane >> 1) & 1; }
static inline ST_HD int st_meta_row(int lane, int q) { return lane / 4 + 8 * (q >> 2); }
static inline ST_HD int st_meta_chunk(int lane, int q) { return 4 * (lane & 1) + (q & 3); }

/* ---- the strided swap ---------------------------------------------------------------------------
 * Position p of a swapped row holds original column st_swap_col(p): odd p move by 16. It is its own
 * inverse. */
static inline ST_HD int st_swap_col(int p) { return (p & 1) ? (p ^ 16) : p; }

/* The B fragment after the swap, from the dense fragment r that ldmatrix.x4 delivers (header). */
static inline ST_HD void st_swap_b(const uint32_t r[4], uint32_t b[4])
{
#if defined(__CUDA_ARCH__)
    /* one PRMT each: bytes 0, 1 of the first word, bytes 2, 3 of the second (selector 7 6 1 0) */
    b[0] = __byte_perm(r[0], r[2], 0x7610);
    b[1] = __byte_perm(r[1], r[3], 0x7610);
    b[2] = __byte_perm(r[2], r[0], 0x7610);
    b[3] = __byte_perm(r[3], r[1], 0x7610);
#else
    b[0] = (r[0] & 0xFFFFu) | (r[2] & 0xFFFF0000u);
    b[1] = (r[1] & 0xFFFFu) | (r[3] & 0xFFFF0000u);
    b[2] = (r[2] & 0xFFFFu) | (r[0] & 0xFFFF0000u);
    b[3] = (r[3] & 0xFFFFu) | (r[1] & 0xFFFF0000u);
#endif
}

/* ---- the shared-memory input tile of the tensor-core kernels ------------------------------------
 * Rows of `row_halves` halves (a multiple of 8: every row 16-byte aligned) plus one 16-byte gap
 * after every `s_rows` rows. ldmatrix reads 8 rows that are s_rows apart (the warp's 8 columns n of
 * B are grid rows s_rows apart, see stencil_tc.cuh); the gap shifts each of them by one 16-byte
 * bank group, so the 8 rows hit 8 different groups (conflict-free) whenever s_rows * row_halves / 8
 * is even. Offsets in halves. */
static inline ST_HD int st_smem_offset(int rho, int col, int s_rows, int row_halves)
{
    return rho * row_halves + (rho / s_rows) * 8 + col;
}
static inline ST_HD int st_smem_halves(int rows, int s_rows, int row_halves)
{
    return rows * row_halves + ((rows + s_rows - 1) / s_rows) * 8;
}
/* The row and column (halves) lane l points ldmatrix.x4 at, for the B fragment of the window
 * starting at column `col0` with its 8 columns n at rows rho0 + s_rows * n. */
static inline ST_HD int st_ldm_b_rho(int lane, int rho0, int s_rows)
{
    return rho0 + s_rows * (lane % 8);
}
static inline ST_HD int st_ldm_b_col(int lane, int col0) { return col0 + 8 * (lane / 8); }
/* Rung g's write-back (stencil_stmatrix.cuh): stmatrix.x4.trans of output tiles s and s + 1 (s even)
 * of a warp whose cells start at row y_warp, column x_warp of the compute region. Lane l gives the
 * address of row n = l % 8 of matrix j = l / 8, which is output tile s + j / 2's columns 8 (j % 2)
 * .. + 7 at grid row n: the tile row and column (halves) of that address. */
static inline ST_HD int st_stsm_rho(int lane, int s, int r, int y_warp, int s_rows)
{
    return r + y_warp + s + (lane / 8) / 2 + s_rows * (lane % 8);
}
static inline ST_HD int st_stsm_col(int lane, int x_warp)
{
    return ST_WIN + x_warp + 8 * ((lane / 8) % 2);
}
/* ...and where .trans puts the registers (the PTX ISA; ldmatrix.trans backwards): lane 4g + t's
 * register j, half h, goes to row 2t + h, column g of matrix j */
static inline ST_HD int st_stsm_trans_row(int lane, int h) { return 2 * (lane % 4) + h; }
static inline ST_HD int st_stsm_trans_col(int lane) { return lane / 4; }

/* ---- host side: the banded matrices, compression, fragments ------------------------------------
 */
#if !defined(__CUDA_ARCH__)

/* A_dy (16 x 32) of radius r from the weights w[(dy + r) * (2r + 1) + dx + r] */
static inline void st_band(const double *w, int r, int dy, double A[ST_L][ST_K])
{
    const int d = 2 * r + 1;
    for (int i = 0; i < ST_L; i++)
        for (int k = 0; k < ST_K; k++) {
            const int dx = k - ST_WIN - i;
            A[i][k] = dx >= -r && dx <= r ? w[(dy + r) * d + dx + r] : 0.0;
        }
}

/* As[i][p] = A[i][st_swap_col(p)] */
static inline void st_swap_matrix(const double A[ST_L][ST_K], double As[ST_L][ST_K])
{
    for (int i = 0; i < ST_L; i++)
        for (int p = 0; p < ST_K; p++) As[i][p] = A[i][st_swap_col(p)];
}

/* The compressed form of a 2:4 matrix: per row, two values per chunk (in chunk order: a 16x16
 * matrix) and the chunk's nibble idx0 | idx1 << 2. */
typedef struct {
    double v[ST_L][2 * ST_CHUNKS];
    uint8_t nib[ST_L][ST_CHUNKS];
} st_sparse_a;

static inline int st_nibble_valid(unsigned nib)
{
    return nib == 0x4 || nib == 0x8 || nib == 0x9 || nib == 0xC || nib == 0xD || nib == 0xE;
}

/* Compresses As. Returns 0, or -1 (out untouched past the bad row) when a chunk holds more than
 * two non-zeros. Chunks with fewer name zeros: none -> positions 0, 1; one at q -> (0, q), or
 * (0, 1) for q = 0. Either way idx0 < idx1. */
static inline int st_compress(const double As[ST_L][ST_K], st_sparse_a *out)
{
    for (int i = 0; i < ST_L; i++)
        for (int c = 0; c < ST_CHUNKS; c++) {
            int nz[4], n = 0;
            for (int q = 0; q < 4; q++)
                if (As[i][4 * c + q] != 0.0) {
                    if (n == 2) return -1;
                    nz[n++] = q;
                }
            int i0 = 0, i1 = 1;
            if (n == 2)
                i0 = nz[0], i1 = nz[1];
            else if (n == 1 && nz[0] > 0)
                i1 = nz[0];
            out->v[i][2 * c] = As[i][4 * c + i0];
            out->v[i][2 * c + 1] = As[i][4 * c + i1];
            out->nib[i][c] = (uint8_t)(i0 | i1 << 2);
        }
    return 0;
}

/* The 16 x 32 matrix the compressed form stands for. */
static inline void st_decompress(const st_sparse_a *a, double As[ST_L][ST_K])
{
    for (int i = 0; i < ST_L; i++)
        for (int c = 0; c < ST_CHUNKS; c++) {
            for (int q = 0; q < 4; q++) As[i][4 * c + q] = 0.0;
            As[i][4 * c + (a->nib[i][c] & 3)] += a->v[i][2 * c];
            As[i][4 * c + (a->nib[i][c] >> 2)] += a->v[i][2 * c + 1];
        }
}

/* f16 bits of a value that is exactly an f16 (the weights are rounded on the host). Compiled by
 * nvcc (the plain launcher of stencil_tc.cuh packs the bands, in programs built without
 * common/convert.c) through cuda_fp16.h: both round to nearest even, so on such values the bits
 * are the same. */
static inline uint32_t st_pack_f16x2(double lo, double hi)
{
#if defined(__CUDACC__)
    const __half_raw l = __float2half_rn((float)lo), h = __float2half_rn((float)hi);
    return (uint32_t)l.x | (uint32_t)h.x << 16;
#else
    return (uint32_t)tc_f32_to_f16((float)lo) | (uint32_t)tc_f32_to_f16((float)hi) << 16;
#endif
}

/* The four A registers of lane for one compressed matrix (sparse m16n8k32). */
static inline void st_sparse_a_words(const st_sparse_a *a, int lane, uint32_t w[4])
{
    for (int j = 0; j < 4; j++) {
        const int row = st_frag_a_row(lane, j), col = st_frag_a_col(lane, j);
        w[j] = st_pack_f16x2(a->v[row][col], a->v[row][col + 1]);
    }
}

/* The metadata word of lane: matrix a0 for the lanes of selector 0, a1 (or, when NULL, a filler
 * of valid nibbles 0x4) for those of selector 1. */
static inline uint32_t st_meta_word(const st_sparse_a *a0, const st_sparse_a *a1, int lane)
{
    const st_sparse_a *a = st_meta_sel(lane) ? a1 : a0;
    uint32_t word = 0;
    for (int q = 0; q < 8; q++) {
        const unsigned nib = a ? a->nib[st_meta_row(lane, q)][st_meta_chunk(lane, q)] : 0x4u;
        word |= (uint32_t)nib << (4 * q);
    }
    return word;
}

/* The eight A registers of lane for the dense band (two m16n8k16: columns 0..15, then 16..31). */
static inline void st_dense_a_words(const double A[ST_L][ST_K], int lane, uint32_t w[8])
{
    for (int k16 = 0; k16 < 2; k16++) /* (not `half`: cuda_fp16.h's type) */
        for (int j = 0; j < 4; j++) {
            const int row = st_frag_a_row(lane, j), col = 16 * k16 + st_frag_a_col(lane, j);
            w[4 * k16 + j] = st_pack_f16x2(A[row][col], A[row][col + 1]);
        }
}

/* What the tensor-core kernels read: per stencil row dy (index dy + r), per lane, the A registers
 * (sparse: 4 words, dense: 8), and for the sparse kernels per pair of rows one metadata word per
 * lane. Layout: a_words[((dy + r) * 32 + lane) * n_a + j], meta[pair * 32 + lane]. Returns -1
 * when a swapped band is not 2:4 (r > 7). */
static inline int st_pack_fragments(const double *w, int r, int sparse, uint32_t *a_words,
                                    uint32_t *meta)
{
    const int d = 2 * r + 1, n_a = sparse ? 4 : 8;
    st_sparse_a comp[ST_D_MAX];
    for (int dy = -r; dy <= r; dy++) {
        double A[ST_L][ST_K], As[ST_L][ST_K];
        st_band(w, r, dy, A);
        if (!sparse) {
            for (int lane = 0; lane < 32; lane++)
                st_dense_a_words(A, lane, a_words + ((dy + r) * 32 + lane) * n_a);
            continue;
        }
        st_swap_matrix(A, As);
        if (st_compress(As, &comp[dy + r]) != 0) return -1;
        for (int lane = 0; lane < 32; lane++)
            st_sparse_a_words(&comp[dy + r], lane, a_words + ((dy + r) * 32 + lane) * n_a);
    }
    if (sparse)
        for (int p = 0; p < (d + 1) / 2; p++)
            for (int lane = 0; lane < 32; lane++)
                meta[p * 32 + lane] =
                    st_meta_word(&comp[2 * p], 2 * p + 1 < d ? &comp[2 * p + 1] : NULL, lane);
    return 0;
}

/* ---- the reference and its error bound ----------------------------------------------------------
 * The GPU stores every step in f16, so the reference does too: one step computes each interior
 * cell in double from the previous step's f16 values and rounds it to f16 once. The GPU's result
 * differs from it only through its accumulation (order, precision, a transform in cuDNN) and then
 * through rounding a slightly different value to f16, which can land one f16 ulp away; a later
 * step carries both differences on through its weights. st_err_model bounds each cell's
 * difference |gpu - ref| by a running forward bound, computed with the reference:
 *
 *   x_j, E_j   the reference's values of the previous step at the taps and their bounds
 *   S_E = sum |w_j| E_j                 what the earlier differences can add
 *   S_a = sum |w_j| (|x_j| + E_j)       bounds every partial sum of the GPU's accumulation
 *   D   = S_E + (gamma + eps_in) S_a    bounds |GPU's value before rounding - exact sum|
 *   E   = D + u_out (2 |a| + D) + tiny  after both round to f16 (a = the exact sum; tiny: two
 *                                       half-spacings of f16 subnormals, 2^-24)
 *
 * gamma is the accumulator's error per unit of S_a (number of roundings times their unit
 * roundoff, stencil.c derives it per variant), eps_in a transformed-domain algorithm's input
 * error (cuDNN FFT/Winograd; 0 otherwise). E_0 = 0 and boundary cells keep E = 0. */
typedef struct {
    double gamma, eps_in, u_out;
} st_err_model;

static inline double st_round_f16(double a) { return (double)tc_f16_to_f32(tc_f64_to_f16(a)); }

/* A window of the grid: rows y0 .. y0+h-1, columns x0 .. x0+w-1, row stride w. */
typedef struct {
    long y0, x0, h, w;
} st_window;

static inline int st_interior(long y, long x, long NY, long NX, int r)
{
    return y >= r && y < NY - r && x >= r && x < NX - r;
}

/* One step of the reference on rows [row_lo, row_hi) of `out` (a window inside `in`'s window,
 * with every interior cell's taps inside `in`): values xo and bounds eo. Boundary cells copy. */
static inline void st_ref_step_rows(const double *w, int r, long NY, long NX, const st_err_model *m,
                                    const st_window *wi, const double *xi, const double *ei,
                                    const st_window *wo, double *xo, double *eo, long row_lo,
                                    long row_hi)
{
    const int d = 2 * r + 1;
    for (long oy = row_lo; oy < row_hi; oy++)
        for (long ox = 0; ox < wo->w; ox++) {
            const long y = wo->y0 + oy, x = wo->x0 + ox;
            const long io = oy * wo->w + ox, ii = (y - wi->y0) * wi->w + (x - wi->x0);
            if (!st_interior(y, x, NY, NX, r)) {
                xo[io] = xi[ii];
                eo[io] = ei ? ei[ii] : 0.0;
                continue;
            }
            double a = 0, s_e = 0, s_a = 0;
            for (int dy = -r; dy <= r; dy++) {
                const double *xr = xi + ii + dy * wi->w;
                const double *er = ei ? ei + ii + dy * wi->w : NULL;
                for (int dx = -r; dx <= r; dx++) {
                    const double wj = w[(dy + r) * d + dx + r];
                    if (wj == 0.0) continue;
                    const double ej = er ? er[dx] : 0.0;
                    a += wj * xr[dx];
                    s_e += fabs(wj) * ej;
                    s_a += fabs(wj) * (fabs(xr[dx]) + ej);
                }
            }
            xo[io] = st_round_f16(a);
            if (eo) {
                const double D = s_e + (m->gamma + m->eps_in) * s_a;
                eo[io] = D + m->u_out * (2 * fabs(a) + D) + 0x1p-24;
            }
        }
}

/* The window `rect` grown by g cells on every side, clipped to the grid. */
static inline st_window st_window_grow(st_window rect, long g, long NY, long NX)
{
    st_window o;
    o.y0 = rect.y0 - g < 0 ? 0 : rect.y0 - g;
    o.x0 = rect.x0 - g < 0 ? 0 : rect.x0 - g;
    const long y1 = rect.y0 + rect.h + g > NY ? NY : rect.y0 + rect.h + g;
    const long x1 = rect.x0 + rect.w + g > NX ? NX : rect.x0 + rect.w + g;
    o.h = y1 - o.y0;
    o.w = x1 - o.x0;
    return o;
}

/* T steps of the reference on the cone of `rect` (the rect grown by r per remaining step): the
 * rect's values and bounds after step T, row-major, into ref and bound. g0 is the initial grid (f16
 * bits, NY x NX). parallel: NULL, or a runner like common/harness.h's tc_parallel that calls
 * fn(ctx, tid, n) for tid = 0 .. n-1 (each step's rows are split over the calls). Returns -1 when
 * out of memory. */
typedef struct {
    const double *w;
    int r;
    long NY, NX;
    const st_err_model *m;
    const st_window *wi, *wo;
    const double *xi, *ei;
    double *xo, *eo;
} st_step_job;

static inline void st_step_worker(void *ctx, int tid, int nthreads)
{
    const st_step_job *j = (const st_step_job *)ctx;
    const long lo = j->wo->h * tid / nthreads, hi = j->wo->h * (tid + 1) / nthreads;
    st_ref_step_rows(j->w, j->r, j->NY, j->NX, j->m, j->wi, j->xi, j->ei, j->wo, j->xo, j->eo, lo,
                     hi);
}

static inline int st_ref_rect(const double *w, int r, long NY, long NX, const uint16_t *g0, int T,
                              const st_err_model *m, st_window rect, double *ref, double *bound,
                              void (*parallel)(void (*fn)(void *, int, int), void *))
{
    st_window wi = st_window_grow(rect, (long)r * T, NY, NX);
    const size_t cap = (size_t)wi.h * (size_t)wi.w;
    double *x0 = (double *)malloc(cap * sizeof(double)), *e0 = (double *)calloc(cap, 8);
    double *x1 = (double *)malloc(cap * sizeof(double)), *e1 = (double *)calloc(cap, 8);
    if (!x0 || !x1 || !e0 || !e1) {
        free(x0), free(x1), free(e0), free(e1);
        return -1;
    }
    for (long y = 0; y < wi.h; y++)
        for (long x = 0; x < wi.w; x++)
            x0[y * wi.w + x] = tc_f16_to_f32(g0[(wi.y0 + y) * NX + wi.x0 + x]);
    for (int s = 1; s <= T; s++) {
        const st_window wo = st_window_grow(rect, (long)r * (T - s), NY, NX);
        st_step_job job = {w, r, NY, NX, m, &wi, &wo, x0, e0, x1, e1};
        if (parallel)
            parallel(st_step_worker, &job);
        else
            st_step_worker(&job, 0, 1);
        double *t = x0;
        x0 = x1, x1 = t, t = e0, e0 = e1, e1 = t;
        wi = wo;
    }
    for (long i = 0; i < rect.h * rect.w; i++) ref[i] = x0[i], bound[i] = e0[i];
    free(x0), free(x1), free(e0), free(e1);
    return 0;
}

/* ---- writes outside the grid ------------------------------------------------------------------
 * A grid of ny rows of nx cells sits in a buffer with row pitch ld >= nx, followed by `guard`
 * cells. The number of cells outside the grid (the pitch padding of every row, and the guard)
 * that no longer hold what they held at the start: nonzero means a kernel wrote past its grid. */
static inline long st_count_outside(const uint16_t *buf, const uint16_t *start, long ny, long nx,
                                    long ld, long guard)
{
    long outside = 0;
    for (long y = 0; y < ny; y++)
        for (long x = nx; x < ld; x++) outside += buf[y * ld + x] != start[y * ld + x];
    for (long i = ny * ld; i < ny * ld + guard; i++) outside += buf[i] != start[i];
    return outside;
}

#endif /* !__CUDA_ARCH__ */
#endif /* STENCIL_BANDS_H */
