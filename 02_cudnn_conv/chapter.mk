# 02_cudnn_conv: data for the top-level Makefile (see "Adding a chapter" in README.md).
# cuDNN is not linked: common/cudnn_loader.c loads it at run time (exit 77 when missing).
$(d)_SRCS    := main.c
$(d)_LIBS    :=
$(d)_MIN_SM  := 70
$(d)_ARCH    :=
$(d)_NEEDS   := cudnn
