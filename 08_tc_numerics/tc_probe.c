/* 08_tc_numerics/tc_probe.c - see tc_probe.h.
 *
 * The probes in the order they run, each with the vectors it uses (E: the exponent of a "big"
 * product, chosen inside the input and output ranges; x: a small term; q = 2^(E-F)):
 *
 *   sanity      zeros (d = c), k ones (d = k), unit vectors (each k meets the same k of B)
 *   subnormals  a subnormal a or b times a power of two; a product whose value is subnormal in
 *               the output; a subnormal c plus a normal product
 *   F, chain    2^E - 2^E + 2^(E-s) for s = 1, 2, ...: the last s for which the small term
 *               survives is F. Once with the small term as product 2 (vP), once as c (vC): a c
 *               that is cut like a product enters the alignment (fused chain); a c that always
 *               survives is added after the block (add chain, or c after every block). Product
 *               2 never cut: the small term at every later position, at the largest shift; the
 *               positions that cut it share block 0 with products 0 and 1 (blocks need not be
 *               contiguous), and vP runs again with the first of them. Only c shows a cut:
 *               block 1 or 2, or products too narrow; nothing cut: F is "exact" (refined at the
 *               end)
 *   ref         (1.5 * 1.5) 2^(E-1) twice with opposite signs, x = 2^(E-1-F): kept when the
 *               product's alignment exponent is E-1 (exponent sum), cut when it is E (value)
 *   align round x = +-1.75 q and +-2.5 q: the surviving multiple of q names the rounding
 *   block       c = 2^E, product 0 = -2^E, x = q/2 at position l (c never cut: 2^E - 2^E in
 *               products 0 and 1 instead): x changes exactly when l is in block 0. Block 0 is
 *               positions 0 .. B-1, or runs of g dealt to the blocks in turn (interleave g);
 *               anything else is a problem. Nothing cut within 24 bits: two half-ulp terms,
 *               which make one ulp only inside one block. Every later block checked the same way
 *   c after     c never cut, two blocks or more: c = 2^E, -2^E in block 0, 2^(E-P-1) in the
 *               last block comes back only if c was added first (add chain); otherwise c is
 *               added after the blocks, and the next probe's chain check decides their chain
 *   chain       x = q/2 alone in block 0, the big pair in block 1: fused cuts x, add keeps it
 *   per addend  two x = q/2: cut one by one they vanish (or give 2q), as a sum they give q
 *   one alignment (x, big, -big) in other orders inside block 0: always cut
 *   products    (1 + u)^2 - (1 + 2u) = u^2 with u = 2^(1-p): survives only if products are exact
 *   result bits 2^j products of 2^E' plus m 2^(E'-s) (m = 1, 3; s <= F) in the last block: sums of
 *               W = j + s + 1 bits that carry past the largest exponent; the number of bits a
 *               block's result keeps (truncated) that predicts them all, or 0
 *   out round   c = 2^E (1 + k 2^(1-P)) plus 2^E in the last block: 2^(E+1) + k/2 ulp, k = +-1, +-3
 *   chain round the same in block 0 (f32 output). With c after the blocks the same vectors show
 *               c's rounding, and 2^E + 2^E + k 2^(E+1-P) as three products of the last block
 *               (of block 0) the output (chain) rounding
 *   tiny zero   a negative sum of a quarter of the output's smallest subnormal, t = 2^(s-2): -t
 *               alone in the last block; 2^s - 1.5 2^(s-1) - 2^(s-1) there (the largest addend
 *               positive); -t alone in block 0 (two blocks or more). Once with c and the other
 *               products +0, once with them -0 (c after the blocks adds c to the zero). The model
 *               with either sign of a rounded-to-zero sum predicts each answer: the one that
 *               predicts all of them decides, once the roundings are known (else: elimination)
 *   elimination every combination of the fields still undecided (output and chain rounding,
 *               overflow, subnormal c and results, block, f16 chain format and pre-rounding; c
 *               first or after, the chain and c's rounding, the sign of a tiny zero when the
 *               probes above could not tell) predicts crafted overflows, carries, f16 ties,
 *               the tiny sums, long sums and random dot products with the model; the
 *               survivors decide. F not cut within reach: larger F (with alignment exponent and
 *               rounding) against exact, the same way
 *   tf32        operands with low bits set (on a, on b, ties, negative): reported, any answer
 *   monotone    c one ulp below 2^E and c = 2^E with the same small products
 */
#include "tc_probe.h"

#include "harness.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- boxes ---------------------------------------------------------------------------------- */
static void model_box_fn(void *ctx, long n, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                         uint32_t *d)
{
    const tc_model_params *p = (const tc_model_params *)ctx;
    for (long i = 0; i < n; i++) d[i] = tc_model_dot(p, a + i * p->k, b + i * p->k, p->k, c[i]);
}

void tc_box_model(tc_box *box, const tc_model_params *p)
{
    memset(box, 0, sizeof *box);
    box->in = p->in;
    box->out = p->out;
    box->k = p->k;
    box->fn = model_box_fn;
    box->ctx = (void *)p;
}

void tc_box_run(tc_box *box, long n, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                uint32_t *d)
{
    box->fn(box->ctx, n, a, b, c, d);
    box->dots += n;
}

/* ---- the probe context ---------------------------------------------------------------------- */
enum { BATCH_CAP = 640, MAXK = 64 };

typedef struct {
    tc_box *box;
    tc_probe_report *r;
    const tc_fmt_info *fi, *fo;
    int k;
    int E;          /* the big pair's exponent */
    int p_lo, p_hi; /* leads of products of normal inputs */
    int o_lo;       /* lowest exponent of a result that reads back exactly */
    int c_lo;       /* lowest exponent of a c that enters unchanged (subnormal c: if kept) */
    int small_by_c; /* small-term experiments use c (fused chain) instead of product 2 */
    int sub_inputs; /* subnormal inputs are kept: products reach lower */
    int pos0[MAXK]; /* the positions known to share block 0 with products 0 and 1, ascending */
    int n0;
    int c_open;     /* c is never cut: added before the blocks (TC_CHAIN_ADD) or after them */
    int chain_open; /* c after the blocks: how the blocks chain is not decided yet */
    int tz_open;    /* tiny_zero shows in the tiny sums, but the roundings were not all known */
    int n;          /* dots in the batch */
    uint32_t *a, *b, *c, *d;
} probe_ctx;

/* Where the probes put their terms. Block 0 as far as it is known (pos0; position i itself past
 * its end, so that contiguous blocks keep their positions); position i of block j, and position
 * i counted from the end of the last block, by the layout fitted so far (before the block probe:
 * one block of k). */
static int at0(const probe_ctx *x, int i) { return i < x->n0 ? x->pos0[i] : i; }

static int block_pos(const probe_ctx *x, int j, int i)
{
    for (int l = 0, n = 0; l < x->k; l++)
        if (tc_model_block_of(&x->r->fit, l) == j && n++ == i) return l;
    return -1;
}

static int at_last(const probe_ctx *x, int i)
{
    const tc_model_params *f = &x->r->fit;
    for (int l = x->k - 1, n = 0; l >= 0; l--)
        if (tc_model_block_of(f, l) == f->k / f->block - 1 && n++ == i) return l;
    return x->k - 1 - i;
}

/* block 0 of the fitted layout becomes pos0 */
static void pos0_from_fit(probe_ctx *x)
{
    x->n0 = 0;
    for (int l = 0; l < x->k; l++)
        if (tc_model_block_of(&x->r->fit, l) == 0) x->pos0[x->n0++] = l;
}

static void problem(probe_ctx *x, const char *fmt, ...)
{
    tc_probe_report *r = x->r;
    r->ok = 0;
    size_t len = strlen(r->problem);
    if (len + 8 >= sizeof r->problem) return;
    if (len) r->problem[len++] = ';', r->problem[len++] = ' ';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->problem + len, sizeof r->problem - len, fmt, ap);
    va_end(ap);
}

static void bt_reset(probe_ctx *x) { x->n = 0; }

static int bt_new(probe_ctx *x) /* a zeroed dot; -1 when full (a bug: sizes are fixed) */
{
    if (x->n >= BATCH_CAP) return -1;
    const int i = x->n++;
    memset(x->a + (size_t)i * x->k, 0, (size_t)x->k * sizeof *x->a);
    memset(x->b + (size_t)i * x->k, 0, (size_t)x->k * sizeof *x->b);
    x->c[i] = 0;
    x->d[i] = 0;
    return i;
}

static void bt_run(probe_ctx *x) { tc_box_run(x->box, x->n, x->a, x->b, x->c, x->d); }

static int bitlen(uint64_t v)
{
    int n = 0;
    while (v) n++, v >>= 1;
    return n;
}

static uint32_t enc_in(probe_ctx *x, int neg, uint64_t m, int e, int *ok)
{
    uint32_t bits = 0;
    if (!tc_fmt_encode(x->box->in, neg, m, e, &bits)) *ok = 0;
    return bits;
}

/* product `pos` of dot i = (-1)^neg m 2^e, as a = m 2^ea (normal) times b = 2^eb (normal) */
static int set_prod(probe_ctx *x, int i, int pos, int neg, uint64_t m, int e)
{
    uint32_t *a = x->a + (size_t)i * x->k + pos, *b = x->b + (size_t)i * x->k + pos;
    if (m == 0) {
        *a = 0, *b = 0;
        return 1;
    }
    while (!(m & 1u)) m >>= 1, e++;
    const int lead = e + bitlen(m) - 1, mid = lead / 2;
    for (int dist = 0; dist <= 2 * (x->fi->emax - x->fi->emin) + 2; dist++)
        for (int sgn = 0; sgn < 2; sgn++) {
            const int eb = mid + (sgn ? -dist : dist);
            if (eb < x->fi->emin || eb > x->fi->emax) continue;
            const int la = lead - eb; /* a's lead; below emin a subnormal, if they are kept */
            if ((la < x->fi->emin && !x->sub_inputs) || la > x->fi->emax) continue;
            int ok = 1;
            const uint32_t ab = enc_in(x, neg, m, e - eb, &ok), bb = enc_in(x, 0, 1, eb, &ok);
            if (ok) {
                *a = ab, *b = bb;
                return 1;
            }
        }
    return 0;
}

static int set_c(probe_ctx *x, int i, int neg, uint64_t m, int e)
{
    return tc_fmt_encode(x->box->out, neg, m, e, &x->c[i]);
}

/* d of dot i == (-1)^neg m 2^e exactly (a zero of either sign when m == 0) */
static int d_is(probe_ctx *x, int i, int neg, uint64_t m, int e)
{
    tc_unpacked u = tc_fmt_decode(x->box->out, x->d[i]);
    if (m == 0) return u.cls == TC_ZERO;
    if (u.cls != TC_FINITE || u.neg != neg) return 0;
    uint64_t um = u.m;
    int ue = u.e;
    while (!(um & 1u)) um >>= 1, ue++;
    while (!(m & 1u)) m >>= 1, e++;
    return um == m && ue == e;
}

/* d of dot i in units of 2^q: an integer in [-2^40, 2^40], or LONG_MIN */
static long d_units(probe_ctx *x, int i, int q)
{
    tc_unpacked u = tc_fmt_decode(x->box->out, x->d[i]);
    if (u.cls == TC_ZERO) return 0;
    if (u.cls != TC_FINITE) return LONG_MIN;
    int sh = u.e - q;
    uint64_t m = u.m;
    if (sh < 0) {
        if (-sh >= 64 || (m & ((1ull << -sh) - 1u))) return LONG_MIN;
        m >>= -sh;
    } else {
        if (sh > 40 || bitlen(m) + sh > 41) return LONG_MIN;
        m <<= sh;
    }
    return u.neg ? -(long)m : (long)m;
}

