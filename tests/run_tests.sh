#!/usr/bin/env bash
# tests/run_tests.sh BUILD FOLDER/PROGRAM... - the test driver behind `make test`.
#
# Runs, printing one line per test:
#   1. the CPU unit tests of common/ (build/tests/unit_tests, one process per test);
#   2. the bad-input tests: every chapter program called with malformed or out-of-range arguments
#      must exit 2 and say why on stderr (no GPU needed), and --help/--list must exit 0;
#   3. every program's --test on the GPU: exit 0 passes, 77 is skipped (reason printed), anything
#      else fails. Logs go to BUILD/logs/.
# A program is named as FOLDER/PROGRAM (01_cublas_tensor_op/01_cublas_tensor_op); the binary is
# BUILD/bin/PROGRAM and FOLDER/bad_args.txt holds the chapter's extra bad inputs.
# Ends with exactly one line "N passed, N failed, N skipped"; exits 1 if anything failed.
set -u
build=${1:?usage: run_tests.sh BUILD FOLDER/PROGRAM...}
shift
mkdir -p "$build/logs"
passed=0 failed=0 skipped=0

result() { # status name [detail]
    printf '%-4s %-58s %s\n' "$1" "$2" "${3:-}"
    case $1 in PASS) passed=$((passed + 1)) ;; FAIL) failed=$((failed + 1)) ;; SKIP) skipped=$((skipped + 1)) ;; esac
}

# ---- 1. CPU unit tests ---------------------------------------------------------------------------
unit=$build/tests/unit_tests
if [ -x "$unit" ] && names=$("$unit" --list) && [ -n "$names" ]; then
    for t in $names; do
        if out=$("$unit" "$t" 2>&1); then
            result PASS "unit/$t"
        else
            result FAIL "unit/$t"
            printf '%s\n' "$out" | sed 's/^/     | /'
        fi
    done
else
    result FAIL "unit tests" "$unit is missing or lists no tests"
fi

# ---- 2. bad input (no GPU needed) ------------------------------------------------------------------
# Every program gets these; a chapter adds its own in <folder>/bad_args.txt (one per line; every
# program of the folder must reject each of them).
default_bad_args=(
    "--size 0x5x5" "--size abc" "--size 5x5" "--size 5x5x5x5" "--size 4x-4x4" "--size 2000000x8x8"
    "--size 300000x300000x300000" "--variant nope" "--reps -1" "--reps 0" "--reps x" "--reps"
    "--warmup -3" "--seed -1" "--seed 12abc" "--seed +5" "--reps +5" "--frobnicate" "--test --bench"
    "--csv out.csv" "--bench --csv /nonexistent-dir/out.csv"
)
for item in "$@"; do
    dir=${item%%/*} c=${item#*/}
    bin=$build/bin/$c
    if [ ! -x "$bin" ]; then
        reason=$(cat "$build/skipped/$c" 2>/dev/null || echo "not built")
        result SKIP "$c/bad-input" "$reason"
        continue
    fi
    cases=("${default_bad_args[@]}")
    if [ -f "$dir/bad_args.txt" ]; then
        while IFS= read -r line; do
            case $line in '' | '#'*) continue ;; esac
            cases+=("$line")
        done <"$dir/bad_args.txt"
    fi
    for args in "${cases[@]}"; do
        # shellcheck disable=SC2086 # the arguments are split on purpose
        err=$("$bin" $args 2>&1 >/dev/null)
        rc=$?
        if [ "$rc" = 2 ] && [ -n "$err" ]; then
            result PASS "$c/bad-input: $args"
        else
            result FAIL "$c/bad-input: $args" "exit $rc, stderr: ${err:-<empty>}"
        fi
    done
    for args in --help --list; do
        if "$bin" $args >/dev/null 2>&1; then result PASS "$c/$args"; else result FAIL "$c/$args" "exit $?"; fi
    done
done

# ---- 3. GPU tests ----------------------------------------------------------------------------------
for item in "$@"; do
    c=${item#*/}
    bin=$build/bin/$c
    if [ ! -x "$bin" ]; then
        result SKIP "$c --test" "$(cat "$build/skipped/$c" 2>/dev/null || echo "not built")"
        continue
    fi
    log=$build/logs/$c.test.log
    "$bin" --test >"$log" 2>&1
    rc=$?
    case $rc in
    0) result PASS "$c --test" "$(grep -c '^PASS' "$log") cases, log $log" ;;
    77) result SKIP "$c --test" "$(grep -m1 '^SKIP' "$log" | sed 's/^SKIP: //')" ;;
    *)
        result FAIL "$c --test" "exit $rc, log $log"
        grep -E '^FAIL|error' "$log" | head -n 20 | sed 's/^/     | /'
        ;;
    esac
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
