/* 10_flash_attention/attn_hooks.cu - the rungs of the attention ladder as hooks of the driver's
 * variant table (attn_variant.h): prepare() checks the problem with the rung's plain API and makes
 * its plan or workspace (outside the timed region), launch() runs it, release() frees it. A
 * problem a rung cannot take is reported as skipped with the rung's own reason. The kernels are
 * in the rung files; nothing here is the lesson.
 *
 *   v0_unfused   v0_unfused.cuh   (cuBLAS, the handle made here once)
 *   v1_mma       v1_mma.cuh
 *   v2_wgmma     v2_wgmma.cuh     (sm_90a: the plan holds tensor maps, 128-byte aligned)
 *   v3_pingpong  v3_pingpong.cuh  (sm_90a: likewise)
 *   v4_overlap   v4_overlap.cuh   (sm_90a: likewise) */
#include "attn_variant.h"
#include "v0_unfused.cuh"
#include "v1_mma.cuh"
#include "v2_wgmma.cuh"
#include "v3_pingpong.cuh"
#include "v4_overlap.cuh"

#include "check.h"

#include <stdlib.h>

static bool is_bf16(const attn_run *r) { return r->type == TC_BF16; }

extern "C" void *attn_hooks_init(void)
{
    cublasHandle_t h = NULL;
    TC_CUBLAS_CHECK(cublasCreate(&h));
    return (void *)h;
}

extern "C" void attn_hooks_fini(void *libs)
{
    if (libs) TC_CUBLAS_CHECK(cublasDestroy((cublasHandle_t)libs));
}

/* A plain launcher's status as a prepare() message: NULL, a skip with the rung's reason for
 * cudaErrorNotSupported, or (any other error) the checked call's exit. */
static const char *hook_status(cudaError_t e, const char *why)
{
    static char msg[240];
    if (e == cudaSuccess) return NULL;
    if (e == cudaErrorNotSupported) {
        snprintf(msg, sizeof msg, ATTN_SKIP "%s", why ? why : "not supported on this GPU");
        return msg;
    }
    TC_CUDA_CHECK(e);
    return NULL;
}

/* A TMA rung's failed prepare: a tensor map the driver refused on a valid problem says the
 * driver's reason (tma_map_last_error); anything else as hook_status, with the rung's `why` or,
 * for neither, the shared-memory opt-in that failed. */
static const char *tma_rung_status(cudaError_t e, const char *why)
{
    if (!why && e == cudaErrorInvalidValue && tma_map_last_error()[0]) {
        static char msg[240];
        snprintf(msg, sizeof msg, "%s", tma_map_last_error());
        return msg;
    }
    return hook_status(e, why ? why : "the block needs more shared memory than this GPU has");
}

/* v1 to v4: the plan is one host allocation */
extern "C" void hook_plan_release(const attn_variant *v, attn_run *r)
{
    free(r->plan);
    r->plan = NULL;
}

/* ---- v0_unfused: the workspace (S and P) is the plan ------------------------------------------ */
typedef struct {
    void *ws;
    size_t bytes;
    int path;
} v0_plan;

