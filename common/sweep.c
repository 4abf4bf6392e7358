/* common/sweep.c - see sweep.h. */
#include "sweep.h"

#include "check.h"

#include <stdlib.h>
#include <string.h>

tc_sweep_result tc_sweep_run(const tc_sweep *s, FILE *info)
{
    tc_sweep_result r;
    memset(&r, 0, sizeof r);
    r.all_exact = 1;
    char corner[64];
    snprintf(corner, sizeof corner, "%s \\ %s", s->row_name, s->col_name);
    const int w = (int)strlen(corner) > 18 ? (int)strlen(corner) : 18;
    fprintf(info, "  %-*s", w, corner);
    for (int c = 0; c < s->n_cols; c++) fprintf(info, " %8d", s->cols[c]);
    fprintf(info, "\n");
    for (int i = 0; i < s->n_rows; i++) {
        fprintf(info, "  %-*d", w, s->rows[i]);
        for (int c = 0; c < s->n_cols; c++) {
            const tc_sweep_point p = s->run(s->ctx, s->rows[i], s->cols[c]);
            r.all_exact &= p.exact;
            fprintf(info, " %8.1f%s", p.rate, p.exact ? "" : "!");
            if (p.exact && p.rate > r.best.rate) r.best = p, r.row = s->rows[i], r.col = s->cols[c];
        }
        fprintf(info, "\n");
        fflush(info);
    }
    if (!r.all_exact) fprintf(info, "  ! = a result was wrong: that figure does not count\n");
    return r;
}

double tc_sweep_clock_mhz(const long long *d_clk, int blocks)
{
    long long *clk = (long long *)tc_xmalloc((size_t)blocks * 2 * sizeof(long long));
    TC_CUDA_CHECK(
        cudaMemcpy(clk, d_clk, (size_t)blocks * 2 * sizeof(long long), cudaMemcpyDeviceToHost));
    double cycles = 0, ns = 0;
    for (int b = 0; b < blocks; b++) cycles += (double)clk[2 * b], ns += (double)clk[2 * b + 1];
    free(clk);
    return ns > 0 ? cycles / ns * 1e3 : 0;
}
