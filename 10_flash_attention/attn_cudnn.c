/* 10_flash_attention/attn_cudnn.c - the baseline rows cudnn_sdpa and cudnn_sdpa_bf16: cuDNN's
 * fused scaled-dot-product attention forward, built in plain C through cuDNN's backend (graph)
 * API, the same BSHD tensors and L as every rung.
 *
 * cuDNN has no "attention" call in C before 9.13 (the single-node SDPA_FWD operation of newer
 * versions has no causal attribute): its fused flash-attention engine is chosen by the heuristics
 * for an operation graph of the right shape, the graph cudnn-frontend's sdpa() builds from backend
 * descriptors (its SDPA node, expanded as for cuDNN < 9.21: matmul, pointwise and reduction
 * operations). The same graph, written out here:
 *
 *     S  = matmul(Q, K^T)                 Q [B,H,Sq,D], K^T [B,H,D,Sk]: BSHD strides, f32 out
 *     S  = S * scale                      scale: an f32 by-value scalar
 *   causal (the diagonal bottom right):
 *     row = gen_index(S, axis 2), col = gen_index(S, axis 3)             int32
 *     row = row + Sk - Sq                 (two by-value int32 scalars; only when Sq != Sk)
 *     S  = select(row >= col, S, -inf)    binary_select on a boolean cmp_ge
 *     M  = max over keys (S)              [B,H,Sq,1]
 *     E  = exp(S - M),  Z = sum over keys (E)
 *     L  = M + log Z                      the "stats" output, f32 [B,H,Sq,1]: our L
 *     P  = E / Z                          in the input type (the A of the second product)
 *     O  = matmul(P, V)                   V [B,H,Sk,D], O [B,H,Sq,D]: BSHD strides
 *
 * Every intermediate is virtual (never in memory): the engine fuses the graph into one kernel.
 * Before building, the version and shape rules cudnn-frontend checks for this graph are checked
 * here too (its sdpa_support_surface.h), so a problem the fused engine does not take is skipped
 * with that rule as the reason: the bottom-right mask with Sq > Sk (the rows that see no key),
 * cuDNN 9.10.0/9.10.1 (known bugs), a bottom-right mask with sizes not multiples of 64 before
 * 9.6.0. If the heuristics still offer no configuration that finalizes, the graph is built once
 * more with the indices as f32 and one shift (the form older frontends emitted); if that fails
 * too, the row is skipped with cuDNN's status. The mask value is -inf from cuDNN 9.10 on and
 * -FLT_MAX before, as the frontend does.
 *
 * Built without cuDNN's headers (TC_HAVE_CUDNN not defined: the Makefile defines it when it finds
 * cudnn.h), the functions at the end stand in: attn_cudnn_init says why, and the rows skip. */
#include "attn_variant.h"

#if TC_HAVE_CUDNN
#include "cudnn_loader.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static cudnnHandle_t handle;
static size_t version;

int attn_cudnn_init(char *why, size_t why_size)
{
    if (handle) return 0;
    if (tc_cudnn_load(why, why_size) != 0) return -1;
    const cudnnStatus_t st = cudnnCreate(&handle);
    if (st != CUDNN_STATUS_SUCCESS) {
        snprintf(why, why_size, "cudnnCreate failed: %s", cudnnGetErrorString(st));
        handle = NULL;
        return -1;
    }
    version = cudnnGetVersion();
    return 0;
}

void attn_cudnn_print_version(FILE *f)
{
    tc_info_line(f, "cuDNN", "%zu.%zu.%zu (built against %d.%d.%d)", version / 10000,
                 version % 10000 / 100, version % 100, CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL);
}

void attn_cudnn_fini(void)
{
    if (handle) cudnnDestroy(handle);
    handle = NULL;
}

/* ---- descriptors ------------------------------------------------------------------------------
 * A graph's descriptors, freed together. Building one never exits: the first call cuDNN refuses
 * is kept (st, what), every later call is skipped, and build() turns it into the row's skip
 * reason, since a cuDNN that does not take a descriptor is a library limit, not a wrong result. */
enum { MAX_DESCS = 128 }; /* the causal graph with a shifted diagonal: about 65 */
typedef struct {
    cudnnBackendDescriptor_t d[MAX_DESCS];
    int n;
    int64_t next_virtual;
    cudnnStatus_t st; /* the first failure; CUDNN_STATUS_SUCCESS while none */
    const char *what; /* what failed */
} graph_ctx;

