# 01_cublas_tensor_op: data for the top-level Makefile (see "Adding a chapter" in CONTRIBUTING.md).
$(d)_SRCS    := main.c
$(d)_LIBS    := -lcublasLt -lcublas
$(d)_MIN_SM  := 75
$(d)_NEEDS   :=
# make bench QUICK=1: the headline size only (no 4096^3, no alignment rows)
$(d)_BENCH_QUICK := --size 8192x8192x8192
