# 04_wmma_tf32: data for the top-level Makefile (see "Adding a chapter" in CONTRIBUTING.md).
# One program: the FP32 CUDA-core SGEMM (v0), the WMMA TF32 ladder (v1..v4) and 3xTF32 (v5),
# with cuBLAS FP32 and TF32 as baselines.
$(d)_SRCS     := main.c sgemm.cu wmma_tf32.cu
$(d)_LIBS     := -lcublasLt -lcublas
$(d)_MIN_SM   := 80
$(d)_ARCH     :=
$(d)_NEEDS    :=
# make bench QUICK=1: one size
$(d)_BENCH_QUICK := --size 8192x8192x8192