static cudnnBackendDescriptor_t make_desc(graph_ctx *g, cudnnBackendDescriptorType_t type)
{
    cudnnBackendDescriptor_t d = NULL;
    if (g->st != CUDNN_STATUS_SUCCESS) return NULL;
    if (g->n == MAX_DESCS) {
        fprintf(stderr, "internal error: more than %d cuDNN descriptors in one graph\n", MAX_DESCS);
        exit(TC_EXIT_WRONG);
    }
    g->st = cudnnBackendCreateDescriptor(type, &d);
    if (g->st != CUDNN_STATUS_SUCCESS) {
        g->what = "cudnnBackendCreateDescriptor";
        return NULL;
    }
    g->d[g->n++] = d;
    return d;
}

static void free_descs(graph_ctx *g)
{
    for (int i = g->n - 1; i >= 0; i--) cudnnBackendDestroyDescriptor(g->d[i]);
    g->n = 0;
}

/* set an attribute / finalize, unless an earlier call failed; the first failure is kept */
#define GSET(g, desc, attr, type, count, ptr)                                                      \
    do {                                                                                           \
        if ((g)->st == CUDNN_STATUS_SUCCESS) {                                                     \
            (g)->st = cudnnBackendSetAttribute(desc, attr, type, count, ptr);                      \
            if ((g)->st != CUDNN_STATUS_SUCCESS) (g)->what = #attr;                                \
        }                                                                                          \
    } while (0)
#define GFINALIZE(g, desc, name)                                                                   \
    do {                                                                                           \
        if ((g)->st == CUDNN_STATUS_SUCCESS) {                                                     \
            (g)->st = cudnnBackendFinalize(desc);                                                  \
            if ((g)->st != CUDNN_STATUS_SUCCESS) (g)->what = name;                                 \
        }                                                                                          \
    } while (0)
/* outside a graph (the plan, the variant pack): a failure is a programming error */
#define SET(desc, attr, type, count, ptr)                                                          \
    TC_CUDNN_CHECK(cudnnBackendSetAttribute(desc, attr, type, count, ptr))

/* the tensors the variant pack binds; virtual ones count from UID_VIRTUAL */
enum {
    UID_Q = 1,
    UID_K,
    UID_V,
    UID_O,
    UID_L,
    UID_SCALE,
    UID_NEG_INF,
    UID_SK,
    UID_SQ,
    UID_VIRTUAL = 100
};

