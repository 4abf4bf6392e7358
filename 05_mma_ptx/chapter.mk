# 05_mma_ptx: data for the top-level Makefile (see "Adding a chapter" in CONTRIBUTING.md).
# Part 1 (sm_80+): raw PTX mma.sync, ldmatrix, cp.async. Two programs: the wrapper unit tests and
# the mma.sync throughput ceiling (05_mma_probe), and the GEMM ladder (05_mma_gemm).
# Part 2 (sm_90a only): wgmma, TMA, mbarriers, warp specialisation. Two programs: the wgmma/TMA
# unit tests and the wgmma throughput ceiling (05_wgmma_probe), and the Hopper GEMM ladder
# (05_wgmma_gemm). They are built only when 90 is in SM, for sm_90a alone.
$(d)_PROGS          := 05_mma_probe 05_mma_gemm 05_wgmma_probe 05_wgmma_gemm
05_mma_probe_SRCS   := mma/mma_probe.c mma/mma_probe.cu
05_mma_gemm_SRCS    := mma/main.c mma/hooks.cu
05_wgmma_probe_SRCS := wgmma/wgmma_probe.c wgmma/wgmma_probe.cu
# the FP8 rungs' hooks, one file per rung (wgmma/hooks_fp8.h has what they share): a change to
# one rung recompiles that rung alone
05_wgmma_gemm_SRCS  := wgmma/wgmma_main.c wgmma/hooks_f16.cu \
    wgmma/hooks_fp8_v1_promote.cu wgmma/hooks_fp8_v2_pairs.cu wgmma/hooks_fp8_v3_wide.cu \
    wgmma/hooks_fp8_v4_tmastore.cu wgmma/hooks_fp8_v5_blockscaled.cu \
    wgmma/hooks_fp8_v6_scales_tma.cu wgmma/hooks_fp8_v7_scale_spans.cu \
    wgmma/hooks_fp8_v8_tmastore.cu wgmma/hooks_fp8_v9_scale_loads.cu
05_wgmma_probe_MIN_SM := 90
05_wgmma_probe_TARGETS_A := 90a
05_wgmma_probe_ONLY_A    := yes
05_wgmma_gemm_MIN_SM  := 90
05_wgmma_gemm_TARGETS_A  := 90a
05_wgmma_gemm_ONLY_A     := yes
$(d)_LIBS           := -lcublasLt -lcublas
$(d)_MIN_SM         := 80
$(d)_TARGETS_A           :=
$(d)_NEEDS          :=
# the CPU test of v6_streamk's split of the last round (plain C: the kernel's own arithmetic)
$(d)_CPU_TESTS      := wgmma/test_stream_k.c
# example.cu: the best rung (v6_streamk) from a plain program; make test builds and runs it
$(d)_EXAMPLE        := example.cu
$(d)_EXAMPLE_TARGET := 90a
# make bench QUICK=1: the ladders at one size (the probes have one size anyway)
05_mma_gemm_BENCH_QUICK   := --size 8192x8192x8192
05_wgmma_gemm_BENCH_QUICK := --size 8192x8192x8192
