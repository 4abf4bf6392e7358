/* common/tma_map.h - host side of the TMA: a CUtensorMap for a K-major operand tile or a box of C
 * (CUDA C++, host code of the Hopper rungs of chapters 04, 05 and 09 and of 05's wgmma probe).
 * Self-contained: every function returns a status instead of exiting, so a rung that uses it can
 * be copied into any program.
 *
 * A tensor map describes a tensor in global memory (base, sizes, strides, element type) and the
 * box one copy moves (here 128 bytes along k: 64 16-bit values, 32 f32 or 128 fp8 values, by
 * box_rows rows), with the swizzle the box gets in
 * shared memory. It is made once on the host and passed to the kernel by value as a
 * __grid_constant__ parameter; the copy engine reads it from there.
 *
 * cuTensorMapEncodeTiled is a driver API function. Rather than link libcuda (which a machine
 * without a driver does not have, so the program would not even start), the runtime hands out a
 * pointer to it: cudaGetDriverEntryPointByVersion (CUDA 12.5+; cudaGetDriverEntryPoint before).
 *
 * The rules the TMA imposes, and that tma_operand_unsupported checks first: the base address
 * 16-byte aligned, the row stride (ld times the element size) a multiple of 16 bytes, i.e. ld a
 * multiple of 16 fp8, 8 16-bit or 4 f32 values. Sizes need not be multiples of the box: the
 * parts of a box outside the tensor are filled with zeros in shared memory. */
#ifndef TMA_MAP_H
#define TMA_MAP_H

#include <cuda.h>
#include <cudaTypedefs.h> /* PFN_cuTensorMapEncodeTiled */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bytes of one element of the types used here (f16, bf16: 2; f32, read as tf32: 4; fp8 as
 * UINT8: 1). */
static inline int tma_elem_bytes(CUtensorMapDataType type)
{
    return type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32 ? 4
           : type == CU_TENSOR_MAP_DATA_TYPE_UINT8 ? 1
                                                   : 2;
}

/* NULL when a rows x K operand (leading dimension ld, elements of elem_bytes) at ptr can be read
 * by the TMA, else why not. */
static inline const char *tma_operand_unsupported(const void *ptr, long ld, int elem_bytes)
{
    if ((uintptr_t)ptr % 16 != 0) return "the TMA needs a 16-byte aligned base address";
    if (ld * elem_bytes % 16 != 0)
        return elem_bytes == 1   ? "the TMA needs rows a multiple of 16 bytes apart (ld % 16 == 0)"
               : elem_bytes == 2 ? "the TMA needs rows a multiple of 16 bytes apart (ld % 8 == 0)"
                                 : "the TMA needs rows a multiple of 16 bytes apart (ld % 4 == 0)";
    return NULL;
}

/* What the last failed map of this source file was, for a message (empty when none failed): the
 * status codes say only "invalid value", which does not tell a wrong size from a wrong stride */
static inline char *tma_map_last_error(void)
{
    static char why[160] = "";
    return why;
}

/* cuTensorMapEncodeTiled through the runtime (no link against libcuda), or NULL when the driver
 * has none (before CUDA 12, or no driver) */
static inline PFN_cuTensorMapEncodeTiled_v12000 tma_encode_function(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn = NULL;
    if (!fn) {
        cudaDriverEntryPointQueryResult found;
        void *p = NULL;
#if CUDART_VERSION >= 12050
        const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                               cudaEnableDefault, &found);
#else
        const cudaError_t e =
            cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &found);
#endif
        if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || !p) return NULL;
        fn = (PFN_cuTensorMapEncodeTiled_v12000)p;
    }
    return fn;
}

/* The 2-D map under tma_map_box and tma_map_plain: rows x cols elements of `type`, cols
 * contiguous, leading dimension ld, boxes of box_cols x box_rows, the given swizzle and L2
 * promotion. cudaErrorNotSupported when the driver has no TMA, cudaErrorInvalidValue when it
 * refuses the map (tma_map_last_error() says how) */
