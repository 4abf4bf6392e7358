/* common/cudnn_loader.c - see cudnn_loader.h. */
#define _GNU_SOURCE
#define TC_CUDNN_LOADER_IMPLEMENTATION
#include "cudnn_loader.h"

#include "harness.h"

#include <dlfcn.h>
#include <stdlib.h>

#define TC_CUDNN_DEFINE(f) __typeof__(f) *tc_cudnn_##f;
TC_CUDNN_FUNCTIONS(TC_CUDNN_DEFINE)
#undef TC_CUDNN_DEFINE

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
#define TC_CUDNN_LOOKUP(f)                                                                         \
    *(void **)&tc_cudnn_##f = dlsym(lib, #f);                                                      \
    if (!tc_cudnn_##f) {                                                                           \
        snprintf(why, why_size, "the cuDNN found lacks %s (cuDNN 9 needed)", #f);                  \
        return -1;                                                                                 \
    }
    TC_CUDNN_FUNCTIONS(TC_CUDNN_LOOKUP)
#undef TC_CUDNN_LOOKUP
    size_t v = tc_cudnn_cudnnGetVersion();
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
    size_t v = tc_cudnn_cudnnGetVersion();
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
