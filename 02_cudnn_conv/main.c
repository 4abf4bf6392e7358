/* 02_cudnn_conv/main.c - convolution on tensor cores through cuDNN, and what each rule costs.
 *
 * What it teaches
 *   A cuDNN user gets a convolution onto tensor cores through five choices: the math type of the
 *   convolution descriptor, the data type, the tensor layout, channel counts the tensor cores can
 *   tile (multiples of 8 for 16-bit data), and the algorithm. This program runs real layer shapes
 *   (ResNet-50 at batch 32) under each choice and prints, per layer, which algorithm and math
 *   type cuDNN actually used, the workspace it needed, the time, TFLOP/s, the speed against the
 *   FP16 NHWC tensor-op configuration, and the error against an FP64 CPU reference.
 *
 * Layouts
 *   NCHW  x[n][c][h][w], filters [k][c][r][s]: channels outermost, the classic layout.
 *   NHWC  x[n][h][w][c], filters [k][r][s][c]: channels innermost, so the C*R*S reduction of an
 *         implicit GEMM reads contiguous channels: what tensor cores want. cuDNN transposes NCHW
 *         inputs to NHWC internally (extra kernels, extra traffic) to use them.
 *
 * Variants (one configuration each; --list prints the table)
 *   f32_nchw_fma        FP32 NCHW, CUDNN_FMA_MATH: CUDA cores only, the pre-tensor-core path.
 *   f32_nchw_default    FP32 NCHW, CUDNN_DEFAULT_MATH: cuDNN may use TF32 tensor cores.
 *   f32_nhwc_tensorop   FP32 NHWC, CUDNN_TENSOR_OP_MATH: TF32 tensor cores.
 *   f16_nchw_tensorop   FP16 NCHW, tensor ops: the layout penalty.
 *   f16_nhwc_default    FP16 NHWC, CUDNN_DEFAULT_MATH.
 *   f16_nhwc_tensorop   FP16 NHWC, CUDNN_TENSOR_OP_MATH, heuristic algorithm: the baseline row.
 *   f16_nhwc_find       the same with cudnnFindConvolutionForwardAlgorithmEx (measured search).
 *   f16_nhwc_precomp    the same with IMPLICIT_PRECOMP_GEMM forced.
 *   f16_nhwc_fma        FP16 NHWC, CUDNN_FMA_MATH: half data on CUDA cores.
 *   bf16_nhwc_tensorop  BF16 NHWC, tensor ops.
 *   f16_nhwc_graph      FP16 NHWC through the backend (graph) API, heuristic mode A: the API
 *                       cuDNN 9 is built on (the legacy cudnnConvolutionForward is deprecated).
 *   FP16/BF16 data accumulate in FP32 (compute type CUDNN_DATA_FLOAT) and are stored as FP16/BF16.
 *
 * Layers: see `layers[]` below; conv1_c3pad8 is conv1 with its 3 input channels padded to 8
 *   with zeros (same result, same useful FLOPs, counted as for C = 3).
 *
 * Minimum: sm_70 (BF16 and the f32 tensor-op row sm_80), cuDNN 9 (loaded at run time; exit 77 without it).
 *
 * Build and run
 *   make                                   # builds build/bin/02_cudnn_conv
 *   build/bin/02_cudnn_conv                # every variant on res3_3x3_c128, the default layer
 *   build/bin/02_cudnn_conv --layer all    # every layer
 *   build/bin/02_cudnn_conv --shape 32,256,28,28,256,3,3,1,1,1 --variant f16_nhwc_tensorop
 *   build/bin/02_cudnn_conv --test         # every variant on small shapes, checked on the CPU
 *   build/bin/02_cudnn_conv --bench        # every layer, CSV rows
 */
#include "cudnn_loader.h"
#include "conv_ref.h"
#include "harness.h"
#include "program.h"
#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the variant table ---------------------------------------------------------------------- */
typedef enum {
    ALGO_HEURISTIC,
    ALGO_FIND,
    ALGO_PRECOMP,
    ALGO_FFT_TILING,       /* --test's transform cases only */
    ALGO_WINOGRAD_NONFUSED /* --test's transform cases only */
} algo_choice;
typedef enum { API_LEGACY, API_GRAPH } api_kind;

typedef struct {
    const char *name, *description;
    const char *precision; /* row of the tolerance table (common/verify.c) */
    int min_cc;
    tc_dtype type;
    tc_tensor_layout layout;
    cudnnMathType_t math;
    algo_choice algo; /* ALGO_HEURISTIC unless set */
    api_kind api;     /* API_LEGACY unless set */
} conv_variant;

#define PROGRAM  "02_cudnn_conv"
#define BASELINE "f16_nhwc_tensorop"

/* hand-aligned tables */
// clang-format off
static const conv_variant variants[] = {
    {.name = "f32_nchw_fma",       .type = TC_F32,  .layout = TC_NCHW, .math = CUDNN_FMA_MATH,
     .precision = "f32",      .min_cc = 70, .description = "FP32 NCHW, FMA math (CUDA cores only)"},
    {.name = "f32_nchw_default",   .type = TC_F32,  .layout = TC_NCHW, .math = CUDNN_DEFAULT_MATH,
     .precision = "f32_tf32", .min_cc = 70, .description = "FP32 NCHW, default math (TF32 allowed)"},
    {.name = "f32_nhwc_tensorop",  .type = TC_F32,  .layout = TC_NHWC, .math = CUDNN_TENSOR_OP_MATH,
     .precision = "f32_tf32", .min_cc = 80, .description = "FP32 NHWC, tensor-op math (TF32)"},
    {.name = "f16_nchw_tensorop",  .type = TC_F16,  .layout = TC_NCHW, .math = CUDNN_TENSOR_OP_MATH,
     .precision = "f16f32h",  .min_cc = 70, .description = "FP16 NCHW, tensor-op math"},
    {.name = "f16_nhwc_default",   .type = TC_F16,  .layout = TC_NHWC, .math = CUDNN_DEFAULT_MATH,
     .precision = "f16f32h",  .min_cc = 70, .description = "FP16 NHWC, default math"},
    {.name = "f16_nhwc_tensorop",  .type = TC_F16,  .layout = TC_NHWC, .math = CUDNN_TENSOR_OP_MATH,
     .precision = "f16f32h",  .min_cc = 70, .description = "FP16 NHWC, tensor-op math, heuristic (baseline)"},
    {.name = "f16_nhwc_find",      .type = TC_F16,  .layout = TC_NHWC, .math = CUDNN_TENSOR_OP_MATH,
     .precision = "f16f32h",  .min_cc = 70, .description = "FP16 NHWC, tensor-op math, measured search", .algo = ALGO_FIND},
    {.name = "f16_nhwc_precomp",   .type = TC_F16,  .layout = TC_NHWC, .math = CUDNN_TENSOR_OP_MATH,
     .precision = "f16f32h",  .min_cc = 70, .description = "FP16 NHWC, tensor-op math, IMPLICIT_PRECOMP_GEMM", .algo = ALGO_PRECOMP},
    {.name = "f16_nhwc_fma",       .type = TC_F16,  .layout = TC_NHWC, .math = CUDNN_FMA_MATH,
     .precision = "f16f32h",  .min_cc = 70, .description = "FP16 NHWC, FMA math (CUDA cores only)"},
    {.name = "bf16_nhwc_tensorop", .type = TC_BF16, .layout = TC_NHWC, .math = CUDNN_TENSOR_OP_MATH,
     .precision = "bf16f32b", .min_cc = 80, .description = "BF16 NHWC, tensor-op math"},
    {.name = "f16_nhwc_graph",     .type = TC_F16,  .layout = TC_NHWC, .math = CUDNN_TENSOR_OP_MATH,
     .precision = "f16f32h",  .min_cc = 70, .description = "FP16 NHWC, backend (graph) API, heuristic mode A", .api = API_GRAPH},
};
// clang-format on
static const int n_variants = (int)(sizeof variants / sizeof variants[0]);

