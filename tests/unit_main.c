/* tests/unit_main.c - runner of the CPU unit tests; see tests/unit.h. */
#include "unit.h"

#include <string.h>

typedef struct {
    const char *name;
    int (*fn)(void);
} unit_entry;

static const unit_entry units[] = {
#define UNIT(name) {#name, unit_##name},
#include "unit_list.h"
#undef UNIT
};
static const int n_units = (int)(sizeof units / sizeof units[0]);

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (int i = 0; i < n_units; i++) printf("%s\n", units[i].name);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s --list | TEST_NAME | all\n", argv[0]);
        return 2;
    }
    int failed = 0, ran = 0;
    for (int i = 0; i < n_units; i++) {
        if (strcmp(argv[1], "all") != 0 && strcmp(argv[1], units[i].name) != 0) continue;
        ran++;
        int rc = units[i].fn();
        if (strcmp(argv[1], "all") == 0) printf("%s %s\n", rc ? "FAIL" : "PASS", units[i].name);
        failed += rc != 0;
    }
    if (!ran) {
        fprintf(stderr, "unknown test '%s' (see --list)\n", argv[1]);
        return 2;
    }
    return failed ? 1 : 0;
}