template <class T> static const char *prepare_v0(attn_run *r)
{
    /* force 0: the rung chooses; 1 .. 6: the table's forced_names "vec4", "scalar", "row32",
     * "row64", "row128", "row256", which are the rung's ATTN_V0_VEC4, ATTN_V0_SCALAR and
     * ATTN_V0_ROW32 .. ATTN_V0_ROW256 */
    const int path = r->force;
    if (const char *why = attn_v0_path_unsupported(r->Sk, path)) { /* not this case's: n/a */
        static char msg[160];
        snprintf(msg, sizeof msg, ATTN_NA "forced: %s", why);
        return msg;
    }
    const char *why = attn_v0_unfused_unsupported<T>(r->B, r->H, r->Sq, r->Sk, r->D, r->qs, r->ks,
                                                     r->vs, r->os, path);
    if (why) return hook_status(cudaErrorNotSupported, why);
    size_t bytes = 0;
    TC_CUDA_CHECK(attn_v0_unfused_workspace_size<T>(r->B, r->H, r->Sq, r->Sk, &bytes));
    size_t free_b = 0, total = 0;
    TC_CUDA_CHECK(cudaMemGetInfo(&free_b, &total));
    if (bytes + (64u << 20) > free_b) {
        static char msg[200];
        snprintf(msg, sizeof msg,
                 ATTN_SKIP "S and P need %.1f GiB of workspace, %.1f GiB of GPU memory free",
                 bytes / 1073741824.0, free_b / 1073741824.0);
        return msg;
    }
    v0_plan *plan = (v0_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    TC_CUDA_CHECK(cudaMalloc(&plan->ws, bytes));
    /* poisoned: all-ones bytes are f32 NaNs, so a score the GEMM did not write makes its row of O
     * NaN and fails the check (and initcheck, which in CUDA 13.0 does not see the TMA stores of
     * cuBLAS's Hopper kernels, has no unwritten byte to report) */
    TC_CUDA_CHECK(cudaMemset(plan->ws, 0xff, bytes));
    plan->bytes = bytes, plan->path = path;
    r->plan = plan;
    const int chosen = attn_v0_softmax_path(r->Sk, path);
    char path_name[16];
    if (attn_v0_is_row_path(chosen))
        snprintf(path_name, sizeof path_name, "row/%d", attn_v0_row_group(chosen));
    else
        snprintf(path_name, sizeof path_name, "%s", chosen == ATTN_V0_VEC4 ? "float4" : "scalar");
    snprintf(r->used, sizeof r->used, "cuBLAS, softmax %s, %.1f GiB ws", path_name,
             bytes / 1073741824.0);
    return NULL;
}

extern "C" const char *hook_v0_unfused_prepare(const attn_variant *v, attn_run *r)
{
    return is_bf16(r) ? prepare_v0<__nv_bfloat16>(r) : prepare_v0<__half>(r);
}

template <class T> static cudaError_t launch_v0(const attn_run *r, cudaStream_t stream)
{
    const v0_plan *p = (const v0_plan *)r->plan;
    return attn_v0_unfused_forward_path<T>((cublasHandle_t)r->libs, r->B, r->H, r->Sq, r->Sk, r->D,
                                           (const T *)r->q, r->qs, (const T *)r->k, r->ks,
                                           (const T *)r->v, r->vs, (T *)r->o, r->os, r->l,
                                           r->causal, r->scale, p->ws, p->bytes, p->path, stream);
}

extern "C" void hook_v0_unfused_launch(const attn_variant *v, const attn_run *r,
                                       cudaStream_t stream)
{
    TC_CUDA_CHECK(is_bf16(r) ? launch_v0<__nv_bfloat16>(r, stream) : launch_v0<__half>(r, stream));
}

extern "C" void hook_v0_softmax_launch(const attn_variant *v, const attn_run *r,
                                       cudaStream_t stream)
{
    const v0_plan *p = (const v0_plan *)r->plan;
    TC_CUDA_CHECK(is_bf16(r)
                      ? attn_v0_unfused_softmax<__nv_bfloat16>(r->B, r->H, r->Sq, r->Sk, r->l,
                                                               r->causal, r->scale, p->ws, p->path,
                                                               stream)
                      : attn_v0_unfused_softmax<__half>(r->B, r->H, r->Sq, r->Sk, r->l, r->causal,
                                                        r->scale, p->ws, p->path, stream));
}

/* The launcher's choice of softmax path at the edges of each row group: a wrong choice still
 * computes the right P (a wider group, or the online kernel), so only this check sees it. Returns
 * the number of wrong choices, each printed as a FAIL line. */
extern "C" int hook_v0_softmax_path_check(FILE *out)
{
    static const struct {
        int Sk, path;
    } expected[] = {
        {1, ATTN_V0_SCALAR},    {4, ATTN_V0_ROW32},     {1001, ATTN_V0_SCALAR},
        {1024, ATTN_V0_ROW32},  {1028, ATTN_V0_ROW64},  {2048, ATTN_V0_ROW64},
        {2052, ATTN_V0_ROW128}, {4096, ATTN_V0_ROW128}, {4100, ATTN_V0_ROW256},
        {8192, ATTN_V0_ROW256}, {8193, ATTN_V0_SCALAR}, {8196, ATTN_V0_VEC4},
    };
    int wrong = 0;
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        const int Sk = expected[i].Sk, chosen = attn_v0_softmax_path(Sk, ATTN_V0_AUTO);
        const char *why = attn_v0_path_unsupported(Sk, chosen);
        if (chosen != expected[i].path || why) {
            fprintf(out, "FAIL v0_unfused softmax path for Sk %d: chose %d, expected %d%s%s\n", Sk,
                    chosen, expected[i].path, why ? ", and it refuses the row: " : "",
                    why ? why : "");
            wrong++;
        }
    }
    return wrong;
}

