# 06_sparse_stencil: data for the top-level Makefile (see "Adding a chapter" in README.md).
# Stencils on CUDA cores, dense tensor cores (mma.sync) and 2:4-sparse tensor cores (mma.sp with
# the strided swap), against cuDNN. cuDNN is not linked: common/cudnn_loader.c loads it at run
# time (only the cuDNN rung reports skipped when the library is missing at run time). The build
# needs cudnn.h, because stencil_cudnn.c includes it: hence NEEDS cudnn.
$(d)_SRCS    := stencil.c stencil_cudnn.c stencil_probe.c stencil_tc.cu stencil_cuda.cu stencil_probe.cu
$(d)_LIBS    :=
$(d)_MIN_SM  := 80
$(d)_ARCH    :=
$(d)_NEEDS   := cudnn
