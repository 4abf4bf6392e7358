/* common/cudnn_loader.h - cuDNN, loaded at run time.
 *
 * Why: a program linked against libcudnn cannot even start where the library is missing (the
 * dynamic loader stops it before main, with exit code 127). The contract of this repository is
 * exit 77 with one line saying what is missing. So the chapters that use cuDNN do not link it:
 * tc_cudnn_load() dlopen()s libcudnn.so.9 and looks up the functions below; everything else is
 * ordinary cuDNN code, because each cuDNN name used is #defined to its looked-up pointer.
 *
 * Include this header instead of <cudnn.h>. Add a function to TC_CUDNN_FUNCTIONS and to the
 * #define list when a chapter needs one more. */
#ifndef TC_CUDNN_LOADER_H
#define TC_CUDNN_LOADER_H

#include <cudnn.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Loads cuDNN (once). Returns 0, or -1 with a one-line reason in why. */
int tc_cudnn_load(char *why, size_t why_size);
/* "IMPLICIT_GEMM", "WINOGRAD", ...: the name of a forward convolution algorithm, for tables. */
const char *tc_cudnn_fwd_algo_name(cudnnConvolutionFwdAlgo_t a);
/* Loads cuDNN or exits 77 with "SKIP: <program>: <reason>"; prints the version to info. */
void tc_cudnn_require(const char *program, FILE *info);

#define TC_CUDNN_FUNCTIONS(X)                                                                      \
    X(cudnnGetVersion)                                                                             \
    X(cudnnGetErrorString)                                                                         \
    X(cudnnCreate)                                                                                 \
    X(cudnnDestroy)                                                                                \
    X(cudnnSetStream)                                                                              \
    X(cudnnCreateTensorDescriptor)                                                                 \
    X(cudnnSetTensor4dDescriptor)                                                                  \
    X(cudnnDestroyTensorDescriptor)                                                                \
    X(cudnnCreateFilterDescriptor)                                                                 \
    X(cudnnSetFilter4dDescriptor)                                                                  \
    X(cudnnDestroyFilterDescriptor)                                                                \
    X(cudnnCreateConvolutionDescriptor)                                                            \
    X(cudnnSetConvolution2dDescriptor)                                                             \
    X(cudnnSetConvolutionMathType)                                                                 \
    X(cudnnDestroyConvolutionDescriptor)                                                           \
    X(cudnnGetConvolution2dForwardOutputDim)                                                       \
    X(cudnnGetConvolutionForwardAlgorithm_v7)                                                      \
    X(cudnnFindConvolutionForwardAlgorithmEx)                                                      \
    X(cudnnGetConvolutionForwardWorkspaceSize)                                                     \
    X(cudnnConvolutionForward)                                                                     \
    X(cudnnBackendCreateDescriptor)                                                                \
    X(cudnnBackendDestroyDescriptor)                                                               \
    X(cudnnBackendSetAttribute)                                                                    \
    X(cudnnBackendGetAttribute)                                                                    \
    X(cudnnBackendFinalize)                                                                        \
    X(cudnnBackendExecute)

#define TC_CUDNN_DECLARE(f) extern __typeof__(f) *tc_cudnn_##f;
TC_CUDNN_FUNCTIONS(TC_CUDNN_DECLARE)
#undef TC_CUDNN_DECLARE

#ifdef __cplusplus
}
#endif

/* From here on, cuDNN names call through the pointers (not inside the loader itself). */
#ifndef TC_CUDNN_LOADER_IMPLEMENTATION
#define cudnnGetVersion                         tc_cudnn_cudnnGetVersion
#define cudnnGetErrorString                     tc_cudnn_cudnnGetErrorString
#define cudnnCreate                             tc_cudnn_cudnnCreate
#define cudnnDestroy                            tc_cudnn_cudnnDestroy
#define cudnnSetStream                          tc_cudnn_cudnnSetStream
#define cudnnCreateTensorDescriptor             tc_cudnn_cudnnCreateTensorDescriptor
#define cudnnSetTensor4dDescriptor              tc_cudnn_cudnnSetTensor4dDescriptor
#define cudnnDestroyTensorDescriptor            tc_cudnn_cudnnDestroyTensorDescriptor
#define cudnnCreateFilterDescriptor             tc_cudnn_cudnnCreateFilterDescriptor
#define cudnnSetFilter4dDescriptor              tc_cudnn_cudnnSetFilter4dDescriptor
#define cudnnDestroyFilterDescriptor            tc_cudnn_cudnnDestroyFilterDescriptor
#define cudnnCreateConvolutionDescriptor        tc_cudnn_cudnnCreateConvolutionDescriptor
#define cudnnSetConvolution2dDescriptor         tc_cudnn_cudnnSetConvolution2dDescriptor
#define cudnnSetConvolutionMathType             tc_cudnn_cudnnSetConvolutionMathType
#define cudnnDestroyConvolutionDescriptor       tc_cudnn_cudnnDestroyConvolutionDescriptor
#define cudnnGetConvolution2dForwardOutputDim   tc_cudnn_cudnnGetConvolution2dForwardOutputDim
#define cudnnGetConvolutionForwardAlgorithm_v7  tc_cudnn_cudnnGetConvolutionForwardAlgorithm_v7
#define cudnnFindConvolutionForwardAlgorithmEx  tc_cudnn_cudnnFindConvolutionForwardAlgorithmEx
#define cudnnGetConvolutionForwardWorkspaceSize tc_cudnn_cudnnGetConvolutionForwardWorkspaceSize
#define cudnnConvolutionForward                 tc_cudnn_cudnnConvolutionForward
#define cudnnBackendCreateDescriptor            tc_cudnn_cudnnBackendCreateDescriptor
#define cudnnBackendDestroyDescriptor           tc_cudnn_cudnnBackendDestroyDescriptor
#define cudnnBackendSetAttribute                tc_cudnn_cudnnBackendSetAttribute
#define cudnnBackendGetAttribute                tc_cudnn_cudnnBackendGetAttribute
#define cudnnBackendFinalize                    tc_cudnn_cudnnBackendFinalize
#define cudnnBackendExecute                     tc_cudnn_cudnnBackendExecute
#endif

#include "check.h" /* after cudnn.h: defines TC_CUDNN_CHECK */

#endif