static inline cudaError_t tma_map_2d(CUtensorMap *map, const void *base, CUtensorMapDataType type,
                                     long rows, long cols, long ld, int box_cols, int box_rows,
                                     CUtensorMapSwizzle swizzle, CUtensorMapL2promotion promotion)
{
    const PFN_cuTensorMapEncodeTiled_v12000 encode = tma_encode_function();
    if (!encode) {
        snprintf(tma_map_last_error(), 160, "the driver has no cuTensorMapEncodeTiled");
        return cudaErrorNotSupported;
    }
    const int bytes = tma_elem_bytes(type);
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows}; /* innermost first */
    const cuuint64_t strides[1] = {(cuuint64_t)ld * bytes};          /* bytes, of dims 1.. */
    const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUresult r = encode(map, type, 2, (void *)base, dims, strides, box, element_strides,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, promotion,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r == CUDA_SUCCESS) return cudaSuccess;
    snprintf(tma_map_last_error(), 160,
             "cuTensorMapEncodeTiled refused a %ld x %ld map (ld %ld, %d-byte elements, box %d x "
             "%d, swizzle %d): CUresult %d",
             rows, cols, ld, bytes, box_rows, box_cols, (int)swizzle, (int)r);
    return cudaErrorInvalidValue;
}
/* The map of a rows x cols matrix of elements of `type`, cols contiguous, leading dimension ld,
 * in boxes of box_cols x box_rows whose rows (box_cols elements: 64 or 128 bytes) are swizzled
 * in shared memory with the swizzle of their width (64- or 128-byte), into *map (errors as
 * tma_map_2d; tma_operand_unsupported says why beforehand for the usual reasons). */
static inline cudaError_t tma_map_box(CUtensorMap *map, const void *base, CUtensorMapDataType type,
                                      long rows, long cols, long ld, int box_cols, int box_rows)
{
    const int row_bytes = box_cols * tma_elem_bytes(type);
    return tma_map_2d(map, base, type, rows, cols, ld, box_cols, box_rows,
                      row_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_128B,
                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
}

/* The map of a rows x cols matrix in boxes of box_cols x box_rows copied as they are (no swizzle:
 * box_cols x the element size a multiple of 16 bytes, box_cols at most 256): small side data
 * such as block scales, which only plain loads read */
static inline cudaError_t tma_map_plain(CUtensorMap *map, const void *base,
                                        CUtensorMapDataType type, long rows, long cols, long ld,
                                        int box_cols, int box_rows)
{
    return tma_map_2d(map, base, type, rows, cols, ld, box_cols, box_rows,
                      CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE);
}

/* The map of a rows x K operand (FLOAT16, BFLOAT16, FLOAT32 for tf32, or UINT8 for fp8), K
 * contiguous: boxes of 128 bytes (one swizzle row: 64 16-bit, 32 f32 or 128 fp8 values) along k
 * by box_rows rows, in the 128-byte swizzle that wgmma_desc_sw128 describes (wgmma_ptx.cuh). */
static inline cudaError_t tma_map_kmajor(CUtensorMap *map, const void *base,
                                         CUtensorMapDataType type, long rows, long K, long ld,
                                         int box_rows)
{
    return tma_map_box(map, base, type, rows, K, ld, 128 / tma_elem_bytes(type), box_rows);
}

/* Zeroed host memory for a structure that holds CUtensorMaps: their type is 128-byte aligned
 * (CUDA 13's cuda.h: alignas(128); CUDA 12's: 64), more than malloc promises (free() it as
 * usual) */
static inline void *tma_host_calloc(size_t size)
{
    const size_t rounded = (size + 127) / 128 * 128;
    void *p = aligned_alloc(128, rounded);
    if (p) memset(p, 0, rounded);
    return p;
}

#endif /* TMA_MAP_H */