extern "C" double hook_v0_softmax_bytes(const attn_run *r)
{
    const double rows = (double)r->B * r->H * r->Sq;
    return rows * r->Sk * (sizeof(float) + 2) + rows * sizeof(float); /* S in, P and L out */
}

extern "C" void hook_v0_unfused_release(const attn_variant *v, attn_run *r)
{
    v0_plan *p = (v0_plan *)r->plan;
    if (p) TC_CUDA_CHECK(cudaFree(p->ws));
    free(p);
    r->plan = NULL;
}

/* ---- v1_mma ---------------------------------------------------------------------------------- */
template <class T> static const char *prepare_v1(attn_run *r)
{
    attn_v1_mma_plan *plan = (attn_v1_mma_plan *)malloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const T *Q = (const T *)r->q, *K = (const T *)r->k, *V = (const T *)r->v;
    T *O = (T *)r->o;
    const cudaError_t e =
        attn_v1_mma_prepare<T>(plan, r->B, r->H, r->Sq, r->Sk, r->D, Q, r->qs, K, r->ks, V, r->vs,
                               O, r->os, r->l, r->causal, r->scale);
    if (e != cudaSuccess) {
        free(plan);
        const char *why = attn_v1_mma_unsupported<T>(r->B, r->H, r->Sq, r->Sk, r->D, Q, r->qs, K,
                                                     r->ks, V, r->vs, O, r->os);
        return hook_status(e, why ? why : "the block needs more shared memory than this GPU has");
    }
    r->plan = plan;
    snprintf(r->used, sizeof r->used, "mma.sync m16n8k16, 64x64 tiles, %zu KiB smem",
             plan->smem / 1024);
    return NULL;
}

extern "C" const char *hook_v1_mma_prepare(const attn_variant *v, attn_run *r)
{
    return is_bf16(r) ? prepare_v1<__nv_bfloat16>(r) : prepare_v1<__half>(r);
}

extern "C" void hook_v1_mma_launch(const attn_variant *v, const attn_run *r, cudaStream_t stream)
{
    const attn_v1_mma_plan *p = (const attn_v1_mma_plan *)r->plan;
    TC_CUDA_CHECK(is_bf16(r) ? attn_v1_mma_run<__nv_bfloat16>(p, stream)
                             : attn_v1_mma_run<__half>(p, stream));
}

/* ---- v2 to v4: the TMA rungs' prepare(), alike but for the rung's own functions ------------------
 * The plan is one host allocation, 128-byte aligned (it holds tensor maps); a refusal frees it and
 * reports the rung's reason (tma_rung_status). */
