#!/usr/bin/env bash
# tests/bench.sh BUILD FOLDER/PROGRAM... - `make bench`: every chapter's --bench, one after another
# (never in parallel: they would share the GPU), then the ladder grouped by problem and
# BUILD/bench.csv with the schema of CONTRIBUTING.md.
set -u
build=${1:?usage: bench.sh BUILD FOLDER/PROGRAM...}
shift
mkdir -p "$build/bench"
# the git_sha column: make exports TC_GIT_SHA; when this script is run by hand, ask git
export TC_GIT_SHA="${TC_GIT_SHA:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
csv=$build/bench.csv
status=0
header=""
for item in "$@"; do
    c=${item#*/}
    echo "== $c --bench"
    "$build/bin/$c" --bench --csv "$build/bench/$c.csv"
    rc=$?
    case $rc in
    0) ;;
    77) echo "   (skipped)"; rm -f "$build/bench/$c.csv" ;;
    *) echo "   $c --bench exited $rc"; status=1 ;;
    esac
    [ -f "$build/bench/$c.csv" ] && [ -z "$header" ] && header=$(head -n 1 "$build/bench/$c.csv")
done
if [ -z "$header" ]; then
    echo "no bench rows (no GPU, or every chapter skipped)"
    exit $status
fi
{
    echo "$header"
    for item in "$@"; do c=${item#*/}; [ -f "$build/bench/$c.csv" ] && tail -n +2 "$build/bench/$c.csv"; done
} >"$csv"

echo
echo "== the ladder ($(tail -n 1 "$csv" | awk -F, '{print $13}'), $(($(wc -l <"$csv") - 1)) rows)"
# Group by problem (column 3), in order of first appearance; rate and % of the named baseline.
awk -F, '
NR == 1 { next }
{
    if (!($3 in seen)) { seen[$3] = 1; order[++n] = $3 }
    rows[$3] = rows[$3] sprintf("  %-22s %-18s %-9s %-16s %10.1f %-7s %7.1f%% of %-14s %s\n",
                                $1, $2, $4, $5, $8, $9, $11, $10, $12)
}
END {
    for (i = 1; i <= n; i++) {
        printf "\n%s\n  %-22s %-18s %-9s %-16s %10s %-7s %s\n", order[i], "chapter", "variant",
               "precision", "size", "rate", "unit", "vs baseline (same run)       check"
        printf "%s", rows[order[i]]
    }
}' "$csv"
echo
echo "CSV: $csv"
exit $status