#define NEED(cond, what)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            problem(x, "internal: %s not representable", what);                                    \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* ---- 1. sanity ----------------------------------------------------------------------------- */
static void probe_sanity(probe_ctx *x)
{
    const int k = x->k;
    bt_reset(x);
    int ok = 1;
    for (int i = 0; i < 8; i++) { /* zeros: d = c, eight different c */
        const int j = bt_new(x);
        NEED(set_c(x, j, i & 1, (uint64_t)(2 * i + 3), -2), "c");
    }
    const int ones = bt_new(x);
    for (int l = 0; l < k; l++) NEED(set_prod(x, ones, l, 0, 1, 0), "1");
    const int first_unit = x->n;
    for (int l = 0; l < k; l++) {
        int j = bt_new(x); /* a = 1.5 at l, b all ones */
        for (int m = 0; m < k; m++) x->b[(size_t)j * k + m] = enc_in(x, 0, 1, 0, &ok);
        x->a[(size_t)j * k + l] = enc_in(x, 0, 3, -1, &ok);
        j = bt_new(x); /* a all ones, b = 1.5 at l */
        for (int m = 0; m < k; m++) x->a[(size_t)j * k + m] = enc_in(x, 0, 1, 0, &ok);
        x->b[(size_t)j * k + l] = enc_in(x, 0, 3, -1, &ok);
        j = bt_new(x); /* a = e_l, b = 1.75 at l and 1 elsewhere: d = 1.75 iff the slots meet */
        x->a[(size_t)j * k + l] = enc_in(x, 0, 1, 0, &ok);
        for (int m = 0; m < k; m++)
            x->b[(size_t)j * k + m] = enc_in(x, 0, m == l ? 7 : 1, m == l ? -2 : 0, &ok);
    }
    NEED(ok, "sanity inputs");
    bt_run(x);
    int bad = 0;
    for (int i = 0; i < 8; i++) bad += !d_is(x, i, i & 1, (uint64_t)(2 * i + 3), -2);
    if (!d_is(x, ones, 0, (uint64_t)k, 0)) bad++;
    for (int l = 0; l < k; l++) {
        const int j = first_unit + 3 * l;
        bad += !d_is(x, j, 0, 3, -1) + !d_is(x, j + 1, 0, 3, -1) + !d_is(x, j + 2, 0, 7, -2);
    }
    x->r->sane = bad == 0;
    if (bad) problem(x, "sanity: %d of %d plumbing checks failed (fragment layout?)", bad, x->n);
}

/* ---- 2. subnormals ------------------------------------------------------------------------- */
static void probe_subnormals(probe_ctx *x)
{
    tc_probe_report *r = x->r;
    tc_model_params *f = &r->fit;
    const tc_fmt_info *fi = x->fi, *fo = x->fo;
    const int sub_e = fi->emin - fi->frac_bits; /* the smallest subnormal input: 2^sub_e */
    bt_reset(x);
    int ok = 1;
    /* subnormal inputs: 2^sub_e * 2^j with the product normal in the output */
    int j = 0 - sub_e;
    if (j > fi->emax) j = fi->emax;
    const int t_in = sub_e + j;
    const int in_a = bt_new(x), in_b = bt_new(x), in_big = bt_new(x);
    x->a[(size_t)in_a * x->k + 3] = enc_in(x, 0, 1, sub_e, &ok);
    x->b[(size_t)in_a * x->k + 3] = enc_in(x, 0, 1, j, &ok);
    x->a[(size_t)in_b * x->k + 5] = enc_in(x, 1, 1, j, &ok);
    x->b[(size_t)in_b * x->k + 5] = enc_in(x, 0, 1, sub_e, &ok);
    /* the largest subnormal: (2^fb - 1) 2^sub_e */
    const uint64_t msub = (1ull << fi->frac_bits) - 1u;
    x->a[(size_t)in_big * x->k] = enc_in(x, 0, msub, sub_e, &ok);
    x->b[(size_t)in_big * x->k] = enc_in(x, 0, 1, j, &ok);
    NEED(ok && t_in >= fo->emin, "subnormal input probe");
    /* a subnormal result from normal inputs: 2^(emin_out - 2) */
    const int t_out = fo->emin - 2;
    const int can_out = t_out >= x->p_lo;
    int out_i = -1;
    if (can_out) {
        out_i = bt_new(x);
        NEED(set_prod(x, out_i, 1, 0, 1, t_out), "subnormal result");
    }
    /* a subnormal c: 2^(emin_out - 1), plus a normal product just above it when one exists (at
     * position 0, which is in block 0 whatever the layout: a fused c meets it there, and no
     * rounded intermediate of c alone can be flushed) */
    int tp = x->p_lo > fo->emin ? x->p_lo : fo->emin;
    const int c_with_p = tp - (fo->emin - 1) <= 8;
    const int c_i = bt_new(x);
    NEED(set_c(x, c_i, 0, 1, fo->emin - 1), "subnormal c");
    if (c_with_p) NEED(set_prod(x, c_i, 0, 0, 1, tp), "product next to a subnormal c");
    bt_run(x);

    /* inputs */
    const int ka = d_is(x, in_a, 0, 1, t_in), fa = d_is(x, in_a, 0, 0, 0);
    const int kb = d_is(x, in_b, 1, 1, t_in), fb = d_is(x, in_b, 0, 0, 0);
    const int kbig = d_is(x, in_big, 0, msub, sub_e + j), fbig = d_is(x, in_big, 0, 0, 0);
    if (ka && kb && kbig) {
        f->sub_in = TC_SUB_KEEP;
        r->obs_sub_in = TC_OBS_YES;
    } else if (fa && fb && fbig) {
        f->sub_in = TC_SUB_FLUSH;
        r->obs_sub_in = TC_OBS_YES;
    } else {
        problem(x, "subnormal inputs: neither kept nor flushed consistently (a: %s, b: %s)",
                ka   ? "kept"
                : fa ? "flushed"
                     : "other",
                kb   ? "kept"
                : fb ? "flushed"
                     : "other");
    }
    /* results */
    if (can_out) {
        if (d_is(x, out_i, 0, 1, t_out)) {
            f->sub_out = TC_SUB_KEEP;
            r->obs_sub_out = TC_OBS_YES;
        } else if (d_is(x, out_i, 0, 0, 0)) {
            f->sub_out = TC_SUB_FLUSH;
            r->obs_sub_out = TC_OBS_YES;
        } else {
            problem(x, "subnormal result 2^%d came back as %g", t_out,
                    tc_fmt_to_double(x->box->out, x->d[out_i]));
        }
    }
    /* c: with a product, the sum 2^tp + 2^(emin-1) is normal, so only c's flush shows */
    if (c_with_p) {
        if (d_is(x, c_i, 0, (1ull << (tp - fo->emin + 1)) + 1u, fo->emin - 1)) {
            f->sub_c = TC_SUB_KEEP;
            r->obs_sub_c = TC_OBS_YES;
        } else if (d_is(x, c_i, 0, 1, tp)) {
            f->sub_c = TC_SUB_FLUSH;
            r->obs_sub_c = TC_OBS_YES;
        } else {
            problem(x, "subnormal c: unexpected %g", tc_fmt_to_double(x->box->out, x->d[c_i]));
        }
    } else {
        /* c alone: d = c means both are kept; d = 0 means one of them is flushed, which one is
         * left to the elimination at the end */
        if (d_is(x, c_i, 0, 1, fo->emin - 1)) {
            f->sub_c = f->sub_out = TC_SUB_KEEP;
            r->obs_sub_c = r->obs_sub_out = TC_OBS_YES;
        } else if (d_is(x, c_i, 0, 0, 0)) {
            if (r->obs_sub_out && f->sub_out == TC_SUB_KEEP) {
                f->sub_c = TC_SUB_FLUSH;
                r->obs_sub_c = TC_OBS_YES;
            }
        } else {
            problem(x, "subnormal c alone: unexpected %g",
                    tc_fmt_to_double(x->box->out, x->d[c_i]));
        }
    }
    /* subnormal results and c extend the range of the probes when they are kept */
    if (f->sub_out == TC_SUB_KEEP && r->obs_sub_out) x->o_lo = fo->emin - fo->frac_bits;
    if (f->sub_c == TC_SUB_KEEP && r->obs_sub_c) x->c_lo = fo->emin - fo->frac_bits;
    if (f->sub_in == TC_SUB_KEEP && r->obs_sub_in) {
        x->sub_inputs = 1;
        x->p_lo = 2 * fi->emin - fi->frac_bits;
    }
}

/* ---- 3. F and the chain -------------------------------------------------------------------- */
/* first s in 1..n with kept[s] == 0 (0 when none); -1 when the pattern is not kept..kept,
 * dropped..dropped */
static int first_drop(const int *kept, int n)
{
    int first = 0;
    for (int s = 1; s <= n; s++) {
        if (!kept[s] && !first) first = s;
        if (kept[s] && first) return -1;
    }
    return first;
}

/* The F probe's small term at position 2 was never cut. Blocks need not be contiguous: the small
 * term goes to every later position, at the largest shift; where it is cut, it shares a block
 * with the big pair (products 0 and 1), and those positions are block 0 for the probes that
 * follow. Then the F probe runs again with the first of them. Returns first_drop of that run (0
 * when no position cuts). */
static int scan_block0(probe_ctx *x, int smax)
{
    const int E = x->E, k = x->k;
    int idx[MAXK], kept[152] = {0}, ip[152];
    bt_reset(x);
    for (int l = 3; l < k; l++) {
        const int i = idx[l] = bt_new(x);
        if (!set_prod(x, i, 0, 0, 1, E) || !set_prod(x, i, 1, 1, 1, E) ||
            !set_prod(x, i, l, 0, 1, E - smax))
            return 0; /* not representable: the probe cannot look */
    }
    bt_run(x);
    int pos[MAXK], n0 = 0;
    pos[n0++] = 0, pos[n0++] = 1;
    for (int l = 3; l < k; l++)
        if (!d_is(x, idx[l], 0, 1, E - smax)) pos[n0++] = l;
    if (n0 == 2) return 0;
    bt_reset(x);
    for (int s = 1; s <= smax; s++) {
        const int i = ip[s] = bt_new(x);
        if (!set_prod(x, i, 0, 0, 1, E) || !set_prod(x, i, 1, 1, 1, E) ||
            !set_prod(x, i, pos[2], 0, 1, E - s))
            return 0;
    }
    bt_run(x);
    for (int s = 1; s <= smax; s++) kept[s] = d_is(x, ip[s], 0, 1, E - s);
    memcpy(x->pos0, pos, (size_t)n0 * sizeof *pos);
    x->n0 = n0;
    return first_drop(kept, smax);
}

static void probe_frac_and_chain(probe_ctx *x)
{
    tc_probe_report *r = x->r;
    tc_model_params *f = &r->fit;
    const int E = x->E;
    int smax_p = E - (x->p_lo > x->o_lo ? x->p_lo : x->o_lo);
    int smax_c = E - (x->o_lo > x->c_lo ? x->o_lo : x->c_lo);
    if (smax_p > 150) smax_p = 150;
    if (smax_c > 150) smax_c = 150;
    if (smax_p + smax_c + 2 > BATCH_CAP) smax_c = BATCH_CAP - smax_p - 2;
    bt_reset(x);
    int ip[152], ic[152];
    for (int s = 1; s <= smax_p; s++) {
        const int i = ip[s] = bt_new(x);
        NEED(set_prod(x, i, 0, 0, 1, E) && set_prod(x, i, 1, 1, 1, E) &&
                 set_prod(x, i, 2, 0, 1, E - s),
             "F probe (products)");
    }
    for (int s = 1; s <= smax_c; s++) {
        const int i = ic[s] = bt_new(x);
        NEED(set_prod(x, i, 0, 0, 1, E) && set_prod(x, i, 1, 1, 1, E) && set_c(x, i, 0, 1, E - s),
             "F probe (c)");
    }
    bt_run(x);
    int kp[152] = {0}, kc[152] = {0};
    for (int s = 1; s <= smax_p; s++) kp[s] = d_is(x, ip[s], 0, 1, E - s);
    for (int s = 1; s <= smax_c; s++) kc[s] = d_is(x, ic[s], 0, 1, E - s);
    int dp = first_drop(kp, smax_p);
    const int dc = first_drop(kc, smax_c);
    if (dp == 0 && smax_p >= 1) dp = scan_block0(x, smax_p);
    if (dp < 0 || dc < 0) {
        problem(x, "F probe: a small term survives after a smaller shift lost it");
        return;
    }
    r->frac_limit = smax_p > smax_c ? smax_p : smax_c;
    if (dp > 0) {
        f->frac_bits = dp - 1;
        r->frac_by = 0;
        if (dc == dp) {
            f->chain = TC_CHAIN_FUSED;
        } else if (dc == 0) {
            f->chain = TC_CHAIN_ADD; /* or c after the blocks: probe_c_after */
            x->c_open = 1;
        } else {
            problem(x, "F probe: products are cut after %d bits, c after %d", dp - 1, dc - 1);
            return;
        }
        r->obs_chain = TC_OBS_YES;
    } else if (dc > 0) {
        /* the products' range was too small, or products 0..2 are not in one block: c shows
         * the cut, so c enters the alignment. Block size 1 (c and product 0 alone, like an FMA)
         * would show the rounding of 2^E + x to the chain format instead: c = 2^E, 2^E - 2^E
         * in products 0, 1 and x in product 1 tells (x survives only in a block of its own). */
        f->chain = TC_CHAIN_FUSED;
        r->frac_by = 1;
        r->obs_chain = TC_OBS_YES;
        x->small_by_c = 1;
        bt_reset(x);
        const int i = bt_new(x);
        NEED(set_c(x, i, 0, 1, E) && set_prod(x, i, 0, 1, 1, E), "block-1 probe");
        const int testable = set_prod(x, i, 1, 0, 1, E - dc); /* else assume block >= 2 */
        if (testable) bt_run(x);
        if (testable && d_is(x, i, 0, 1, E - dc)) {
            f->block = 1;
            r->obs_block = TC_OBS_YES;
            /* below the chain format's precision the cut is the alignment's; at or above it
             * the rounding to the chain format hides F: take it as exact */
            f->frac_bits = dc - 1 < tc_fmt_get(f->chain_fmt)->p - 1 ? dc - 1 : TC_FRAC_EXACT;
            if (f->frac_bits >= TC_FRAC_EXACT) r->frac_by = 2;
        } else {
            f->frac_bits = dc - 1;
        }
    } else {
        f->frac_bits = TC_FRAC_EXACT;
        r->frac_by = 2;
        /* exact alignment: c = -2^E, 2^E + 2^(E-g) in one block. A fused block keeps the small
         * product; a block summed alone and rounded to f32 first loses it (g > 24). */
        int g = E - (x->p_lo > x->o_lo ? x->p_lo : x->o_lo);
        if (g > 26) g = 26;
        bt_reset(x);
        const int i = bt_new(x);
        NEED(set_c(x, i, 1, 1, E) && set_prod(x, i, 0, 0, 1, E) && set_prod(x, i, 1, 0, 1, E - g),
             "chain probe (exact)");
        bt_run(x);
        f->chain = d_is(x, i, 0, 1, E - g) ? TC_CHAIN_FUSED : TC_CHAIN_ADD;
        x->c_open = f->chain == TC_CHAIN_ADD;
        r->obs_chain = TC_OBS_YES;
    }
    r->obs_frac = TC_OBS_YES;
}

