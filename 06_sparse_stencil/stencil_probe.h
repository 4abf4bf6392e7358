/* 06_sparse_stencil/stencil_probe.h - the host side of the one-warp probes (stencil_probe.c):
 * runs every probe of stencil_probe.cu, prints one PASS/FAIL line each and counts them. */
#ifndef STENCIL_PROBE_H
#define STENCIL_PROBE_H

void st_probes_run(int *passed, int *failed);

#endif
