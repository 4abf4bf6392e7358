# 01_cublas_tensor_op: data for the top-level Makefile (see "Adding a chapter" in README.md).
$(d)_SRCS    := main.c
$(d)_LIBS    := -lcublasLt -lcublas
$(d)_MIN_SM  := 70
$(d)_NEEDS   :=
