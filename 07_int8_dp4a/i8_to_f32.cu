/* 07_int8_dp4a/i8_to_f32.cu - the int8 data as f32, for 07_int8_gemm's cuBLAS SGEMM comparison
 * row (main.c converts A and B once in its prepare, outside the timed region). Not a rung of the
 * ladder: a grid-stride copy, exact (every int8 value is an f32). */
#include "int8_gemm.h"

__global__ void i8_to_f32(const int8_t *__restrict__ src, float *__restrict__ dst, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = (float)src[i];
}

extern "C" void i8_to_f32_launch(const int8_t *src, float *dst, size_t n, cudaStream_t stream)
{
    i8_to_f32<<<1024, 256, 0, stream>>>(src, dst, n);
}
