/* tests/unit_util.c - helpers shared by the CPU unit tests. */
#include "unit.h"

#include <stdlib.h>

void *unit_random_values(tc_dtype t, size_t count, tc_rng *rng)
{
    void *h = malloc(count * tc_dtype_size(t));
    for (size_t i = 0; i < count; i++) {
        float x = tc_rng_uniform(rng, -1.0f, 1.0f);
        tc_store(h, t, i, t == TC_I8 ? (double)tc_rng_int(rng, -128, 127) : (double)x);
    }
    return h;
}
