# 10_flash_attention: data for the top-level Makefile (see "Adding a chapter" in CONTRIBUTING.md).
# The forward pass of attention: cuDNN's fused kernel (the baseline rows, through its backend graph
# API), the unfused version (cuBLAS, a softmax kernel, cuBLAS), FlashAttention on mma.sync and on
# Hopper's wgmma. cuDNN is not linked: common/cudnn_loader.c loads it at run time. Only the
# baseline rows use it: attn_cudnn.c needs cudnn.h, and built without it (no TC_HAVE_CUDNN) those
# rows report skipped while the rest runs; hence "cudnn?", not "cudnn".
# Two programs: the ladder (10_flash_attention) and the one-warpgroup unit tests of the Hopper
# rung's PTX wrappers, attn_wgmma.cuh (10_attn_probe: sm_90a only, built when 90 is in SM).
$(d)_PROGS   := 10_flash_attention 10_attn_probe
10_flash_attention_SRCS := attention.c attn_ref.c attn_cudnn.c attn_hooks.cu
10_attn_probe_SRCS      := attn_probe.c attn_probe.cu
10_attn_probe_MIN_SM    := 90
10_attn_probe_TARGETS_A := 90a
10_attn_probe_ONLY_A    := yes
$(d)_LIBS    := -lcublas
$(d)_MIN_SM  := 80
# v2_wgmma is sm_90a code (wgmma, setmaxnreg): the target 90 is built as sm_90a; its kernel's body
# exists only there (TC_SM90A), and on other GPUs its rows report skipped
$(d)_TARGETS_A := 90a
$(d)_NEEDS   := cudnn?
# CPU tests: the reference against a naive softmax, the checker's controls, and a simulation of a
# correct flash kernel that passes while each of its likely one-line bugs fails (attn_ref.c)
$(d)_CPU_TESTS     := test_attn.c
$(d)_CPU_TEST_SRCS := attn_ref.c
# example.cu: v1_mma from a plain program; make test builds and runs it
$(d)_EXAMPLE        := example.cu
$(d)_EXAMPLE_TARGET := 80
# make bench QUICK=1: the headline shape only (both masks, both types)
$(d)_BENCH_QUICK := --shape 2,16,8192,128
