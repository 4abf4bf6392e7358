/* tests/test_swizzle.c - the XOR swizzle of common/swizzle.h (chapter 05's shared-memory tiles):
 * a permutation of each row, periodic in 8 rows, and free of bank conflicts for the two access
 * patterns the GEMM uses (ldmatrix row addresses and 16-byte stores), where the plain layout
 * conflicts. This is the "how do you know" of the swizzle, done with the bank arithmetic; the
 * profiler's view of the same thing is in 05_mma_ptx/README.md. */
#include "unit.h"

#include "swizzle.h"

static const int chunk_counts[] = {1, 2, 4, 8};
enum { N_COUNTS = sizeof chunk_counts / sizeof chunk_counts[0], ROWS = 256 };

static int unit_swizzle_permutes_rows_with_period_8(void)
{
    for (int ci = 0; ci < N_COUNTS; ci++) {
        const int chunks = chunk_counts[ci];
        for (int r = 0; r < ROWS; r++) {
            int seen = 0;
            for (int c = 0; c < chunks; c++) {
                const int p = tc_swizzle_chunk(r, c, chunks);
                UNIT_CHECK(p >= 0 && p < chunks, "chunks %d row %d chunk %d -> %d", chunks, r, c,
                           p);
                UNIT_CHECK(!(seen & (1 << p)), "chunks %d row %d: position %d used twice", chunks,
                           r, p);
                seen |= 1 << p;
                /* the GEMM's lane offsets assume the pattern repeats every 8 rows */
                UNIT_CHECK(tc_swizzle_chunk(r + 8, c, chunks) == p,
                           "chunks %d: rows %d and %d differ at chunk %d", chunks, r, r + 8, c);
            }
        }
    }
    return 0;
}

/* The largest number of the 8 chunks that share a bank group: 1 = conflict-free. */
static int ways(const int groups[8])
{
    int count[8] = {0}, worst = 0;
    for (int i = 0; i < 8; i++)
        if (++count[groups[i]] > worst) worst = count[groups[i]];
    return worst;
}

/* ldmatrix: each 8x8 matrix is 8 consecutive rows (starting at a multiple of 8) read at one
 * logical chunk, one row address per lane. */
static int unit_swizzle_ldmatrix_conflict_free(void)
{
    for (int ci = 0; ci < N_COUNTS; ci++) {
        const int chunks = chunk_counts[ci];
        for (int r0 = 0; r0 < ROWS; r0 += 8)
            for (int c = 0; c < chunks; c++) {
                int swz[8], plain[8];
                for (int i = 0; i < 8; i++) {
                    swz[i] = tc_bank_group(r0 + i, tc_swizzle_chunk(r0 + i, c, chunks), chunks);
                    plain[i] = tc_bank_group(r0 + i, c, chunks);
                }
                UNIT_CHECK(ways(swz) == 1, "chunks %d rows %d..%d chunk %d: %d-way conflict",
                           chunks, r0, r0 + 7, c, ways(swz));
                /* the negative control: the plain layout is chunks-way */
                UNIT_CHECK(ways(plain) == chunks,
                           "chunks %d rows %d..%d chunk %d: plain layout %d-way, expected %d",
                           chunks, r0, r0 + 7, c, ways(plain), chunks);
            }
    }
    return 0;
}

/* Tile loads: thread i of a phase writes the 16-byte chunk number q = q0 + i of the tile in
 * row-major order (row q / chunks, logical chunk q % chunks) to its swizzled position. */
static int unit_swizzle_store_phases_conflict_free(void)
{
    for (int ci = 0; ci < N_COUNTS; ci++) {
        const int chunks = chunk_counts[ci];
        for (int q0 = 0; q0 < ROWS * chunks; q0 += 8) {
            int g[8];
            for (int i = 0; i < 8; i++) {
                const int q = q0 + i, r = q / chunks, c = q % chunks;
                g[i] = tc_bank_group(r, tc_swizzle_chunk(r, c, chunks), chunks);
            }
            UNIT_CHECK(ways(g) == 1, "chunks %d chunks %d..%d: %d-way conflict", chunks, q0, q0 + 7,
                       ways(g));
        }
    }
    return 0;
}

/* The worked example in common/swizzle.h and the chapter README (chunks = 4, logical chunk 0
 * of rows 0..7 in groups 0,4,1,5,2,6,3,7). */
static int unit_swizzle_documented_example(void)
{
    static const int want[8] = {0, 4, 1, 5, 2, 6, 3, 7};
    for (int r = 0; r < 8; r++) {
        const int g = tc_bank_group(r, tc_swizzle_chunk(r, 0, 4), 4);
        UNIT_CHECK(g == want[r], "row %d: group %d, README says %d", r, g, want[r]);
    }
    return 0;
}

static const tc_unit tests[] = {
    {.name = "swizzle_permutes_rows_with_period_8", .fn = unit_swizzle_permutes_rows_with_period_8},
    {.name = "swizzle_ldmatrix_conflict_free", .fn = unit_swizzle_ldmatrix_conflict_free},
    {.name = "swizzle_store_phases_conflict_free", .fn = unit_swizzle_store_phases_conflict_free},
    {.name = "swizzle_documented_example", .fn = unit_swizzle_documented_example},
};

int main(int argc, char **argv) { return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests)); }