/* A small-term experiment: 2^E' (as `big_*`) - the same + x, with x as c or as the third
 * product of block 0 (product 2 when blocks are contiguous). Adds the dot to the batch and
 * returns its index (-1 on failure). */
static int small_term(probe_ctx *x, uint64_t big_m, int big_e, int neg, uint64_t xm, int xe)
{
    const int i = bt_new(x);
    if (i < 0) return -1;
    /* the big pair as (1.5 * 1.5)-style products when big_m is a square of an odd number */
    int ok;
    if (big_m == 9) { /* (3 * 2^e1)(3 * 2^e2) = 9 * 2^(e1+e2): two 2-bit numbers */
        const int e1 = big_e / 2, e2 = big_e - e1;
        ok = 1;
        x->a[(size_t)i * x->k] = enc_in(x, 0, 3, e1, &ok);
        x->b[(size_t)i * x->k] = enc_in(x, 0, 3, e2, &ok);
        x->a[(size_t)i * x->k + 1] = enc_in(x, 1, 3, e1, &ok);
        x->b[(size_t)i * x->k + 1] = enc_in(x, 0, 3, e2, &ok);
    } else {
        ok = set_prod(x, i, 0, 0, big_m, big_e) && set_prod(x, i, 1, 1, big_m, big_e);
    }
    if (x->small_by_c)
        ok = ok && set_c(x, i, neg, xm, xe);
    else
        ok = ok && set_prod(x, i, at0(x, 2), neg, xm, xe);
    return ok ? i : -1;
}

/* ---- 4. alignment exponent and rounding ---------------------------------------------------- */
static void probe_align(probe_ctx *x)
{
    tc_probe_report *r = x->r;
    tc_model_params *f = &r->fit;
    const int E = x->E, F = f->frac_bits;
    bt_reset(x);
    /* ref: 9 * 2^(E-3) = 2.25 * 2^(E-1) = (1.5 * 2^e1)(1.5 * 2^e2), e1 + e2 = E - 1: exponent
     * sum E-1, value exponent E */
    const int i_ref = small_term(x, 9, E - 3, 0, 1, E - 1 - F);
    /* rounding: x = +-7 q/4 and +-10 q/4, q = 2^(E-F) */
    static const int ms[4] = {7, -7, 10, -10};
    int ir[4];
    for (int t = 0; t < 4; t++)
        ir[t] = small_term(x, 1, E, ms[t] < 0, (uint64_t)abs(ms[t]), E - F - 2);
    if (i_ref < 0 || ir[0] < 0 || ir[1] < 0 || ir[2] < 0 || ir[3] < 0) {
        problem(x, "internal: alignment probe vectors not representable");
        return;
    }
    bt_run(x);
    if (d_is(x, i_ref, 0, 1, E - 1 - F)) {
        f->align_ref = TC_REF_EXP_SUM;
        r->obs_ref = TC_OBS_YES;
    } else if (d_is(x, i_ref, 0, 0, 0) || d_is(x, i_ref, 0, 1, E - F)) {
        /* x is half a quantum: cut to 0, or rounded up to one quantum (RU, RNA) */
        f->align_ref = TC_REF_VALUE;
        r->obs_ref = TC_OBS_YES;
    } else {
        problem(x, "alignment exponent: 2.25*2^%d - same + 2^%d gave %g", E - 1, E - 1 - F,
                tc_fmt_to_double(x->box->out, x->d[i_ref]));
    }
    /* in units of q: what each rounding leaves of 1.75, -1.75, 2.5, -2.5 */
    static const long want[TC_ROUND_COUNT][4] = {
        {1, -1, 2, -2}, /* RZ */
        {2, -2, 2, -2}, /* RNE */
        {2, -2, 3, -3}, /* RNA */
        {1, -2, 2, -3}, /* RD */
        {2, -1, 3, -2}, /* RU */
    };
    long got[4];
    for (int t = 0; t < 4; t++) got[t] = d_units(x, ir[t], E - F);
    int found = -1;
    for (int m = 0; m < TC_ROUND_COUNT && found < 0; m++)
        if (!memcmp(want[m], got, sizeof got)) found = m;
    if (found >= 0) {
        f->align_round = (tc_round)found;
        r->obs_align_round = TC_OBS_YES;
    } else {
        problem(x, "alignment rounding: 1.75q, -1.75q, 2.5q, -2.5q became %ld, %ld, %ld, %ld q",
                got[0], got[1], got[2], got[3]);
    }
}

/* ---- 5. block size and layout -------------------------------------------------------------- */
/* kept[l] (l = 1 .. k-1): position l is in another block than position 0. Block 0 must be one
 * of the model's layouts: positions 0 .. B-1, or runs of g dealt to the blocks in turn (g, the
 * first position outside it). Sets block and interleave; 0 and a problem otherwise. */
static int layout_from_block0(probe_ctx *x, const int *kept)
{
    tc_probe_report *r = x->r;
    tc_model_params *f = &r->fit;
    const int k = x->k;
    int B = 1, g = 0;
    uint64_t mask = 1u;
    for (int l = 1; l < k; l++)
        if (!kept[l]) B++, mask |= 1ull << l;
    for (int l = 1; l < k && !g; l++)
        if (kept[l]) g = l;
    r->block0_mask = mask;
    if (k % B) {
        problem(x, "block probe: block 0 holds %d products, which does not divide k = %d", B, k);
        return 0;
    }
    tc_model_params t = *f;
    t.block = B;
    t.interleave = g == B || g == 0 ? 0 : g;
    int bad = tc_model_params_check(&t) != 0;
    for (int l = 0; l < k && !bad; l++) bad = (tc_model_block_of(&t, l) == 0) == kept[l];
    if (bad) {
        char list[200];
        int len = 0;
        for (int l = 0; l < k && len < (int)sizeof list - 8; l++)
            if (mask >> l & 1u) len += snprintf(list + len, sizeof list - (size_t)len, " %d", l);
        problem(x,
                "block probe: block 0 holds products%s: neither consecutive ones nor runs dealt "
                "to the blocks in turn",
                list);
        return 0;
    }
    f->block = t.block;
    f->interleave = t.interleave;
    r->obs_block = TC_OBS_YES;
    pos0_from_fit(x);
    return 1;
}

static void probe_block(probe_ctx *x)
{
    tc_probe_report *r = x->r;
    tc_model_params *f = &r->fit;
    const int E = x->E, k = x->k, F = f->frac_bits;
    int kept[MAXK + 1] = {0}, idx[MAXK];
    int ok = 0;
    if (F < TC_FRAC_EXACT && x->c_open) {
        /* method P (c is not cut, so it cannot show the cut): the big pair at 0 and 1, x = q/2 at
         * l: cut iff l is in their block (the pair cancels exactly, so a later block holds x
         * alone) */
        ok = 1;
        bt_reset(x);
        for (int l = 2; l < k && ok; l++) {
            const int i = idx[l] = bt_new(x);
            ok = set_prod(x, i, 0, 0, 1, E) && set_prod(x, i, 1, 1, 1, E) &&
                 set_prod(x, i, l, 0, 1, E - F - 1);
        }
        if (ok) {
            bt_run(x);
            for (int l = 2; l < k; l++) kept[l] = d_is(x, idx[l], 0, 1, E - F - 1);
        }
    } else if (F < TC_FRAC_EXACT) {
        /* method T (a cut): c = 2^E, product 0 = -2^E, x = q/2 at l: changed iff l is in block 0 */
        ok = 1;
        bt_reset(x);
        for (int l = 1; l < k && ok; l++) {
            const int i = idx[l] = bt_new(x);
            ok = set_c(x, i, 0, 1, E) && set_prod(x, i, 0, 1, 1, E) &&
                 set_prod(x, i, l, 0, 1, E - F - 1);
        }
        if (ok) {
            bt_run(x);
            for (int l = 1; l < k; l++) kept[l] = d_is(x, idx[l], 0, 1, E - F - 1);
        }
    }
    if (!ok && x->box->out == TC_FMT_F32 && F >= 24) {
        /* method H (no cut within 24 bits): c = 2^E, two half-ulp terms at 0 and l. In one
         * block they make one ulp exactly; in different blocks each is rounded against 2^E on
         * its own (to 2^E, or past 2^E + ulp for RU and RNA) */
        ok = 1;
        bt_reset(x);
        for (int l = 1; l < k && ok; l++) {
            const int i = idx[l] = bt_new(x);
            ok = set_c(x, i, 0, 1, E) && set_prod(x, i, 0, 0, 1, E - 24) &&
                 set_prod(x, i, l, 0, 1, E - 24);
        }
        if (!ok) return;
        bt_run(x);
        for (int l = 1; l < k; l++) kept[l] = !d_is(x, idx[l], 0, (1u << 23) + 1u, E - 23);
    }
    if (!ok) return; /* the block size does not show with these formats */
    if (!layout_from_block0(x, kept)) return;
    /* verify the later blocks: the pair at the first two positions of block j, x at every other
     * position of it (cut) and at the first position of block j+1 (kept) */
    const int B = f->block;
    if (F >= TC_FRAC_EXACT || B < 3 || B == k) return;
    bt_reset(x);
    int vi[MAXK], vwant[MAXK], nv = 0;
    for (int j = 1; j < k / B; j++)
        for (int m = 2; m <= B; m++) {
            const int l = m < B ? block_pos(x, j, m) : block_pos(x, j + 1, 0);
            if (l < 0) continue; /* the last block has no next one */
            const int i = vi[nv] = bt_new(x);
            vwant[nv++] = m == B;
            if (!set_prod(x, i, block_pos(x, j, 0), 0, 1, E) ||
                !set_prod(x, i, block_pos(x, j, 1), 1, 1, E) || !set_prod(x, i, l, 0, 1, E - F - 1))
                return; /* not representable: no verification */
        }
    bt_run(x);
    int bad = 0;
    for (int t = 0; t < nv; t++) bad += d_is(x, vi[t], 0, 1, E - F - 1) != vwant[t];
    r->blocks_verified = bad == 0;
    if (bad) problem(x, "block verification: %d of %d later-block checks failed", bad, nv);
}

/* ---- 6. c added first, or after the blocks --------------------------------------------------
 * c was never cut: it is the accumulator the first block is added to (TC_CHAIN_ADD), or it is
 * added after every block (c_after). c = 2^E, -2^E in block 0 and x = 2^(E-P-1) in the last
 * block: added first, c cancels -2^E and x comes back exactly; added after, c meets the blocks'
 * result, and -2^E + x needs P + 1 bits (x is half an ulp of it): x never comes back. */