template <class Plan, class T>
static const char *
prepare_tma_rung(attn_run *r,
                 cudaError_t (*prepare)(Plan *, int, int, int, int, int, const T *, attn_strides,
                                        const T *, attn_strides, const T *, attn_strides, T *,
                                        attn_strides, float *, int, float),
                 const char *(*unsupported)(int, int, int, int, int, const T *, attn_strides,
                                            const T *, attn_strides, const T *, attn_strides,
                                            const T *, attn_strides),
                 const char *what)
{
    Plan *plan = (Plan *)tma_host_calloc(sizeof *plan);
    if (!plan) return "out of host memory";
    const T *Q = (const T *)r->q, *K = (const T *)r->k, *V = (const T *)r->v;
    T *O = (T *)r->o;
    const cudaError_t e = prepare(plan, r->B, r->H, r->Sq, r->Sk, r->D, Q, r->qs, K, r->ks, V,
                                  r->vs, O, r->os, r->l, r->causal, r->scale);
    if (e != cudaSuccess) {
        free(plan);
        return tma_rung_status(
            e, unsupported(r->B, r->H, r->Sq, r->Sk, r->D, Q, r->qs, K, r->ks, V, r->vs, O, r->os));
    }
    r->plan = plan;
    snprintf(r->used, sizeof r->used, "%s, %zu KiB smem", what, plan->smem / 1024);
    return NULL;
}

/* ---- v2_wgmma -------------------------------------------------------------------------------- */
template <class T> static const char *prepare_v2(attn_run *r)
{
    return prepare_tma_rung<attn_v2_wgmma_plan, T>(
        r, attn_v2_wgmma_prepare<T>, attn_v2_wgmma_unsupported<T>, "wgmma SS + RS, 128x128 tiles");
}

extern "C" const char *hook_v2_wgmma_prepare(const attn_variant *v, attn_run *r)
{
    return is_bf16(r) ? prepare_v2<__nv_bfloat16>(r) : prepare_v2<__half>(r);
}

extern "C" void hook_v2_wgmma_launch(const attn_variant *v, const attn_run *r, cudaStream_t stream)
{
    const attn_v2_wgmma_plan *p = (const attn_v2_wgmma_plan *)r->plan;
    TC_CUDA_CHECK(is_bf16(r) ? attn_v2_wgmma_run<__nv_bfloat16>(p, stream)
                             : attn_v2_wgmma_run<__half>(p, stream));
}

/* ---- v3_pingpong -------------------------------------------------------------------------------- */
template <class T> static const char *prepare_v3(attn_run *r)
{
    return prepare_tma_rung<attn_v3_pingpong_plan, T>(r, attn_v3_pingpong_prepare<T>,
                                                      attn_v3_pingpong_unsupported<T>,
                                                      "wgmma SS + RS, 128x128 tiles, ping-pong");
}

extern "C" const char *hook_v3_pingpong_prepare(const attn_variant *v, attn_run *r)
{
    return is_bf16(r) ? prepare_v3<__nv_bfloat16>(r) : prepare_v3<__half>(r);
}

extern "C" void hook_v3_pingpong_launch(const attn_variant *v, const attn_run *r,
                                        cudaStream_t stream)
{
    const attn_v3_pingpong_plan *p = (const attn_v3_pingpong_plan *)r->plan;
    TC_CUDA_CHECK(is_bf16(r) ? attn_v3_pingpong_run<__nv_bfloat16>(p, stream)
                             : attn_v3_pingpong_run<__half>(p, stream));
}

/* ---- v4_overlap --------------------------------------------------------------------------------- */
template <class T> static const char *prepare_v4(attn_run *r)
{
    return prepare_tma_rung<attn_v4_overlap_plan, T>(
        r, attn_v4_overlap_prepare<T>, attn_v4_overlap_unsupported<T>,
        "wgmma SS + RS, 128x128 tiles, ping-pong, softmax j beside P V j-1");
}

extern "C" const char *hook_v4_overlap_prepare(const attn_variant *v, attn_run *r)
{
    return is_bf16(r) ? prepare_v4<__nv_bfloat16>(r) : prepare_v4<__half>(r);
}

extern "C" void hook_v4_overlap_launch(const attn_variant *v, const attn_run *r,
                                       cudaStream_t stream)
{
    const attn_v4_overlap_plan *p = (const attn_v4_overlap_plan *)r->plan;
    TC_CUDA_CHECK(is_bf16(r) ? attn_v4_overlap_run<__nv_bfloat16>(p, stream)
                             : attn_v4_overlap_run<__half>(p, stream));
}
