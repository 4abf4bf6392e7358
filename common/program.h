/* common/program.h - the main() of every program that is not a GEMM ladder (a ladder calls
 * tc_gemm_main, common/gemm_driver.h): the probe programs (05_mma_probe, 05_wgmma_probe,
 * 07_dp4a_basics) and the chapters whose problem has a shape of its own (02_cudnn_conv,
 * 03_half_basics, 06_sparse_stencil, 07_correlator, 08_tc_numerics).
 *
 * A program fills one tc_program and returns tc_program_main(argc, argv, &program), which
 *   1. parses the command line with program.cli (bad usage exits 2 before any CUDA call; --help
 *      prints the usage and exits 0); --list calls list() and exits 0;
 *   2. calls check_args(a): the program's own flags (tc_args.flag_values), still without CUDA, so
 *      that a bad value exits 2 (tc_usage_error) on a machine without a GPU too; it may also
 *      settle what must come before the device (a library that is missing: tc_skip);
 *   3. opens the device: exit 77 with one line without a GPU, on one older than min_cc, or when
 *      target is set and this build's code for this GPU cannot run it (tc_target_unsupported);
 *   4. calls check_device(a, dev): what needs the device to be checked (its free memory; exit 2);
 *   5. prints "<program> - <summary>", the device block, init(a, dev, info)'s lines (library
 *      versions; init may also create handles, or tc_skip) and a blank line to `info`: stdout,
 *      or stderr when --bench writes its CSV to stdout;
 *   6. runs the mode:
 *        --test    test(a, dev), whose return value is the exit code;
 *        --bench   measure(a, dev, info, csv) with the CSV open (--csv FILE or stdout, header
 *                  written; closed after), its return value the exit code;
 *        default   default_tests(a, dev) (optional: lines of its own, returns the number of
 *                  failures), then measure(a, dev, info, NULL); exit 1 if a test failed;
 *   7. calls fini(), frees the timing buffer, and returns the exit code.
 * Every callback but list, test and measure may be NULL. What check_args parses, the program keeps
 * in its own file for the callbacks that follow. */
#ifndef TC_PROGRAM_H
#define TC_PROGRAM_H

#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    tc_cli_spec cli; /* name, summary, variant table, flags, default reps and warm-up */
    int min_cc;         /* 80 = sm_80 */
    const char *target; /* the code the whole program needs ("90a"), or NULL (harness.h) */
    void (*list)(void);
    void (*check_args)(const tc_args *a);
    void (*check_device)(const tc_args *a, const tc_device_info *dev);
    void (*init)(const tc_args *a, const tc_device_info *dev, FILE *info);
    int (*test)(const tc_args *a, const tc_device_info *dev);
    int (*measure)(const tc_args *a, const tc_device_info *dev, FILE *info, FILE *csv);
    int (*default_tests)(const tc_args *a, const tc_device_info *dev);
    void (*fini)(void);
} tc_program;

int tc_program_main_built(int argc, char **argv, const tc_program *p, const char *build_targets);
/* the program's build targets come from where tc_program_main is called (TC_BUILD_TARGETS) */
#define tc_program_main(argc, argv, p) tc_program_main_built((argc), (argv), (p), TC_BUILD_TARGETS)

#ifdef __cplusplus
}
#endif
#endif /* TC_PROGRAM_H */