static void probe_c_after(probe_ctx *x)
{
    tc_probe_report *r = x->r;
    tc_model_params *f = &r->fit;
    const int E = x->E, s = x->fo->p + 1;
    if (!x->c_open || !r->obs_block) return; /* undecided: the elimination tries both */
    x->c_open = 0;
    if (f->block == x->k) return; /* one block: c after it is TC_CHAIN_ADD */
    bt_reset(x);
    const int i = bt_new(x);
    if (!set_c(x, i, 0, 1, E) || !set_prod(x, i, 0, 1, 1, E) ||
        !set_prod(x, i, at_last(x, 0), 0, 1, E - s)) {
        x->c_open = 1;
        return;
    }
    bt_run(x);
    if (d_is(x, i, 0, 1, E - s)) return; /* c first: TC_CHAIN_ADD, as fitted */
    f->c_after = 1;
    x->chain_open = 1; /* c says nothing about the chain now: probe_inside decides it */
    r->obs_chain = TC_OBS_NOT;
}

/* ---- 7. chain between blocks, per-addend cut, one alignment per block ----------------------- */
static void probe_inside(probe_ctx *x)
{
    tc_probe_report *r = x->r;
    tc_model_params *f = &r->fit;
    if (f->frac_bits >= TC_FRAC_EXACT) return;
    const int E = x->E, F = f->frac_bits, k = x->k, B = f->block, h = E - F - 1;
    bt_reset(x);
    /* chain: x alone in block 0, the pair in block 1: fused cuts x, add keeps it */
    int i_chain = -1;
    if (B < k && B >= 2) {
        i_chain = bt_new(x);
        if (!set_prod(x, i_chain, 0, 0, 1, h) ||
            !set_prod(x, i_chain, block_pos(x, 1, 0), 0, 1, E) ||
            !set_prod(x, i_chain, block_pos(x, 1, 1), 1, 1, E))
            x->n--, i_chain = -1;
    }
    /* per addend: two x = q/2 next to the pair */
    int i_pa = -1;
    if ((x->small_by_c && B >= 3) || (!x->small_by_c && B >= 4)) {
        i_pa = bt_new(x);
        int ok = set_prod(x, i_pa, 0, 0, 1, E) && set_prod(x, i_pa, 1, 1, 1, E) &&
                 set_prod(x, i_pa, at0(x, 2), 0, 1, h);
        ok =
            ok && (x->small_by_c ? set_c(x, i_pa, 0, 1, h) : set_prod(x, i_pa, at0(x, 3), 0, 1, h));
        if (!ok) x->n--, i_pa = -1;
    }
    /* one alignment: the three terms in other orders */
    int i_ord[2] = {-1, -1};
    if (!x->small_by_c && B >= 3) {
        static const int order[2][3] = {{2, 0, 1}, {0, 2, 1}}; /* positions of big, -big, x */
        for (int o = 0; o < 2; o++) {
            const int i = i_ord[o] = bt_new(x);
            if (!set_prod(x, i, at0(x, order[o][0]), 0, 1, E) ||
                !set_prod(x, i, at0(x, order[o][1]), 1, 1, E) ||
                !set_prod(x, i, at0(x, order[o][2]), 0, 1, h))
                x->n--, i_ord[o] = -1;
        }
    }
    if (!x->n) return;
    bt_run(x);
    if (i_chain >= 0) {
        /* x = q/2 alone in block 0 is exact; cut against the pair of block 1 it changes */
        const int add = d_is(x, i_chain, 0, 1, h);
        if (x->chain_open) { /* c after the blocks: this decides the chain */
            f->chain = add ? TC_CHAIN_ADD : TC_CHAIN_FUSED;
            r->obs_chain = TC_OBS_YES;
            x->chain_open = 0;
        } else if (add != (f->chain == TC_CHAIN_ADD)) {
            problem(x, "chain: block 0's result is %s by block 1, but c %s", add ? "kept" : "cut",
                    f->chain == TC_CHAIN_FUSED ? "is cut" : "is not");
        }
    }
    if (i_pa >= 0) {
        /* each cut alone: 0 or 2q (RU, RNA); the sum cut once: exactly q */
        const long u = d_units(x, i_pa, E - F);
        if (u == 0 || u == 2) {
            r->per_addend = 1;
        } else {
            r->per_addend = 0;
            if (u == LONG_MIN) /* d_units: not a whole number of quanta (or not finite) */
                problem(x, "two half-quantum terms gave no whole number of quanta: the cut is not "
                           "per addend");
            else
                problem(x, "two half-quantum terms gave %ld quanta: the cut is not per addend", u);
        }
    }
    if (i_ord[0] >= 0 && i_ord[1] >= 0) {
        r->one_alignment = !d_is(x, i_ord[0], 0, 1, h) && x->d[i_ord[0]] == x->d[i_ord[1]];
        if (!r->one_alignment)
            problem(x, "order inside a block matters: the block is not one alignment");
    }
}

/* ---- 8. exact products --------------------------------------------------------------------- */
static void probe_products(probe_ctx *x)
{
    tc_probe_report *r = x->r;
    const tc_model_params *f = &r->fit;
    const int p = x->fi->p, E = x->E;
    r->prod_exact = -1;
    if (f->frac_bits < 2 * (p - 1) || E - 2 * (p - 1) < x->o_lo) return;
    /* (1 + u)^2 2^E - (1 + 2u) 2^E = u^2 2^E, u = 2^(1-p) */
    bt_reset(x);
    const int i = bt_new(x);
    const int e1 = E / 2, e2 = E - e1;
    int ok = 1;
    const uint64_t one_u = (1ull << (p - 1)) + 1u; /* (1 + u) 2^(p-1) */
    x->a[(size_t)i * x->k] = enc_in(x, 0, one_u, e1 - (p - 1), &ok);
    x->b[(size_t)i * x->k] = enc_in(x, 0, one_u, e2 - (p - 1), &ok);
    NEED(ok && set_prod(x, i, 1, 1, (1ull << (p - 2)) + 1u, E - (p - 2)), "product probe");
    bt_run(x);
    if (d_is(x, i, 0, 1, E - 2 * (p - 1))) {
        r->prod_exact = 1;
    } else {
        r->prod_exact = 0;
        problem(x, "products are not exact: (1+u)^2 - (1+2u) gave %g instead of u^2",
                tc_fmt_to_double(x->box->out, x->d[i]));
    }
}

/* ---- 9, 10. output, chain and c rounding --------------------------------------------------- */
/* The four dots idx[] make +-2^(E+1) + (1/2, 3/2, -1/2, -3/2) ulp of a P-bit format: the
 * rounding whose results they show, in *found (-1 and a problem when none) */
static void read_round(probe_ctx *x, const int *idx, int P, int *found)
{
    const int E = x->E;
    /* excess over 2^(E+1) in ulps of 2^(E+1) = 2^(E+2-P), with sign */
    static const long want[TC_ROUND_COUNT][4] = {
        {0, 1, 0, -1},  /* RZ */
        {0, 2, 0, -2},  /* RNE */
        {1, 2, -1, -2}, /* RNA */
        {0, 1, -1, -2}, /* RD */
        {1, 2, 0, -1},  /* RU */
    };
    long got[4];
    const long base = 1L << (P - 1); /* 2^(E+1) in ulps */
    for (int t = 0; t < 4; t++) {
        long u = d_units(x, idx[t], E + 2 - P);
        got[t] = u == LONG_MIN ? LONG_MIN : (u >= 0 ? u - base : u + base);
    }
    for (int m = 0; m < TC_ROUND_COUNT; m++)
        if (!memcmp(want[m], got, sizeof got)) {
            *found = m;
            return;
        }
    problem(x, "rounding of 2^(E+1) + (1/2, 3/2, -1/2, -3/2) ulp gave %ld, %ld, %ld, %ld ulp",
            got[0], got[1], got[2], got[3]);
}

static const int carry_ks[4] = {1, 3, -1, -3};

/* c = +-2^E (1 + k 2^(1-P)) and +-2^E at position pos: 2^(E+1) + k/2 ulp; returns 0 when the
 * vectors are not representable, else 1 with the rounding in *found (-1: none) */
static int round_by_carry(probe_ctx *x, int pos, tc_fmt fmt, int *found)
{
    const int P = tc_fmt_get(fmt)->p, E = x->E;
    int idx[4];
    bt_reset(x);
    for (int t = 0; t < 4; t++) {
        const int neg = carry_ks[t] < 0, kk = abs(carry_ks[t]);
        const int i = idx[t] = bt_new(x);
        if (!set_c(x, i, neg, (1ull << (P - 1)) + (uint64_t)kk, E - (P - 1)) ||
            !set_prod(x, i, pos, neg, 1, E))
            return 0;
    }
    bt_run(x);
    read_round(x, idx, P, found);
    return 1;
}

/* The same sum from three products of block j, c = 0: +-(2^E + 2^E + k 2^(E+1-P)). The
 * rounding of block j's sum (to a P-bit format) shows when nothing after it rounds again:
 * c added after the blocks, or the fitted block j is the last. Needs F >= P - 1. */
static int round_by_products(probe_ctx *x, int j, tc_fmt fmt, int *found)
{
    const int P = tc_fmt_get(fmt)->p, E = x->E;
    int idx[4];
    if (block_pos(x, j, 2) < 0) return 0;
    bt_reset(x);
    for (int t = 0; t < 4; t++) {
        const int neg = carry_ks[t] < 0, kk = abs(carry_ks[t]);
        const int i = idx[t] = bt_new(x);
        if (!set_prod(x, i, block_pos(x, j, 0), neg, 1, E) ||
            !set_prod(x, i, block_pos(x, j, 1), neg, 1, E) ||
            !set_prod(x, i, block_pos(x, j, 2), neg, (uint64_t)kk, E + 1 - P))
            return 0;
    }
    bt_run(x);
    read_round(x, idx, P, found);
    return 1;
}

/* the candidates that agree with the box on every dot of the batch */
static int eliminate(probe_ctx *x, tc_model_params *cand, int n, int *alive)
{
    int count = 0;
    for (int j = 0; j < n; j++) {
        alive[j] = 1;
        for (int i = 0; i < x->n && alive[j]; i++) {
            const uint32_t m = tc_model_dot(&cand[j], x->a + (size_t)i * x->k,
                                            x->b + (size_t)i * x->k, x->k, x->c[i]);
            const int both_nan =
                tc_fmt_is_nan(x->box->out, m) && tc_fmt_is_nan(x->box->out, x->d[i]);
            if (m != x->d[i] && !both_nan) alive[j] = 0;
        }
        count += alive[j];
    }
    return count;
}

/* ---- 9a. bits kept in a block's result (before the roundings) ----------------------------
 * Sums in the last block (c = +0) that carry past the block's largest exponent, so that they
 * have more significant bits than F + 1, but no more than the output format holds (no rounding
 * to the format acts on them, so the roundings need not be known yet). Two batches:
 *   sparse  2^j products of 2^E' (j = 0, 1, ...) and m 2^(E'-s) (m = 1 or 3, s <= F: nothing is
 *           cut in the alignment), both signs: W = j + s + 1 significant bits (leading bit E' + j,
 *           lowest E' - s), every W from 2 up. m = 3 (two low bits) tells a truncation from a
 *           rounding to nearest or up, which no member of the family does.
 *   dense   n products of the largest significands, (2 - u)^2 2^E' (close to 4 times the
 *           alignment exponent), n up to the block's size, and 2^(E'-s) or nothing: the widest sums
 *           a block can make. Kept only where the model without a cut rounds neither up nor down
 *           (RD and RU agree): the sum fits the output format; W is the bits of that result.
 * The fitted model with every result_bits (0, 2 .. p - 1) predicts each answer; the survivors
 * decide: one P, or 0 together with every P at or above the widest sum made (result_limit: a cut
 * no sum of the format's products shows). The probes before this one read sums of one term's
 * bits (a product, c, a subnormal): a cut below that would show there first, as a problem. */
static int sig_bits(tc_fmt f, uint32_t bits) /* significant bits of a finite non-zero value */
{
    const tc_unpacked u = tc_fmt_decode(f, bits);
    if (u.cls != TC_FINITE) return 0;
    uint64_t m = u.m;
    while (!(m & 1u)) m >>= 1;
    return bitlen(m);
}

/* the product (2^p - 1)^2 2^(E - 2(p-1)) (one less when the format cannot encode it) at pos */
static int set_wide_prod(probe_ctx *x, int i, int pos, int neg, int E)
{
    const int p = x->fi->p, ea = E / 2, eb = E - ea;
    for (uint64_t m = (1ull << p) - 1u; m >= (1ull << p) - 2u; m--) {
        int ok = 1;
        const uint32_t a = enc_in(x, neg, m, ea - (p - 1), &ok),
                       b = enc_in(x, 0, m, eb - (p - 1), &ok);
        if (ok) {
            x->a[(size_t)i * x->k + pos] = a;
            x->b[(size_t)i * x->k + pos] = b;
            return 1;
        }
    }
    return 0;
}

