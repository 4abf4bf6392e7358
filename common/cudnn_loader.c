/* common/cudnn_loader.c - see cudnn_loader.h. */
#define _GNU_SOURCE
#define TC_CUDNN_LOADER_IMPLEMENTATION
#include "cudnn_loader.h"

#include "harness.h"

#include <dlfcn.h>
#include <stdlib.h>

tc_cudnn_api tc_cudnn;

/* every pointer of tc_cudnn with the name dlsym looks up */
static const struct {
    const char *name;
    void **slot;
} symbols[] = {
    {.name = "cudnnGetVersion", .slot = (void **)&tc_cudnn.cudnnGetVersion},
    {.name = "cudnnGetErrorString", .slot = (void **)&tc_cudnn.cudnnGetErrorString},
    {.name = "cudnnCreate", .slot = (void **)&tc_cudnn.cudnnCreate},
    {.name = "cudnnDestroy", .slot = (void **)&tc_cudnn.cudnnDestroy},
    {.name = "cudnnSetStream", .slot = (void **)&tc_cudnn.cudnnSetStream},
    {.name = "cudnnCreateTensorDescriptor", .slot = (void **)&tc_cudnn.cudnnCreateTensorDescriptor},
    {.name = "cudnnSetTensor4dDescriptor", .slot = (void **)&tc_cudnn.cudnnSetTensor4dDescriptor},
    {.name = "cudnnDestroyTensorDescriptor",
     .slot = (void **)&tc_cudnn.cudnnDestroyTensorDescriptor},
    {.name = "cudnnCreateFilterDescriptor", .slot = (void **)&tc_cudnn.cudnnCreateFilterDescriptor},
    {.name = "cudnnSetFilter4dDescriptor", .slot = (void **)&tc_cudnn.cudnnSetFilter4dDescriptor},
    {.name = "cudnnDestroyFilterDescriptor",
     .slot = (void **)&tc_cudnn.cudnnDestroyFilterDescriptor},
    {.name = "cudnnCreateConvolutionDescriptor",
     .slot = (void **)&tc_cudnn.cudnnCreateConvolutionDescriptor},
    {.name = "cudnnSetConvolution2dDescriptor",
     .slot = (void **)&tc_cudnn.cudnnSetConvolution2dDescriptor},
    {.name = "cudnnSetConvolutionMathType", .slot = (void **)&tc_cudnn.cudnnSetConvolutionMathType},
    {.name = "cudnnDestroyConvolutionDescriptor",
     .slot = (void **)&tc_cudnn.cudnnDestroyConvolutionDescriptor},
    {.name = "cudnnGetConvolution2dForwardOutputDim",
     .slot = (void **)&tc_cudnn.cudnnGetConvolution2dForwardOutputDim},
    {.name = "cudnnGetConvolutionForwardAlgorithm_v7",
     .slot = (void **)&tc_cudnn.cudnnGetConvolutionForwardAlgorithm_v7},
    {.name = "cudnnFindConvolutionForwardAlgorithmEx",
     .slot = (void **)&tc_cudnn.cudnnFindConvolutionForwardAlgorithmEx},
    {.name = "cudnnGetConvolutionForwardWorkspaceSize",
     .slot = (void **)&tc_cudnn.cudnnGetConvolutionForwardWorkspaceSize},
    {.name = "cudnnConvolutionForward", .slot = (void **)&tc_cudnn.cudnnConvolutionForward},
    {.name = "cudnnBackendCreateDescriptor",
     .slot = (void **)&tc_cudnn.cudnnBackendCreateDescriptor},
    {.name = "cudnnBackendDestroyDescriptor",
     .slot = (void **)&tc_cudnn.cudnnBackendDestroyDescriptor},
    {.name = "cudnnBackendSetAttribute", .slot = (void **)&tc_cudnn.cudnnBackendSetAttribute},
    {.name = "cudnnBackendGetAttribute", .slot = (void **)&tc_cudnn.cudnnBackendGetAttribute},
    {.name = "cudnnBackendFinalize", .slot = (void **)&tc_cudnn.cudnnBackendFinalize},
    {.name = "cudnnBackendExecute", .slot = (void **)&tc_cudnn.cudnnBackendExecute},
};

int tc_cudnn_load(char *why, size_t why_size)
{
    static int loaded = 0;
    if (loaded) return 0;
    /* The executable's RUNPATH (set by the Makefile to where cuDNN was found at build time) is
     * searched by dlopen too; then the loader's usual places. */
    void *lib = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) lib = dlopen("libcudnn.so", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        snprintf(why, why_size, "cuDNN 9 not found at run time (%s)", dlerror());
        return -1;
    }
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        *symbols[i].slot = dlsym(lib, symbols[i].name);
        if (!*symbols[i].slot) {
            snprintf(why, why_size, "the cuDNN found lacks %s (cuDNN 9 needed)", symbols[i].name);
            return -1;
        }
    }
    size_t v = tc_cudnn.cudnnGetVersion();
    if (v < 90000) {
        snprintf(why, why_size, "cuDNN %zu found, 9.0 or newer needed", v);
        return -1;
    }
    loaded = 1;
    return 0;
}

void tc_cudnn_require(const char *program, FILE *info)
{
    char why[512];
    if (tc_cudnn_load(why, sizeof why) != 0) tc_skip(program, "%s", why);
    size_t v = tc_cudnn.cudnnGetVersion();
    tc_info_line(info, "cuDNN", "%zu.%zu.%zu (built against %d.%d.%d)", v / 10000, v % 10000 / 100,
                 v % 100, CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL);
}

const char *tc_cudnn_fwd_algo_name(cudnnConvolutionFwdAlgo_t a)
{
    switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    default: return "?";
    }
}
