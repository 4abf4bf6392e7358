# 07_int8_dp4a: data for the top-level Makefile (see "Adding a chapter" in CONTRIBUTING.md).
# 8-bit integer dot products on CUDA cores (dp4a) and tensor cores (IMMA). Programs: the dp4a/dp2a
# semantics, the int8 mma.sync unit tests and the throughput ceilings (07_dp4a_basics), the INT8
# GEMM ladder (07_int8_gemm), and a radio-astronomy correlator in FP32, __dp4a and IMMA
# (07_correlator). dp4a needs sm_61, but sm_75 is the build floor of CUDA 13; the variants that
# need sm_80 (cp.async, mma.m16n8k32) report skipped below it.
$(d)_PROGS          := 07_dp4a_basics 07_int8_gemm 07_correlator
07_dp4a_basics_SRCS := dp4a_basics.c dp4a_basics.cu dp4a_model.c
07_int8_gemm_SRCS   := main.c hooks.cu i8_to_f32.cu
07_correlator_SRCS  := correlator.c correlator.cu
# the GEMM ladder's v6_wgmma_s8 is sm_90a code: its program builds the target 90 as sm_90a
07_int8_gemm_TARGETS_A := 90a
$(d)_LIBS           := -lcublasLt -lcublas
$(d)_MIN_SM         := 75
$(d)_TARGETS_A           :=
$(d)_NEEDS          :=
# CPU tests: the dp4a/dp2a models (dp4a_model.c) and the correlator's layouts and arithmetic
$(d)_CPU_TESTS      := test_dp4a_model.c test_correlator.c
$(d)_CPU_TEST_SRCS  := dp4a_model.c
# example.cu: the best rung (v5_mma_s8) from a plain program; make test builds and runs it
$(d)_EXAMPLE        := example.cu
$(d)_EXAMPLE_TARGET := 80
# make bench QUICK=1: the INT8 ladder at one size (the ceilings and the correlator have one)
07_int8_gemm_BENCH_QUICK := --size 8192x8192x8192
