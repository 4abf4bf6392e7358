/* tests/test_sweep.c - the throughput-ceiling sweep of common/sweep.c (chapters 05, 06, 07):
 * every configuration runs once, in table order; the best is the highest exact rate, a wrong run
 * never counts however fast; the table shows '!' for it and says so below. */
#include "unit.h"

#include "sweep.h"

#include <string.h>

typedef struct {
    int calls;
    int order[16][2];
} fake_ctx;

/* rate = chains * warps; the fastest configuration (8, 32) gives a wrong result */
static tc_sweep_point fake_run(void *ctx, int chains, int warps)
{
    fake_ctx *f = (fake_ctx *)ctx;
    f->order[f->calls][0] = chains, f->order[f->calls][1] = warps;
    f->calls++;
    tc_sweep_point p;
    memset(&p, 0, sizeof p);
    p.rate = (double)chains * warps;
    p.exact = !(chains == 8 && warps == 32);
    p.t.ms_median = 1.0 / p.rate;
    p.mhz = 1000.0 + chains;
    return p;
}

static int unit_sweep_keeps_best_exact(void)
{
    static const int chains[] = {1, 2, 8}, warps[] = {4, 32};
    fake_ctx f;
    memset(&f, 0, sizeof f);
    const tc_sweep s = {.row_name = "chains",
                        .col_name = "warps/SM",
                        .rows = chains,
                        .n_rows = TC_COUNT(chains),
                        .cols = warps,
                        .n_cols = TC_COUNT(warps),
                        .run = fake_run,
                        .ctx = &f};
    FILE *out = tmpfile();
    UNIT_CHECK(out != NULL, "tmpfile");
    const tc_sweep_result r = tc_sweep_run(&s, out);
    UNIT_CHECK(f.calls == 6, "%d runs, want 6", f.calls);
    for (int i = 0; i < 6; i++)
        UNIT_CHECK(f.order[i][0] == chains[i / 2] && f.order[i][1] == warps[i % 2],
                   "run %d was (%d, %d)", i, f.order[i][0], f.order[i][1]);
    UNIT_CHECK(!r.all_exact, "one run was wrong");
    /* (8, 32) = 256 was wrong: the best is (2, 32) = 64, not (8, 4) = 32 */
    UNIT_CHECK(r.row == 2 && r.col == 32, "best (%d, %d), want (2, 32)", r.row, r.col);
    UNIT_CHECK(r.best.rate == 64.0 && r.best.exact && r.best.mhz == 1002.0,
               "best rate %g exact %d mhz %g", r.best.rate, r.best.exact, r.best.mhz);

    char text[1024];
    rewind(out);
    const size_t n = fread(text, 1, sizeof text - 1, out);
    text[n] = '\0';
    fclose(out);
    const char *want = "  chains \\ warps/SM         4       32\n"
                       "  1                       4.0     32.0\n"
                       "  2                       8.0     64.0\n"
                       "  8                      32.0    256.0!\n"
                       "  ! = a result was wrong: that figure does not count\n";
    UNIT_CHECK(strcmp(text, want) == 0, "table:\n%s\nwant:\n%s", text, want);
    return 0;
}

static int unit_sweep_none_exact(void)
{
    static const int rows[] = {8}, cols[] = {32};
    fake_ctx f;
    memset(&f, 0, sizeof f);
    const tc_sweep s = {.row_name = "warpgroups",
                        .col_name = "blocks/SM",
                        .rows = rows,
                        .n_rows = 1,
                        .cols = cols,
                        .n_cols = 1,
                        .run = fake_run,
                        .ctx = &f};
    FILE *out = tmpfile();
    UNIT_CHECK(out != NULL, "tmpfile");
    const tc_sweep_result r = tc_sweep_run(&s, out);
    char text[512];
    rewind(out);
    const size_t n = fread(text, 1, sizeof text - 1, out);
    text[n] = '\0';
    fclose(out);
    UNIT_CHECK(!r.all_exact && r.best.rate == 0 && r.row == 0 && r.col == 0,
               "no exact run: no best (got %g at (%d, %d))", r.best.rate, r.row, r.col);
    /* a corner wider than the default 18 columns widens the first column */
    const char *want = "  warpgroups \\ blocks/SM       32\n"
                       "  8                         256.0!\n"
                       "  ! = a result was wrong: that figure does not count\n";
    UNIT_CHECK(strcmp(text, want) == 0, "table:\n%s\nwant:\n%s", text, want);
    return 0;
}

static const tc_unit tests[] = {
    {.name = "sweep_keeps_best_exact", .fn = unit_sweep_keeps_best_exact},
    {.name = "sweep_none_exact", .fn = unit_sweep_none_exact},
};

int main(int argc, char **argv) { return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests)); }
