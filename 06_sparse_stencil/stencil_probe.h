/* 06_sparse_stencil/stencil_probe.h - the host side of the one-warp probes (stencil_probe.c):
 * runs every probe of stencil_probe.cu, prints one PASS/FAIL line each and counts them; and the
 * tensor-core rate sweep of --bench. */
#ifndef STENCIL_PROBE_H
#define STENCIL_PROBE_H

#include "harness.h"

#include <stdio.h>

/* every probe, and a short exact run of the rate kernel (no timing) */
void st_probes_run(int *passed, int *failed);

/* The rates of the two instructions the stencils use, f16 in, f32 accumulators, as TFLOP/s of
 * the dense product each one stands for (mma.sync m16n8k16: 2*16*8*16 flop; mma.sp m16n8k32:
 * 2*16*8*32, half of them on zeros it skips): the best of a sweep over chains per warp and warps
 * per SM, every run checked exactly. Prints the sweep to info. */
typedef struct {
    double tflops;
    tc_timing t;
    int chains, warps_per_sm;
} st_rate;
typedef struct {
    st_rate dense, sparse;
    int exact; /* every run of the sweep gave the exact sums */
} st_rates;
void st_rates_measure(FILE *info, const tc_device_info *dev, int warmup, int reps, st_rates *r);

#endif
