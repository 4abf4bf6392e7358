# 06_sparse_stencil: data for the top-level Makefile (see "Adding a chapter" in CONTRIBUTING.md).
# Stencils on CUDA cores, dense tensor cores (mma.sync) and 2:4-sparse tensor cores (mma.sp with
# the strided swap), against cuDNN. cuDNN is not linked: common/cudnn_loader.c loads it at run
# time. Only the baseline rung uses it: stencil_cudnn.c needs cudnn.h, and built without it (no
# TC_HAVE_CUDNN) that rung reports skipped while the rest runs; hence "cudnn?", not "cudnn".
$(d)_SRCS    := stencil.c stencil_cudnn.c stencil_probe.c stencil_tc.cu stencil_cuda.cu stencil_probe.cu stencil_fused.cu stencil_pipe.cu stencil_stmatrix.cu stencil_stmatrix_pipe.cu stencil_half2.cu
$(d)_LIBS    :=
$(d)_MIN_SM  := 80
$(d)_TARGETS_A    :=
$(d)_NEEDS   := cudnn?
# CPU tests: the bands, swap, compression, metadata and lane maps of stencil_bands.h
$(d)_CPU_TESTS     := test_stencil.c
$(d)_CPU_TEST_SRCS :=
# example.cu: the fastest rung (sparse_f16) from a plain program; make test builds and runs it
$(d)_EXAMPLE        := example.cu
$(d)_EXAMPLE_TARGET := 80
# make bench QUICK=1: the default shape only (the copy bound and tensor-core rates come too)
$(d)_BENCH_QUICK := --shape Box-2D49P
