#!/usr/bin/env bash
# tests/bench.sh BUILD [ITEM...] - `make bench`: every program's --bench, one after another (never
# in parallel: they would share the GPU), then BUILD/bench.csv (the schema of CONTRIBUTING.md) and
# the ladder grouped by problem.
#
# ITEM is FOLDER/PROGRAM: run BUILD/bin/PROGRAM --bench --csv BUILD/bench/PROGRAM.csv;
#      or FOLDER/PROGRAM=ARGS: the same with ARGS appended (split at blanks, no quoting). This is how
#      `make bench QUICK=1` passes the quick arguments a chapter.mk declares for a program, e.g.
#      `03_wmma_fp16_BENCH_QUICK := --size 8192x8192x8192` gives the item
#      '03_wmma_fp16/03_wmma_fp16=--size 8192x8192x8192'. A program without one runs its full --bench.
#
# Merging: BUILD/bench/ keeps one CSV per program, from this run or an earlier one, and
# BUILD/bench.csv holds the rows of all of them, so that `make bench CHAPTERS="03 05"` followed by
# `make bench CHAPTERS=06` leaves one complete file for `make plot`. The script prints which
# programs' rows come from this run and which are kept from earlier runs (with their git_sha, date
# and GPU), and the ladder covers the merged rows. Order: TC_BENCH_ORDER (make sets it to every
# FOLDER/PROGRAM of every chapter, in chapter order); a CSV of a program not in it is left out, as
# stale. Without TC_BENCH_ORDER (the script run by hand), the files in name order.
# A program run here first loses its old CSV: one that is skipped (exit 77) or fails before writing
# rows has none afterwards. With no ITEM nothing runs: the script only merges and prints.
set -u
build=${1:?usage: bench.sh BUILD [FOLDER/PROGRAM[=ARGS]...]}
shift
dir=$build/bench
csv=$build/bench.csv
mkdir -p "$dir"
# the git_sha column: make exports TC_GIT_SHA; when this script is run by hand, ask git
export TC_GIT_SHA="${TC_GIT_SHA:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
status=0
declare -A ran_here=() # program -> exit status in this run

for item in "$@"; do
    prog_item=${item%%=*}
    c=${prog_item#*/}
    extra=()
    [ "$prog_item" != "$item" ] && read -r -a extra <<<"${item#*=}"
    echo "== $c --bench${extra[*]:+ ${extra[*]}}"
    rm -f "$dir/$c.csv"
    started=$SECONDS
    "$build/bin/$c" --bench --csv "$dir/$c.csv" ${extra[@]+"${extra[@]}"}
    rc=$?
    echo "   ($c: $((SECONDS - started)) s)"
    ran_here[$c]=$rc
    case $rc in
    0) ;;
    77) echo "   (skipped)"; rm -f "$dir/$c.csv" ;;
    *) echo "   $c --bench exited $rc"; status=1 ;;
    esac
done

