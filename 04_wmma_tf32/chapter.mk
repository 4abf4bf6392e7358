# 04_wmma_tf32: data for the top-level Makefile (see "Adding a chapter" in CONTRIBUTING.md).
# One program: the FP32 CUDA-core SGEMM (v0), the WMMA TF32 ladder (v1..v4) and 3xTF32 (v5), one
# file per rung (v1_naive.cuh .. v5_3xtf32.cuh, bound to main.c's table by hooks.cu), with cuBLAS
# FP32 and TF32 as baselines; part 2: TF32 with k = 8 (v6 mma.sync; v7, v8 wgmma on sm_90a, hence
# TARGETS_A = 90a: the target 90 is built as sm_90a).
$(d)_SRCS     := main.c sgemm.cu hooks.cu mma_tf32.cu wgmma_tf32.cu
$(d)_LIBS     := -lcublasLt -lcublas
$(d)_MIN_SM   := 80
$(d)_TARGETS_A     := 90a
$(d)_NEEDS    :=
# example.cu: v7_wgmma_tf32 (common/wgmma_v4_cluster.cuh on float) from a plain program
$(d)_EXAMPLE        := example.cu
$(d)_EXAMPLE_TARGET := 90a
# make bench QUICK=1: one size
$(d)_BENCH_QUICK := --size 8192x8192x8192
