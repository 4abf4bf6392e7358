/* common/unit.c - see unit.h. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

int tc_unit_main(int argc, char **argv, const tc_unit *tests, int n_tests)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (int i = 0; i < n_tests; i++) printf("%s\n", tests[i].name);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s --list | TEST_NAME | all\n", argv[0]);
        return 2;
    }
    const int all = strcmp(argv[1], "all") == 0;
    int failed = 0, ran = 0;
    for (int i = 0; i < n_tests; i++) {
        if (!all && strcmp(argv[1], tests[i].name) != 0) continue;
        ran++;
        const int rc = tests[i].fn();
        if (all) printf("%s %s\n", rc ? "FAIL" : "PASS", tests[i].name);
        failed += rc != 0;
    }
    if (!ran) {
        fprintf(stderr, "unknown test '%s' (see --list)\n", argv[1]);
        return 2;
    }
    return failed ? 1 : 0;
}

void *unit_random_values(tc_dtype t, size_t count, tc_rng *rng)
{
    void *h = tc_xmalloc(count * tc_dtype_size(t));
    for (size_t i = 0; i < count; i++) {
        float x = tc_rng_uniform(rng, -1.0f, 1.0f);
        tc_store(h, t, i, t == TC_I8 ? (double)tc_rng_int(rng, -128, 127) : (double)x);
    }
    return h;
}