# ---- merge ---------------------------------------------------------------------------------------
order=()
declare -A listed=()
if [ -n "${TC_BENCH_ORDER:-}" ]; then
    for w in $TC_BENCH_ORDER; do
        p=${w##*/}
        listed[$p]=1
        [ -f "$dir/$p.csv" ] && order+=("$p")
    done
fi
stale=()
for f in "$dir"/*.csv; do
    [ -f "$f" ] || continue
    p=$(basename "$f" .csv)
    if [ -n "${TC_BENCH_ORDER:-}" ]; then
        [ -n "${listed[$p]:-}" ] || stale+=("$p")
    else
        order+=("$p")
    fi
done

# the header: that of a file written in this run, else of the first file
header=""
for p in ${order[@]+"${order[@]}"}; do
    [ -n "${ran_here[$p]+x}" ] && { header=$(head -n 1 "$dir/$p.csv"); break; }
done
[ -z "$header" ] && [ ${#order[@]} -gt 0 ] && header=$(head -n 1 "$dir/${order[0]}.csv")
if [ -z "$header" ]; then
    echo "no bench rows (no GPU, or every chapter skipped)"
    rm -f "$csv"
    exit $status
fi

# Columns are read by their name in the header line, never by position (the schema may grow):
# every awk program below starts with this block, then uses f["name"] for the column's number.
by_name='NR == 1 { for (i = 1; i <= NF; i++) f[$i] = i }'

# one line per program: NAME ROWS GIT_SHA DATE GPU (the first row's), or why it is left out
describe() {
    awk -F, "$by_name"'
             NR == 2 { sha = $f["git_sha"]; date = $f["date"]; gpu = $f["gpu"] }
             END { if (NR < 2) printf "   0 rows  (none: this program writes no rows)"
                   else printf "%4d rows  %-8s %-20s %s", NR - 1, sha, date, gpu }' "$1"
}
fresh=() kept=() merged=()
for p in ${order[@]+"${order[@]}"}; do
    f=$dir/$p.csv
    if [ "$(head -n 1 "$f")" != "$header" ]; then
        echo "   left out $f: its header is not this run's (an older schema?); re-run its bench"
        continue
    fi
    merged+=("$p")
    line=$(printf '   %-22s %s' "$p" "$(describe "$f")")
    if [ -n "${ran_here[$p]+x}" ]; then fresh+=("$line"); else kept+=("$line"); fi
done
for p in "${!ran_here[@]}"; do # run here, but no rows: skipped, or failed before writing any
    [ -f "$dir/$p.csv" ] && continue
    why="skipped"; [ "${ran_here[$p]}" != 77 ] && why="exited ${ran_here[$p]}"
    fresh+=("$(printf '   %-22s    0 rows  (%s)' "$p" "$why")")
done
for p in ${stale[@]+"${stale[@]}"}; do
    echo "   left out $dir/$p.csv: no program of that name in the chapters (stale; delete it)"
done
{
    echo "$header"
    for p in ${merged[@]+"${merged[@]}"}; do tail -n +2 "$dir/$p.csv"; done
} >"$csv"

echo
echo "== $csv: $(($(wc -l <"$csv") - 1)) rows from ${#merged[@]} programs"
echo "   from this run:"
[ ${#fresh[@]} -gt 0 ] && printf '%s\n' "${fresh[@]}" || echo "   (none)"
echo "   kept from earlier runs ($dir/PROGRAM.csv; make bench CHAPTERS=NN replaces a chapter's):"
[ ${#kept[@]} -gt 0 ] && printf '%s\n' "${kept[@]}" || echo "   (none)"
gpus=$(awk -F, "$by_name"' NR > 1 { print $f["gpu"] }' "$csv" | sort -u)
gpu_list=$(printf '%s\n' "$gpus" | awk '{ printf "%s%s", (NR > 1 ? ", " : ""), $0 }')
if [ "$(printf '%s\n' "$gpus" | wc -l)" -gt 1 ]; then
    echo "   warning: the rows come from more than one GPU ($gpu_list);"
    echo "   compare rows of one GPU only (or delete $dir and run make bench again)"
fi

echo
echo "== the ladder ($gpu_list, $(($(wc -l <"$csv") - 1)) rows)"
# Group by problem, in order of first appearance; rate, % of the named baseline, the check and
# the relative error (blank where the row has none).
awk -F, "$by_name"'
NR == 1 { next }
{
    p = $f["problem"]
    if (!(p in seen)) { seen[p] = 1; order[++n] = p }
    rows[p] = rows[p] sprintf("  %-22s %-18s %-9s %-16s %10.1f %-7s %7.1f%% of %-14s %-9s %s\n",
                              $f["chapter"], $f["variant"], $f["precision"], $f["size"],
                              $f["rate"], $f["unit"], $f["pct_of_baseline"], $f["baseline"],
                              $f["verified"], $f["rel_err"])
}
END {
    for (i = 1; i <= n; i++) {
        printf "\n%s\n  %-22s %-18s %-9s %-16s %10s %-7s %s\n", order[i], "chapter", "variant",
               "precision", "size", "rate", "unit",
               "vs baseline (same run)       check     rel_err"
        printf "%s", rows[order[i]]
    }
}' "$csv"
echo
echo "CSV: $csv"
exit $status
