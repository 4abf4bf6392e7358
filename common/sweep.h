/* common/sweep.h - the throughput-ceiling sweep of the probe programs (05_mma_probe,
 * 05_wgmma_probe, 07_dp4a_basics, and 06_sparse_stencil's rate probe).
 *
 * A throughput kernel issues one instruction over and over; how close it comes to the ceiling
 * depends on its configuration: independent accumulator chains per warp (latency hidden within a
 * warp) and warps per SM (latency hidden across warps). The sweep runs every configuration of a
 * grid, rows x columns, through the program's callback, which launches, checks every result
 * exactly and times; it prints the table as it goes and keeps the best exact rate, the ceiling:
 *
 *   chains \ warps/SM         4        8       16       32
 *   1                     150.2    290.8    ...
 *   2                     ...
 *
 * A figure whose run gave a wrong result is marked '!' and does not count. Each chapter keeps its
 * kernels, its launcher, its check and what the ceiling means (the line after the table). */
#ifndef TC_SWEEP_H
#define TC_SWEEP_H

#include "harness.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One configuration's run. */
typedef struct {
    int exact;   /* every result was checked and right */
    double rate; /* in the table's unit (TFLOP/s, TOP/s); 0 when not timed */
    tc_timing t; /* the timing the rate comes from */
    double mhz;  /* the SM clock during the run (cycles / ns over every block); 0: not measured */
} tc_sweep_point;

typedef struct {
    const char *row_name, *col_name; /* e.g. "chains", "warps/SM": the table's corner */
    const int *rows, *cols;          /* the values of each axis, in table order */
    int n_rows, n_cols;
    /* runs the configuration (row value, column value) */
    tc_sweep_point (*run)(void *ctx, int row, int col);
    void *ctx;
} tc_sweep;

typedef struct {
    tc_sweep_point best; /* the highest exact rate: the ceiling (all zeros when none was exact) */
    int row, col;        /* its configuration (axis values; 0 when none was exact) */
    int all_exact;       /* every run was exact */
} tc_sweep_result;

/* Runs every configuration row by row, printing the table to info (flushed after each row), and
 * under it the '!' note when a run was wrong. */
tc_sweep_result tc_sweep_run(const tc_sweep *s, FILE *info);

/* The SM clock a launch of `blocks` blocks held, in MHz: each block's kernel wrote its elapsed
 * clock64() cycles and %globaltimer nanoseconds to d_clk[2 b] and d_clk[2 b + 1] (device memory);
 * the sum of the cycles over the sum of the nanoseconds. 0 when no time was recorded. */
double tc_sweep_clock_mhz(const long long *d_clk, int blocks);

#ifdef __cplusplus
}
#endif
#endif /* TC_SWEEP_H */
