/* common/check.h - check every CUDA, cuBLAS, cuDNN and driver-API call.
 *
 * Each macro evaluates the call once; on failure it prints the expression, file:line and the
 * library's error name to stderr and exits with status 1 (a result that cannot be trusted is a
 * failed result). TC_LAUNCH_CHECK() goes after every kernel launch: it catches launch-
 * configuration errors at once (the kernel's own faults surface at the next synchronising call,
 * which is checked too).
 *
 * cuBLAS and cuDNN checks are in their own headers' guards: include cublas_v2.h / cudnn.h /
 * cuda.h before this file to get TC_CUBLAS_CHECK / TC_CUDNN_CHECK / TC_CU_CHECK. */
#ifndef TC_CHECK_H
#define TC_CHECK_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif
/* Prints "file:line: what failed: expr: name (detail)" and exits 1. */
void tc_check_fail(const char *file, int line, const char *lib, const char *expr, const char *name,
                   const char *detail);
#ifdef __cplusplus
}
#endif

#define TC_CUDA_CHECK(call)                                                                        \
    do {                                                                                           \
        cudaError_t tc_err_ = (call);                                                              \
        if (tc_err_ != cudaSuccess)                                                                \
            tc_check_fail(__FILE__, __LINE__, "CUDA", #call, cudaGetErrorName(tc_err_),            \
                          cudaGetErrorString(tc_err_));                                            \
    } while (0)

#define TC_LAUNCH_CHECK() TC_CUDA_CHECK(cudaGetLastError())

#if defined(CUBLAS_API_H_) || defined(CUBLAS_V2_H_) || defined(CUBLASLT_H_) || defined(CUBLAS_H_)
#define TC_CUBLAS_CHECK(call)                                                                      \
    do {                                                                                           \
        cublasStatus_t tc_st_ = (call);                                                            \
        if (tc_st_ != CUBLAS_STATUS_SUCCESS)                                                       \
            tc_check_fail(__FILE__, __LINE__, "cuBLAS", #call, cublasGetStatusName(tc_st_),        \
                          cublasGetStatusString(tc_st_));                                          \
    } while (0)
#endif

#if defined(CUDNN_H_) || defined(CUDNN_GRAPH_H_)
#define TC_CUDNN_CHECK(call)                                                                       \
    do {                                                                                           \
        cudnnStatus_t tc_st_ = (call);                                                             \
        if (tc_st_ != CUDNN_STATUS_SUCCESS)                                                        \
            tc_check_fail(__FILE__, __LINE__, "cuDNN", #call, cudnnGetErrorString(tc_st_), "");    \
    } while (0)
#endif

#if defined(__cuda_cuda_h__)
#define TC_CU_CHECK(call)                                                                          \
    do {                                                                                           \
        CUresult tc_res_ = (call);                                                                 \
        if (tc_res_ != CUDA_SUCCESS) {                                                             \
            const char *tc_name_ = "unknown", *tc_str_ = "";                                       \
            cuGetErrorName(tc_res_, &tc_name_);                                                    \
            cuGetErrorString(tc_res_, &tc_str_);                                                   \
            tc_check_fail(__FILE__, __LINE__, "CUDA driver", #call, tc_name_, tc_str_);            \
        }                                                                                          \
    } while (0)
#endif

#endif /* TC_CHECK_H */
