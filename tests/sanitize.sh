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
# racecheck also tracks cp.async (memcpy_async) copies into shared memory when the sanitizer has
# the switch; say so explicitly rather than rely on the default of the installed version
race_async=""
if compute-sanitizer --help 2>/dev/null | grep -q -- '--racecheck-memcpy-async'; then
    race_async="--racecheck-memcpy-async yes"
    echo "racecheck: cp.async hazards checked (--racecheck-memcpy-async yes)"
else
    echo "racecheck: this compute-sanitizer has no --racecheck-memcpy-async switch (its default applies)"
fi
# Kernels that racecheck and synccheck leave out, each for a reason outside this repository's code
# (the option is --kernel-name-exclude since compute-sanitizer 2023.3, --kernel-regex-exclude before):
#   cudnn               cuDNN's own kernels (chapters 02 and 10 call them): racecheck reports hazards
#                       inside its fused attention kernels, and a run of chapter 10 under synccheck
#                       overflowed the tool's barrier tracking where cuDNN's next launch was due
#                       and failed every launch from there on
#   probe_turns_kernel  10_attn_probe's test of named-barrier turns: one warpgroup's bar.arrive and
#                       the other's bar.sync on the same barrier order the shared position it hands
#                       over (the PTX ISA: an arrive synchronizes with a later sync on the barrier),
#                       an ordering the racecheck of CUDA 13.0 does not model; the test itself checks
#                       the turns' order, and memcheck, synccheck and initcheck still run it
exclude_opt=--kernel-name-exclude
compute-sanitizer --help 2>/dev/null | grep -q -- '--kernel-name-exclude' || exclude_opt=--kernel-regex-exclude
race_exclude="$exclude_opt kns=cudnn $exclude_opt kns=probe_turns_kernel"
sync_exclude="$exclude_opt kns=cudnn"
failed=0
for item in "$@"; do
    c=${item#*/}
    for tool in memcheck racecheck synccheck initcheck; do
        log=$build/logs/$c.$tool.log
        extra=""
        [ "$tool" = racecheck ] && extra="--racecheck-report all $race_async $race_exclude"
        [ "$tool" = synccheck ] && extra="$sync_exclude"
        [ "$tool" = memcheck ] && extra="--leak-check full"
        # shellcheck disable=SC2086
        TC_TEST_SMALL=1 compute-sanitizer --tool "$tool" $extra --error-exitcode 99 \
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
