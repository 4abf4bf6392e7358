/* common/program.c - see program.h. */
#include "program.h"

int tc_program_main_built(int argc, char **argv, const tc_program *p, const char *build_targets)
{
    const char *program = p->cli.program;
    tc_args a;
    tc_parse_args(argc, argv, &p->cli, &a);
    if (a.mode == TC_MODE_LIST) {
        p->list();
        return TC_EXIT_PASS;
    }
    if (p->check_args) p->check_args(&a);

    tc_device_info dev;
    tc_device_open(&dev, p->min_cc, program);
    const char *why = tc_target_unsupported(p->target, dev.cc, build_targets);
    if (why) tc_skip(program, "%s (%s)", why, dev.name);
    if (p->check_device) p->check_device(&a, &dev);
    FILE *info = a.mode == TC_MODE_BENCH && !a.csv_path ? stderr : stdout;
    fprintf(info, "%s - %s\n", program, p->cli.summary);
    tc_device_print(&dev, info);
    if (p->init) p->init(&a, &dev, info);
    fprintf(info, "\n");
    fflush(info);

    int rc;
    if (a.mode == TC_MODE_TEST) {
        rc = p->test(&a, &dev);
    } else if (a.mode == TC_MODE_BENCH) {
        FILE *csv = tc_bench_csv_open(a.csv_path);
        if (!csv) return TC_EXIT_USAGE;
        rc = p->measure(&a, &dev, info, csv);
        tc_bench_csv_close(csv);
    } else {
        const int failed = p->default_tests ? p->default_tests(&a, &dev) : 0;
        rc = p->measure(&a, &dev, info, NULL);
        if (failed) rc = TC_EXIT_WRONG;
    }
    if (p->fini) p->fini();
    tc_timing_release();
    return rc;
}
