#!/usr/bin/env bash
# tests/test_doc_numbers.sh - tests/doc_numbers.py can fail: on a made-up record and lesson, a right
# figure and a fresh table pass; a wrong figure, a wrong ratio, a stale table, a figure whose row
# is missing, a wrong figure in scientific notation and a marker with no number are each reported
# (exit 1), and --write makes the stale table fresh; a copy of a real lesson with one figure changed
# fails. Needs only python3.
# Prints "PASS doc_numbers: ..." or "FAIL doc_numbers: ..." and exits 0 or 1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL doc_numbers: $*"; exit 1; }

cat > "$tmp/rec.csv" <<'EOF'
chapter,variant,problem,precision,size,ms_median,ms_min,rate,unit,baseline,pct_of_baseline,verified,rel_err,rel_err_vs_data,gpu,cc,sms,clock_mhz,driver,cuda,git_sha,date
99_made_up,fast,gemm,f16,64x64x64,0.0010,0.0010,500.00,TFLOP/s,slow,125.0,pass,1.5e-06,,GPU,9.0,1,1,13.0,13.0,abc1234,2026-01-01T00:00:00Z
99_made_up,slow,gemm,f16,64x64x64,0.0013,0.0013,400.00,TFLOP/s,slow,100.0,pass,2.5e-06,,GPU,9.0,1,1,13.0,13.0,abc1234,2026-01-01T00:00:00Z
EOF

# a lesson: one table, two figures
lesson() { # $1: the fast row's rate as printed in the table, $2: the figure, $3: the ratio
    cat <<EOF
# made up
<!-- table: chapter=99_made_up csv=$tmp/rec.csv
row "fast" = fast; row "slow" = slow
col "rate" = 1 64x64x64 rate; col "% slow" = 1 64x64x64 pct
-->
| variant | rate | % slow |
|---|---:|---:|
| fast | $1 | 125.0 |
| slow | 400.00 | 100.0 |
<!-- end table -->

fast runs at $2<!-- fig csv=$tmp/rec.csv 99_made_up fast 64x64x64 rate --> TFLOP/s,
$3×<!-- fig csv=$tmp/rec.csv ratio 99_made_up fast 64x64x64 rate / 99_made_up slow 64x64x64 rate --> slow.
EOF
}
check() { python3 "$here/doc_numbers.py" "$@" > "$tmp/out" 2>&1; }

lesson 500.00 500 1.25 > "$tmp/good.md"
check "$tmp/good.md" || fail "a right lesson was reported: $(head -n 1 "$tmp/out")"
grep -q "^1 tables and 2 figures checked" "$tmp/out" || fail "counted wrong: $(tail -n 1 "$tmp/out")"

lesson 500.00 510 1.25 > "$tmp/bad_fig.md"
check "$tmp/bad_fig.md" && fail "a wrong figure (510 for 500) passed"
grep -q "'510' is not what the record gives: 500" "$tmp/out" || fail "wrong figure: $(head -n 1 "$tmp/out")"

lesson 500.00 500 1.3 > "$tmp/bad_ratio.md"
check "$tmp/bad_ratio.md" && fail "a wrong ratio (1.3 for 1.25) passed"
grep -q "'1.3' is not what the record gives" "$tmp/out" || fail "wrong ratio: $(head -n 1 "$tmp/out")"

lesson 499.00 500 1.25 > "$tmp/stale.md"
check "$tmp/stale.md" && fail "a stale table passed"
grep -q "table is stale" "$tmp/out" || fail "stale table: $(head -n 1 "$tmp/out")"
check --write "$tmp/stale.md" || fail "--write failed: $(head -n 1 "$tmp/out")"
grep -q "^| fast | 500.00 | 125.0 |$" "$tmp/stale.md" || fail "--write did not rewrite the table"
check "$tmp/stale.md" || fail "the rewritten table is still reported"

sed 's/fast 64x64x64 rate -->/fast 128x128x128 rate -->/' "$tmp/good.md" > "$tmp/missing.md"
check "$tmp/missing.md" && fail "a figure whose row is missing passed"
grep -q "no row 99_made_up fast 128x128x128" "$tmp/out" || fail "missing row: $(head -n 1 "$tmp/out")"