static void probe_result_bits(probe_ctx *x)
{
    tc_probe_report *r = x->r;
    tc_model_params *f = &r->fit;
    const int P = x->fo->p, F = f->frac_bits, k = x->k;
    int nlast = 0; /* positions of the last block */
    for (int l = 0; l < k; l++) nlast += tc_model_block_of(f, l) == f->k / f->block - 1;
    if (nlast < 2) return; /* not observable: one product per block */
    tc_model_params cand[64];
    int alive[64], alive_all[64], n = 0;
    for (int rb = 0; rb < P && n < 64; rb += rb ? 1 : 2) {
        cand[n] = *f;
        alive_all[n] = 1;
        cand[n++].result_bits = rb;
    }
    /* the model without a cut, rounding down and up: where they agree, nothing is rounded */
    tc_model_params lo = *f, hi = *f;
    lo.result_bits = hi.result_bits = 0;
    lo.out_round = lo.chain_round = lo.c_round = TC_RD;
    hi.out_round = hi.chain_round = hi.c_round = TC_RU;
    int wmax = 0, dots = 0;
    for (int batch = 0; batch < 2; batch++) {
        bt_reset(x);
        if (batch == 0) { /* sparse */
            for (int j = 0; (1 << j) < nlast && j <= 6; j++) {
                const int Ej = x->E < x->fo->emax - j ? x->E : x->fo->emax - j; /* finite */
                for (int sh = 1; j + sh + 1 <= P && (F >= TC_FRAC_EXACT || sh <= F); sh++)
                    for (int m = 1; m <= 3; m += 2)
                        for (int neg = 0; neg < 2 && (m == 1 || sh >= 2); neg++) {
                            const int i = bt_new(x);
                            if (i < 0) break;
                            int ok = 1;
                            for (int t = 0; t < (1 << j) && ok; t++)
                                ok = set_prod(x, i, at_last(x, t), neg, 1, Ej);
                            if (!ok ||
                                !set_prod(x, i, at_last(x, 1 << j), neg, (uint64_t)m, Ej - sh))
                                x->n--;
                        }
            }
        } else { /* dense: n wide products, n = the whole block, half of it, ..., 1 */
            int Ed = x->E, room = 2;
            while ((1 << room) < 4 * nlast) room++;
            if (Ed > x->fo->emax - room) Ed = x->fo->emax - room;
            const int smax = F < P + 2 ? F : P + 2; /* deeper: too wide for the format */
            for (int nb = nlast; nb >= 1; nb /= 2)
                for (int sh = 0; sh <= smax; sh++)
                    for (int neg = 0; neg < 2; neg++) {
                        const int nw = sh && nb == nlast ? nb - 1 : nb;
                        const int i = bt_new(x);
                        if (i < 0) break;
                        int ok = nw >= 1;
                        for (int t = 0; t < nw && ok; t++)
                            ok = set_wide_prod(x, i, at_last(x, t), neg, Ed);
                        if (ok && sh) ok = set_prod(x, i, at_last(x, nw), neg, 1, Ed - sh);
                        const uint32_t *a = x->a + (size_t)i * k, *b = x->b + (size_t)i * k;
                        if (ok) {
                            const uint32_t dl = tc_model_dot(&lo, a, b, k, x->c[i]);
                            ok = dl == tc_model_dot(&hi, a, b, k, x->c[i]) &&
                                 sig_bits(x->box->out, dl) > 0;
                        }
                        if (!ok) x->n--;
                    }
        }
        if (!x->n) continue;
        for (int i = 0; i < x->n; i++) { /* the widest sum made (the model without a cut) */
            const uint32_t d0 =
                tc_model_dot(&cand[0], x->a + (size_t)i * k, x->b + (size_t)i * k, k, x->c[i]);
            const int w = sig_bits(x->box->out, d0);
            if (w > wmax) wmax = w;
        }
        bt_run(x);
        dots += x->n;
        eliminate(x, cand, n, alive);
        for (int j = 0; j < n; j++) alive_all[j] &= alive[j];
    }
    r->result_limit = wmax;
    if (!dots) return; /* not observable: no such sum representable */
    int pick = -1;
    for (int j = 0; j < n && pick < 0; j++) /* 0 (no cut) first, then the fewest bits */
        if (alive_all[j]) pick = j;
    if (pick < 0) {
        problem(x,
                "a block's result: no number of bits kept (truncated) predicts the sums of up "
                "to %d bits that carry past the largest exponent",
                wmax);
        return;
    }
    f->result_bits = cand[pick].result_bits;
    r->obs_result_bits = TC_OBS_YES;
}

static void probe_rounding(probe_ctx *x)
{
    tc_probe_report *r = x->r;
    tc_model_params *f = &r->fit;
    const int k = x->k;
    const int P = x->fo->p;
    if (f->c_after) {
        /* c + the blocks' result: the carry construction with c shows c_round; the blocks
         * (fused: block 0's result enters the last block unchanged when F >= P - 1) show
         * theirs with products only */
        int found = -1;
        if (round_by_carry(x, at_last(x, 0), x->box->out, &found) && found >= 0) {
            f->c_round = (tc_round)found;
            r->obs_c_round = TC_OBS_YES;
        }
        if (f->chain != TC_CHAIN_FUSED || x->chain_open || f->frac_bits < P - 1 || f->result_bits)
            return;
        found = -1;
        if (round_by_products(x, k / f->block - 1, x->box->out, &found) && found >= 0) {
            f->out_round = (tc_round)found;
            r->obs_out_round = TC_OBS_YES;
        }
        found = -1;
        if (x->box->out == TC_FMT_F32 && round_by_products(x, 0, TC_FMT_F32, &found) &&
            found >= 0) {
            f->chain_round = (tc_round)found;
            r->obs_chain_round = TC_OBS_YES;
        }
        return;
    }
    /* the carry construction needs c's P bits to survive the alignment (or c outside it), and
     * the block's result not cut to fewer bits (then nothing is left to round) */
    const int visible = (f->chain == TC_CHAIN_ADD || f->frac_bits >= P - 1) && !f->result_bits;
    int found = -1;
    if (visible) {
        if (!round_by_carry(x, k - 1, x->box->out, &found)) {
            problem(x, "internal: rounding probe not representable");
            return;
        }
        if (found >= 0) {
            f->out_round = (tc_round)found;
            r->obs_out_round = TC_OBS_YES;
        }
        if (x->box->out == TC_FMT_F32 && f->block < k) {
            found = -1;
            if (round_by_carry(x, 0, TC_FMT_F32, &found) && found >= 0) {
                f->chain_round = (tc_round)found;
                r->obs_chain_round = TC_OBS_YES;
            }
        }
    }
}

/* ---- 10b. the sign of a tiny sum rounded to zero ------------------------------------------
 * The dots of the tiny-zero probe, appended to the batch: t = 2^(s-2), a quarter of the output's
 * smallest subnormal 2^s, so that every rounding but RD makes a zero of -t. -t alone in the last
 * block; 2^s - 1.5 2^(s-1) - 2^(s-1) = -t there, whose largest addend is positive (a zero that
 * took the sign of the largest addend, not of the sum, shows as a mismatch); -t alone in block 0,
 * whose zero enters the next block (two blocks or more). Each once with c and every other product
 * +0 and once with them -0: with c after the blocks, c = -0 is what lets the blocks' zero show
 * (-0 + -0 = -0, +0 + -0 = +0), and -0 products keep a zero block from turning a -0 into +0.
 * A dot a format cannot make is left out (FP8 or f16 products never reach below f32's range). */
static void tiny_batch(probe_ctx *x)
{
    const int s = x->fo->emin - x->fo->frac_bits, k = x->k;
    const int nblocks = x->k / x->r->fit.block;
    const uint32_t a_neg0 = 1u << (x->fi->storage_bits - 1);
    const uint32_t c_neg0 = 1u << (x->fo->storage_bits - 1);
    for (int zneg = 0; zneg < 2; zneg++)
        for (int v = 0; v < 3; v++) {
            if (v == 2 && nblocks < 2) continue;
            const int i = bt_new(x);
            if (i < 0) return;
            if (zneg) {
                x->c[i] = c_neg0;
                for (int l = 0; l < k; l++) x->a[(size_t)i * k + l] = a_neg0; /* -0 * +0 */
            }
            int ok;
            if (v == 0)
                ok = set_prod(x, i, at_last(x, 0), 1, 1, s - 2);
            else if (v == 1)
                ok = set_prod(x, i, at_last(x, 0), 0, 1, s) &&
                     set_prod(x, i, at_last(x, 1), 1, 3, s - 2) &&
                     set_prod(x, i, at_last(x, 2), 1, 1, s - 1);
            else
                ok = set_prod(x, i, at0(x, 0), 1, 1, s - 2);
            if (!ok) x->n--;
        }
}

/* The tiny sums against the fitted model with either tiny_zero: no difference in the
 * predictions, not observable (the inputs cannot make such a sum, or RD rounds it away from
 * zero); one of them predicts every answer, decided, provided the roundings that make and carry
 * the zero are known (else the elimination decides, with these dots in its batch); neither, a
 * problem (or the elimination, when the roundings are not known). */
static void probe_tiny_zero(probe_ctx *x)
{
    tc_probe_report *r = x->r;
    tc_model_params *f = &r->fit;
    bt_reset(x);
    tiny_batch(x);
    if (!x->n) return;
    bt_run(x);
    int differ = 0, fits[2] = {1, 1};
    char got[160] = "";
    for (int i = 0; i < x->n; i++) {
        const uint32_t *a = x->a + (size_t)i * x->k, *b = x->b + (size_t)i * x->k;
        uint32_t pred[2];
        for (int tz = 0; tz < 2; tz++) {
            tc_model_params cand = *f;
            cand.tiny_zero = (tc_tiny_zero)tz;
            pred[tz] = tc_model_dot(&cand, a, b, x->k, x->c[i]);
            fits[tz] &= pred[tz] == x->d[i];
        }
        differ |= pred[0] != pred[1];
        const size_t len = strlen(got);
        snprintf(got + len, sizeof got - len, "%s%g", i ? ", " : "",
                 tc_fmt_to_double(x->box->out, x->d[i]));
    }
    if (!differ) return; /* not observable: the default stays */
    const int known = r->obs_out_round && (f->block == x->k || r->obs_chain_round) &&
                      (!f->c_after || r->obs_c_round) && !x->c_open && !x->chain_open;
    if (known && fits[0] != fits[1]) {
        f->tiny_zero = fits[1] ? TC_TINY_POS : TC_TINY_SIGNED;
        r->obs_tiny_zero = TC_OBS_YES;
    } else if (known && !fits[0]) {
        problem(x,
                "tiny negative sums rounded to zero gave %s: neither IEEE's sign nor always +0 "
                "predicts them",
                got);
    } else {
        x->tz_open = 1;
    }
}

/* ---- 11. what the crafted probes could not isolate: elimination ---------------------------
 * The fields still undecided (the output and chain rounding when no sum is long enough to show
 * them directly, overflow, subnormal results, and for f16 outputs the chain format and the
 * pre-rounding to f32; the sign of a tiny zero when the roundings were not known) take every
 * combination of values; each combination predicts the box's answer on a batch of dot products
 * (crafted overflows, tiny sums and f16 ties, then random ones of every distribution) with the
 * model, and only the combinations that predict every answer survive. A field on which all
 * survivors agree is decided; otherwise the simplest survivor is taken (those differ only on
 * inputs the batch did not reach). */
static int simplicity(const tc_model_params *c, const tc_model_params *d)
{
    return 16 * (c->chain_round == c->out_round) + 8 * (c->out_round == d->out_round) +
           4 * (c->chain_fmt == TC_FMT_F32) + 2 * (c->out_via_f32 == 0) + (c->ovf_inf == 0) +
           (c->sub_out == TC_SUB_KEEP) + (c->sub_c == TC_SUB_KEEP) + (c->c_after == 0) +
           (c->c_round == TC_RNE) + (c->tiny_zero == TC_TINY_SIGNED);
}

enum { N_ELIM_MAX = 2048, ELIM_ROUNDS = 3 };

/* The elimination batch of round `round`: the tiny sums (only while tiny_zero is open), crafted
 * overflows, carries and f16 ties, sums that fill the kept bits (so that the roundings act), then
 * random dot products. */
