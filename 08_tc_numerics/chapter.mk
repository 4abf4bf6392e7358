# 08_tc_numerics: data for the top-level Makefile (see "Adding a chapter" in CONTRIBUTING.md).
# One program: the probes, the fitted model and the random search for every mma.sync variant
# (the FP8 variants need sm_89 code and report skipped without it), and for the same variants
# through Hopper's wgmma (sm_90a code: TARGETS_A = 90a builds the target 90 as sm_90a). The model and the probes
# are host code (common/tc_model.c, which the GEMM driver's exact checks use too, and tc_probe.c),
# tested on the CPU by test_tc_model.c.
$(d)_SRCS     := main.c tc_numerics.cu tc_numerics_wgmma.cu tc_probe.c
$(d)_LIBS     :=
$(d)_MIN_SM   := 80
$(d)_TARGETS_A     := 90a
$(d)_NEEDS    :=
$(d)_CPU_TESTS     := test_tc_model.c
$(d)_CPU_TEST_SRCS := tc_probe.c
# make bench QUICK=1: the search of --test (2*10^4 per variant); no ladder rows either way
$(d)_BENCH_QUICK := --search 20000
