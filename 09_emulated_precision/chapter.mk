# 09_emulated_precision: data for the top-level Makefile (see "Adding a chapter" in CONTRIBUTING.md).
# More precision than the tensor core has: FP64 on the FP64 tensor cores (DMMA), FP64 emulated with
# int8 tensor cores (the Ozaki scheme), with cuBLAS DGEMM as the baseline; FP32 from bf16 tensor
# cores (three bf16 words per value), with cuBLAS SGEMM as the baseline.
$(d)_SRCS          := main.c hooks.cu ozaki_model.c
$(d)_LIBS          := -lcublasLt -lcublas
$(d)_MIN_SM        := 80
$(d)_TARGETS_A          := 90a
$(d)_NEEDS         :=
# CPU tests: the Ozaki scheme's model
$(d)_CPU_TESTS     := test_ozaki.c
$(d)_CPU_TEST_SRCS := ozaki_model.c
# example.cu: the headline rung (v5_ozaki2_n15) from a plain program; make test builds and runs it.
# It links cuBLAS (the int8 GEMMs): the example rule must link $(d)_EXAMPLE_LIBS.
$(d)_EXAMPLE        := example.cu
$(d)_EXAMPLE_TARGET := 80
$(d)_EXAMPLE_LIBS   := -lcublas
# make bench QUICK=1: one size
$(d)_BENCH_QUICK   := --size 8192x8192x8192
