/* 05_mma_ptx/wgmma/stream_k.h - the work of one cluster of a persistent GEMM grid with a stream-K
 * last round (v6_streamk): plain C, so that the CPU test (test_stream_k.c) checks the same code
 * the kernel runs.
 *
 * A persistent grid of `clusters` clusters walks `units` units (tiles of C, or columns of a
 * cluster's tiles) of `k_tiles` k-tiles each, in rounds. When units % clusters = r is not 0, the
 * last round would leave clusters - r clusters idle. Instead the first units - r units are walked
 * as before ("data-parallel": cluster c takes units c, c + clusters, ...), and the r * k_tiles
 * k-tiles of the last r units are cut into `clusters` ranges of L = ceil(r k_tiles / clusters),
 * cluster c taking [c L, (c + 1) L) of them in (unit, k-tile) order. As L <= k_tiles, a range
 * covers the end of one unit and the start of the next at most, so:
 *   - a cluster has at most one *partial* segment (one that stops before its unit's last
 *     k-tile), and it is the cluster's first stream-K segment: the start of the next unit is
 *     done before the end of the current one, so that every partial sum is ready early (done in
 *     range order, each finisher would wait for a partial computed after the previous cluster's
 *     own finisher, and the waits would chain through all clusters);
 *   - the segment that holds a unit's last k-tile (the unit's *finisher*) starting at k-tile
 *     t0 > 0 needs the partial sums of clusters first_partial .. c - 1, one each, which hold
 *     k-tiles [0, t0) of that unit in order.
 */
#ifndef TC_STREAM_K_H
#define TC_STREAM_K_H

#ifdef __CUDACC__
#define TC_SK_FN static __host__ __device__ __forceinline__
#else
#define TC_SK_FN static inline
#endif

typedef struct {
    int dp_units; /* units walked data-parallel */
    int clusters, cid, k_tiles;
    int sk_begin, sk_end; /* this cluster's range of stream-K k-tiles (empty without) */
    int sk_len;           /* L (0 without stream-K) */
} tc_sk_work;

TC_SK_FN int tc_sk_min(int a, int b) { return a < b ? a : b; }

/* the work of cluster cid; stream_k = 0: every unit data-parallel */
TC_SK_FN tc_sk_work tc_sk_make(int units, int clusters, int cid, int k_tiles, int stream_k)
{
    tc_sk_work w;
    w.clusters = clusters, w.cid = cid, w.k_tiles = k_tiles;
    w.dp_units = units, w.sk_begin = w.sk_end = w.sk_len = 0;
    if (stream_k && units % clusters != 0) {
        const int rest = units % clusters, total = rest * k_tiles;
        w.dp_units = units - rest;
        w.sk_len = (total + clusters - 1) / clusters;
        w.sk_begin = tc_sk_min(cid * w.sk_len, total);
        w.sk_end = tc_sk_min(w.sk_begin + w.sk_len, total);
    }
    return w;
}

/* segment i (0, 1, ...) of the cluster's work: k-tiles [*t0, *t1) of unit *unit; 0 past the last.
 * The data-parallel units first; then, of the stream-K range's two pieces (the end of unit x,
 * the start of unit x + 1), the second one first. */
TC_SK_FN int tc_sk_segment(const tc_sk_work *w, int i, int *unit, int *t0, int *t1)
{
    const int n_dp = w->cid < w->dp_units ? (w->dp_units - 1 - w->cid) / w->clusters + 1 : 0;
    if (i < n_dp) {
        *unit = w->cid + i * w->clusters, *t0 = 0, *t1 = w->k_tiles;
        return 1;
    }
    i -= n_dp;
    const int g = w->sk_begin;
    if (g >= w->sk_end || i > 1) return 0;
    const int x = g / w->k_tiles, first_t0 = g % w->k_tiles;
    const int first_t1 = tc_sk_min(w->k_tiles, first_t0 + (w->sk_end - g));
    const int second_len = w->sk_end - (g + first_t1 - first_t0); /* 0: one piece */
    if (second_len > 0 && i == 0) {                               /* the start of unit x + 1 */
        *unit = w->dp_units + x + 1, *t0 = 0, *t1 = second_len;
        return 1;
    }
    if (i == (second_len > 0 ? 1 : 0)) { /* the piece of unit x */
        *unit = w->dp_units + x, *t0 = first_t0, *t1 = first_t1;
        return 1;
    }
    return 0;
}

/* the first cluster whose partial sum a finisher of unit `unit` (t0 > 0) adds; it adds those of
 * clusters tc_sk_first_partial .. cid - 1 */
TC_SK_FN int tc_sk_first_partial(const tc_sk_work *w, int unit)
{
    return (unit - w->dp_units) * w->k_tiles / w->sk_len;
}

#endif /* TC_STREAM_K_H */
