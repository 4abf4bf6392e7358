/* common/cudnn_loader.h - cuDNN, loaded at run time.
 *
 * Why: a program linked against libcudnn cannot even start where the library is missing (the
 * dynamic loader stops it before main, with exit code 127). The contract of this repository is
 * exit 77 with one line saying what is missing. So the chapters that use cuDNN do not link it:
 * tc_cudnn_load() dlopen()s libcudnn.so.9 and looks up the functions below; everything else is
 * ordinary cuDNN code, because each cuDNN name used is #defined to its looked-up pointer.
 *
 * Include this header instead of <cudnn.h>. A chapter that needs one more function adds it to
 * tc_cudnn_api, to the loader's table of names (cudnn_loader.c) and to the #define list. */
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

/* The functions looked up, one pointer each (tc_cudnn_load fills them by name) */
typedef struct {
    __typeof__(cudnnGetVersion) *cudnnGetVersion;
    __typeof__(cudnnGetErrorString) *cudnnGetErrorString;
    __typeof__(cudnnCreate) *cudnnCreate;
    __typeof__(cudnnDestroy) *cudnnDestroy;
    __typeof__(cudnnSetStream) *cudnnSetStream;
    __typeof__(cudnnCreateTensorDescriptor) *cudnnCreateTensorDescriptor;
    __typeof__(cudnnSetTensor4dDescriptor) *cudnnSetTensor4dDescriptor;
    __typeof__(cudnnDestroyTensorDescriptor) *cudnnDestroyTensorDescriptor;
    __typeof__(cudnnCreateFilterDescriptor) *cudnnCreateFilterDescriptor;
    __typeof__(cudnnSetFilter4dDescriptor) *cudnnSetFilter4dDescriptor;
    __typeof__(cudnnDestroyFilterDescriptor) *cudnnDestroyFilterDescriptor;
    __typeof__(cudnnCreateConvolutionDescriptor) *cudnnCreateConvolutionDescriptor;
    __typeof__(cudnnSetConvolution2dDescriptor) *cudnnSetConvolution2dDescriptor;
    __typeof__(cudnnSetConvolutionMathType) *cudnnSetConvolutionMathType;
    __typeof__(cudnnDestroyConvolutionDescriptor) *cudnnDestroyConvolutionDescriptor;
    __typeof__(cudnnGetConvolution2dForwardOutputDim) *cudnnGetConvolution2dForwardOutputDim;
    __typeof__(cudnnGetConvolutionForwardAlgorithm_v7) *cudnnGetConvolutionForwardAlgorithm_v7;
    __typeof__(cudnnFindConvolutionForwardAlgorithmEx) *cudnnFindConvolutionForwardAlgorithmEx;
    __typeof__(cudnnGetConvolutionForwardWorkspaceSize) *cudnnGetConvolutionForwardWorkspaceSize;
    __typeof__(cudnnConvolutionForward) *cudnnConvolutionForward;
    __typeof__(cudnnBackendCreateDescriptor) *cudnnBackendCreateDescriptor;
    __typeof__(cudnnBackendDestroyDescriptor) *cudnnBackendDestroyDescriptor;
    __typeof__(cudnnBackendSetAttribute) *cudnnBackendSetAttribute;
    __typeof__(cudnnBackendGetAttribute) *cudnnBackendGetAttribute;
    __typeof__(cudnnBackendFinalize) *cudnnBackendFinalize;
    __typeof__(cudnnBackendExecute) *cudnnBackendExecute;
} tc_cudnn_api;
extern tc_cudnn_api tc_cudnn;

#ifdef __cplusplus
}
#endif

/* From here on, cuDNN names call through the pointers (not inside the loader itself). */
#ifndef TC_CUDNN_LOADER_IMPLEMENTATION
#define cudnnGetVersion                         tc_cudnn.cudnnGetVersion
#define cudnnGetErrorString                     tc_cudnn.cudnnGetErrorString
#define cudnnCreate                             tc_cudnn.cudnnCreate
#define cudnnDestroy                            tc_cudnn.cudnnDestroy
#define cudnnSetStream                          tc_cudnn.cudnnSetStream
#define cudnnCreateTensorDescriptor             tc_cudnn.cudnnCreateTensorDescriptor
#define cudnnSetTensor4dDescriptor              tc_cudnn.cudnnSetTensor4dDescriptor
#define cudnnDestroyTensorDescriptor            tc_cudnn.cudnnDestroyTensorDescriptor
#define cudnnCreateFilterDescriptor             tc_cudnn.cudnnCreateFilterDescriptor
#define cudnnSetFilter4dDescriptor              tc_cudnn.cudnnSetFilter4dDescriptor
#define cudnnDestroyFilterDescriptor            tc_cudnn.cudnnDestroyFilterDescriptor
#define cudnnCreateConvolutionDescriptor        tc_cudnn.cudnnCreateConvolutionDescriptor
#define cudnnSetConvolution2dDescriptor         tc_cudnn.cudnnSetConvolution2dDescriptor
#define cudnnSetConvolutionMathType             tc_cudnn.cudnnSetConvolutionMathType
#define cudnnDestroyConvolutionDescriptor       tc_cudnn.cudnnDestroyConvolutionDescriptor
#define cudnnGetConvolution2dForwardOutputDim   tc_cudnn.cudnnGetConvolution2dForwardOutputDim
#define cudnnGetConvolutionForwardAlgorithm_v7  tc_cudnn.cudnnGetConvolutionForwardAlgorithm_v7
#define cudnnFindConvolutionForwardAlgorithmEx  tc_cudnn.cudnnFindConvolutionForwardAlgorithmEx
#define cudnnGetConvolutionForwardWorkspaceSize tc_cudnn.cudnnGetConvolutionForwardWorkspaceSize
#define cudnnConvolutionForward                 tc_cudnn.cudnnConvolutionForward
#define cudnnBackendCreateDescriptor            tc_cudnn.cudnnBackendCreateDescriptor
#define cudnnBackendDestroyDescriptor           tc_cudnn.cudnnBackendDestroyDescriptor
#define cudnnBackendSetAttribute                tc_cudnn.cudnnBackendSetAttribute
#define cudnnBackendGetAttribute                tc_cudnn.cudnnBackendGetAttribute
#define cudnnBackendFinalize                    tc_cudnn.cudnnBackendFinalize
#define cudnnBackendExecute                     tc_cudnn.cudnnBackendExecute
#endif

#include "check.h" /* after cudnn.h: defines TC_CUDNN_CHECK */

#endif
