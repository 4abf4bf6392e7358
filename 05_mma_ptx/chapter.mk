# 05_mma_ptx: data for the top-level Makefile (see "Adding a chapter" in README.md).
# Part 1 (sm_80+): raw PTX mma.sync, ldmatrix, cp.async. Two programs: the wrapper unit tests and
# the mma.sync throughput ceiling (05_mma_probe), and the GEMM ladder (05_mma_gemm).
$(d)_PROGS        := 05_mma_probe 05_mma_gemm
05_mma_probe_SRCS := mma_probe.c mma_probe.cu
05_mma_gemm_SRCS  := main.c mma_gemm.cu
$(d)_LIBS         := -lcublasLt -lcublas
$(d)_MIN_SM       := 80
$(d)_ARCH         :=
$(d)_NEEDS        :=
