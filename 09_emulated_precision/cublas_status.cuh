/* 09_emulated_precision/cublas_status.cuh - a cuBLAS status as the nearest CUDA error: the plain
 * launchers of the rungs built on cuBLAS (v2_ozaki.cuh, v3_bf16x.cuh, v5_ozaki2.cuh) return
 * cudaError_t, as every rung's launcher does. No harness types. */
#ifndef CUBLAS_STATUS_CUH
#define CUBLAS_STATUS_CUH

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

static inline cudaError_t cublas_status_error(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return cudaSuccess;
    case CUBLAS_STATUS_NOT_INITIALIZED: return cudaErrorInitializationError;
    case CUBLAS_STATUS_ALLOC_FAILED: return cudaErrorMemoryAllocation;
    case CUBLAS_STATUS_INVALID_VALUE: return cudaErrorInvalidValue;
    case CUBLAS_STATUS_EXECUTION_FAILED: return cudaErrorLaunchFailure;
    default: return cudaErrorUnknown;
    }
}

#endif /* CUBLAS_STATUS_CUH */
