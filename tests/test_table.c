/* tests/test_table.c - the name tables of common/harness.c (tc_cli_spec's variants, 02's layers,
 * 06's shapes): an array of names and an array of structs whose first member is the name are
 * searched alike, by exact name. */
#include "unit.h"

#include <string.h>

typedef struct {
    const char *name;
    double payload[3]; /* an entry larger than a pointer */
    int id;
} named_entry;

static int unit_table_find_names(void)
{
    static const char *const names[] = {"f16f32", "bf16f32"};
    static const named_entry entries[] = {
        {.name = "conv1_c3", .id = 7}, {.name = "res2", .id = 8}, {.name = "res3", .id = 9}};
    UNIT_CHECK(tc_table_find(names, sizeof names[0], TC_COUNT(names), "bf16f32") == 1, "bf16f32");
    UNIT_CHECK(tc_table_find(names, sizeof names[0], TC_COUNT(names), "f16f32") == 0, "f16f32");
    UNIT_CHECK(tc_table_find(names, sizeof names[0], TC_COUNT(names), "f16") == -1, "a prefix");
    UNIT_CHECK(tc_table_find(names, sizeof names[0], TC_COUNT(names), "all") == -1, "all");
    for (int i = 0; i < TC_COUNT(entries); i++)
        UNIT_CHECK(tc_table_find(entries, sizeof entries[0], TC_COUNT(entries), entries[i].name) ==
                       i,
                   "entry %d", i);
    UNIT_CHECK(tc_table_find(entries, sizeof entries[0], TC_COUNT(entries), "RES2") == -1,
               "exact case");
    /* TC_VARIANT_TABLE sets a tc_cli_spec's table from an array */
    const tc_cli_spec spec = {.program = "p", TC_VARIANT_TABLE(entries)};
    UNIT_CHECK(spec.variants == entries && spec.variant_size == sizeof(named_entry) &&
                   spec.n_variants == 3,
               "TC_VARIANT_TABLE");
    return 0;
}

static const tc_unit tests[] = {
    {.name = "table_find_names", .fn = unit_table_find_names},
};

int main(int argc, char **argv) { return tc_unit_main(argc, argv, tests, TC_UNIT_COUNT(tests)); }