static void elimination_batch(probe_ctx *x, int round)
{
    const tc_model_params *f = &x->r->fit;
    const int f16 = x->box->out == TC_FMT_F16, k = x->k, P = x->fo->p;
    tc_rng rng;
    tc_rng_seed(&rng, 0x08e11u + 7919u * (uint64_t)round);
    bt_reset(x);
    if (x->tz_open) tiny_batch(x); /* only then: the batch stays what it was for the rest */
    /* overflow: +-(2^emax + 2^emax) in the last block, and in block 0 */
    const int t = x->fo->emax;
    for (int neg = 0; neg < 2 && t <= x->p_hi; neg++)
        for (int at = 0; at < 2; at++) {
            const int i = bt_new(x);
            const int p0 = at ? at0(x, 0) : at_last(x, 1), p1 = at ? at0(x, 1) : at_last(x, 0);
            if (!set_prod(x, i, p0, neg, 1, t) || !set_prod(x, i, p1, neg, 1, t)) x->n--;
        }
    /* the carry construction, in the last block and in block 0 */
    for (int at = 0; at < 2; at++)
        for (int kk = -3; kk <= 3; kk += 2) {
            const int i = bt_new(x);
            if (!set_c(x, i, kk < 0, (1ull << (P - 1)) + (uint64_t)abs(kk), x->E - (P - 1)) ||
                !set_prod(x, i, at ? 0 : at_last(x, 0), kk < 0, 1, x->E))
                x->n--;
        }
    /* full sums: c with as many bits as survive the cut, plus a few products a few binades
     * around it, so that the sum carries past the kept width and must be rounded */
    const int nb = f->frac_bits + 1 < P ? f->frac_bits + 1 : P, Ec = x->E - 3;
    for (int v = 0; v < 96; v++) {
        const int i = bt_new(x);
        const uint64_t m = (1ull << (nb - 1)) | (tc_rng_next_u64(&rng) >> (65 - nb)) | 1u;
        int ok = set_c(x, i, (int)(tc_rng_next_u64(&rng) & 1u), m, Ec - nb + 1);
        const int terms = 1 + (int)(tc_rng_next_u64(&rng) % 3u);
        for (int q = 0; q < terms && ok; q++) {
            const int pos = (int)(tc_rng_next_u64(&rng) % (uint64_t)k);
            const uint64_t pm = 1u + 2u * (tc_rng_next_u64(&rng) % 4u);
            const int pe = Ec - 3 + (int)(tc_rng_next_u64(&rng) % 5u);
            ok = set_prod(x, i, pos, (int)(tc_rng_next_u64(&rng) & 1u), pm, pe);
        }
        if (!ok) x->n--;
    }
    /* long sums: every product large and mostly positive, so that the sum carries several
     * binades above the largest product and its low bits meet the output's rounding */
    const int El = Ec < x->fo->emax - 8 ? Ec : x->fo->emax - 8; /* k * 2 * 2^El must fit */
    for (int v = 0; v < 64; v++) {
        const int i = bt_new(x);
        const uint64_t m = (1ull << (nb - 1)) | (tc_rng_next_u64(&rng) >> (65 - nb)) | 1u;
        int ok = set_c(x, i, 0, m, El - nb + 1);
        for (int pos = 0; pos < k && ok; pos++) { /* 1.25 or 1.75 times 2^El or 2^(El-1) */
            const uint64_t pm = 5u + 2u * (tc_rng_next_u64(&rng) % 2u);
            const int neg = (tc_rng_next_u64(&rng) % 16u) == 0;
            ok = set_prod(x, i, pos, neg, pm, El - 2 - (int)(tc_rng_next_u64(&rng) % 4u == 0));
        }
        if (!ok) x->n--;
    }
    /* c after the blocks: long sums from products alone, a quarter of them small ones at the
     * bottom of the kept window, so that the blocks' sums have more bits than a result holds */
    const int Fw = f->frac_bits < TC_FRAC_EXACT ? f->frac_bits : P;
    for (int v = 0; f->c_after && v < 64; v++) {
        const int i = bt_new(x);
        int ok = 1;
        for (int pos = 0; pos < k && ok; pos++) {
            const int low = tc_rng_next_u64(&rng) % 4u == 0, j = (int)(tc_rng_next_u64(&rng) % 4u);
            const uint64_t pm = (low ? 1u : 5u) + 2u * (tc_rng_next_u64(&rng) % 2u);
            const int neg = (tc_rng_next_u64(&rng) % 16u) == 0;
            ok = set_prod(x, i, pos, neg, pm, low ? El - Fw + j : El - 2 - (j == 0));
        }
        if (!ok) x->n--;
    }
    /* the subnormal probe could not tell a flushed c from a flushed result: c alone, and a
     * product whose value is subnormal in the output */
    if (!x->r->obs_sub_c || !x->r->obs_sub_out) {
        int i = bt_new(x);
        if (!set_c(x, i, 0, 1, x->fo->emin - 1)) x->n--;
        i = bt_new(x);
        if (!set_prod(x, i, 0, 0, 1, x->fo->emin - 2)) x->n--;
    }
    /* f16: 2^E' + (terms in block 0) + (terms in the last block), relative to 2^E': block-0
     * sums with bits beyond f16 and beyond f32, final sums on or near f16 ties */
    static const struct {
        int n;
        int m[2], e[2];
    } head[] = {{0, {0, 0}, {0, 0}},   {1, {1, 0}, {-12, 0}},  {2, {1, 1}, {-12, -24}},
                {1, {3, 0}, {-24, 0}}, {1, {1, 0}, {-25, 0}},  {1, {-1, 0}, {-25, 0}},
                {1, {5, 0}, {-26, 0}}, {1, {-3, 0}, {-24, 0}}, {2, {1, 1}, {-23, -24}}},
      tail[] = {{1, {1, 0}, {-11, 0}},   {2, {1, -1}, {-11, -23}}, {2, {1, 1}, {-11, -24}},
                {2, {1, 1}, {-11, -25}}, {1, {-1, 0}, {-12, 0}},   {2, {1, -1}, {-11, -25}},
                {1, {3, 0}, {-12, 0}},   {2, {1, 1}, {-10, -24}}};
    const int Es = x->fo->emax - 2;
    for (size_t u = 0; f16 && round == 0 && u < sizeof head / sizeof head[0]; u++)
        for (size_t w = 0; w < sizeof tail / sizeof tail[0]; w++)
            for (int neg = 0; neg < 2; neg++) {
                const int i = bt_new(x);
                int ok = set_prod(x, i, 0, neg, 1, Es);
                for (int q = 0; q < head[u].n && ok; q++)
                    ok = set_prod(x, i, at0(x, 1 + q), neg ^ (head[u].m[q] < 0),
                                  (uint64_t)abs(head[u].m[q]), Es + head[u].e[q]);
                for (int q = 0; q < tail[w].n && ok; q++)
                    ok = set_prod(x, i, at_last(x, 1 - q), neg ^ (tail[w].m[q] < 0),
                                  (uint64_t)abs(tail[w].m[q]), Es + tail[w].e[q]);
                if (!ok) x->n--; /* not representable in this format: drop it */
            }
    while (x->n < BATCH_CAP) {
        const int i = bt_new(x);
        tc_random_dot(x->box->in, x->box->out, k, (tc_dist)(i % TC_DIST_COUNT), &rng,
                      x->a + (size_t)i * k, x->b + (size_t)i * k, &x->c[i]);
    }
}

/* Keeps alive[j] only for the candidates that predict the box on up to ELIM_ROUNDS batches
 * (fewer when one candidate is left); returns the number alive. */
static int eliminate_rounds(probe_ctx *x, tc_model_params *cand, int n, int *alive)
{
    int count = n;
    for (int j = 0; j < n; j++) alive[j] = 1;
    for (int round = 0; round < ELIM_ROUNDS && count > 1; round++) {
        elimination_batch(x, round);
        bt_run(x);
        count = 0;
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < x->n && alive[j]; i++) {
                const uint32_t m = tc_model_dot(&cand[j], x->a + (size_t)i * x->k,
                                                x->b + (size_t)i * x->k, x->k, x->c[i]);
                if (m != x->d[i] &&
                    !(tc_fmt_is_nan(x->box->out, m) && tc_fmt_is_nan(x->box->out, x->d[i])))
                    alive[j] = 0;
            }
            count += alive[j];
        }
    }
    if (count == 1 && n == 1) { /* one candidate: still check it once */
        elimination_batch(x, 0);
        bt_run(x);
        count = eliminate(x, cand, 1, alive);
    }
    return count;
}

/* F never cut within the probes' reach: larger F (with both alignment exponents and every
 * alignment rounding, which the crafted probes could not see either) against exact, on random
 * dot products; the rest stays as fitted */
static void refine_frac(probe_ctx *x)
{
    tc_probe_report *r = x->r;
    tc_model_params *f = &r->fit;
    if (r->frac_by != 2 || r->frac_limit >= 60 || f->frac_bits < TC_FRAC_EXACT) return;
    enum { NF = 13, NC = NF * 2 * TC_ROUND_COUNT + 1 };
    tc_model_params cand[NC];
    int alive[NC], n = 0;
    for (int F = r->frac_limit; F < r->frac_limit + NF; F++)
        for (int ref = 0; ref < 2; ref++)
            for (int ar = 0; ar < TC_ROUND_COUNT; ar++) {
                cand[n] = *f;
                cand[n].frac_bits = F;
                cand[n].align_ref = (tc_align_ref)ref;
                cand[n++].align_round = (tc_round)ar;
            }
    cand[n] = *f;
    cand[n++].frac_bits = TC_FRAC_EXACT;
    const int count = eliminate_rounds(x, cand, n, alive);
    if (!count || alive[n - 1]) return; /* exact survives (or nothing does): keep exact */
    int pick = -1, same_ref = 1, same_ar = 1;
    for (int j = n - 2; j >= 0; j--) /* the largest F that survives, RZ and exp-sum first */
        if (alive[j] &&
            (pick < 0 || (cand[j].frac_bits == cand[pick].frac_bits &&
                          cand[j].align_round == TC_RZ && cand[j].align_ref == TC_REF_EXP_SUM)))
            pick = j;
    for (int j = 0; j < n - 1; j++)
        if (alive[j]) {
            same_ref &= cand[j].align_ref == cand[pick].align_ref;
            same_ar &= cand[j].align_round == cand[pick].align_round;
        }
    *f = cand[pick];
    r->frac_by = 3;
    r->obs_ref |= same_ref;
    r->obs_align_round |= same_ar;
}

