/* tests/unit_util.c - helpers shared by the CPU unit tests. */
#include "unit.h"

#include <stdlib.h>

void *unit_random_values(tc_dtype t, size_t count, tc_rng *rng)
{
    void *h = malloc(count * tc_dtype_size(t));
    for (size_t i = 0; i < count; i++) {
        float x = tc_rng_uniform(rng, -1.0f, 1.0f);
        switch (t) {
        case TC_F32: ((float *)h)[i] = x; break;
        case TC_F16: ((uint16_t *)h)[i] = tc_f32_to_f16(x); break;
        case TC_BF16: ((uint16_t *)h)[i] = tc_f32_to_bf16(x); break;
        case TC_I8: ((int8_t *)h)[i] = (int8_t)tc_rng_int(rng, -128, 127); break;
        case TC_E4M3: ((uint8_t *)h)[i] = tc_f32_to_e4m3(x); break;
        default: break;
        }
    }
    return h;
}