/* A 4-d tensor: dims and strides in cuDNN's logical order (b, h, rows, cols). */
static cudnnBackendDescriptor_t tensor4(graph_ctx *g, int64_t uid, cudnnDataType_t dt,
                                        const int64_t dims[4], const int64_t strides[4],
                                        int is_virtual, int by_value)
{
    cudnnBackendDescriptor_t t = make_desc(g, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const int64_t alignment = 16;
    const bool v = is_virtual != 0, bv = by_value != 0;
    if (uid < 0) uid = g->next_virtual++;
    GSET(g, t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
    GSET(g, t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
    GSET(g, t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides);
    GSET(g, t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    GSET(g, t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
    GSET(g, t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &v);
    if (bv) GSET(g, t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &bv);
    GFINALIZE(g, t, "a tensor descriptor");
    return t;
}

/* a virtual tensor of the shape of the scores [B,H,Sq,Sk] or of a row statistic [B,H,Sq,1] */
static cudnnBackendDescriptor_t virt(graph_ctx *g, const attn_run *r, int per_row,
                                     cudnnDataType_t dt)
{
    const int64_t cols = per_row ? 1 : r->Sk;
    const int64_t dims[4] = {r->B, r->H, r->Sq, cols};
    const int64_t strides[4] = {(int64_t)r->H * r->Sq * cols, (int64_t)r->Sq * cols, cols, 1};
    return tensor4(g, -1, dt, dims, strides, 1, 0);
}

static cudnnBackendDescriptor_t scalar(graph_ctx *g, int64_t uid, cudnnDataType_t dt)
{
    const int64_t one[4] = {1, 1, 1, 1};
    return tensor4(g, uid, dt, one, one, 0, 1);
}

/* y = op(x [, b [, t]]); axis >= 0 sets the pointwise axis (gen_index) */
static cudnnBackendDescriptor_t pointwise(graph_ctx *g, cudnnPointwiseMode_t mode,
                                          cudnnDataType_t prec, int64_t axis,
                                          cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b,
                                          cudnnBackendDescriptor_t t, cudnnBackendDescriptor_t y)
{
    cudnnBackendDescriptor_t pw = make_desc(g, CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    GSET(g, pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
    GSET(g, pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec);
    if (axis >= 0) GSET(g, pw, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis);
    GFINALIZE(g, pw, "a pointwise descriptor");
    cudnnBackendDescriptor_t op = make_desc(g, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    GSET(g, op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
         &pw);
    GSET(g, op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    if (b) GSET(g, op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
    if (t) GSET(g, op, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t);
    GSET(g, op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    GFINALIZE(g, op, "a pointwise operation");
    return op;
}

static cudnnBackendDescriptor_t reduction(graph_ctx *g, cudnnReduceTensorOp_t mode,
                                          cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y)
{
    const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
    cudnnBackendDescriptor_t rd = make_desc(g, CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    GSET(g, rd, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &mode);
    GSET(g, rd, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32);
    GFINALIZE(g, rd, "a reduction descriptor");
    cudnnBackendDescriptor_t op = make_desc(g, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
    GSET(g, op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    GSET(g, op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    GSET(g, op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &rd);
    GFINALIZE(g, op, "a reduction operation");
    return op;
}

static cudnnBackendDescriptor_t matmul(graph_ctx *g, cudnnBackendDescriptor_t a,
                                       cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c)
{
    const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
    cudnnBackendDescriptor_t mm = make_desc(g, CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    GSET(g, mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32);
    GFINALIZE(g, mm, "a matmul descriptor");
    cudnnBackendDescriptor_t op = make_desc(g, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    GSET(g, op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a);
    GSET(g, op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
    GSET(g, op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
    GSET(g, op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &mm);
    GFINALIZE(g, op, "a matmul operation");
    return op;
}

/* ---- the plan --------------------------------------------------------------------------------- */
typedef struct {
    cudnnBackendDescriptor_t plan, pack;
    void *d_ws;
    size_t ws_bytes;
    /* the by-value scalars: the variant pack points at these */
    float scale, neg_inf, shift_f;
    int32_t sk, sq;
    int uses_shift, uses_seq;
} sdpa_plan;

/* Index style of the causal mask: the frontend's int32 indices shifted by +Sk, -Sq (cuDNN 9.x), or
 * f32 indices and one f32 shift (the form of older frontends), tried if the first gets no plan. */
enum { MASK_INT32, MASK_F32 };

/* Builds the graph of the header and the first execution plan the heuristics offer that
 * finalizes. NULL, or why not (the plan is then not made). */
static const char *build(sdpa_plan *sp, attn_run *r, int style, char *why, size_t why_size)
{
    graph_ctx g;
    memset(&g, 0, sizeof g);
    g.next_virtual = UID_VIRTUAL, g.st = CUDNN_STATUS_SUCCESS;
    const cudnnDataType_t io = r->type == TC_BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
    const cudnnDataType_t f32 = CUDNN_DATA_FLOAT, i32 = CUDNN_DATA_INT32,
                          boolean = CUDNN_DATA_BOOLEAN;
    const int64_t B = r->B, H = r->H, Sq = r->Sq, Sk = r->Sk, D = r->D;
    const int64_t qd[4] = {B, H, Sq, D}, qst[4] = {r->qs.batch, r->qs.head, r->qs.seq, 1};
    const int64_t kd[4] = {B, H, D, Sk}, kst[4] = {r->ks.batch, r->ks.head, 1, r->ks.seq};
    const int64_t vd[4] = {B, H, Sk, D}, vst[4] = {r->vs.batch, r->vs.head, r->vs.seq, 1};
    const int64_t od[4] = {B, H, Sq, D}, ost[4] = {r->os.batch, r->os.head, r->os.seq, 1};
    const int64_t ld[4] = {B, H, Sq, 1}, lst[4] = {H * Sq, Sq, 1, 1};
    cudnnBackendDescriptor_t tq = tensor4(&g, UID_Q, io, qd, qst, 0, 0);
    cudnnBackendDescriptor_t tk = tensor4(&g, UID_K, io, kd, kst, 0, 0);
    cudnnBackendDescriptor_t tv = tensor4(&g, UID_V, io, vd, vst, 0, 0);
    cudnnBackendDescriptor_t to = tensor4(&g, UID_O, io, od, ost, 0, 0);
    cudnnBackendDescriptor_t tl = tensor4(&g, UID_L, f32, ld, lst, 0, 0);
    cudnnBackendDescriptor_t tscale = scalar(&g, UID_SCALE, f32);

    cudnnBackendDescriptor_t ops[24];
    int n_ops = 0;
    cudnnBackendDescriptor_t s1 = virt(&g, r, 0, f32), s2 = virt(&g, r, 0, f32);
    ops[n_ops++] = matmul(&g, tq, tk, s1);
    ops[n_ops++] = pointwise(&g, CUDNN_POINTWISE_MUL, f32, -1, s1, tscale, NULL, s2);
    cudnnBackendDescriptor_t s = s2;
    sp->uses_shift = sp->uses_seq = 0;
    if (r->causal) {
        const cudnnDataType_t idx = style == MASK_INT32 ? i32 : f32;
        cudnnBackendDescriptor_t row = virt(&g, r, 0, idx), col = virt(&g, r, 0, idx);
        /* the indices in their own type (int32 as cudnn-frontend builds them, or f32) */
        ops[n_ops++] = pointwise(&g, CUDNN_POINTWISE_GEN_INDEX, idx, 2, s, NULL, NULL, row);
        ops[n_ops++] = pointwise(&g, CUDNN_POINTWISE_GEN_INDEX, idx, 3, s, NULL, NULL, col);
        if (Sq != Sk && style == MASK_INT32) { /* row + Sk - Sq: the bottom-right diagonal */
            cudnnBackendDescriptor_t tsk = scalar(&g, UID_SK, i32), tsq = scalar(&g, UID_SQ, i32);
            cudnnBackendDescriptor_t r1 = virt(&g, r, 0, i32), r2 = virt(&g, r, 0, i32);
            ops[n_ops++] = pointwise(&g, CUDNN_POINTWISE_ADD, i32, -1, row, tsk, NULL, r1);
            ops[n_ops++] = pointwise(&g, CUDNN_POINTWISE_SUB, i32, -1, r1, tsq, NULL, r2);
            row = r2;
            sp->uses_seq = 1;
        } else if (Sq != Sk) {
            cudnnBackendDescriptor_t tsh = scalar(&g, UID_SK, f32), r1 = virt(&g, r, 0, f32);
            ops[n_ops++] = pointwise(&g, CUDNN_POINTWISE_ADD, f32, -1, row, tsh, NULL, r1);
            row = r1;
            sp->uses_shift = 1;
        }
        cudnnBackendDescriptor_t keep = virt(&g, r, 0, boolean), s3 = virt(&g, r, 0, f32);
        cudnnBackendDescriptor_t tinf = scalar(&g, UID_NEG_INF, f32);
        ops[n_ops++] = pointwise(&g, CUDNN_POINTWISE_CMP_GE, boolean, -1, row, col, NULL, keep);
        ops[n_ops++] = pointwise(&g, CUDNN_POINTWISE_BINARY_SELECT, f32, -1, s, tinf, keep, s3);
        s = s3;
    }
    cudnnBackendDescriptor_t m = virt(&g, r, 1, f32), sub = virt(&g, r, 0, f32),
                             e = virt(&g, r, 0, f32), z = virt(&g, r, 1, f32),
                             logz = virt(&g, r, 1, f32), p = virt(&g, r, 0, io);
    ops[n_ops++] = reduction(&g, CUDNN_REDUCE_TENSOR_MAX, s, m);
    ops[n_ops++] = pointwise(&g, CUDNN_POINTWISE_SUB, f32, -1, s, m, NULL, sub);
    ops[n_ops++] = pointwise(&g, CUDNN_POINTWISE_EXP, f32, -1, sub, NULL, NULL, e);
    ops[n_ops++] = reduction(&g, CUDNN_REDUCE_TENSOR_ADD, e, z);
    ops[n_ops++] = pointwise(&g, CUDNN_POINTWISE_LOG, f32, -1, z, NULL, NULL, logz);
    ops[n_ops++] = pointwise(&g, CUDNN_POINTWISE_ADD, f32, -1, m, logz, NULL, tl);
    ops[n_ops++] = pointwise(&g, CUDNN_POINTWISE_DIV, f32, -1, e, z, NULL, p);
    ops[n_ops++] = matmul(&g, p, tv, to);

    cudnnBackendDescriptor_t graph = make_desc(&g, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    GSET(&g, graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, n_ops, ops);
    GSET(&g, graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
    GFINALIZE(&g, graph, "the operation graph");
    cudnnBackendDescriptor_t heur = make_desc(&g, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    const cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
    GSET(&g, heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
    GSET(&g, heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
    GFINALIZE(&g, heur, "the engine heuristics");
    enum { MAX_CFGS = 8 };
    cudnnBackendDescriptor_t cfgs[MAX_CFGS];
    int64_t n_cfgs = 0;
    for (int i = 0; i < MAX_CFGS; i++) cfgs[i] = make_desc(&g, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    if (g.st == CUDNN_STATUS_SUCCESS) {
        g.st = cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                        CUDNN_TYPE_BACKEND_DESCRIPTOR, MAX_CFGS, &n_cfgs, cfgs);
        if (g.st != CUDNN_STATUS_SUCCESS) g.what = "the heuristics' results";
        if (n_cfgs > MAX_CFGS) n_cfgs = MAX_CFGS;
    }
    if (g.st != CUDNN_STATUS_SUCCESS) {
        snprintf(why, why_size, "cuDNN %zu refused %s of the fused attention graph: %s", version,
                 g.what ? g.what : "a call", cudnnGetErrorString(g.st));
        free_descs(&g);
        return why;
    }
    if (n_cfgs == 0) {
        snprintf(why, why_size, "cuDNN %zu's heuristics offer no engine for the fused graph",
                 version);
        free_descs(&g);
        return why;
    }
    cudnnStatus_t last = CUDNN_STATUS_SUCCESS;
    sp->plan = NULL;
    for (int64_t i = 0; i < n_cfgs && !sp->plan; i++) {
        cudnnBackendDescriptor_t plan;
        TC_CUDNN_CHECK(
            cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
        SET(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
        SET(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
            &cfgs[i]);
        last = cudnnBackendFinalize(plan);
        if (last != CUDNN_STATUS_SUCCESS) {
            cudnnBackendDestroyDescriptor(plan);
            continue;
        }
        sp->plan = plan;
        cudnnBackendDescriptor_t engine = make_desc(&g, CUDNN_BACKEND_ENGINE_DESCRIPTOR);
        int64_t got = 0, index = -1, ws = 0;
        TC_CUDNN_CHECK(cudnnBackendGetAttribute(cfgs[i], CUDNN_ATTR_ENGINECFG_ENGINE,
                                                CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got, &engine));
        TC_CUDNN_CHECK(cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX,
                                                CUDNN_TYPE_INT64, 1, &got, &index));
        TC_CUDNN_CHECK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                                CUDNN_TYPE_INT64, 1, &got, &ws));
        sp->ws_bytes = (size_t)ws;
        snprintf(r->used, sizeof r->used, "engine %lld, cfg %lld of %lld%s", (long long)index,
                 (long long)i + 1, (long long)n_cfgs,
                 style == MASK_F32 && r->causal ? ", f32 mask" : "");
    }
    free_descs(&g);
    if (!sp->plan) {
        snprintf(why, why_size,
                 "none of the %lld engine configurations cuDNN %zu offers finalized for the fused "
                 "graph (last: %s)",
                 (long long)n_cfgs, version, cudnnGetErrorString(last));
        return why;
    }
    return NULL;
}

/* The frontend's rules for this graph (its sdpa_support_surface.h), as skip reasons. */
static const char *support_rule(const attn_run *r)
{
    if (version == 91000 || version == 91001)
        return "cuDNN 9.10.0 and 9.10.1 have known bugs in SDPA f16/bf16 forward (cudnn-frontend "
               "refuses them)";
    if (r->causal && r->Sq > r->Sk) /* declared in the row's sizes: not applicable */
        return ATTN_NA "cuDNN's bottom-right causal mask does not take Sq > Sk (the rows that see "
                       "no key; cudnn-frontend's support surface refuses it)";
    if (r->causal && r->Sq != r->Sk && version < 90600 && (r->Sq % 64 || r->Sk % 64))
        return "before cuDNN 9.6.0 the bottom-right causal mask needs Sq and Sk multiples of 64";
    if (r->D % 8) return "cuDNN's fused attention needs D % 8 == 0";
    return NULL;
}

const char *hook_cudnn_prepare(const attn_variant *v, attn_run *r)
{
    static char msg[320];
    if (!handle) return ATTN_SKIP "cuDNN is not loaded";
    const char *rule = support_rule(r);
    if (rule && strncmp(rule, ATTN_NA, strlen(ATTN_NA)) == 0) return rule;
    if (rule) {
        snprintf(msg, sizeof msg, ATTN_SKIP "%s", rule);
        return msg;
    }
    sdpa_plan *sp = (sdpa_plan *)calloc(1, sizeof *sp);
    if (!sp) return "out of host memory";
    char why[2][240];
    const char *failed = build(sp, r, MASK_INT32, why[0], sizeof why[0]);
    if (failed && r->causal) failed = build(sp, r, MASK_F32, why[1], sizeof why[1]);
    if (failed) {
        free(sp);
        if (r->causal) /* both forms refused: say why for each */
            snprintf(msg, sizeof msg, ATTN_SKIP "int32 indices: %s; f32 indices: %s", why[0],
                     failed);
        else
            snprintf(msg, sizeof msg, ATTN_SKIP "%s", failed);
        return msg;
    }
    if (sp->ws_bytes) TC_CUDA_CHECK(cudaMalloc(&sp->d_ws, sp->ws_bytes));
    sp->scale = r->scale;
    sp->neg_inf = version >= 91000 ? -INFINITY : -FLT_MAX;
    sp->sk = r->Sk, sp->sq = r->Sq;
    sp->shift_f = (float)r->Sk - (float)r->Sq;
    int64_t uids[9] = {UID_Q, UID_K, UID_V, UID_O, UID_L, UID_SCALE};
    void *ptrs[9] = {(void *)r->q, (void *)r->k, (void *)r->v, r->o, r->l, &sp->scale};
    int n = 6;
    if (r->causal) uids[n] = UID_NEG_INF, ptrs[n++] = &sp->neg_inf;
    if (sp->uses_seq) {
        uids[n] = UID_SK, ptrs[n++] = &sp->sk;
        uids[n] = UID_SQ, ptrs[n++] = &sp->sq;
    }
    if (sp->uses_shift) uids[n] = UID_SK, ptrs[n++] = &sp->shift_f;
    TC_CUDNN_CHECK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &sp->pack));
    SET(sp->pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n, uids);
    SET(sp->pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, n, ptrs);
    SET(sp->pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &sp->d_ws);
    TC_CUDNN_CHECK(cudnnBackendFinalize(sp->pack));
    r->plan = sp;
    return NULL;
}

void hook_cudnn_launch(const attn_variant *v, const attn_run *r, cudaStream_t stream)
{
    const sdpa_plan *sp = (const sdpa_plan *)r->plan;
    TC_CUDNN_CHECK(cudnnSetStream(handle, stream));
    TC_CUDNN_CHECK(cudnnBackendExecute(handle, sp->plan, sp->pack));
}

void hook_cudnn_release(const attn_variant *v, attn_run *r)
{
    sdpa_plan *sp = (sdpa_plan *)r->plan;
    if (!sp) return;
    if (sp->pack) cudnnBackendDestroyDescriptor(sp->pack);
    if (sp->plan) cudnnBackendDestroyDescriptor(sp->plan);
    if (sp->d_ws) TC_CUDA_CHECK(cudaFree(sp->d_ws));
    free(sp);
    r->plan = NULL;
}

#else /* built without cuDNN: the rows report why and skip */

int attn_cudnn_init(char *why, size_t why_size)
{
    snprintf(why, why_size, "built without cuDNN (no cudnn.h found at build time)");
    return -1;
}
void attn_cudnn_print_version(FILE *f) {}
void attn_cudnn_fini(void) {}
const char *hook_cudnn_prepare(const attn_variant *v, attn_run *r)
{
    return ATTN_SKIP "built without cuDNN (no cudnn.h found at build time)";
}
void hook_cudnn_launch(const attn_variant *v, const attn_run *r, cudaStream_t stream) {}
void hook_cudnn_release(const attn_variant *v, attn_run *r) {}

#endif