static void probe_elimination(probe_ctx *x)
{
    refine_frac(x);
    tc_probe_report *r = x->r;
    tc_model_params *f = &r->fit;
    const int f16 = x->box->out == TC_FMT_F16, k = x->k;
    /* the dimensions, outermost first; the block varies fastest of the original seven, and c
     * after the blocks, the chain and c's rounding only when the crafted probes left them open */
    enum { D_OR, D_CR, D_OV, D_SUB, D_CF, D_VIA, D_BL, D_CA, D_CH, D_CRO, D_TZ, ND };
    int n[ND];
    const int n_so = r->obs_sub_out ? 1 : 2, n_sc = r->obs_sub_c ? 1 : 2;
    n[D_OR] = r->obs_out_round ? 1 : TC_ROUND_COUNT;
    n[D_CR] = r->obs_chain_round ? 1 : TC_ROUND_COUNT;
    n[D_OV] = r->obs_ovf ? 1 : 2;
    n[D_SUB] = n_so * n_sc;
    n[D_CF] = f16 && !r->obs_chain_fmt ? 2 : 1;
    n[D_VIA] = f16 && !r->obs_via_f32 ? 2 : 1;
    n[D_CA] = x->c_open ? 2 : 1;
    n[D_CH] = x->chain_open || x->c_open ? 2 : 1;
    n[D_CRO] = (f->c_after || x->c_open) && !r->obs_c_round ? TC_ROUND_COUNT : 1;
    n[D_TZ] = x->tz_open ? 2 : 1;
    int blocks[8];
    n[D_BL] = 0;
    if (r->obs_block)
        blocks[n[D_BL]++] = f->block;
    else
        for (int b = 1; b <= k && n[D_BL] < 8; b *= 2)
            if (k % b == 0) blocks[n[D_BL]++] = b;
    long total = 1;
    for (int d = 0; d < ND; d++) total *= n[d];
    if (total > 2000) total = total / n[D_BL], n[D_BL] = 1, blocks[0] = f->block;
    if (total > N_ELIM_MAX) {
        problem(x, "internal: %ld elimination candidates", total);
        return;
    }
    tc_model_params *cand = (tc_model_params *)malloc(N_ELIM_MAX * sizeof *cand);
    int *alive = (int *)malloc(N_ELIM_MAX * sizeof *alive);
    if (!cand || !alive) {
        problem(x, "out of memory");
        free(cand);
        free(alive);
        return;
    }
    int nc = 0;
    for (long idx = 0; idx < total; idx++) {
        int v[ND];
        long rest = idx;
        for (int d = ND - 1; d >= 0; d--) v[d] = (int)(rest % n[d]), rest /= n[d];
        tc_model_params c = *f;
        if (n[D_OR] > 1) c.out_round = (tc_round)v[D_OR];
        if (n[D_CR] > 1) c.chain_round = (tc_round)v[D_CR];
        if (n[D_OV] > 1) c.ovf_inf = v[D_OV];
        if (n_sc > 1) c.sub_c = v[D_SUB] / n_so ? TC_SUB_FLUSH : TC_SUB_KEEP;
        if (n_so > 1) c.sub_out = v[D_SUB] % n_so ? TC_SUB_FLUSH : TC_SUB_KEEP;
        if (n[D_CF] > 1) c.chain_fmt = v[D_CF] ? TC_FMT_F16 : TC_FMT_F32;
        if (n[D_VIA] > 1) c.out_via_f32 = v[D_VIA];
        c.block = blocks[v[D_BL]];
        if (c.interleave && c.block != f->block) c.interleave = 0;
        if (n[D_CA] > 1) c.c_after = v[D_CA];
        if (n[D_CH] > 1) c.chain = v[D_CH] ? TC_CHAIN_ADD : TC_CHAIN_FUSED;
        if (n[D_CRO] > 1) c.c_round = (tc_round)v[D_CRO];
        if (n[D_TZ] > 1) c.tiny_zero = (tc_tiny_zero)v[D_TZ];
        /* an undecided c is added first (TC_CHAIN_ADD) or after the blocks (either chain) */
        if (x->c_open && !c.c_after && c.chain != TC_CHAIN_ADD) continue;
        if (!c.c_after && n[D_CRO] > 1 && c.c_round != TC_RNE) continue;
        if (tc_model_params_check(&c)) continue; /* not a member (a block too large, ...) */
        cand[nc++] = c;
    }
    int count = eliminate_rounds(x, cand, nc, alive);
    if (!count) {
        problem(x,
                "no choice of the rounding, overflow, subnormal-result%s%s fields predicts all "
                "of the crafted and random dot products",
                n[D_BL] > 1 ? ", block" : "", n[D_CA] > 1 || n[D_CH] > 1 ? ", chain" : "");
        free(cand);
        free(alive);
        return;
    }
    int pick = -1;
    for (int j = 0; j < nc; j++)
        if (alive[j] && (pick < 0 || simplicity(&cand[j], f) > simplicity(&cand[pick], f)))
            pick = j;
    int s_or = 1, s_cr = 1, s_ov = 1, s_so = 1, s_sc = 1, s_cf = 1, s_via = 1, s_bl = 1;
    int s_ca = 1, s_ch = 1, s_cro = 1, s_tz = 1;
    for (int j = 0; j < nc; j++) {
        if (!alive[j]) continue;
        s_or &= cand[j].out_round == cand[pick].out_round;
        s_cr &= cand[j].chain_round == cand[pick].chain_round;
        s_ov &= cand[j].ovf_inf == cand[pick].ovf_inf;
        s_so &= cand[j].sub_out == cand[pick].sub_out;
        s_sc &= cand[j].sub_c == cand[pick].sub_c;
        s_cf &= cand[j].chain_fmt == cand[pick].chain_fmt;
        s_via &= cand[j].out_via_f32 == cand[pick].out_via_f32;
        s_bl &= cand[j].block == cand[pick].block;
        s_ca &= cand[j].c_after == cand[pick].c_after;
        s_ch &= cand[j].chain == cand[pick].chain;
        s_cro &= cand[j].c_round == cand[pick].c_round;
        s_tz &= cand[j].tiny_zero == cand[pick].tiny_zero;
    }
    *f = cand[pick];
    r->obs_out_round |= n[D_OR] > 1 && s_or;
    r->obs_chain_round |= n[D_CR] > 1 && s_cr;
    r->obs_ovf |= n[D_OV] > 1 && s_ov;
    r->obs_sub_out |= n_so > 1 && s_so;
    r->obs_sub_c |= n_sc > 1 && s_sc;
    r->obs_chain_fmt |= n[D_CF] > 1 && s_cf;
    r->obs_via_f32 |= n[D_VIA] > 1 && s_via;
    r->obs_block |= n[D_BL] > 1 && s_bl;
    r->obs_chain |= (n[D_CA] > 1 || n[D_CH] > 1) && s_ca && s_ch;
    r->obs_c_round |= n[D_CRO] > 1 && s_cro;
    r->obs_tiny_zero |= n[D_TZ] > 1 && s_tz;
    refine_frac(x);
    free(cand);
    free(alive);
}

/* ---- 12. tf32 operands with low bits -------------------------------------------------------
 * A tf32 operand travels in a 32-bit register with an f32's layout; a program is expected to
 * round it to tf32 first (cvt.rna.tf32.f32), and what the hardware does with 13 low bits it gets
 * anyway is its own business. The probe reports what it does; it is never a fit failure, because
 * the model and the random search only ever use proper tf32 values (low bits zero). One product
 * x * 1, c = 0, the low bits on a or on b: a low bit alone, 3/4 of a tf32 ulp, ties to even and
 * to odd, a negative operand. */
static uint32_t tf32_treat(uint32_t u, int mode) /* 0 trunc, 1 RNE, 2 RNA, 3 all 23 bits */
{
    const uint32_t low = u & 0x1FFFu, base = u & ~0x1FFFu, half = 0x1000u;
    switch (mode) {
    case 0: return base;
    case 1: return low > half || (low == half && (base >> 13 & 1u)) ? base + 0x2000u : base;
    case 2: return low >= half ? base + 0x2000u : base;
    default: return u;
    }
}

static void probe_tf32(probe_ctx *x)
{
    tc_probe_report *r = x->r;
    r->tf32_low = -1;
    if (x->box->in != TC_FMT_TF32) return;
    static const struct {
        uint32_t v; /* the operand's f32 bits */
        int on_b;
    } cases[] = {
        {0x3F800001u, 0},            /* 1 + 2^-23 */
        {0x3F800000u | 3u << 11, 0}, /* 1 + 2^-11 + 2^-12: 3/4 ulp */
        {0x3F800000u | 1u << 12, 0}, /* 1 + 2^-11: a tie, the kept part even */
        {0x3F800000u | 3u << 12, 0}, /* 1 + 2^-10 + 2^-11: a tie, the kept part odd */
        {0xBF800000u | 3u << 11, 0}, /* -(1 + 2^-11 + 2^-12) */
        {0x3F800000u | 3u << 11, 1}, /* the same on b */
        {0x3F800000u | 1u << 12, 1},
    };
    enum { NCASE = sizeof cases / sizeof cases[0] };
    int idx[NCASE];
    bt_reset(x);
    for (int t = 0; t < NCASE; t++) {
        const int i = idx[t] = bt_new(x);
        x->a[(size_t)i * x->k] = cases[t].on_b ? 0x3F800000u : cases[t].v;
        x->b[(size_t)i * x->k] = cases[t].on_b ? cases[t].v : 0x3F800000u;
    }
    bt_run(x);
    r->tf32_low = 4; /* none of the four on every case */
    for (int mode = 0; mode < 4 && r->tf32_low == 4; mode++) {
        int all = 1;
        for (int t = 0; t < NCASE && all; t++) all = x->d[idx[t]] == tf32_treat(cases[t].v, mode);
        if (all) r->tf32_low = mode;
    }
}

/* ---- 13. monotonicity in c ----------------------------------------------------------------- */
static void probe_monotone(probe_ctx *x)
{
    tc_probe_report *r = x->r;
    const tc_model_params *f = &r->fit;
    r->monotone = -1;
    if (f->chain != TC_CHAIN_FUSED || f->c_after || f->frac_bits >= TC_FRAC_EXACT) return;
    const int E = x->E, F = f->frac_bits, P = x->fo->p, k = x->k;
    /* c_lo = 2^E - ulp, c_hi = 2^E; every product the same x = m 2^(E-1-F+j): x fits the
     * quantum below 2^E and loses bits above it. Pick the (m, j) the model says loses most. */
    uint32_t c_lo = 0, c_hi = 0;
    if (!tc_fmt_encode(x->box->out, 0, (1ull << P) - 1u, E - P, &c_lo) ||
        !tc_fmt_encode(x->box->out, 0, 1, E, &c_hi))
        return;
    double best = 0;
    int best_m = 0, best_j = 0;
    uint32_t a[MAXK], b[MAXK];
    for (int j = 0; j <= 3; j++)
        for (int m = 1; m <= 7; m += 2) {
            bt_reset(x);
            const int i = bt_new(x);
            int ok = 1;
            for (int l = 0; l < k && ok; l++) ok = set_prod(x, i, l, 0, (uint64_t)m, E - 1 - F + j);
            if (!ok) continue;
            memcpy(a, x->a, (size_t)k * sizeof *a);
            memcpy(b, x->b, (size_t)k * sizeof *b);
            const uint32_t dlo = tc_model_dot(f, a, b, k, c_lo),
                           dhi = tc_model_dot(f, a, b, k, c_hi);
            /* doubles only to choose among candidates; every value here is exact in double */
            const double lo = tc_fmt_to_double(x->box->out, dlo),
                         hi = tc_fmt_to_double(x->box->out, dhi);
            if (lo - hi > best) best = lo - hi, best_m = m, best_j = j;
        }
    if (!best_m) return;
    bt_reset(x);
    const int ilo = bt_new(x), ihi = bt_new(x);
    for (int l = 0; l < k; l++) {
        set_prod(x, ilo, l, 0, (uint64_t)best_m, E - 1 - F + best_j);
        set_prod(x, ihi, l, 0, (uint64_t)best_m, E - 1 - F + best_j);
    }
    x->c[ilo] = c_lo;
    x->c[ihi] = c_hi;
    bt_run(x);
    r->mono_c_lo = c_lo;
    r->mono_c_hi = c_hi;
    r->mono_d_lo = x->d[ilo];
    r->mono_d_hi = x->d[ihi];
    r->mono_xa = x->a[(size_t)ilo * k];
    r->mono_xb = x->b[(size_t)ilo * k];
    r->monotone =
        !(tc_fmt_to_double(x->box->out, x->d[ilo]) > tc_fmt_to_double(x->box->out, x->d[ihi]));
}

/* ---- the runner ---------------------------------------------------------------------------- */
int tc_probe_run(tc_box *box, tc_probe_report *r)
{
    memset(r, 0, sizeof *r);
    r->ok = 1;
    r->per_addend = r->one_alignment = r->blocks_verified = -1;
    r->prod_exact = r->monotone = r->tf32_low = -1;
    tc_model_params_default(&r->fit, box->in, box->out, box->k);
    probe_ctx x;
    memset(&x, 0, sizeof x);
    x.box = box;
    x.r = r;
    x.fi = tc_fmt_get(box->in);
    x.fo = tc_fmt_get(box->out);
    x.k = box->k;
    if (x.k < 8 || x.k > MAXK || box->in > TC_FMT_E5M2 ||
        (box->out != TC_FMT_F32 && box->out != TC_FMT_F16)) {
        snprintf(r->problem, sizeof r->problem, "the probes need k in 8..64 and f32/f16 output");
        r->ok = 0;
        return 0;
    }
    const size_t elems = (size_t)BATCH_CAP * (size_t)x.k;
    x.a = (uint32_t *)calloc(elems, sizeof *x.a);
    x.b = (uint32_t *)calloc(elems, sizeof *x.b);
    x.c = (uint32_t *)calloc(BATCH_CAP, sizeof *x.c);
    x.d = (uint32_t *)calloc(BATCH_CAP, sizeof *x.d);
    if (!x.a || !x.b || !x.c || !x.d) {
        snprintf(r->problem, sizeof r->problem, "out of memory");
        r->ok = 0;
        goto done;
    }
    x.p_lo = 2 * x.fi->emin;
    x.p_hi = 2 * x.fi->emax;
    x.o_lo = x.fo->emin;
    x.c_lo = x.fo->emin;
    /* the big pair: 2^E with room for 2.25 * 2^E and 2^(E+1) + ... below the output's top */
    x.E = x.p_hi < x.fo->emax - 2 ? x.p_hi : x.fo->emax - 2;
    pos0_from_fit(&x); /* one block of k until the probes say otherwise */
    const long dots0 = box->dots;

    probe_sanity(&x);
    if (!r->sane) goto done;
    probe_subnormals(&x);
    probe_frac_and_chain(&x);
    if (r->obs_frac) {
        if (r->fit.frac_bits < TC_FRAC_EXACT) probe_align(&x);
        probe_block(&x);
        probe_c_after(&x);
        probe_inside(&x);
        probe_products(&x);
        probe_result_bits(&x);
        probe_rounding(&x);
        probe_tiny_zero(&x);
        probe_elimination(&x);
        probe_tf32(&x);
        probe_monotone(&x);
    }
    const char *bad = tc_model_params_check(&r->fit);
    if (bad) problem(&x, "fitted parameters invalid: %s", bad);
    r->dots = box->dots - dots0;
done:
    free(x.a);
    free(x.b);
    free(x.c);
    free(x.d);
    return r->ok;
}