# a figure in scientific notation is checked to its significant digits; a marker with no number is
# reported, not skipped
printf 'error %s<!-- fig csv=%s 99_made_up fast 64x64x64 rel_err --> here\n' 1.5e-6 "$tmp/rec.csv" > "$tmp/sci.md"
check "$tmp/sci.md" || fail "a right figure in scientific notation was reported: $(head -n 1 "$tmp/out")"
printf 'error %s<!-- fig csv=%s 99_made_up fast 64x64x64 rel_err --> here\n' 1.6e-6 "$tmp/rec.csv" > "$tmp/sci_bad.md"
check "$tmp/sci_bad.md" && fail "a wrong figure in scientific notation (1.6e-6 for 1.5e-6) passed"
grep -q "'1.6e-6' is not what the record gives: 1.5e-06" "$tmp/out" || fail "scientific: $(head -n 1 "$tmp/out")"
printf 'error about<!-- fig csv=%s 99_made_up fast 64x64x64 rate --> here\n' "$tmp/rec.csv" > "$tmp/bare.md"
check "$tmp/bare.md" && fail "a marker with no number before it passed"
grep -q "a fig marker with no number right before it" "$tmp/out" || fail "bare marker: $(head -n 1 "$tmp/out")"

# a real lesson: its first checked figure changed by one in the last printed digit fails
root=$(cd "$here/.." && pwd)
real=$root/06_sparse_stencil/PART2.md
python3 - "$real" "$tmp/real.md" <<'PY' || fail "could not change a figure of $real"
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"([0-9][0-9,]*\.([0-9]+))(%|×)?<!-- fig ", text)
digits = m.group(1)
bumped = digits[:-1] + str((int(digits[-1]) + 1) % 10)
open(sys.argv[2], "w").write(text[:m.start(1)] + bumped + text[m.end(1):])
PY
check "$real" || fail "the real lesson $real does not pass as it is: $(head -n 1 "$tmp/out")"
check "$tmp/real.md" && fail "a real lesson with one figure changed passed"
grep -q "is not what the record gives" "$tmp/out" || fail "real lesson: $(head -n 1 "$tmp/out")"

# the support table: a cell edited by hand is reported (unless the programs are not built here)
if python3 "$here/support_table.py" > "$tmp/out" 2>&1; then
    sed 's/^| 05 `05_wgmma_gemm` | — |/| 05 `05_wgmma_gemm` | all |/' "$root/README.md" > "$tmp/README.md"
    cmp -s "$root/README.md" "$tmp/README.md" && fail "could not edit the support table's 05_wgmma_gemm row"
    python3 "$here/support_table.py" "$tmp/README.md" > "$tmp/out" 2>&1 && fail "an edited support table passed"
    grep -q "support table is stale" "$tmp/out" || fail "support table: $(head -n 1 "$tmp/out")"
    support="; an edited support-table cell fails"
else
    support=" (support table not checked: $(head -n 1 "$tmp/out"))"
fi

# the forced-choices table: a choice edited by hand is reported (unless the programs are not built)
if python3 "$here/forced_choices.py" > "$tmp/out" 2>&1; then
    sed 's/| 7clusters, 1cluster |$/| 1cluster |/' "$root/CONTRIBUTING.md" > "$tmp/CONTRIBUTING.md"
    cmp -s "$root/CONTRIBUTING.md" "$tmp/CONTRIBUTING.md" && fail "could not edit the forced-choices table"
    python3 "$here/forced_choices.py" "$tmp/CONTRIBUTING.md" > "$tmp/out" 2>&1 && fail "an edited forced-choices table passed"
    grep -q "forced-choices table is stale" "$tmp/out" || fail "forced choices: $(head -n 1 "$tmp/out")"
    support="$support; an edited forced choice fails"
fi

echo "PASS doc_numbers: right figures and tables pass; a wrong value, a wrong ratio, a stale table, a missing row, a wrong figure in scientific notation, a marker with no number and a changed figure in a copy of PART2.md fail$support"
