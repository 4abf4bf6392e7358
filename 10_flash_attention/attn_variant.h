/* 10_flash_attention/attn_variant.h - what the driver (attention.c) and the hooks share: one
 * problem on the device (attn_run) and a row of the variant table (attn_variant) with the hooks
 * that run it. The kernels' own plain launchers (v0_unfused.cuh, v1_mma.cuh, v2_wgmma.cuh) take none of these
 * types; attn_hooks.cu turns an attn_run into their arguments, attn_cudnn.c into a cuDNN graph. */
#ifndef ATTN_VARIANT_H
#define ATTN_VARIANT_H

#include "attn_layout.h"

#include "harness.h"

#include <cuda_runtime_api.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One problem on the device, as a hook sees it. */
typedef struct {
    int B, H, Sq, Sk, D, causal;
    float scale;   /* 1 / sqrt(D) */
    tc_dtype type; /* TC_F16 or TC_BF16: Q, K, V and O */
    const void *q, *k, *v;
    void *o;
    float *l; /* B x H x Sq, f32 */
    attn_strides qs, ks, vs, os;
    /* 0: the launcher makes its run-time choices itself, as for a user; i >= 1: --test forces
     * choice i of the row (forced_names[i - 1]) */
    int force;
    void *plan;    /* what prepare stored */
    void *libs;    /* the library handles the driver made (attn_hooks_init) */
    char used[96]; /* what prepare chose, for the tables ("engine 8, TENSOR_CORE") */
} attn_run;

/* Prefixes of a prepare() message that does not fail the case: ATTN_SKIP, the problem is valid
 * and inside what the row declares, but this GPU or library version cannot take it (counted as
 * skipped: make test REQUIRE_GPU=1 fails on it); ATTN_NA, the problem is outside what the row
 * declares (its sizes in --list, or a forced choice that does not apply to the size): reported,
 * not counted. Any other message fails the case. */
#define ATTN_SKIP "skip: "
#define ATTN_NA   "n/a: "

typedef struct attn_variant attn_variant;
struct attn_variant {
    const char *name;        /* "v1_mma_bf16" */
    const char *precision;   /* row of common/verify.c's table: "f16f32h" or "bf16f32b" */
    int min_cc;              /* 80 = sm_80 */
    const char *target;      /* code needed beyond min_cc ("90a"), or NULL (harness.h) */
    const char *description; /* one line */
    const char *sizes;       /* what it takes, for --list */
    const char *baseline;    /* the row it is compared with in the same run; NULL: itself */
    const char *file;        /* where its kernel or graph lives */
    int n_forced;            /* run-time choices --test forces, named: */
    const char *const *forced_names;
    /* Outside the timed region: plans, workspaces, graphs. NULL, or why not (ATTN_SKIP, ATTN_NA
     * or a failure, above). */
    const char *(*prepare)(const attn_variant *v, attn_run *r);
    /* Enqueues the forward pass on stream; never synchronises or allocates. */
    void (*launch)(const attn_variant *v, const attn_run *r, cudaStream_t stream);
    void (*release)(const attn_variant *v, attn_run *r);
};

/* ---- the hooks (attn_hooks.cu: cuBLAS and the kernels; attn_cudnn.c: cuDNN) --------------- */
void *attn_hooks_init(void); /* the cuBLAS handle */
void attn_hooks_fini(void *libs);

const char *hook_v0_unfused_prepare(const attn_variant *v, attn_run *r);
void hook_v0_unfused_launch(const attn_variant *v, const attn_run *r, cudaStream_t stream);
void hook_v0_unfused_release(const attn_variant *v, attn_run *r);
/* v1 to v4: free the plan */
void hook_plan_release(const attn_variant *v, attn_run *r);
/* v0's softmax step alone, on the scores its last launch left (the bandwidth row of --bench);
 * bytes: what it must move (S read once, P and L written) */
void hook_v0_softmax_launch(const attn_variant *v, const attn_run *r, cudaStream_t stream);
double hook_v0_softmax_bytes(const attn_run *r);
int hook_v0_softmax_path_check(FILE *out); /* --test: wrong choices of v0's softmax path, printed */

const char *hook_v1_mma_prepare(const attn_variant *v, attn_run *r);
void hook_v1_mma_launch(const attn_variant *v, const attn_run *r, cudaStream_t stream);

const char *hook_v2_wgmma_prepare(const attn_variant *v, attn_run *r);
void hook_v2_wgmma_launch(const attn_variant *v, const attn_run *r, cudaStream_t stream);
const char *hook_v3_pingpong_prepare(const attn_variant *v, attn_run *r);
void hook_v3_pingpong_launch(const attn_variant *v, const attn_run *r, cudaStream_t stream);
const char *hook_v4_overlap_prepare(const attn_variant *v, attn_run *r);
void hook_v4_overlap_launch(const attn_variant *v, const attn_run *r, cudaStream_t stream);

/* cuDNN (attn_cudnn.c): loaded at run time; 0, or -1 with the reason (the rows then skip) */
int attn_cudnn_init(char *why, size_t why_size);
void attn_cudnn_print_version(FILE *f);
void attn_cudnn_fini(void);
const char *hook_cudnn_prepare(const attn_variant *v, attn_run *r);
void hook_cudnn_launch(const attn_variant *v, const attn_run *r, cudaStream_t stream);
void hook_cudnn_release(const attn_variant *v, attn_run *r);

#ifdef __cplusplus
}
#endif
#endif /* ATTN_VARIANT_H */
