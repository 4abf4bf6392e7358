#!/usr/bin/env bash
# tests/sanitize.sh BUILD FOLDER/PROGRAM... - `make sanitize`: every chapter's --test on its small sizes
# (TC_TEST_SMALL=1) under compute-sanitizer's memcheck, racecheck, synccheck and initcheck.
# Passes only with zero errors and zero hazards everywhere.
set -u
build=${1:?usage: sanitize.sh BUILD FOLDER/PROGRAM...}
shift
if ! command -v compute-sanitizer >/dev/null; then
    echo "compute-sanitizer not found (it ships with the CUDA toolkit: add \$CUDA_PATH/bin to PATH)"
    exit 1
fi
mkdir -p "$build/logs"
# the racecheck and synccheck options (cp.async tracking, the kernels left out and why)
# shellcheck source=tests/racecheck_opts.sh
. "$(dirname "$0")/racecheck_opts.sh"
echo "$race_async_note"
failed=0
for item in "$@"; do
    c=${item#*/}
    for tool in memcheck racecheck synccheck initcheck; do
        log=$build/logs/$c.$tool.log
        extra=()
        [ "$tool" = racecheck ] && extra=(--racecheck-report all "${racecheck_opts[@]}")
        [ "$tool" = synccheck ] && extra=("${synccheck_opts[@]}")
        [ "$tool" = memcheck ] && extra=(--leak-check full)
        TC_TEST_SMALL=1 compute-sanitizer --tool "$tool" ${extra[@]+"${extra[@]}"} --error-exitcode 99 \
            "$build/bin/$c" --test >"$log" 2>&1
        rc=$?
        summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -n 1)
        case $rc in
        0) echo "PASS $c $tool: ${summary:-no errors}" ;;
        77) echo "SKIP $c $tool: $(grep -m1 '^SKIP' "$log")" ;;
        *) echo "FAIL $c $tool (exit $rc): ${summary:-see $log}"; failed=$((failed + 1)) ;;
        esac
    done
done
[ "$failed" = 0 ]