/* ---- layers ------------------------------------------------------------------------------------
 * c_real < shape.c: channels c_real .. c-1 of x and w are zero padding. */
typedef struct {
    const char *name;
    tc_conv_shape shape; /* n c h w  k r s  pad_h pad_w stride_h stride_w dil_h dil_w */
    int c_real;
} conv_layer;

// clang-format off
static const conv_layer layers[] = {
    {.name = "conv1_c3",           .shape = {32,   3, 224, 224,   64, 7, 7,  3, 3, 2, 2, 1, 1, 0, 0}, .c_real =   3},
    {.name = "conv1_c3pad8",       .shape = {32,   8, 224, 224,   64, 7, 7,  3, 3, 2, 2, 1, 1, 0, 0}, .c_real =   3},
    {.name = "res2_3x3_c64",       .shape = {32,  64,  56,  56,   64, 3, 3,  1, 1, 1, 1, 1, 1, 0, 0}, .c_real =  64},
    {.name = "res3_3x3_c128",      .shape = {32, 128,  28,  28,  128, 3, 3,  1, 1, 1, 1, 1, 1, 0, 0}, .c_real = 128},
    {.name = "res4_3x3_c256",      .shape = {32, 256,  14,  14,  256, 3, 3,  1, 1, 1, 1, 1, 1, 0, 0}, .c_real = 256},
    {.name = "res4_1x1_c256k1024", .shape = {32, 256,  14,  14, 1024, 1, 1,  0, 0, 1, 1, 1, 1, 0, 0}, .c_real = 256},
    {.name = "ref_3x3_c256_28",    .shape = {32, 256,  28,  28,  256, 3, 3,  1, 1, 1, 1, 1, 1, 0, 0}, .c_real = 256},
};

/* --test: small shapes: odd channel counts, padding, stride 2, dilation 2, non-square filters */
static const conv_layer test_shapes[] = {
    {.name = "1x1x1",         .shape = { 1,  1,  1,  1,  1, 1, 1,  0, 0, 1, 1, 1, 1, 0, 0}, .c_real =   1},
    {.name = "c3k5_pad1",     .shape = { 2,  3,  9,  9,  5, 3, 3,  1, 1, 1, 1, 1, 1, 0, 0}, .c_real =   3},
    {.name = "c8k16_stride2", .shape = { 2,  8, 17, 15, 16, 3, 3,  1, 1, 2, 2, 1, 1, 0, 0}, .c_real =   8},
    {.name = "c16k8_dil2",    .shape = { 1, 16, 12, 12,  8, 3, 3,  2, 2, 1, 1, 2, 2, 0, 0}, .c_real =  16},
    {.name = "c4k8_5x3",      .shape = { 2,  4, 11, 11,  8, 5, 3,  2, 1, 1, 1, 1, 1, 0, 0}, .c_real =   4},
    {.name = "c32k64_1x1",    .shape = { 3, 32, 14, 14, 64, 1, 1,  0, 0, 1, 1, 1, 1, 0, 0}, .c_real =  32},
    {.name = "c3_7x7s2",      .shape = { 2,  3, 32, 32, 16, 7, 7,  3, 3, 2, 2, 1, 1, 0, 0}, .c_real =   3},
    {.name = "c3pad8_7x7s2",  .shape = { 2,  8, 32, 32, 16, 7, 7,  3, 3, 2, 2, 1, 1, 0, 0}, .c_real =   3},
    {.name = "c64k64_3x3",    .shape = { 4, 64, 28, 28, 64, 3, 3,  1, 1, 1, 1, 1, 1, 0, 0}, .c_real =  64},
};
// clang-format on
static const int n_layers = (int)(sizeof layers / sizeof layers[0]);
static const int n_test_shapes = (int)(sizeof test_shapes / sizeof test_shapes[0]);

#define DEFAULT_LAYER    3 /* res3_3x3_c128 */
#define FIND_WORKSPACE   ((size_t)256 << 20)
#define FULL_CHECK_LIMIT 2147483648.0
#define SAMPLE_RANDOM    4096

/* ---- names cuDNN returns (the algorithm's: tc_cudnn_fwd_algo_name, common/cudnn_loader.h) -----
 */

static const char *math_name(cudnnMathType_t m)
{
    switch (m) {
    case CUDNN_DEFAULT_MATH: return "DEFAULT";
    case CUDNN_TENSOR_OP_MATH: return "TENSOR_OP";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "TENSOR_OP_CONV";
    case CUDNN_FMA_MATH: return "FMA";
    default: return "?";
    }
}

/* FFT and Winograd compute in a transformed domain: their products are not the exact products
 * of the inputs, so they get the tolerance of their own row (see tc_precisions). */
