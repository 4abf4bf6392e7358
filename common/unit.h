/* common/unit.h - the tiny framework of the CPU unit tests (no GPU needed).
 *
 * A test is `int unit_NAME(void)` returning 0 on pass. Each test file is its own program: it ends
 * with its table and a main that hands the table to tc_unit_main,
 *
 *     static const tc_unit tests[] = {
 *         {.name = "first_test", .fn = unit_first_test},
 *         {.name = "second_test", .fn = unit_second_test},
 *     };
 *     int main(int argc, char **argv)
 *     {
 *         return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests));
 *     }
 *
 * `PROGRAM --list` prints the names, `PROGRAM NAME` runs one, `PROGRAM all` runs every test with
 * one PASS/FAIL line each. The test driver (tests/run_tests.sh) runs each test as its own process,
 * so that one line reports one test and a crash takes only that test with it. */
#ifndef TC_UNIT_H
#define TC_UNIT_H

#include "convert.h"
#include "harness.h"

#include <stdio.h>

#define UNIT_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "  check failed at %s:%d: %s: ", __FILE__, __LINE__, #cond);           \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

typedef struct {
    const char *name;
    int (*fn)(void);
} tc_unit;

#define TC_UNIT_COUNT(table) ((int)(sizeof(table) / sizeof((table)[0])))

/* --list | NAME | all; exit 0 when every test run passed, 1 when one failed, 2 on bad usage. */
int tc_unit_main(int argc, char **argv, const tc_unit *tests, int n_tests);

/* count random values of type t, as the chapter drivers make them: uniform [-1, 1) rounded to t,
 * integers in [-128, 127] for int8 (malloc'd; free it) */
void *unit_random_values(tc_dtype t, size_t count, tc_rng *rng);

#endif
