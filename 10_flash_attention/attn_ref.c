/* 10_flash_attention/attn_ref.c - see attn_ref.h. */
#define _POSIX_C_SOURCE 200809L
#include "attn_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define U_F32 0x1p-24 /* unit roundoff of f32, to nearest */

attn_rounding attn_rounding_for(const tc_precision *prec)
{
    attn_rounding r;
    r.u_p = prec->u_out; /* P is rounded to the input type, which is the output type here */
    r.t_p = prec->in == TC_F16 ? 0x1p-25 : prec->in == TC_BF16 ? 0x1p-134 : 0x1p-150;
    r.u_acc = prec->u_acc;
    r.u_out = prec->u_out;
    return r;
}

double attn_flops(const attn_dims *p)
{
    const double f = 4.0 * p->B * p->H * (double)p->Sq * p->Sk * p->D;
    return p->causal ? f / 2 : f;
}

/* ---- the rows --------------------------------------------------------------------------------- */
static int cmp_long(const void *a, const void *b)
{
    const long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

attn_rows attn_rows_make(const attn_dims *p, double full_limit, int random_per_head, tc_rng *rng)
{
    attn_rows r;
    memset(&r, 0, sizeof r);
    const long heads = (long)p->B * p->H, Sq = p->Sq;
    long per_head;
    long *pick = NULL;
    const int fixed = 7;
    if ((double)heads * Sq * p->Sk * p->D <= full_limit) {
        r.full = 1;
        per_head = Sq;
    } else {
        per_head = fixed + random_per_head;
        pick = (long *)tc_xmalloc((size_t)per_head * sizeof(long));
    }
    r.b = (int *)tc_xmalloc((size_t)(heads * per_head) * sizeof(int));
    r.h = (int *)tc_xmalloc((size_t)(heads * per_head) * sizeof(int));
    r.i = (long *)tc_xmalloc((size_t)(heads * per_head) * sizeof(long));
    for (long bh = 0; bh < heads; bh++) {
        long n = 0;
        if (r.full) {
            for (long i = 0; i < Sq; i++) {
                r.b[r.n] = (int)(bh / p->H), r.h[r.n] = (int)(bh % p->H), r.i[r.n++] = i;
            }
            continue;
        }
        /* first and last rows, the middle, and the masking boundary of a causal Sq > Sk */
        const long off = (long)p->Sq - p->Sk;
        const long cand[7] = {
            0, 1, Sq / 2, Sq - 2, Sq - 1, p->causal ? off - 1 : 0, p->causal ? off : 0};
        for (int c = 0; c < fixed; c++)
            if (cand[c] >= 0 && cand[c] < Sq) pick[n++] = cand[c];
        for (int c = 0; c < random_per_head; c++)
            pick[n++] = (long)(tc_rng_next_u64(rng) % (uint64_t)Sq);
        qsort(pick, (size_t)n, sizeof(long), cmp_long);
        for (long c = 0; c < n; c++) {
            if (c && pick[c] == pick[c - 1]) continue;
            r.b[r.n] = (int)(bh / p->H), r.h[r.n] = (int)(bh % p->H), r.i[r.n++] = pick[c];
        }
    }
    free(pick);
    return r;
}

void attn_rows_free(attn_rows *r)
{
    free(r->b), free(r->h), free(r->i);
    memset(r, 0, sizeof *r);
}

/* ---- the reference ---------------------------------------------------------------------------- */
static double elem(const attn_tensor *t, long b, long s, long h, long d)
{
    return tc_load(t->data, t->type,
                   (size_t)(b * t->st.batch + s * t->st.seq + h * t->st.head + d));
}

typedef struct {
    const attn_dims *p;
    const attn_tensor *q, *k, *v;
    const attn_rows *rows;
    const attn_rounding *r;
    attn_ref *out;
} ref_job;

/* One row: the scores, the softmax, O, L, and the allowed error of each (attn_ref.h). */
static void ref_row(const ref_job *j, long e, double *s, double *q, double *acc, double *pmax_d)
{
    const attn_dims *p = j->p;
    const int D = p->D;
    const long b = j->rows->b[e], h = j->rows->h[e], i = j->rows->i[e];
    const long n = attn_key_end(p->Sq, p->Sk, p->causal, i);
    double *o = j->out->o + e * D, *o_tol = j->out->o_tol + e * D;
    j->out->keys[e] = n;
    if (n == 0) { /* fully masked: O = 0, L = -inf, exactly */
        for (int d = 0; d < D; d++) o[d] = 0, o_tol[d] = 0;
        j->out->lse[e] = -INFINITY, j->out->lse_tol[e] = 0;
        return;
    }
    double qa = 0, kmax = 0, vmax = 0, m = -INFINITY, amax = 0;
    for (int d = 0; d < D; d++) q[d] = elem(j->q, b, i, h, d), qa += fabs(q[d]);
    for (long k = 0; k < n; k++) {
        double dot = 0;
        for (int d = 0; d < D; d++) {
            const double kv = elem(j->k, b, k, h, d);
            dot += q[d] * kv;
            if (fabs(kv) > kmax) kmax = fabs(kv);
        }
        s[k] = p->scale * dot;
        if (s[k] > m) m = s[k];
        if (fabs(s[k]) > amax) amax = fabs(s[k]);
    }
    double Z = 0;
    for (long k = 0; k < n; k++) s[k] = exp(s[k] - m), Z += s[k]; /* s now holds w */
    const double e_s =
        p->scale * 2 * j->r->u_acc * ceil(D / 16.0) * qa * kmax + 0x1p-22 * (1 + amax); /* term 2 */
    double walk = 0, pmax = 0;
    for (int d = 0; d < D; d++) acc[d] = 0, pmax_d[d] = 0;
    for (long k = 0; k < n; k++) {
        const double pk = s[k] / Z;
        const double t = (j->r->u_p + 2 * e_s) * pk + j->r->t_p;
        walk += t * t;
        if (pk > pmax) pmax = pk;
        for (int d = 0; d < D; d++) {
            const double vv = elem(j->v, b, k, h, d);
            acc[d] += pk * vv;
            if (fabs(vv) > vmax) vmax = fabs(vv);
        }
        if ((k + 1) % 16 == 0 || k + 1 == n) /* the partial sums an accumulator holds (term 3) */
            for (int d = 0; d < D; d++)
                if (fabs(acc[d]) > pmax_d[d]) pmax_d[d] = fabs(acc[d]);
    }
    const double lambda = TC_TOL_LAMBDA, steps = 2 * ceil(n / 16.0);
    for (int d = 0; d < D; d++) {
        o[d] = acc[d];
        const double part = pmax_d[d] > pmax * vmax ? pmax_d[d] : pmax * vmax;
        o_tol[d] = lambda * (vmax * sqrt(walk) + 2 * j->r->u_acc * steps * part +
                             U_F32 * sqrt((double)n) * fabs(acc[d]));
    }
    j->out->lse[e] = m + log(Z);
    j->out->lse_tol[e] =
        lambda * (e_s + U_F32 * sqrt((double)n)) + 2 * U_F32 * fabs(j->out->lse[e]);
}

static void ref_worker(void *ctx, int tid, int nthreads)
{
    const ref_job *j = (const ref_job *)ctx;
    const long n = j->rows->n, lo = n * tid / nthreads, hi = n * (tid + 1) / nthreads;
    if (lo >= hi) return;
    const int D = j->p->D;
    double *s = (double *)tc_xmalloc((size_t)j->p->Sk * sizeof(double));
    double *buf = (double *)tc_xmalloc((size_t)3 * D * sizeof(double));
    for (long e = lo; e < hi; e++) ref_row(j, e, s, buf, buf + D, buf + 2 * D);
    free(s);
    free(buf);
}

void attn_reference(const attn_dims *p, const attn_tensor *q, const attn_tensor *k,
                    const attn_tensor *v, const attn_rows *rows, const attn_rounding *r,
                    attn_ref *out)
{
    memset(out, 0, sizeof *out);
    out->n = rows->n, out->D = p->D, out->rtol = 2 * r->u_out;
    const size_t n = (size_t)rows->n;
    out->o = (double *)tc_xmalloc(n * p->D * sizeof(double));
    out->o_tol = (double *)tc_xmalloc(n * p->D * sizeof(double));
    out->lse = (double *)tc_xmalloc(n * sizeof(double));
    out->lse_tol = (double *)tc_xmalloc(n * sizeof(double));
    out->keys = (long *)tc_xmalloc(n * sizeof(long));
    ref_job job = {p, q, k, v, rows, r, out};
    tc_parallel(ref_worker, &job);
}

void attn_ref_free(attn_ref *r)
{
    free(r->o), free(r->o_tol), free(r->lse), free(r->lse_tol), free(r->keys);
    memset(r, 0, sizeof *r);
}

/* ---- the checker ------------------------------------------------------------------------------ */
static void note_worst(attn_check *c, double ratio, int b, int h, long i, int d, double got,
                       double ref, double allowed)
{
    if (ratio > c->max_ratio || c->worst_i < 0) {
        c->max_ratio = ratio;
        c->worst_b = b, c->worst_h = h, c->worst_i = i, c->worst_d = d;
        c->worst_got = got, c->worst_ref = ref, c->worst_allowed = allowed;
    }
}

attn_check attn_check_rows(const attn_dims *p, const attn_tensor *o, const float *L,
                           const attn_rows *rows, const attn_ref *ref)
{
    attn_check c;
    memset(&c, 0, sizeof c);
    c.worst_i = -1;
    double err2 = 0, ref2 = 0;
    const int D = p->D;
    for (long e = 0; e < rows->n; e++) {
        const int b = rows->b[e], h = rows->h[e];
        const long i = rows->i[e];
        const int masked = ref->keys[e] == 0;
        int row_bad = 0;
        for (int d = 0; d < D; d++) {
            const size_t idx = (size_t)(b * o->st.batch + i * o->st.seq + h * o->st.head + d);
            const double got = tc_load(o->data, o->type, idx), want = ref->o[e * D + d];
            const int unwritten = tc_is_poison(o->data, o->type, idx);
            const double err = fabs(got - want);
            const double allowed = masked ? 0.0 : ref->o_tol[e * D + d] + ref->rtol * fabs(want);
            /* written so that a NaN makes ok false; a fully masked row must hold zeros */
            const int ok = !unwritten && (masked ? got == 0.0 : err <= allowed);
            c.checked++;
            c.bad += !ok;
            row_bad |= !ok;
            if (unwritten)
                c.unwritten++;
            else if (isnan(got))
                c.nans++;
            if (!unwritten && !isnan(err)) {
                if (err > c.max_abs_err) c.max_abs_err = err;
                err2 += err * err;
            }
            ref2 += want * want;
            const double ratio = !ok && (unwritten || isnan(err) || allowed == 0)
                                     ? INFINITY
                                     : (allowed > 0 ? err / allowed : 0.0);
            note_worst(&c, ratio, b, h, i, d, got, want, allowed);
        }
        /* L, f32 B x H x Sq */
        const float lg = L[((size_t)b * p->H + h) * p->Sq + i];
        const double want = ref->lse[e], err = fabs((double)lg - want);
        const int l_ok = masked ? (isinf(lg) && lg < 0) : err <= ref->lse_tol[e];
        c.l_checked++;
        c.l_bad += !l_ok;
        row_bad |= !l_ok;
        if (!masked && !isnan(err) && err > c.l_max_abs_err) c.l_max_abs_err = err;
        const double lratio = !l_ok && (masked || isnan(err) || ref->lse_tol[e] == 0)
                                  ? INFINITY
                                  : (ref->lse_tol[e] > 0 ? err / ref->lse_tol[e] : 0.0);
        note_worst(&c, lratio, b, h, i, -1, lg, want, masked ? 0 : ref->lse_tol[e]);
        c.masked_rows += masked;
        c.masked_bad += masked && row_bad;
    }
    c.rel_fro_err = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
    if (c.nans || c.unwritten) c.rel_fro_err = NAN;
    c.pass = c.bad == 0 && c.l_bad == 0 && c.checked > 0;
    return c;
}

void attn_check_print(const attn_check *c, FILE *f)
{
    fprintf(f,
            "%s: %ld elements of O (%ld bad: %ld NaN, %ld unwritten) and %ld of L (%ld bad) "
            "checked",
            c->pass ? "PASS" : "FAIL", c->checked, c->bad, c->nans, c->unwritten, c->l_checked,
            c->l_bad);
    if (c->masked_rows)
        fprintf(f, ", %ld fully masked rows (%ld bad)", c->masked_rows, c->masked_bad);
    fprintf(f, "; max abs err %.3g (L %.3g), rel Frobenius err %.3g, largest err/allowed %.3g",
            c->max_abs_err, c->l_max_abs_err, c->rel_fro_err, c->max_ratio);
    if (c->worst_i >= 0) {
        if (c->worst_d >= 0)
            fprintf(f, "; worst O(b%d,s%ld,h%d,d%d) = %.9g, ref %.9g, allowed %.3g", c->worst_b,
                    c->worst_i, c->worst_h, c->worst_d, c->worst_got, c->worst_ref,
                    c->worst_allowed);
        else
            fprintf(f, "; worst L(b%d,h%d,s%ld) = %.9g, ref %.9g, allowed %.3g", c->worst_b,
                    c->worst_h, c->worst_i, c->worst_got, c->worst_ref, c->worst_allowed);
    }
    fputc('\n', f);
}

double attn_rel_fro(const attn_dims *p, const attn_tensor *o, const attn_rows *rows,
                    const attn_ref *ref)
{
    double err2 = 0, ref2 = 0;
    for (long e = 0; e < rows->n; e++)
        for (int d = 0; d < p->D; d++) {
            const size_t idx = (size_t)(rows->b[e] * o->st.batch + rows->i[e] * o->st.seq +
                                        rows->h[e] * o->st.head + d);
            const double x = tc_load(o->data, o->type, idx) - ref->o[e * p->D + d];
            err2 += x * x;
            ref2 += ref->o[e * p->D + d] * ref->o[e * p->D + d];
        }
    return ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
}
