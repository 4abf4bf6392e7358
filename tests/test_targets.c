/* tests/test_targets.c - tc_target_unsupported (common/harness.c), the one decision whether this
 * build's code for this GPU can run a variant: an arch-specific target ("90a") runs on its own
 * compute capability alone and only if the build has it; a plain target ("90") needs a GPU that new
 * and a build whose code for the GPU is that new; unknown build targets check the GPU alone. */
#include "unit.h"

#include <string.h>

/* NULL expected: runs; else a fragment the reason must contain */
typedef struct {
    const char *target;
    int cc;
    const char *build, *want;
} target_case;

static const target_case cases[] = {
    {.target = NULL, .cc = 75, .build = "80", .want = NULL},
    {.target = "", .cc = 75, .build = NULL, .want = NULL},
    {.target = "90a", .cc = 90, .build = "80 90a", .want = NULL},
    {.target = "90a", .cc = 90, .build = "90a", .want = NULL},
    {.target = "90a", .cc = 90, .build = NULL, .want = NULL},
    {.target = "90a", .cc = 80, .build = "80 90a", .want = "runs on compute capability 9.0 alone"},
    {.target = "90a", .cc = 100, .build = "80 90a", .want = "this GPU is sm_100"},
    {.target = "90a", .cc = 90, .build = "80 90", .want = "this build has no sm_90a code"},
    {.target = "90a", .cc = 90, .build = "80", .want = "add 90 to SM"},
    {.target = "90", .cc = 90, .build = "80 90a", .want = NULL},
    {.target = "90", .cc = 90, .build = "80", .want = "runs the build's sm_80 code"},
    {.target = "90", .cc = 86, .build = "80 90a", .want = "needs sm_90 or newer"},
    {.target = "90", .cc = 100, .build = "80 90a", .want = "runs the build's sm_80 code"},
    {.target = "90", .cc = 100, .build = "80 90a 100", .want = NULL},
    {.target = "89", .cc = 90, .build = "80 90a", .want = NULL},
    {.target = "89", .cc = 89, .build = "80 90a", .want = "sm_80 code"},
    {.target = "80", .cc = 120, .build = "80 90a", .want = NULL},
    {.target = "80", .cc = 75, .build = "80", .want = "needs sm_80 or newer; this GPU is sm_75"},
    {.target = "80", .cc = 80, .build = "90a", .want = "no code for this GPU"},
    {.target = "9x", .cc = 90, .build = "90a", .want = "unknown target '9x'"},
    {.target = "100a", .cc = 100, .build = "80 90a 100a", .want = NULL},
    {.target = "100a", .cc = 100, .build = "80 90a", .want = "no sm_100a code"},
};

static int unit_targets_decide(void)
{
    for (int i = 0; i < TC_COUNT(cases); i++) {
        const target_case *c = &cases[i];
        const char *why = tc_target_unsupported(c->target, c->cc, c->build);
        if (!c->want)
            UNIT_CHECK(!why, "case %d (%s on sm_%d, build %s): refused: %s", i,
                       c->target ? c->target : "NULL", c->cc, c->build ? c->build : "NULL", why);
        else
            UNIT_CHECK(why && strstr(why, c->want),
                       "case %d (%s on sm_%d, build %s): '%s', want '%s'", i, c->target, c->cc,
                       c->build ? c->build : "NULL", why ? why : "(runs)", c->want);
    }
    return 0;
}

static const tc_unit tests[] = {
    {.name = "targets_decide", .fn = unit_targets_decide},
};

int main(int argc, char **argv) { return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests)); }
