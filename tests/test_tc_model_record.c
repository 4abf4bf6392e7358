/* tests/test_tc_model_record.c - the recorded tensor-core models (common/tc_model.c) that the GEMM
 * driver's exact checks use, and the GEMM schedule it emulates with them:
 *   - every recorded variant's model line parses, is valid, and prints back character for
 *     character; the FP8 wgmma line is the one chapter 08 printed on the H200;
 *   - a model line parses back to the parameters it was printed from, over every field;
 *     malformed lines are refused;
 *   - tc_model_gemm_dot: k_run = 0 is tc_model_dot; runs of k_run are the runs' model sums added
 *     in f32; and the schedule is visible: with the FP8 wgmma model, promotion every 256
 *     products instead of 128, a skipped k-step of 32 products, or run boundaries shifted by a
 *     k-step change almost every element of a K = 1024 dot of uniform data, so an exact check
 *     catches them. (The order in which the f32 total adds the runs does not show: runs of 14
 *     bits add exactly in 24.) */
#include "tc_model.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

static const char *const recorded_names[] = {
    "f16f32",     "f16f16",     "bf16f32",    "tf32f32",   "e4m3f32",    "e5m2f32",
    "e4m3f16",    "e5m2f16",    "wg_f16f32",  "wg_f16f16", "wg_bf16f32", "wg_tf32f32",
    "wg_e4m3f32", "wg_e5m2f32", "wg_e4m3f16", "wg_e5m2f16"};

static int unit_tc_model_record_lines_round_trip(void)
{
    char line[320];
    for (size_t i = 0; i < sizeof recorded_names / sizeof recorded_names[0]; i++) {
        const tc_model_params *p = tc_model_recorded_sm90(recorded_names[i]);
        UNIT_CHECK(p != NULL, "%s has a record", recorded_names[i]);
        if (!p) continue;
        UNIT_CHECK(tc_model_params_check(p) == NULL, "%s: valid", recorded_names[i]);
        tc_model_params_format(p, line, sizeof line);
        tc_model_params q;
        UNIT_CHECK(tc_model_params_parse(line, &q) && tc_model_params_equal(p, &q),
                   "%s: its printed line parses back: %s", recorded_names[i], line);
    }
    UNIT_CHECK(tc_model_recorded_sm90("f64f64") == NULL, "no record for an unknown name");
    /* as chapter 08's WGMMA.md quotes the H200's fit */
    tc_model_params_format(tc_model_recorded_sm90("wg_e4m3f32"), line, sizeof line);
    UNIT_CHECK(strcmp(line, "e4m3->f32 k32 block 32 F 13 ref=exp-sum align=RZ chain=fused(f32,RZ) "
                            "out=RZ sum=14b sub(in,c,out)=keep,keep,keep ovf=ieee") == 0,
               "wg_e4m3f32: %s", line);
    tc_model_params_format(tc_model_recorded_sm90("wg_f16f32"), line, sizeof line);
    UNIT_CHECK(strcmp(line, "f16->f32 k16 block 16 F 25 ref=exp-sum align=RZ chain=fused(f32,RZ) "
                            "out=RZ sub(in,c,out)=keep,keep,keep ovf=ieee") == 0,
               "wg_f16f32: %s", line);
    return 0;
}