static int is_transform_algo(cudnnConvolutionFwdAlgo_t a)
{
    return a == CUDNN_CONVOLUTION_FWD_ALGO_FFT || a == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
           a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
           a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}

static cudnnDataType_t cudnn_type(tc_dtype t)
{
    return t == TC_F16 ? CUDNN_DATA_HALF : t == TC_BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
}

/* ---- one prepared convolution -------------------------------------------------------------------
 * Everything is created in prepare(), outside the timed region; launch() only enqueues. */
typedef struct {
    const conv_variant *v;
    tc_conv_shape s;
    cudnnHandle_t handle;
    void *d_x, *d_w, *d_y, *d_ws;
    size_t ws_bytes;
    /* legacy API */
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnConvolutionFwdAlgo_t algo;
    cudnnMathType_t math_used;
    /* backend API */
    cudnnBackendDescriptor_t plan, pack;
    int64_t engine_index;
    int engine_tensor_core; /* the engine carries CUDNN_NUMERICAL_NOTE_TENSOR_CORE */
    int transform;          /* FFT or Winograd: products in a transformed domain */
    int reduced;            /* the engine notes a reduced-precision (f16) reduction */
    char used[96];          /* "IMPLICIT_PRECOMP_GEMM / TENSOR_OP" or "engine 12 (tensor core)" */
} conv_plan;

static const char *prepare_legacy(conv_plan *cp)
{
    const tc_conv_shape *s = &cp->s;
    cudnnTensorFormat_t fmt = cp->v->layout == TC_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    cudnnDataType_t dt = cudnn_type(cp->v->type);
    TC_CUDNN_CHECK(cudnnCreateTensorDescriptor(&cp->xd));
    TC_CUDNN_CHECK(cudnnCreateTensorDescriptor(&cp->yd));
    TC_CUDNN_CHECK(cudnnCreateFilterDescriptor(&cp->wd));
    TC_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&cp->cd));
    TC_CUDNN_CHECK(cudnnSetTensor4dDescriptor(cp->xd, fmt, dt, s->n, s->c, s->h, s->w));
    TC_CUDNN_CHECK(cudnnSetFilter4dDescriptor(cp->wd, dt, fmt, s->k, s->c, s->r, s->s));
    /* FP16/BF16 data, FP32 accumulation ("pseudo half"): compute type FLOAT */
    TC_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(cp->cd, s->pad_h, s->pad_w, s->stride_h,
                                                   s->stride_w, s->dil_h, s->dil_w,
                                                   CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    TC_CUDNN_CHECK(cudnnSetConvolutionMathType(cp->cd, cp->v->math));
    int n, k, p, q;
    TC_CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(cp->cd, cp->xd, cp->wd, &n, &k, &p, &q));
    if (n != s->n || k != s->k || p != s->p || q != s->q)
        return "cuDNN's output size differs from tc_conv_shape_check's";
    TC_CUDNN_CHECK(cudnnSetTensor4dDescriptor(cp->yd, fmt, dt, n, k, p, q));

    cp->math_used = cp->v->math;
    if (cp->v->algo == ALGO_PRECOMP) {
        cp->algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    } else if (cp->v->algo == ALGO_FFT_TILING) {
        cp->algo = CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING;
    } else if (cp->v->algo == ALGO_WINOGRAD_NONFUSED) {
        cp->algo = CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
    } else {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        int returned = 0, chosen = -1;
        if (cp->v->algo == ALGO_FIND) {
            /* The Ex form runs every algorithm on our own (initialised) tensors, with a scratch
             * workspace of FIND_WORKSPACE bytes: algorithms needing more are not tried. (The
             * plain cudnnFindConvolutionForwardAlgorithm allocates and times on uninitialised
             * buffers of its own.) It writes y: run_case poisons y again afterwards. */
            void *scratch = NULL;
            TC_CUDA_CHECK(cudaMalloc(&scratch, FIND_WORKSPACE));
            TC_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
                cp->handle, cp->xd, cp->d_x, cp->wd, cp->d_w, cp->cd, cp->yd, cp->d_y,
                CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf, scratch, FIND_WORKSPACE));
            TC_CUDA_CHECK(cudaFree(scratch));
        } else
            TC_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
                cp->handle, cp->xd, cp->wd, cp->cd, cp->yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                &returned, perf));
        for (int i = 0; i < returned && chosen < 0; i++)
            if (perf[i].status == CUDNN_STATUS_SUCCESS) chosen = i;
        if (chosen < 0) return "cuDNN offered no algorithm for this configuration";
        cp->algo = perf[chosen].algo;
        /* The math type the algorithm runs with; it must be set on the descriptor to be used. */
        cp->math_used = perf[chosen].mathType;
        TC_CUDNN_CHECK(cudnnSetConvolutionMathType(cp->cd, cp->math_used));
    }
    cudnnStatus_t st = cudnnGetConvolutionForwardWorkspaceSize(cp->handle, cp->xd, cp->wd, cp->cd,
                                                               cp->yd, cp->algo, &cp->ws_bytes);
    if (st != CUDNN_STATUS_SUCCESS) return "the algorithm does not support this configuration";
    cp->transform = is_transform_algo(cp->algo);
    snprintf(cp->used, sizeof cp->used, "%s / %s", tc_cudnn_fwd_algo_name(cp->algo),
             math_name(cp->math_used));
    return NULL;
}

/* ---- the backend (graph) API --------------------------------------------------------------------
 * A graph of one operation (convolution forward) over three tensors, each named by a unique id; the
 * heuristics propose engine configurations; the first one that finalizes into an execution plan is
 * used; a variant pack binds the ids to device pointers. */
static cudnnBackendDescriptor_t make_desc(cudnnBackendDescriptorType_t type)
{
    cudnnBackendDescriptor_t d;
    TC_CUDNN_CHECK(cudnnBackendCreateDescriptor(type, &d));
    return d;
}

#define SET(desc, attr, type, count, ptr)                                                          \
    TC_CUDNN_CHECK(cudnnBackendSetAttribute(desc, attr, type, count, ptr))

enum { UID_X = 'x', UID_W = 'w', UID_Y = 'y' };

