# 07_int8_dp4a: data for the top-level Makefile (see "Adding a chapter" in README.md).
# This branch (wip/07-corr) holds only the correlator; the lead merges it with the branch that
# adds 07_dp4a_basics and 07_int8_gemm (their _SRCS lines and names go into $(d)_PROGS).
# 07_correlator: FP32, __dp4a (sm_61+) and IMMA mma.sync m16n8k32 s8 (sm_80+; reported skipped on
# older GPUs) radio-astronomy correlators, exact against an int64 CPU reference.
$(d)_PROGS          := 07_correlator
07_correlator_SRCS  := correlator.c correlator.cu
$(d)_LIBS           :=
$(d)_MIN_SM         := 75
$(d)_ARCH           :=
$(d)_NEEDS          :=
