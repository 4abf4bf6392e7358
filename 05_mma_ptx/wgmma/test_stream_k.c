/* 05_mma_ptx/wgmma/test_stream_k.c - stream_k.h (v6_streamk's split of the last round): for many
 * grids, every (unit, k-tile) is done by exactly one cluster, a cluster has at most one partial
 * segment and no finisher of its own waits before it (its first stream-K segment), a finisher's
 * partial sums are exactly those that cover its unit's k-tiles before its own, one per cluster,
 * in cluster order, and every partial sum is waited for by exactly one finisher (the flag a
 * partial raises is lowered by the one cluster that reads it, so a launch leaves every flag as it
 * found it). */
#include "unit.h"

#include "stream_k.h"

#include <stdlib.h>
#include <string.h>

/* returns 0 when the work of all clusters is consistent */
static int check_grid(int units, int clusters, int k_tiles, int stream_k)
{
    const int cells = units * k_tiles;
    int *owner = (int *)malloc(sizeof(int) * cells);   /* the cluster that does (unit, k) */
    int *partial = (int *)malloc(sizeof(int) * cells); /* 1 if it does it in a partial segment */
    int *has_partial = (int *)calloc((size_t)clusters, sizeof(int)); /* a partial segment */
    int *waited = (int *)calloc((size_t)clusters, sizeof(int)); /* finishers that wait for it */
    UNIT_CHECK(owner && partial && has_partial && waited, "out of memory");
    for (int i = 0; i < cells; i++) owner[i] = -1, partial[i] = 0;
    for (int c = 0; c < clusters; c++) {
        const tc_sk_work w = tc_sk_make(units, clusters, c, k_tiles, stream_k);
        int unit, t0, t1, partials = 0, seen_finisher = 0;
        for (int s = 0; tc_sk_segment(&w, s, &unit, &t0, &t1); s++) {
            if (t1 < k_tiles) {
                UNIT_CHECK(!seen_finisher && ++partials == 1,
                           "%dx%d k%d: cluster %d: a partial "
                           "segment after a split unit's finisher, or two",
                           units, clusters, k_tiles, c);
                has_partial[c] = 1;
            } else if (t0 > 0) {
                seen_finisher = 1;
            }
            UNIT_CHECK(unit >= 0 && unit < units && 0 <= t0 && t0 < t1 && t1 <= k_tiles,
                       "%dx%d k%d: cluster %d segment %d: unit %d [%d, %d)", units, clusters,
                       k_tiles, c, s, unit, t0, t1);
            UNIT_CHECK(stream_k || (t0 == 0 && t1 == k_tiles), "no stream-K: whole units only");
            for (int k = t0; k < t1; k++) {
                UNIT_CHECK(owner[unit * k_tiles + k] < 0, "%dx%d k%d: (%d, %d) done twice", units,
                           clusters, k_tiles, unit, k);
                owner[unit * k_tiles + k] = c, partial[unit * k_tiles + k] = t1 < k_tiles;
            }
        }
    }
    for (int i = 0; i < cells; i++)
        UNIT_CHECK(owner[i] >= 0, "%dx%d k%d: (%d, %d) not done", units, clusters, k_tiles,
                   i / k_tiles, i % k_tiles);
    /* finishers: the k-tiles before t0 belong to clusters first_partial .. cid - 1, each a
     * partial segment, in increasing order, every one of them present */
    for (int c = 0; c < clusters; c++) {
        const tc_sk_work w = tc_sk_make(units, clusters, c, k_tiles, stream_k);
        int unit, t0, t1;
        for (int s = 0; tc_sk_segment(&w, s, &unit, &t0, &t1); s++) {
            if (t1 < k_tiles || t0 == 0) continue;
            const int lo = tc_sk_first_partial(&w, unit);
            UNIT_CHECK(owner[unit * k_tiles] == lo,
                       "%dx%d k%d: unit %d starts in cluster %d, "
                       "not %d",
                       units, clusters, k_tiles, unit, owner[unit * k_tiles], lo);
            int expect = lo;
            for (int k = 0; k < t0; k++) {
                const int o = owner[unit * k_tiles + k];
                UNIT_CHECK(partial[unit * k_tiles + k], "unit %d k %d: not in a partial", unit, k);
                UNIT_CHECK(o == expect || o == expect + 1, "unit %d k %d: cluster %d after %d",
                           unit, k, o, expect);
                expect = o;
            }
            UNIT_CHECK(expect == c - 1, "unit %d: partials end at cluster %d, finisher %d", unit,
                       expect, c);
            for (int p = lo; p < c; p++) waited[p]++;
        }
    }
    for (int c = 0; c < clusters; c++)
        UNIT_CHECK(waited[c] == has_partial[c],
                   "%dx%d k%d: cluster %d: %d finishers wait for its %d partial sums", units,
                   clusters, k_tiles, c, waited[c], has_partial[c]);
    free(owner), free(partial), free(has_partial), free(waited);
    return 0;
}

static int unit_stream_k_covers_every_k_tile_once(void)
{
    static const int clusters[] = {1, 2, 3, 7, 64, 66};
    static const int k_tiles[] = {1, 2, 3, 5, 64, 128};
    for (int a = 0; a < TC_COUNT(clusters); a++)
        for (int b = 0; b < TC_COUNT(k_tiles); b++)
            for (int units = 1; units <= 3 * clusters[a] + 2; units++)
                for (int sk = 0; sk <= 1; sk++)
                    if (check_grid(units, clusters[a], k_tiles[b], sk)) return 1;
    return 0;
}

/* the H200 shapes: 66 clusters, 4096^3 (256 units of 64 k-tiles) and 8192^3 (1024 of 128) */
static int unit_stream_k_h200_shapes(void)
{
    const tc_sk_work w = tc_sk_make(256, 66, 0, 64, 1);
    UNIT_CHECK(w.dp_units == 198 && w.sk_len == (58 * 64 + 65) / 66, "4096^3: dp %d, L %d",
               w.dp_units, w.sk_len);
    return check_grid(256, 66, 64, 1) || check_grid(1024, 66, 128, 1);
}

static const tc_unit tests[] = {
    {.name = "stream_k_covers_every_k_tile_once", .fn = unit_stream_k_covers_every_k_tile_once},
    {.name = "stream_k_h200_shapes", .fn = unit_stream_k_h200_shapes},
};

int main(int argc, char **argv) { return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests)); }
