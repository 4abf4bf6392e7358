/* common/shared_poison.cu - fills every SM's shared memory with 0xFF bytes before a checked
 * launch (harness.h, tc_poison_shared_memory).
 *
 * Shared memory is not cleared between kernels: a block that reads a stage before its copy has
 * landed (a wait one group short, a barrier missing) reads what the last block on that SM left
 * there. In a test that is often the right answer: the same variant's first launch, or the rung
 * before it, copied the same tiles of the same inputs into the same addresses a moment ago, and
 * the race passes every case. After this kernel the stale bytes are 0xFF, a NaN in every float
 * format, so such a read shows in the result. */
#include "check.h"
#include "harness.h"

#include <cuda_runtime.h>

/* One block per SM at a time (it asks for all the shared memory a block may have), two per SM in
 * all, so that every SM runs at least one; each thread writes 16-byte words over the buffer.
 * volatile: the stores are the kernel's whole effect, and nothing in it reads them back. */
__global__ void __launch_bounds__(1024) poison_shared_kernel(int words)
{
    extern __shared__ uint4 buffer[];
    volatile uint4 *words_out = buffer;
    for (int i = threadIdx.x; i < words; i += blockDim.x) {
        words_out[i].x = 0xFFFFFFFFu;
        words_out[i].y = 0xFFFFFFFFu;
        words_out[i].z = 0xFFFFFFFFu;
        words_out[i].w = 0xFFFFFFFFu;
    }
}

extern "C" void tc_poison_shared_memory(cudaStream_t stream)
{
    static int bytes = -1, sms = 0;
    if (bytes < 0) {
        int device = 0;
        TC_CUDA_CHECK(cudaGetDevice(&device));
        TC_CUDA_CHECK(
            cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        TC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        TC_CUDA_CHECK(cudaFuncSetAttribute(poison_shared_kernel,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
        TC_CUDA_CHECK(cudaFuncSetAttribute(poison_shared_kernel,
                                           cudaFuncAttributePreferredSharedMemoryCarveout,
                                           cudaSharedmemCarveoutMaxShared));
    }
    poison_shared_kernel<<<2 * sms, 1024, (size_t)bytes, stream>>>(bytes / 16);
    TC_LAUNCH_CHECK();
}
