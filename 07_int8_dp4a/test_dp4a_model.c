/* 07_int8_dp4a/test_dp4a_model.c - the CPU models of dp4a and dp2a (dp4a_model.c) that chapter 07
 * checks the GPU against, bit for bit. Here the models are checked against answers worked out by
 * hand (written in the comments) and against an independent oracle: the bytes as C reads them
 * from memory, which on a little-endian host is the packing the models implement with shifts. */
#include "unit.h"

#include "dp4a_model.h"

#include <stdint.h>
#include <string.h>

/* the hand-worked example of chapter 07's README */
static int unit_dp4a_model_hand_worked(void)
{
    const int ea[4] = {1, -2, 3, -128}, eb[4] = {127, 5, -1, 2};
    const uint32_t a = tc_pack_bytes(ea), b = tc_pack_bytes(eb);
    UNIT_CHECK(a == 0x8003FE01u, "pack {1,-2,3,-128} = 0x%08x", a);
    UNIT_CHECK(b == 0x02FF057Fu, "pack {127,5,-1,2} = 0x%08x", b);
    /* signed: 1*127 + (-2)*5 + 3*(-1) + (-128)*2 + 1000 = 127 - 10 - 3 - 256 + 1000 */
    UNIT_CHECK((int32_t)tc_dp4a(a, 1, b, 1, 1000) == 858, "s.s = %d",
               (int32_t)tc_dp4a(a, 1, b, 1, 1000));
    /* unsigned: the same bits are {1, 254, 3, 128} and {127, 5, 255, 2}:
     * 127 + 1270 + 765 + 256 + 1000 */
    UNIT_CHECK(tc_dp4a(a, 0, b, 0, 1000) == 3418u, "u.u = %u", tc_dp4a(a, 0, b, 0, 1000));
    /* a unsigned, b signed (PTX dp4a.u32.s32): 127 + 1270 - 3 + 256 + 1000 */
    UNIT_CHECK((int32_t)tc_dp4a(a, 0, b, 1, 1000) == 2650, "u.s = %d",
               (int32_t)tc_dp4a(a, 0, b, 1, 1000));
    /* a signed, b unsigned: 127 - 10 + 765 - 256 + 1000 */
    UNIT_CHECK((int32_t)tc_dp4a(a, 1, b, 0, 1000) == 1626, "s.u = %d",
               (int32_t)tc_dp4a(a, 1, b, 0, 1000));
    return 0;
}

static int unit_dp4a_model_edges_and_wraparound(void)
{
    /* -128 * -128 four times: 65536, the largest signed dot product */
    UNIT_CHECK(tc_dp4a(0x80808080u, 1, 0x80808080u, 1, 0) == 65536u, "(-128)^2 x 4");
    /* 127 * -128 four times: -65024, the smallest */
    UNIT_CHECK((int32_t)tc_dp4a(0x7F7F7F7Fu, 1, 0x80808080u, 1, 0) == -65024, "127*-128 x 4");
    /* 255 * 255 four times, unsigned: 260100 */
    UNIT_CHECK(tc_dp4a(0xFFFFFFFFu, 0, 0xFFFFFFFFu, 0, 0) == 260100u, "255^2 x 4");
    /* the same bits signed are -1 * -1 four times */
    UNIT_CHECK(tc_dp4a(0xFFFFFFFFu, 1, 0xFFFFFFFFu, 1, 0) == 4u, "(-1)^2 x 4");
    /* the accumulator wraps: INT32_MAX + 4 = INT32_MIN + 3 */
    UNIT_CHECK(tc_dp4a(0x01010101u, 1, 0x01010101u, 1, 0x7FFFFFFFu) == 0x80000003u, "wrap up");
    /* INT32_MIN - 65024 = 0x7FFF0200 */
    UNIT_CHECK(tc_dp4a(0x80808080u, 1, 0x7F7F7F7Fu, 1, 0x80000000u) == 0x7FFF0200u, "wrap down");
    /* unsigned: 0xFFFFFFFF + 4 = 3 */
    UNIT_CHECK(tc_dp4a(0x01010101u, 0, 0x01010101u, 0, 0xFFFFFFFFu) == 3u, "unsigned wrap");
    return 0;
}

