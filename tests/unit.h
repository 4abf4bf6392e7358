/* tests/unit.h - the tiny framework of the CPU unit tests (build/tests/unit_tests).
 *
 * A test is `int unit_NAME(void)` returning 0 on pass; it is listed once in tests/unit_list.h.
 * `unit_tests --list` prints the names, `unit_tests NAME` runs one, and the test driver
 * (tests/run_tests.sh) runs each as its own process so that one line reports one test. */
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

/* count random values of type t, as the chapter drivers make them: uniform [-1, 1) rounded to t,
 * integers in [-128, 127] for int8 (malloc'd; free it) */
void *unit_random_values(tc_dtype t, size_t count, tc_rng *rng);

#define UNIT(name) int unit_##name(void);
#include "unit_list.h"
#undef UNIT

#endif
