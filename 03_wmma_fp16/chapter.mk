# 03_wmma_fp16: data for the top-level Makefile (see "Adding a chapter" in CONTRIBUTING.md).
# Two programs: the half/half2 basics (AXPY and the precision lesson) and the WMMA GEMM ladder
# (one file per rung, v1_naive.cuh .. v5_dbuf.cuh, bound to main.c's table by hooks.cu).
$(d)_PROGS    := 03_half_basics 03_wmma_fp16
03_half_basics_SRCS := half_basics.c half_basics.cu
03_wmma_fp16_SRCS   := main.c hooks.cu
$(d)_LIBS     := -lcublasLt -lcublas
$(d)_MIN_SM   := 70
$(d)_TARGETS_A     :=
$(d)_NEEDS    :=
# example.cu: the best rung (v5_dbuf) from a plain program; make test builds and runs it
$(d)_EXAMPLE        := example.cu
$(d)_EXAMPLE_TARGET := 80
# make bench QUICK=1: the GEMM ladder at one size (03_half_basics has one size anyway)
03_wmma_fp16_BENCH_QUICK := --size 8192x8192x8192