static int unit_dp2a_model_hand_worked(void)
{
    const int ha[2] = {-32768, 32767}, eb[4] = {-128, 127, 1, -1};
    const uint32_t a = tc_pack_halves(ha), b = tc_pack_bytes(eb);
    UNIT_CHECK(a == 0x7FFF8000u && b == 0xFF017F80u, "packing 0x%08x 0x%08x", a, b);
    /* .lo: (-32768)(-128) + 32767 * 127 = 4194304 + 4161409 */
    UNIT_CHECK((int32_t)tc_dp2a(a, 1, b, 1, 0, 0) == 8355713, "lo s.s");
    /* .hi: (-32768)(1) + 32767 * (-1) */
    UNIT_CHECK((int32_t)tc_dp2a(a, 1, b, 1, 0, 1) == -65535, "hi s.s");
    /* unsigned: halves {32768, 32767}, bytes {128, 127, 1, 255}; .hi: 32768 + 32767 * 255 */
    UNIT_CHECK(tc_dp2a(a, 0, b, 0, 0, 1) == 8388353u, "hi u.u");
    /* the largest unsigned: 2 * 65535 * 255 */
    UNIT_CHECK(tc_dp2a(0xFFFFFFFFu, 0, 0xFFFFFFFFu, 0, 0, 0) == 33422850u, "max u.u");
    /* and with an accumulator that wraps: 7 + (-1)(-1) + (-1)(-1) on top of 0xFFFFFFFA */
    UNIT_CHECK(tc_dp2a(0xFFFFFFFFu, 1, 0xFFFF0000u, 1, 0xFFFFFFFAu, 1) == 0xFFFFFFFCu, "wrap");
    return 0;
}

/* Random words against the bytes C reads from memory (little-endian host: element k is the byte
 * at address k, which is the packing of the models). */
static int unit_dp4a_model_matches_memory_order(void)
{
    const uint32_t probe = 0x04030201u;
    unsigned char bytes[4];
    memcpy(bytes, &probe, 4);
    UNIT_CHECK(bytes[0] == 1 && bytes[3] == 4, "this test assumes a little-endian host");
    tc_rng rng;
    tc_rng_seed(&rng, 77);
    for (int i = 0; i < 100000; i++) {
        const uint32_t a = (uint32_t)tc_rng_next_u64(&rng), b = (uint32_t)tc_rng_next_u64(&rng),
                       c = (uint32_t)tc_rng_next_u64(&rng);
        int8_t sa[4], sb[4];
        uint8_t ua[4], ub[4];
        int16_t sh[2];
        uint16_t uh[2];
        memcpy(sa, &a, 4), memcpy(ua, &a, 4), memcpy(sb, &b, 4), memcpy(ub, &b, 4);
        memcpy(sh, &a, 4), memcpy(uh, &a, 4);
        for (int as = 0; as < 2; as++)
            for (int bs = 0; bs < 2; bs++) {
                int64_t d4 = 0, lo = 0, hi = 0;
                for (int k = 0; k < 4; k++)
                    d4 += (int64_t)(as ? sa[k] : ua[k]) * (bs ? sb[k] : ub[k]);
                for (int h = 0; h < 2; h++) {
                    lo += (int64_t)(as ? sh[h] : uh[h]) * (bs ? sb[h] : ub[h]);
                    hi += (int64_t)(as ? sh[h] : uh[h]) * (bs ? sb[2 + h] : ub[2 + h]);
                }
                UNIT_CHECK(tc_dp4a(a, as, b, bs, c) == (uint32_t)((int64_t)c + d4),
                           "dp4a a=0x%08x b=0x%08x c=0x%08x signed %d%d", a, b, c, as, bs);
                UNIT_CHECK(tc_dp2a(a, as, b, bs, c, 0) == (uint32_t)((int64_t)c + lo),
                           "dp2a.lo a=0x%08x b=0x%08x", a, b);
                UNIT_CHECK(tc_dp2a(a, as, b, bs, c, 1) == (uint32_t)((int64_t)c + hi),
                           "dp2a.hi a=0x%08x b=0x%08x", a, b);
            }
        int e[4];
        for (int k = 0; k < 4; k++) e[k] = sa[k];
        UNIT_CHECK(tc_pack_bytes(e) == a, "pack round trip 0x%08x", a);
    }
    return 0;
}

static const tc_unit tests[] = {
    {.name = "dp4a_model_hand_worked", .fn = unit_dp4a_model_hand_worked},
    {.name = "dp4a_model_edges_and_wraparound", .fn = unit_dp4a_model_edges_and_wraparound},
    {.name = "dp2a_model_hand_worked", .fn = unit_dp2a_model_hand_worked},
    {.name = "dp4a_model_matches_memory_order", .fn = unit_dp4a_model_matches_memory_order},
};

int main(int argc, char **argv) { return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests)); }