/* dims in cuDNN's logical order (n, c, h, w); strides give the physical layout */
static cudnnBackendDescriptor_t make_tensor(int64_t uid, cudnnDataType_t dt, tc_tensor_layout l,
                                            int64_t n, int64_t c, int64_t h, int64_t w)
{
    int64_t dims[4] = {n, c, h, w};
    int64_t nchw[4] = {c * h * w, h * w, w, 1}, nhwc[4] = {h * w * c, 1, w * c, c};
    int64_t alignment = 16;
    cudnnBackendDescriptor_t t = make_desc(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    SET(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
    SET(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
    SET(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, l == TC_NHWC ? nhwc : nchw);
    SET(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    SET(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
    TC_CUDNN_CHECK(cudnnBackendFinalize(t));
    return t;
}

static const char *prepare_graph(conv_plan *cp)
{
    const tc_conv_shape *s = &cp->s;
    cudnnDataType_t dt = cudnn_type(cp->v->type), comp = CUDNN_DATA_FLOAT;
    tc_tensor_layout l = cp->v->layout;
    cudnnBackendDescriptor_t x = make_tensor(UID_X, dt, l, s->n, s->c, s->h, s->w);
    cudnnBackendDescriptor_t w = make_tensor(UID_W, dt, l, s->k, s->c, s->r, s->s);
    cudnnBackendDescriptor_t y = make_tensor(UID_Y, dt, l, s->n, s->k, s->p, s->q);

    cudnnBackendDescriptor_t conv = make_desc(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    int64_t dims = 2, dil[2] = {s->dil_h, s->dil_w}, stride[2] = {s->stride_h, s->stride_w};
    int64_t pad[2] = {s->pad_h, s->pad_w};
    cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    SET(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp);
    SET(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
    SET(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims);
    SET(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dil);
    SET(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, stride);
    SET(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad);
    SET(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad);
    TC_CUDNN_CHECK(cudnnBackendFinalize(conv));

    cudnnBackendDescriptor_t op = make_desc(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    float alpha = 1.0f, beta = 0.0f;
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
        &conv);
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
    SET(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
    TC_CUDNN_CHECK(cudnnBackendFinalize(op));

    cudnnBackendDescriptor_t graph = make_desc(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    SET(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op);
    SET(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &cp->handle);
    TC_CUDNN_CHECK(cudnnBackendFinalize(graph));

    cudnnBackendDescriptor_t heur = make_desc(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    cudnnBackendHeurMode_t heur_mode = CUDNN_HEUR_MODE_A;
    SET(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
    SET(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &heur_mode);
    TC_CUDNN_CHECK(cudnnBackendFinalize(heur));

    enum { MAX_CFGS = 16 };
    cudnnBackendDescriptor_t cfgs[MAX_CFGS];
    for (int i = 0; i < MAX_CFGS; i++) cfgs[i] = make_desc(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    int64_t n_cfgs = 0;
    TC_CUDNN_CHECK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                            CUDNN_TYPE_BACKEND_DESCRIPTOR, MAX_CFGS, &n_cfgs,
                                            cfgs));
    if (n_cfgs > MAX_CFGS) n_cfgs = MAX_CFGS; /* the count is of all configurations */
    const char *why = "no engine configuration of the heuristics finalized into a plan";
    for (int64_t i = 0; i < n_cfgs && why; i++) {
        cudnnBackendDescriptor_t plan = make_desc(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        SET(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &cp->handle);
        SET(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
            &cfgs[i]);
        if (cudnnBackendFinalize(plan) != CUDNN_STATUS_SUCCESS) {
            cudnnBackendDestroyDescriptor(plan);
            continue;
        }
        cp->plan = plan;
        why = NULL;
        /* which engine, and does it use tensor cores? */
        cudnnBackendDescriptor_t engine = make_desc(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
        int64_t got = 0;
        TC_CUDNN_CHECK(cudnnBackendGetAttribute(cfgs[i], CUDNN_ATTR_ENGINECFG_ENGINE,
                                                CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got, &engine));
        TC_CUDNN_CHECK(cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX,
                                                CUDNN_TYPE_INT64, 1, &got, &cp->engine_index));
        cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
        int64_t n_notes = 0;
        TC_CUDNN_CHECK(cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                                CUDNN_TYPE_NUMERICAL_NOTE,
                                                CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n_notes, notes));
        if (n_notes > CUDNN_NUMERICAL_NOTE_TYPE_COUNT) n_notes = CUDNN_NUMERICAL_NOTE_TYPE_COUNT;
        for (int64_t j = 0; j < n_notes; j++) {
            if (notes[j] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE) cp->engine_tensor_core = 1;
            if (notes[j] == CUDNN_NUMERICAL_NOTE_FFT || notes[j] == CUDNN_NUMERICAL_NOTE_WINOGRAD)
                cp->transform = 1;
            if (notes[j] == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION) cp->reduced = 1;
        }
        cudnnBackendDestroyDescriptor(engine);
        int64_t ws = 0;
        TC_CUDNN_CHECK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                                CUDNN_TYPE_INT64, 1, &got, &ws));
        cp->ws_bytes = (size_t)ws;
        snprintf(cp->used, sizeof cp->used, "engine %lld / %s", (long long)cp->engine_index,
                 cp->engine_tensor_core ? "TENSOR_CORE" : "no tensor-core note");
    }
    for (int i = 0; i < MAX_CFGS; i++) cudnnBackendDestroyDescriptor(cfgs[i]);
    cudnnBackendDestroyDescriptor(heur);
    cudnnBackendDestroyDescriptor(graph);
    cudnnBackendDestroyDescriptor(op);
    cudnnBackendDestroyDescriptor(conv);
    cudnnBackendDestroyDescriptor(x);
    cudnnBackendDestroyDescriptor(w);
    cudnnBackendDestroyDescriptor(y);
    return why;
}

/* The variant pack binds the unique ids to this run's buffers; made after the workspace. */
static void make_variant_pack(conv_plan *cp)
{
    int64_t uids[3] = {UID_X, UID_W, UID_Y};
    void *ptrs[3] = {cp->d_x, cp->d_w, cp->d_y};
    cp->pack = make_desc(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    SET(cp->pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
    SET(cp->pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs);
    SET(cp->pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &cp->d_ws);
    TC_CUDNN_CHECK(cudnnBackendFinalize(cp->pack));
}

static void release_plan(conv_plan *cp)
{
    if (cp->xd) cudnnDestroyTensorDescriptor(cp->xd);
    if (cp->yd) cudnnDestroyTensorDescriptor(cp->yd);
    if (cp->wd) cudnnDestroyFilterDescriptor(cp->wd);
    if (cp->cd) cudnnDestroyConvolutionDescriptor(cp->cd);
    if (cp->pack) cudnnBackendDestroyDescriptor(cp->pack);
    if (cp->plan) cudnnBackendDestroyDescriptor(cp->plan);
    if (cp->d_ws) TC_CUDA_CHECK(cudaFree(cp->d_ws));
}

static void launch(void *ctx, cudaStream_t stream)
{
    conv_plan *cp = (conv_plan *)ctx;
    TC_CUDNN_CHECK(cudnnSetStream(cp->handle, stream));
    if (cp->v->api == API_GRAPH) {
        TC_CUDNN_CHECK(cudnnBackendExecute(cp->handle, cp->plan, cp->pack));
    } else {
        float alpha = 1.0f, beta = 0.0f;
        TC_CUDNN_CHECK(cudnnConvolutionForward(cp->handle, &alpha, cp->xd, cp->d_x, cp->wd, cp->d_w,
                                               cp->cd, cp->algo, cp->d_ws, cp->ws_bytes, &beta,
                                               cp->yd, cp->d_y));
    }
}

/* ---- one case: inputs, poisoned output, run, check, optionally time -------------------------- */
typedef struct {
    int ran, pass;
    const char *row; /* the tolerance row the check used */
    char message[200];
    char used[96];
    size_t ws_bytes;
    tc_check_result check;
    tc_timing timing;
    double rate;
} case_result;

static void fill_tensor(void *h, tc_dtype t, tc_tensor_layout l, int N, int C, int H, int W,
                        int c_real, tc_rng *rng)
{
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    float v = c < c_real ? tc_rng_uniform(rng, -1.0f, 1.0f) : 0.0f;
                    tc_store(h, t, tc_tensor_index(l, C, H, W, n, c, y, x), v);
                }
}

static void run_case(const conv_variant *v, cudnnHandle_t handle, const conv_layer *layer,
                     uint64_t seed, int warmup, int reps, case_result *res)
{
    memset(res, 0, sizeof *res);
    conv_plan cp;
    memset(&cp, 0, sizeof cp);
    cp.v = v;
    cp.s = layer->shape;
    cp.handle = handle;
    const char *bad = tc_conv_shape_check(&cp.s);
    if (bad) {
        snprintf(res->message, sizeof res->message, "%s", bad);
        return;
    }
    const tc_conv_shape *s = &cp.s;
    size_t es = tc_dtype_size(v->type);
    size_t nx = (size_t)s->n * s->c * s->h * s->w, nw = (size_t)s->k * s->c * s->r * s->s,
           ny = (size_t)s->n * s->k * s->p * s->q;
    void *h_x = tc_xmalloc(nx * es), *h_w = tc_xmalloc(nw * es), *h_y = tc_xmalloc(ny * es),
         *h_y_nhwc = tc_xmalloc(ny * es);
    tc_rng rng;
    tc_rng_seed(&rng, seed);
    fill_tensor(h_x, v->type, v->layout, s->n, s->c, s->h, s->w, layer->c_real, &rng);
    fill_tensor(h_w, v->type, v->layout, s->k, s->c, s->r, s->s, layer->c_real, &rng);
    TC_CUDA_CHECK(cudaMalloc(&cp.d_x, nx * es));
    TC_CUDA_CHECK(cudaMalloc(&cp.d_w, nw * es));
    TC_CUDA_CHECK(cudaMalloc(&cp.d_y, ny * es));
    TC_CUDA_CHECK(cudaMemcpy(cp.d_x, h_x, nx * es, cudaMemcpyHostToDevice));
    TC_CUDA_CHECK(cudaMemcpy(cp.d_w, h_w, nw * es, cudaMemcpyHostToDevice));
    TC_CUDA_CHECK(cudaMemset(cp.d_y, tc_poison_byte(v->type), ny * es));

    /* the handle's stream must be valid before prepare: cudnnFind... runs kernels on it */
    cudaStream_t stream;
    TC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
    TC_CUDNN_CHECK(cudnnSetStream(handle, stream));
    const char *why = v->api == API_GRAPH ? prepare_graph(&cp) : prepare_legacy(&cp);
    if (why) {
        snprintf(res->message, sizeof res->message, "%s", why);
    } else {
        if (cp.ws_bytes) TC_CUDA_CHECK(cudaMalloc(&cp.d_ws, cp.ws_bytes));
        TC_CUDA_CHECK(cudaMemset(cp.d_y, tc_poison_byte(v->type), ny * es)); /* after Find */
        if (v->api == API_GRAPH) make_variant_pack(&cp);
        snprintf(res->used, sizeof res->used, "%s", cp.used);
        res->ws_bytes = cp.ws_bytes;
        launch(&cp, stream);
        TC_LAUNCH_CHECK();
        TC_CUDA_CHECK(cudaStreamSynchronize(stream));
        TC_CUDA_CHECK(cudaMemcpy(h_y, cp.d_y, ny * es, cudaMemcpyDeviceToHost));
        res->ran = 1;

        /* check: y as the row-major matrix [N*P*Q pixels] x [K channels] */
        tc_tensor_to_nhwc(h_y, h_y_nhwc, v->type, v->layout, s->n, s->k, s->p, s->q);
        long rows = (long)s->n * s->p * s->q, K_red = (long)layer->c_real * s->r * s->s;
        tc_matrix Y = tc_matrix_make(h_y_nhwc, v->type, rows, s->k, TC_ROW_MAJOR, s->k);
        tc_sample sample = tc_sample_make(rows, s->k, K_red, FULL_CHECK_LIMIT, SAMPLE_RANDOM, &rng);
        double *ref = (double *)tc_xmalloc((size_t)sample.n * sizeof(double));
        tc_ref_conv(s, h_x, h_w, v->type, v->layout, &sample, ref);
        /* FFT and Winograd do not multiply the inputs themselves: their own tolerance rows,
         * unless the variant's is looser already (TF32) */
        const char *prec = v->precision;
        if (cp.transform && strcmp(prec, "f32") == 0) prec = "f32_transform";
        if (cp.reduced && v->type == TC_F16) prec = "f16f16";
        if (cp.transform && v->type == TC_F16) prec = "f16_transform";
        res->check = tc_check(&Y, &sample, ref, tc_precision_get(prec), K_red, 1.0);
        res->pass = res->check.pass;
        res->row = prec;
        free(ref);
        tc_sample_free(&sample);

        if (reps > 0) {
            res->timing = tc_time_gpu(launch, &cp, stream, warmup, reps);
            /* useful work: padded channels do not count */
            tc_conv_shape useful = *s;
            useful.c = layer->c_real;
            res->rate = tc_conv_flops(&useful) / (res->timing.ms_median * 1e-3) / 1e12;
        }
    }
    TC_CUDA_CHECK(cudaStreamSynchronize(stream));
    TC_CUDNN_CHECK(cudnnSetStream(handle, NULL));
    TC_CUDA_CHECK(cudaStreamDestroy(stream));
    release_plan(&cp);
    TC_CUDA_CHECK(cudaFree(cp.d_x));
    TC_CUDA_CHECK(cudaFree(cp.d_w));
    TC_CUDA_CHECK(cudaFree(cp.d_y));
    free(h_x);
    free(h_w);
    free(h_y);
    free(h_y_nhwc);
}

/* ---- command line ---------------------------------------------------------------------------- */
enum { FLAG_LAYER, FLAG_SHAPE };
static const tc_cli_flag flags[] = {
    [FLAG_LAYER] = {.name = "--layer",
                    .metavar = "NAME",
                    .help = "a layer of the table (see --list) or 'all' (default res3_3x3_c128)"},
    [FLAG_SHAPE] = {.name = "--shape",
                    .metavar = "N,C,H,W,K,R,S[,PAD,STRIDE,DIL]",
                    .help = "one convolution: input NxCxHxW, K filters RxS (pad 0, stride 1, "
                            "dilation 1 by default)"},
};

/* What check_args makes of the flags, for the modes: the layers first..last of layers[], or the
 * --shape convolution; and the cuDNN handle init creates. */
static struct {
    const char *shape_text; /* --shape, NULL without */
    conv_layer custom;      /* the --shape convolution */
    int first, last;
    cudnnHandle_t handle;
} opts;

static void parse_shape(const char *text, conv_layer *out)
{
    long v[10] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
    int n = 0, ok = 1;
    const char *p = text;
    while (ok && n < 10) { /* numbers separated by single commas, each starting with a digit */
        if (n > 0) {
            if (*p != ',') break;
            p++;
        }
        char *end;
        const char *digits = *p == '-' ? p + 1 : p;
        if (*digits < '0' || *digits > '9')
            ok = 0;
        else
            v[n++] = strtol(p, &end, 10), p = end;
        if (ok && (v[n - 1] > (1L << 20) || v[n - 1] < -(1L << 20))) ok = 0;
    }
    if (!ok || *p != '\0' || (n != 7 && n != 10))
        tc_usage_error(PROGRAM,
                       "bad --shape '%s': expected N,C,H,W,K,R,S or N,C,H,W,K,R,S,PAD,STRIDE,DIL "
                       "(integers)",
                       text);
    memset(out, 0, sizeof *out);
    out->name = "shape";
    tc_conv_shape *s = &out->shape;
    s->n = (int)v[0], s->c = (int)v[1], s->h = (int)v[2], s->w = (int)v[3];
    s->k = (int)v[4], s->r = (int)v[5], s->s = (int)v[6];
    s->pad_h = s->pad_w = (int)v[7];
    s->stride_h = s->stride_w = (int)v[8];
    s->dil_h = s->dil_w = (int)v[9];
    out->c_real = s->c;
    const char *bad = tc_conv_shape_check(s);
    if (bad) tc_usage_error(PROGRAM, "bad --shape '%s': %s", text, bad);
}

static void print_list(void)
{
    printf("02_cudnn_conv - convolution on tensor cores through cuDNN\n\n");
    printf("%-19s %-9s %-6s %-5s %-10s %-10s %-7s %s\n", "variant", "precision", "min_sm", "data",
           "layout", "math", "api", "description");
    for (int i = 0; i < n_variants; i++) {
        const conv_variant *v = &variants[i];
        printf("%-19s %-9s sm_%-3d %-5s %-10s %-10s %-7s %s\n", v->name, v->precision, v->min_cc,
               tc_dtype_name(v->type), tc_tensor_layout_name(v->layout), math_name(v->math),
               v->api == API_GRAPH ? "graph" : "legacy", v->description);
    }
    printf("\nlayers (--layer):\n");
    for (int i = 0; i < n_layers; i++) {
        const tc_conv_shape *s = &layers[i].shape;
        printf("  %-20s N%d C%d%s %dx%d -> K%d, %dx%d filter, pad %d, stride %d\n", layers[i].name,
               s->n, s->c, layers[i].c_real < s->c ? " (3 real + zeros)" : "", s->h, s->w, s->k,
               s->r, s->s, s->pad_h, s->stride_h);
    }
}

static void shape_label(const conv_layer *l, char *buf, size_t n)
{
    const tc_conv_shape *s = &l->shape;
    snprintf(buf, n, "n%dc%dh%dw%dk%dr%ds%dp%du%dd%d", s->n, s->c, s->h, s->w, s->k, s->r, s->s,
             s->pad_h, s->stride_h, s->dil_h);
}

static void print_header(FILE *f)
{
    fprintf(f, "%-19s %-38s %8s %9s %8s %8s %10s %s\n", "variant", "algorithm / math used",
            "ws MiB", "ms(med)", "TFLOP/s", "vs " BASELINE, "rel_err", "check");
}

static void print_row(FILE *f, const conv_variant *v, const case_result *r, double base_rate)
{
    if (!r->ran) {
        fprintf(f, "%-19s %s\n", v->name, r->message);
        return;
    }
    char pct[16] = "-";
    if (base_rate > 0 && r->rate > 0)
        snprintf(pct, sizeof pct, "%.0f%%", 100 * r->rate / base_rate);
    fprintf(f, "%-19s %-38s %8.1f %9.3f %8.1f %8s %10.3g %s\n", v->name, r->used,
            (double)r->ws_bytes / (1 << 20), r->timing.ms_median, r->rate, pct,
            r->check.rel_fro_err,
            !r->pass          ? "FAIL"
            : r->check.coarse ? "coarse"
                              : "PASS");
    if (strcmp(r->row, v->precision) != 0 || r->check.coarse)
        fprintf(f, "    checked with the tolerance row %s%s\n", r->row,
                r->check.coarse ? ": the reduction is longer than it can verify (gross errors only)"
                                : "");
    if (!r->pass) {
        fprintf(f, "    ");
        tc_check_print(&r->check, f);
    }
}

static int selected(const tc_args *a, const conv_variant *v)
{
    return !a->variant || strcmp(a->variant, "all") == 0 || strcmp(a->variant, v->name) == 0 ||
           strcmp(v->name, BASELINE) == 0; /* the baseline always runs: every row names it */
}

/* Runs the selected variants on one layer; prints the table; appends CSV rows. */
static int run_layer(const tc_args *a, const tc_device_info *dev, cudnnHandle_t handle,
                     const conv_layer *layer, FILE *out, FILE *csv)
{
    case_result *res = (case_result *)calloc((size_t)n_variants, sizeof *res);
    int failed = 0, base = -1;
    char label[64];
    shape_label(layer, label, sizeof label);
    fprintf(out, "\n%s (%s)\n", layer->name, label);
    print_header(out);
    /* the baseline first, so that every row can be compared with it as it is printed */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n_variants; i++) {
            const conv_variant *v = &variants[i];
            int is_base = strcmp(v->name, BASELINE) == 0;
            if (is_base != (pass == 0) || !selected(a, v)) continue;
            if (is_base) base = i;
            if (v->min_cc > dev->cc) {
                snprintf(res[i].message, sizeof res[i].message, "skipped: needs sm_%d", v->min_cc);
            } else {
                run_case(v, handle, layer, a->seed, a->warmup, a->reps, &res[i]);
                failed += !res[i].pass;
            }
            print_row(out, v, &res[i], base >= 0 ? res[base].rate : 0);
            fflush(out);
            if (csv && res[i].ran) {
                tc_bench_row row;
                memset(&row, 0, sizeof row);
                row.chapter = PROGRAM;
                row.variant = v->name;
                row.problem = "convolution";
                row.precision = v->precision;
                snprintf(row.size, sizeof row.size, "%s", label);
                row.ms_median = res[i].timing.ms_median;
                row.ms_min = res[i].timing.ms_min;
                row.rate = res[i].rate;
                row.unit = "TFLOP/s";
                row.baseline = BASELINE;
                row.pct_of_baseline =
                    base >= 0 && res[base].rate > 0 ? 100 * res[i].rate / res[base].rate : 0;
                row.verified = !res[i].pass ? 0 : res[i].check.coarse ? TC_VERIFIED_COARSE : 1;
                row.has_rel_err = res[i].check.checked > 0;
                row.rel_err = res[i].check.rel_fro_err;
                tc_bench_csv_write(csv, &row, dev);
            }
        }
    free(res);
    return failed;
}

/* ---- the transform cases of --test -------------------------------------------------------------
 * cuDNN runs FP16 convolutions through FFT or Winograd only when its heuristics choose them, and on
 * the H200 none of the table's configurations did, so the f16_transform tolerance row would never
 * meet what those algorithms compute. These cases force them (FP16 NCHW: cuDNN 9 has no NHWC FP16
 * FFT or Winograd) on the test shapes the algorithms support by cuDNN's documentation, and check
 * the result with that row. They are not variants: no table or bench row, and --variant does not
 * select them. */
// clang-format off
static const conv_variant transform_cases[] = {
    {.name = "f16_nchw_fft_tiling", .type = TC_F16, .layout = TC_NCHW, .math = CUDNN_TENSOR_OP_MATH,
     .precision = "f16_transform", .min_cc = 70, .algo = ALGO_FFT_TILING,
     .description = "FP16 NCHW, FFT_TILING forced"},
    {.name = "f16_nchw_winograd",   .type = TC_F16, .layout = TC_NCHW, .math = CUDNN_TENSOR_OP_MATH,
     .precision = "f16_transform", .min_cc = 70, .algo = ALGO_WINOGRAD_NONFUSED,
     .description = "FP16 NCHW, WINOGRAD_NONFUSED forced"},
};
// clang-format on

/* NULL when the forced algorithm supports the shape (cuDNN's documented rules), else why not */
static const char *transform_unsupported(const conv_variant *v, const tc_conv_shape *s)
{
    if (s->stride_h != 1 || s->stride_w != 1 || s->dil_h != 1 || s->dil_w != 1)
        return "FFT and Winograd need stride 1 and dilation 1";
    if (v->algo == ALGO_WINOGRAD_NONFUSED && !(s->r == s->s && (s->r == 3 || s->r == 5)))
        return "WINOGRAD_NONFUSED needs a 3x3 or 5x5 filter";
    if (v->algo == ALGO_FFT_TILING && (s->r > 32 || s->s > 32))
        return "FFT_TILING needs filters of at most 32x32";
    return NULL;
}

static void run_transform_cases(const tc_args *a, const tc_device_info *dev, int *passed,
                                int *failed, int *not_applicable)
{
    const int n_cases = (int)(sizeof transform_cases / sizeof transform_cases[0]);
    for (int i = 0; i < n_cases; i++) {
        const conv_variant *v = &transform_cases[i];
        int n_shapes = getenv("TC_TEST_SMALL") ? 5 : n_test_shapes;
        for (int t = 0; t < n_shapes; t++) {
            const char *why = transform_unsupported(v, &test_shapes[t].shape);
            if (why) {
                printf("n/a  %-19s %-14s %s\n", v->name, test_shapes[t].name, why);
                (*not_applicable)++;
                continue;
            }
            case_result r;
            run_case(v, opts.handle, &test_shapes[t],
                     a->seed * 1000003u + (uint64_t)(5000 + i * 100 + t), 0, 0, &r);
            printf("%s %-19s %-14s %-38s ", r.pass ? "PASS" : "FAIL", v->name, test_shapes[t].name,
                   r.used);
            tc_test_line_end(r.ran, r.pass, &r.check, r.message, passed, failed);
            if (r.ran && r.check.worst_ratio >= 0)
                printf("    largest error %.3g of the row's allowance%s\n", r.check.worst_ratio,
                       r.check.coarse ? " (coarse: K beyond what the row can verify)" : "");
        }
    }
    (void)dev;
}

static int run_tests(const tc_args *a, const tc_device_info *dev)
{
    int passed = 0, failed = 0, skipped = 0;
    for (int i = 0; i < n_variants; i++) {
        const conv_variant *v = &variants[i];
        if (a->variant && strcmp(a->variant, "all") != 0 && strcmp(a->variant, v->name) != 0)
            continue;
        if (v->min_cc > dev->cc) {
            printf("SKIP %-19s needs sm_%d, this GPU is sm_%d\n", v->name, v->min_cc, dev->cc);
            skipped++;
            continue;
        }
        int n_shapes = getenv("TC_TEST_SMALL") ? 5 : n_test_shapes;
        for (int t = 0; t < n_shapes; t++) {
            case_result r;
            run_case(v, opts.handle, &test_shapes[t], a->seed * 1000003u + (uint64_t)(i * 100 + t),
                     0, 0, &r);
            printf("%s %-19s %-14s %-38s ", r.pass ? "PASS" : "FAIL", v->name, test_shapes[t].name,
                   r.used);
            tc_test_line_end(r.ran, r.pass, &r.check, r.message, &passed, &failed);
            if (r.ran && r.check.coarse)
                printf("    coarse: checked with %s, which cannot verify this reduction length "
                       "(gross errors only)\n",
                       r.row);
        }
    }
    int not_applicable = 0;
    if (!a->variant || strcmp(a->variant, "all") == 0)
        run_transform_cases(a, dev, &passed, &failed, &not_applicable);
    if (not_applicable)
        printf("%d case%s not applicable: outside what the forced algorithm supports\n",
               not_applicable, not_applicable > 1 ? "s" : "");
    return tc_test_finish(PROGRAM, passed, failed, skipped);
}

/* default mode and --bench: the layer table(s), CSV rows when csv is open */
static int measure(const tc_args *a, const tc_device_info *dev, FILE *info, FILE *csv)
{
    fprintf(info,
            "problem   : forward convolution, seed %llu, median of %d runs after %d "
            "warm-up, L2 flushed before each\n",
            (unsigned long long)a->seed, a->reps, a->warmup);
    int failed = 0;
    if (opts.shape_text)
        failed += run_layer(a, dev, opts.handle, &opts.custom, info, csv);
    else
        for (int i = opts.first; i <= opts.last; i++)
            failed += run_layer(a, dev, opts.handle, &layers[i], info, csv);
    fprintf(info, "\nrel_err: ||y - ref||_F / ||ref||_F, ref = FP64 direct convolution of the "
                  "same rounded inputs\n");
    return failed ? TC_EXIT_WRONG : TC_EXIT_PASS;
}

/* the problem flags, checked before any CUDA or cuDNN call; then cuDNN, before the device: a
 * missing library is a skip (77) whether or not there is a GPU */
static void check_args(const tc_args *a)
{
    const char *layer_name = a->flag_values[FLAG_LAYER];
    opts.shape_text = a->flag_values[FLAG_SHAPE];
    opts.first = opts.last = DEFAULT_LAYER;
    if (layer_name && opts.shape_text)
        tc_usage_error(PROGRAM, "--layer and --shape exclude each other");
    if (a->mode == TC_MODE_TEST && (layer_name || opts.shape_text))
        tc_usage_error(PROGRAM, "--test runs its own shapes; drop --layer/--shape");
    if (opts.shape_text) parse_shape(opts.shape_text, &opts.custom);
    if (layer_name && strcmp(layer_name, "all") != 0) {
        opts.first = opts.last = tc_table_find(layers, sizeof layers[0], n_layers, layer_name);
        if (opts.first < 0)
            tc_unknown_name(PROGRAM, "layer", layer_name, layers, sizeof layers[0], n_layers);
    } else if (layer_name || (a->mode == TC_MODE_BENCH && !opts.shape_text)) {
        opts.first = 0, opts.last = n_layers - 1;
    }

    if (opts.shape_text) { /* host memory: tensors as stored, their NHWC copy, float copies */
        const tc_conv_shape *s = &opts.custom.shape;
        double nx = (double)s->n * s->c * s->h * s->w, nw = (double)s->k * s->c * s->r * s->s,
               ny = (double)s->n * s->k * s->p * s->q;
        /* x, w (as stored and as float), y as stored and its NHWC copy, reference values */
        double need = 8.0 * (nx + nw) + 16.0 * ny, host = (double)tc_host_memory_bytes();
        if (host > 0 && need > host)
            tc_usage_error(PROGRAM,
                           "bad --shape '%s': needs %.1f GiB of host memory, this "
                           "machine has %.1f GiB",
                           opts.shape_text, need / (1 << 30), host / (1 << 30));
    }
    char why[512];
    if (tc_cudnn_load(why, sizeof why) != 0) tc_skip(PROGRAM, "%s", why);
}

static void check_device(const tc_args *a, const tc_device_info *dev)
{
    if (!opts.shape_text) return;
    const tc_conv_shape *s = &opts.custom.shape;
    double bytes = 4.0 * ((double)s->n * s->c * s->h * s->w + (double)s->k * s->c * s->r * s->s +
                          (double)s->n * s->k * s->p * s->q);
    if (bytes + (1 << 30) > (double)dev->mem_free)
        tc_usage_error(PROGRAM,
                       "bad --shape '%s': needs %.1f GiB of GPU memory (plus "
                       "workspace); %s has %.1f GiB free",
                       opts.shape_text, bytes / (1 << 30), dev->name,
                       (double)dev->mem_free / (1 << 30));
}

static void init(const tc_args *a, const tc_device_info *dev, FILE *info)
{
    tc_cudnn_require(PROGRAM, info);
    cudnnStatus_t st = cudnnCreate(&opts.handle);
    if (st != CUDNN_STATUS_SUCCESS)
        tc_skip(PROGRAM, "cudnnCreate failed: %s", cudnnGetErrorString(st));
}

static void fini(void) { cudnnDestroy(opts.handle); }

int main(int argc, char **argv)
{
    static const tc_program program = {
        .cli = {.program = PROGRAM,
                .summary = "convolution on tensor cores through cuDNN: math type, data type, "
                           "layout, channel padding, algorithm, API",
                TC_VARIANT_TABLE(variants),
                .default_reps = 20,
                .default_warmup = 5,
                .flags = flags,
                .n_flags = TC_COUNT(flags)},
        .min_cc = 70,
        .list = print_list,
        .check_args = check_args,
        .check_device = check_device,
        .init = init,
        .test = run_tests,
        .measure = measure,
        .fini = fini,
    };
    return tc_program_main(argc, argv, &program);
}
