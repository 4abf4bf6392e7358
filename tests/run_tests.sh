#!/usr/bin/env bash
# tests/run_tests.sh BUILD [--unit PROGRAM]... [--chapter FOLDER]... FOLDER/PROGRAM... - the test
# driver behind `make test`.
#
# Runs, printing one line per test:
#   1. the CPU unit tests: every --unit program (common/unit.h) is asked for its --list, and each
#      test runs as its own process;
#   2. every --chapter built on its own: the folder and common/ copied into an empty temporary
#      folder and built there with the command its README gives (tests/build_alone.sh);
#   3. the bad-input tests: every chapter program called with malformed or out-of-range arguments
#      must exit 2 and say why on stderr (no GPU needed), and --help/--list must exit 0;
#   4. every program's --test on the GPU: exit 0 passes, 77 is skipped (reason printed), anything
#      else fails. Logs go to BUILD/logs/.
# A program is named as FOLDER/PROGRAM (01_cublas_tensor_op/01_cublas_tensor_op); the binary is
# BUILD/bin/PROGRAM and FOLDER/bad_args.txt holds the chapter's extra bad inputs.
# Ends with exactly one line "N passed, N failed, N skipped"; exits 1 if anything failed.
set -u
build=${1:?usage: run_tests.sh BUILD [--unit PROGRAM]... [--chapter FOLDER]... FOLDER/PROGRAM...}
shift
units=() chapters=()
while [ $# -gt 0 ]; do
    case $1 in
    --unit) units+=("$2"); shift 2 ;;
    --chapter) chapters+=("$2"); shift 2 ;;
    *) break ;;
    esac
done
mkdir -p "$build/logs"
passed=0 failed=0 skipped=0

result() { # status name [detail]
    printf '%-4s %-58s %s\n' "$1" "$2" "${3:-}"
    case $1 in PASS) passed=$((passed + 1)) ;; FAIL) failed=$((failed + 1)) ;; SKIP) skipped=$((skipped + 1)) ;; esac
}

# ---- 1. CPU unit tests ---------------------------------------------------------------------------
for unit in "${units[@]}"; do
    # build/tests/08_tc_numerics/test_tc_model -> 08_tc_numerics/test_tc_model
    label=${unit#"$build"/tests/}
    if [ -x "$unit" ] && names=$("$unit" --list) && [ -n "$names" ]; then
        for t in $names; do
            if out=$("$unit" "$t" 2>&1); then
                result PASS "unit $label: $t"
            else
                result FAIL "unit $label: $t"
                printf '%s\n' "$out" | sed 's/^/     | /'
            fi
        done
    else
        result FAIL "unit $label" "$unit is missing or lists no tests"
    fi
done

# ---- 2. each chapter built on its own ------------------------------------------------------------
for c in "${chapters[@]}"; do
    log=$build/logs/$c.build-alone.log
    out=$("$(dirname "$0")/build_alone.sh" "$c" "$log")
    case $? in
    0) result PASS "$c: builds alone" "$out" ;;
    77) result SKIP "$c: builds alone" "$out" ;;
    *) result FAIL "$c: builds alone" "$out (log $log)"; tail -n 20 "$log" | sed 's/^/     | /' ;;
    esac
done

# ---- 3. bad input (no GPU needed) ------------------------------------------------------------------
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

# ---- 4. GPU tests ----------------------------------------------------------------------------------
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