/* ---- the feature table --------------------------------------------------------------------- */
static const char *seen(int obs) { return obs ? "" : "  (not observable: default)"; }

void tc_probe_print(const tc_probe_report *r, FILE *f)
{
    const tc_model_params *p = &r->fit;
    const tc_fmt_info *fi = tc_fmt_get(p->in), *fo = tc_fmt_get(p->out);
    char buf[96];
    fprintf(f, "  %-40s %s\n", "plumbing (zeros, ones, unit vectors, c)",
            r->sane ? "ok" : "BROKEN");
    if (!r->sane) return;
    fprintf(f, "  %-40s %s\n", "products exact",
            r->prod_exact == 1   ? "yes (u^2 of (1+u)^2 survives)"
            : r->prod_exact == 0 ? "NO (outside the model)"
                                 : "not observable (F < 2p-2)");
    if (p->frac_bits >= TC_FRAC_EXACT)
        snprintf(buf, sizeof buf, "none cut up to a shift of %d: exact", r->frac_limit);
    else
        snprintf(buf, sizeof buf, "F = %d (%+d vs f32's 23; seen with %s)", p->frac_bits,
                 p->frac_bits - 23,
                 r->frac_by == 0   ? "products"
                 : r->frac_by == 1 ? "c"
                                   : "random dot products");
    fprintf(f, "  %-40s %s\n", "bits kept below the largest exponent", buf);
    if (p->result_bits)
        snprintf(buf, sizeof buf, "%d (truncated), then rounded to %s; sums of up to %d bits",
                 p->result_bits, fo->name, r->result_limit);
    else if (r->result_limit >= fo->p)
        snprintf(buf, sizeof buf, "all (the format's %d)", fo->p);
    else if (r->result_limit > 0)
        snprintf(buf, sizeof buf, "all of the %d the probe's sums have (the format's %d)",
                 r->result_limit, fo->p);
    else
        snprintf(buf, sizeof buf, "all (no sum of two products in a block)");
    fprintf(f, "  %-40s %s%s\n", "bits kept in a block's result", buf, seen(r->obs_result_bits));
    fprintf(f, "  %-40s %s%s\n", "alignment exponent of a product",
            p->align_ref == TC_REF_EXP_SUM ? "ea + eb (significand in [1,4))"
                                           : "exponent of the product's value",
            seen(r->obs_ref));
    snprintf(buf, sizeof buf, "%s%s", tc_round_name(p->align_round),
             r->per_addend == 1   ? ", each addend on its own"
             : r->per_addend == 0 ? ", NOT per addend"
                                  : "");
    fprintf(f, "  %-40s %s%s\n", "bits shifted out in the alignment", buf,
            seen(r->obs_align_round));
    fprintf(f, "  %-40s %s\n", "normalisation inside a block",
            r->one_alignment == 1   ? "none: one alignment per block, order inside is free"
            : r->one_alignment == 0 ? "YES: order inside a block matters (outside the model)"
                                    : "not tested");
    snprintf(buf, sizeof buf, "%d products (%d per instruction of k = %d)%s", p->block,
             p->k / p->block, p->k, r->blocks_verified == 1 ? ", every block checked" : "");
    fprintf(f, "  %-40s %s%s\n", "block size", buf, seen(r->obs_block));
    if (p->interleave) { /* block 0 as measured (the fit's, when the block probe did not run) */
        fprintf(f, "  %-40s runs of %d products dealt to the blocks in turn; block 0 = k",
                "block membership", p->interleave);
        for (int l = 0; l < p->k; l++)
            if (r->block0_mask ? r->block0_mask >> l & 1u : tc_model_block_of(p, l) == 0)
                fprintf(f, " %d", l);
        fprintf(f, "\n");
    }
    const char *chained = p->chain == TC_CHAIN_FUSED
                              ? "fused: enter the next block's alignment"
                              : "added after each block (one rounded addition)";
    if (p->c_after) {
        fprintf(f, "  %-40s %s%s\n", "c", "added after the last block (one rounded addition)",
                seen(r->obs_chain));
        fprintf(f, "  %-40s %s, from zero%s\n", "block results", chained, seen(r->obs_chain));
    } else {
        fprintf(f, "  %-40s %s%s\n", "c and block results", chained, seen(r->obs_chain));
    }
    snprintf(buf, sizeof buf, "%s to %s%s", tc_round_name(p->out_round), fo->name,
             p->out_via_f32 ? " (after rounding to f32)" : "");
    fprintf(f, "  %-40s %s%s\n",
            p->c_after ? "rounding of the last block" : "rounding of the result", buf,
            seen(r->obs_out_round));
    if (p->c_after) {
        snprintf(buf, sizeof buf, "%s to %s", tc_round_name(p->c_round), fo->name);
        fprintf(f, "  %-40s %s%s\n", "rounding of c + the blocks' result", buf,
                seen(r->obs_c_round));
    }
    snprintf(buf, sizeof buf, "%s to %s", tc_round_name(p->chain_round),
             tc_fmt_get(p->chain_fmt)->name);
    fprintf(f, "  %-40s %s%s\n", "rounding between blocks", p->block == p->k ? "(one block)" : buf,
            p->block == p->k ? "" : seen(r->obs_chain_round));
    fprintf(f, "  %-40s %s%s\n", "subnormal inputs",
            p->sub_in == TC_SUB_KEEP ? "kept" : "flushed to 0", seen(r->obs_sub_in));
    fprintf(f, "  %-40s %s%s\n", "subnormal c", p->sub_c == TC_SUB_KEEP ? "kept" : "flushed to 0",
            seen(r->obs_sub_c));
    fprintf(f, "  %-40s %s%s\n", "subnormal results",
            p->sub_out == TC_SUB_KEEP ? "kept" : "flushed to 0", seen(r->obs_sub_out));
    fprintf(f, "  %-40s %s%s\n", "overflow",
            p->ovf_inf ? "always inf" : "IEEE (by the rounding mode)", seen(r->obs_ovf));
    fprintf(f, "  %-40s %s%s\n", "a negative sum rounded to zero",
            p->tiny_zero == TC_TINY_POS ? "+0" : "-0 (IEEE: the sum's sign)",
            seen(r->obs_tiny_zero));
    if (r->tf32_low >= 0) {
        static const char *const tf32_what[5] = {
            "ignored (truncated)", "rounded to nearest, ties to even",
            "rounded to nearest, ties away from zero", "used (the f32 value)",
            "none of truncated, rounded or used fits every case"};
        fprintf(f, "  %-40s %s\n", "tf32: low 13 bits of an f32 operand", tf32_what[r->tf32_low]);
    }
    if (r->monotone < 0) {
        fprintf(f, "  %-40s %s\n", "monotone in c", "not tested (no cut of c, or no example)");
    } else {
        fprintf(f, "  %-40s %s: c = %.9g -> d = %.9g; c = %.9g (one ulp up) -> d = %.9g\n",
                "monotone in c", r->monotone ? "yes on the crafted family" : "NO",
                tc_fmt_to_double(p->out, r->mono_c_lo), tc_fmt_to_double(p->out, r->mono_d_lo),
                tc_fmt_to_double(p->out, r->mono_c_hi), tc_fmt_to_double(p->out, r->mono_d_hi));
        fprintf(f, "  %-40s (every one of the %d products is %.9g * %.9g)\n", "", p->k,
                tc_fmt_to_double(p->in, r->mono_xa), tc_fmt_to_double(p->in, r->mono_xb));
    }
    (void)fi;
    char line[320];
    tc_model_params_format(p, line, sizeof line);
    fprintf(f, "  model: %s\n", line);
    if (!r->ok) fprintf(f, "  PROBLEM: %s\n", r->problem);
}

/* ---- the random search --------------------------------------------------------------------- */
enum { SEARCH_CHUNK = 4096 };

typedef struct {
    const tc_model_params *fit, *fma, *exact;
    int k;
    long n;
    const uint32_t *a, *b, *c, *d;
    uint32_t *m_fit, *m_fma, *m_exact;
} search_ctx;

static void search_part(void *vctx, int tid, int nthreads)
{
    search_ctx *s = (search_ctx *)vctx;
    const long lo = s->n * tid / nthreads, hi = s->n * (tid + 1) / nthreads;
    for (long i = lo; i < hi; i++) {
        const uint32_t *a = s->a + i * s->k, *b = s->b + i * s->k;
        s->m_fit[i] = tc_model_dot(s->fit, a, b, s->k, s->c[i]);
        s->m_fma[i] = tc_model_dot(s->fma, a, b, s->k, s->c[i]);
        s->m_exact[i] = tc_model_dot(s->exact, a, b, s->k, s->c[i]);
    }
}

static int same(tc_fmt f, uint32_t x, uint32_t y)
{
    return x == y || (tc_fmt_is_nan(f, x) && tc_fmt_is_nan(f, y));
}

long tc_search_total(const long *per_dist)
{
    long t = 0;
    for (int i = 0; i < TC_DIST_COUNT; i++) t += per_dist[i];
    return t;
}

void tc_search(tc_box *box, const tc_model_params *fit, long n, uint64_t seed, int threads,
               tc_search_result *r)
{
    memset(r, 0, sizeof *r);
    const int k = box->k;
    tc_model_params fma, exact;
    tc_model_params_fma_chain(&fma, box->in, box->out, k);
    tc_model_params_exact(&exact, box->in, box->out, k);
    uint32_t *a = (uint32_t *)tc_xmalloc((size_t)SEARCH_CHUNK * k * sizeof *a);
    uint32_t *b = (uint32_t *)tc_xmalloc((size_t)SEARCH_CHUNK * k * sizeof *b);
    uint32_t *buf = (uint32_t *)tc_xmalloc((size_t)SEARCH_CHUNK * 5 * sizeof *buf);
    uint32_t *c = buf, *d = buf + SEARCH_CHUNK, *mf = buf + 2 * SEARCH_CHUNK,
             *mm = buf + 3 * SEARCH_CHUNK, *me = buf + 4 * SEARCH_CHUNK;
    tc_rng rng;
    tc_rng_seed(&rng, seed);
    for (int dist = 0; dist < TC_DIST_COUNT; dist++) {
        const long want = n / TC_DIST_COUNT + (dist < n % TC_DIST_COUNT);
        for (long done = 0; done < want;) {
            const long m = want - done < SEARCH_CHUNK ? want - done : SEARCH_CHUNK;
            for (long i = 0; i < m; i++)
                tc_random_dot(box->in, box->out, k, (tc_dist)dist, &rng, a + i * k, b + i * k,
                              &c[i]);
            tc_box_run(box, m, a, b, c, d);
            search_ctx s = {fit, &fma, &exact, k, m, a, b, c, d, mf, mm, me};
            if (threads > 1)
                tc_parallel(search_part, &s);
            else
                search_part(&s, 0, 1);
            for (long i = 0; i < m; i++) {
                if (!same(box->out, d[i], mf[i])) {
                    r->fit_bad[dist]++;
                    if (!r->have_example) {
                        r->have_example = 1;
                        memcpy(r->ex_a, a + i * k, (size_t)k * sizeof *a);
                        memcpy(r->ex_b, b + i * k, (size_t)k * sizeof *b);
                        r->ex_c = c[i];
                        r->ex_box = d[i];
                        r->ex_model = mf[i];
                        r->ex_dist = dist;
                    }
                }
                r->fma_bad[dist] += !same(box->out, d[i], mm[i]);
                r->exact_bad[dist] += !same(box->out, d[i], me[i]);
            }
            r->per_dist[dist] += m;
            done += m;
        }
    }
    r->n = tc_search_total(r->per_dist);
    free(a);
    free(b);
    free(buf);
}
