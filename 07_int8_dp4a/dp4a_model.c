/* 07_int8_dp4a/dp4a_model.c - see dp4a_model.h. */
#include "dp4a_model.h"

int32_t tc_byte_of(uint32_t w, int k, int is_signed)
{
    const uint32_t u = (w >> (8 * k)) & 0xFFu;
    return is_signed && u >= 0x80u ? (int32_t)u - 0x100 : (int32_t)u;
}

int32_t tc_half_of(uint32_t w, int h, int is_signed)
{
    const uint32_t u = (w >> (16 * h)) & 0xFFFFu;
    return is_signed && u >= 0x8000u ? (int32_t)u - 0x10000 : (int32_t)u;
}

uint32_t tc_pack_bytes(const int e[4])
{
    uint32_t w = 0;
    for (int k = 0; k < 4; k++) w |= ((uint32_t)e[k] & 0xFFu) << (8 * k);
    return w;
}

uint32_t tc_pack_halves(const int e[2])
{
    return ((uint32_t)e[0] & 0xFFFFu) | (((uint32_t)e[1] & 0xFFFFu) << 16);
}

/* c + sum, modulo 2^32: the sum is exact in 64 bits, and converting a negative int64_t to an
 * unsigned type is defined as wrapping, so no step overflows a signed type. */
static uint32_t wrap_add(uint32_t c, int64_t sum)
{
    return (uint32_t)((uint64_t)c + (uint64_t)sum);
}

uint32_t tc_dp4a(uint32_t a, int a_signed, uint32_t b, int b_signed, uint32_t c)
{
    int64_t sum = 0;
    for (int k = 0; k < 4; k++)
        sum += (int64_t)tc_byte_of(a, k, a_signed) * tc_byte_of(b, k, b_signed);
    return wrap_add(c, sum);
}

uint32_t tc_dp2a(uint32_t a, int a_signed, uint32_t b, int b_signed, uint32_t c, int hi)
{
    int64_t sum = 0;
    for (int h = 0; h < 2; h++)
        sum += (int64_t)tc_half_of(a, h, a_signed) * tc_byte_of(b, 2 * hi + h, b_signed);
    return wrap_add(c, sum);
}