static int unit_tc_model_parse_every_field(void)
{
    tc_model_params base, q;
    tc_model_params_default(&base, TC_FMT_F16, TC_FMT_F32, 16);
    tc_model_params variants[12];
    int n = 0;
    variants[n++] = base;
    variants[n] = base, variants[n].block = 8, variants[n++].interleave = 2;
    variants[n] = base, variants[n++].frac_bits = TC_FRAC_EXACT;
    variants[n] = base, variants[n++].align_ref = TC_REF_VALUE;
    variants[n] = base, variants[n].chain = TC_CHAIN_ADD, variants[n].block = 8,
    variants[n++].chain_round = TC_RNA;
    variants[n] = base, variants[n++].result_bits = 14;
    variants[n] = base, variants[n].block = 8, variants[n].c_after = 1,
    variants[n++].c_round = TC_RU;
    variants[n] = base, variants[n].sub_in = TC_SUB_FLUSH, variants[n++].sub_out = TC_SUB_FLUSH;
    variants[n] = base, variants[n].ovf_inf = 1, variants[n++].tiny_zero = TC_TINY_POS;
    tc_model_params_default(&variants[n], TC_FMT_E5M2, TC_FMT_F16, 32);
    variants[n].out_via_f32 = 1, variants[n++].out_round = TC_RD;
    tc_model_params_default(&variants[n++], TC_FMT_TF32, TC_FMT_F32, 8);
    char line[320];
    for (int i = 0; i < n; i++) {
        UNIT_CHECK(tc_model_params_check(&variants[i]) == NULL, "variant %d valid", i);
        tc_model_params_format(&variants[i], line, sizeof line);
        memset(&q, 0xA5, sizeof q);
        UNIT_CHECK(tc_model_params_parse(line, &q) && tc_model_params_equal(&variants[i], &q),
                   "variant %d parses back: %s", i, line);
    }
    static const char *const bad[] = {
        "",
        "f16->f32",
        "f16->f64 k16 block 16 F 25 ref=exp-sum align=RZ chain=fused(f32,RZ) out=RZ "
        "sub(in,c,out)=keep,keep,keep ovf=ieee",
        "f16->f32 k16 block 16 F 25 ref=exp-sum align=RZ chain=fused(f32,RZ) out=RR "
        "sub(in,c,out)=keep,keep,keep ovf=ieee",
        "f16->f32 k16 block 16 F 25 ref=exp-sum align=RZ chain=fused(f32,RZ) out=RZ "
        "sub(in,c,out)=keep,keep ovf=ieee",
        "f16->f32 k16 block 16 F 25 ref=exp-sum align=RZ chain=fused(f32,RZ) out=RZ "
        "sub(in,c,out)=keep,keep,keep ovf=ieee extra",
        "f16->f32 k16 block 5 F 25 ref=exp-sum align=RZ chain=fused(f32,RZ) out=RZ "
        "sub(in,c,out)=keep,keep,keep ovf=ieee", /* a block that does not divide k */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        UNIT_CHECK(!tc_model_params_parse(bad[i], &q), "refused: '%s'", bad[i]);
    return 0;
}

/* uniform data in [-1, 1) rounded to e4m3, as the GEMM driver makes it */
static void e4m3_dot(tc_rng *rng, uint32_t *a, uint32_t *b, int k)
{
    uint32_t c;
    tc_random_dot(TC_FMT_E4M3, TC_FMT_F32, k, TC_DIST_UNIFORM, rng, a, b, &c);
}

static int unit_tc_model_gemm_dot_schedules(void)
{
    enum { K = 1024, DOTS = 64 };
    const tc_model_params *p = tc_model_recorded_sm90("wg_e4m3f32");
    UNIT_CHECK(p != NULL, "the FP8 wgmma record");
    if (!p) return 1;
    uint32_t *a = malloc(K * sizeof *a), *b = malloc(K * sizeof *b);
    tc_rng rng;
    tc_rng_seed(&rng, 7);
    int differ_256 = 0, differ_skip = 0, differ_shift = 0, differ_chain = 0;
    for (int t = 0; t < DOTS; t++) {
        e4m3_dot(&rng, a, b, K);
        const uint32_t promoted = tc_model_gemm_dot(p, a, b, K, 128);
        /* k_run = 0 and k_run >= K: the tensor cores' chain over all of K */
        const uint32_t chain = tc_model_dot(p, a, b, K, 0);
        UNIT_CHECK(tc_model_gemm_dot(p, a, b, K, 0) == chain, "k_run 0 is the whole chain");
        UNIT_CHECK(tc_model_gemm_dot(p, a, b, K, K) == chain, "k_run K is the whole chain");
        differ_chain += promoted != chain;
        /* runs of 128 are the runs' sums added in f32, in order */
        float total = 0.0f;
        for (int i0 = 0; i0 < K; i0 += 128) {
            const uint32_t r = tc_model_dot(p, a + i0, b + i0, 128, 0);
            float x;
            memcpy(&x, &r, sizeof x);
            total += x;
        }
        uint32_t want;
        memcpy(&want, &total, sizeof want);
        UNIT_CHECK(promoted == want, "dot %d: promoted 0x%08x, runs added 0x%08x", t, promoted,
                   want);
        /* the bugs an exact check must see */
        differ_256 += tc_model_gemm_dot(p, a, b, K, 256) != promoted;
        uint32_t saved[32];
        memcpy(saved, a + 512, sizeof saved);
        memset(a + 512, 0, sizeof saved); /* one k-step of 32 skipped */
        differ_skip += tc_model_gemm_dot(p, a, b, K, 128) != promoted;
        memcpy(a + 512, saved, sizeof saved);
        /* run boundaries shifted by one k-step: a first run of 32, then runs of 128 */
        const uint32_t first = tc_model_dot(p, a, b, 32, 0);
        const uint32_t rest = tc_model_gemm_dot(p, a + 32, b + 32, K - 32, 128);
        float x0, x1;
        memcpy(&x0, &first, sizeof x0);
        memcpy(&x1, &rest, sizeof x1);
        const float shifted = x0 + x1;
        uint32_t shifted_bits;
        memcpy(&shifted_bits, &shifted, sizeof shifted_bits);
        differ_shift += shifted_bits != promoted;
    }
    printf(
        "    of %d e4m3 dots of K = %d: promotion every 256 changes %d, a skipped k-step %d, the "
        "run boundaries shifted by 32 %d, no promotion %d\n",
        DOTS, K, differ_256, differ_skip, differ_shift, differ_chain);
    UNIT_CHECK(differ_256 >= DOTS * 3 / 4, "promotion every 256 changes most elements: %d",
               differ_256);
    UNIT_CHECK(differ_skip >= DOTS * 3 / 4, "a skipped k-step changes most elements: %d",
               differ_skip);
    UNIT_CHECK(differ_shift >= DOTS * 3 / 4, "shifted run boundaries change most elements: %d",
               differ_shift);
    UNIT_CHECK(differ_chain >= DOTS * 3 / 4, "no promotion changes most elements: %d",
               differ_chain);
    free(a), free(b);
    return 0;
}

static const tc_unit tests[] = {
    {.name = "tc_model_record_lines_round_trip", .fn = unit_tc_model_record_lines_round_trip},
    {.name = "tc_model_parse_every_field", .fn = unit_tc_model_parse_every_field},
    {.name = "tc_model_gemm_dot_schedules", .fn = unit_tc_model_gemm_dot_schedules},
};

int main(int argc, char **argv) { return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests)); }
