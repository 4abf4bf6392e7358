# 02_cudnn_conv: data for the top-level Makefile (see "Adding a chapter" in CONTRIBUTING.md).
# cuDNN is not linked: common/cudnn_loader.c loads it at run time (exit 77 when missing).
$(d)_SRCS    := main.c conv_ref.c
$(d)_LIBS    :=
$(d)_MIN_SM  := 70
$(d)_TARGETS_A    :=
$(d)_NEEDS   := cudnn
# CPU tests: the convolution shapes, layouts and the FP64 reference (conv_ref.c)
$(d)_CPU_TESTS     := test_conv_ref.c
$(d)_CPU_TEST_SRCS := conv_ref.c
# make bench QUICK=1: the reference layer only
$(d)_BENCH_QUICK := --layer ref_3x3_c256_28
