#!/usr/bin/env bash
# tests/run_tests.sh BUILD [--unit PROGRAM]... [--chapter FOLDER]... FOLDER/PROGRAM... - the test
# driver behind `make test`.
#
# Runs, printing one line per test:
#   1. the CPU unit tests: every --unit program (common/unit.h) is asked for its --list, and each
#      test runs as its own process;
#   then the Markdown files' links and paths (tests/check_docs.sh); the lessons' figures and tables
#   against docs/bench-h200.csv (tests/doc_numbers.py, and test_doc_numbers.sh: it fails on a wrong
#   one), every exercise's solution (tests/exercises.py) and README's support table
#   (tests/support_table.py, when every program is built); and the mutation suite's patches:
#   each has a well-formed header and applies to this tree (tests/mutants.sh --check; `make mutants`
#   runs them, on a GPU), and the script's case keys, --stop-after filter and racecheck summary reading (--self-test);
#   2. every --chapter built on its own: the folder and common/ copied into an empty temporary
#      folder and built there with the command its README gives (tests/build_alone.sh). These
#      builds need no GPU and take minutes, so they start first, in the background
#      (TC_BUILD_ALONE_JOBS at once, default a quarter of the cores), and are reported last;
#   3. the bad-input tests: every chapter program called with malformed or out-of-range arguments
#      must exit 2 and say why on stderr (no GPU needed), and --help/--list must exit 0; TC_CPU_JOBS
#      programs at once (default the cores), printed in program order;
#   4. every program's --test on the GPU: exit 0 passes, 77 is skipped (reason printed), anything
#      else fails; cases a program skipped inside its --test are added to the skipped count. Logs go
#      to BUILD/logs/. These start first too, TC_TEST_JOBS programs at once (default 3, longest
#      first), and run beside parts 1-3; each result line gives the program's wall and CPU seconds. Then every --example FOLDER: BUILD/examples/FOLDER (the chapter's example.cu,
#      its best kernel called from a plain program) run once, with the same exit codes.
# TC_REQUIRE_GPU=1 turns every skip into a failure. Each test has a timeout (TC_TEST_TIMEOUT,
# TC_UNIT_TIMEOUT, TC_BAD_INPUT_TIMEOUT, in seconds); a timeout is a failure that says so.
# A program is named as FOLDER/PROGRAM (01_cublas_tensor_op/01_cublas_tensor_op); the binary is
# BUILD/bin/PROGRAM and FOLDER/bad_args.txt holds the chapter's extra bad inputs.
# Ends with exactly one line "N passed, N failed, N skipped in N s"; exits 1 if anything failed.
set -u
build=${1:?usage: run_tests.sh BUILD [--unit PROGRAM]... [--chapter FOLDER]... FOLDER/PROGRAM...}
shift
units=() chapters=() examples=()
while [ $# -gt 0 ]; do
    case $1 in
    --unit) units+=("$2"); shift 2 ;;
    --chapter) chapters+=("$2"); shift 2 ;;
    --example) examples+=("$2"); shift 2 ;;
    *) break ;;
    esac
done
mkdir -p "$build/logs"
passed=0 failed=0 skipped=0

result() { # status name [detail]
    printf '%-4s %-58s %s\n' "$1" "$2" "${3:-}"
    case $1 in PASS) passed=$((passed + 1)) ;; FAIL) failed=$((failed + 1)) ;; SKIP) skipped=$((skipped + 1)) ;; esac
}
# TC_REQUIRE_GPU=1 (make test REQUIRE_GPU=1): nothing may be skipped, so a skip is a failure
require_gpu=${TC_REQUIRE_GPU:-0}
export TC_REQUIRE_GPU=$require_gpu # the programs read it too: a skipped case fails their --test
skip_or_fail() { # name reason
    if [ "$require_gpu" = 1 ]; then result FAIL "$1" "skipped, and REQUIRE_GPU=1: $2"; else result SKIP "$1" "$2"; fi
}
# A program missing from BUILD/bin is skipped only when the build said why (BUILD/skipped/PROGRAM);
# otherwise it should have been built, and its absence is a failure.
not_built() { # name program
    if [ -f "$build/skipped/$2" ]; then
        skip_or_fail "$1" "$(cat "$build/skipped/$2")"
    else
        result FAIL "$1" "$build/bin/$2 is missing and the build gave no reason (run make)"
    fi
}
# Timeouts in seconds: a hung kernel or an endless loop fails its test instead of hanging make test.
test_timeout=${TC_TEST_TIMEOUT:-900}
unit_timeout=${TC_UNIT_TIMEOUT:-300}
bad_input_timeout=${TC_BAD_INPUT_TIMEOUT:-30}

# ---- 2, started: each chapter built on its own, in the background; reported at the end --------
build_alone_jobs=${TC_BUILD_ALONE_JOBS:-$(($(nproc 2>/dev/null || echo 4) / 4))}
[ "$build_alone_jobs" -ge 1 ] 2>/dev/null || build_alone_jobs=1
build_alone_dir=$(mktemp -d "${TMPDIR:-/tmp}/run-tests.XXXXXX")
trap 'rm -rf "$build_alone_dir"' EXIT
build_alone_pid=
# longest_first "FIRST NAMES" NAME...: the NAMEs, those in FIRST NAMES first in that order (each
# once), then the rest in the order given; one per line. Both background queues below use it.
longest_first() {
    local first=$1 c n
    shift
    declare -A seen=()
    for c in $first; do
        [ -z "${seen[$c]:-}" ] || continue
        for n in "$@"; do [ "$n" = "$c" ] && seen[$c]=1 && echo "$c"; done
    done
    for n in "$@"; do [ -n "${seen[$n]:-}" ] || { seen[$n]=1; echo "$n"; }; done
}
# Longest first (make test's wall time ends with the last of them): TC_BUILD_ALONE_ORDER's names,
# by default from one machine's seconds (2 cores, 2026-12-06: 05 88-128, 06 20, 04 and 09 16, 07
# 13, 03 12, 10 9; the rest under 7), then the rest in the order given.
mapfile -t build_alone_queue < <(longest_first "${TC_BUILD_ALONE_ORDER:-05_mma_ptx 06_sparse_stencil \
04_wmma_tf32 09_emulated_precision 07_int8_dp4a 03_wmma_fp16 10_flash_attention}" ${chapters[@]+"${chapters[@]}"})
if [ ${#chapters[@]} -gt 0 ]; then
    # each writes DIR/FOLDER.out (its one line) and DIR/FOLDER.rc (its exit status); xargs puts
    # the folder last: $0 the script, $1 BUILD, $2 DIR, $3 FOLDER
    printf '%s\n' "${build_alone_queue[@]}" | xargs -P "$build_alone_jobs" -n 1 bash -c \
        '"$0" "$3" "$1/logs/$3.build-alone.log" >"$2/$3.out"; echo $? >"$2/$3.rc"' \
        "$(dirname "$0")/build_alone.sh" "$build" "$build_alone_dir" &
    build_alone_pid=$!
fi

# ---- 4, started: every program's --test, TC_TEST_JOBS at once (default 3), in the background ------
# They share the GPU (kernels of different processes take turns on it; a test times nothing) and
# overlap the CPU phases below; results are read back and printed in program order in part 4.
# Longest first: the order of TC_TEST_ORDER's names (make passes none; the list below is from the
# H100 run's per-program seconds), then the rest in the order given.
test_jobs=${TC_TEST_JOBS:-3}
[ "$test_jobs" -ge 1 ] 2>/dev/null || test_jobs=1
gpu_dir=$build_alone_dir/gpu
mkdir -p "$gpu_dir"
run_one_test() { # program: its log, and "rc wall_s cpu_s" in gpu_dir/program.rc
    local c=$1 t0 rc cpu
    t0=$(date +%s)
    # bash's time keyword: the CPU seconds of the program and its threads (user + sys)
    cpu=$( { TIMEFORMAT='%U %S'; time timeout -k 10 "$test_timeout" "$build/bin/$c" --test \
        >"$build/logs/$c.test.log" 2>&1; echo "rc $?" >"$gpu_dir/$c.exit"; } 2>&1 | awk '{printf "%.0f", $1 + $2}')
    rc=$(sed -n 's/^rc //p' "$gpu_dir/$c.exit")
    echo "${rc:-1} $(($(date +%s) - t0)) ${cpu:-0}" >"$gpu_dir/$c.rc"
}
test_names=()
for item in "$@"; do test_names+=("${item#*/}"); done
mapfile -t test_queue < <(longest_first "${TC_TEST_ORDER:-05_wgmma_gemm 09_emulated_precision \
10_flash_attention 05_mma_gemm 04_wmma_tf32 03_wmma_fp16 07_int8_gemm}" ${test_names[@]+"${test_names[@]}"})
(
    for c in ${test_queue[@]+"${test_queue[@]}"}; do
        [ -x "$build/bin/$c" ] || continue
        while [ "$(jobs -rp | wc -l)" -ge "$test_jobs" ]; do wait -n; done
        run_one_test "$c" &
    done
    wait
) &
tests_pid=$!

# ---- 1. CPU unit tests ---------------------------------------------------------------------------
for unit in "${units[@]}"; do
    # build/tests/08_tc_numerics/test_tc_model -> 08_tc_numerics/test_tc_model
    label=${unit#"$build"/tests/}
    if [ -x "$unit" ] && names=$("$unit" --list) && [ -n "$names" ]; then
        for t in $names; do
            out=$(timeout -k 5 "$unit_timeout" "$unit" "$t" 2>&1)
            case $? in
            0) result PASS "unit $label: $t" ;;
            124 | 137) result FAIL "unit $label: $t" "timed out after $unit_timeout s (TC_UNIT_TIMEOUT)" ;;
            *) result FAIL "unit $label: $t"; printf '%s\n' "$out" | sed 's/^/     | /' ;;
            esac
        done
    else
        result FAIL "unit $label" "$unit is missing or lists no tests"
    fi
done

t_units=$SECONDS

# ---- the Markdown: links and file paths resolve, no document outside the repository is named -----
if out=$("$(dirname "$0")/check_docs.sh" 2>&1); then
    result PASS "docs: links and paths" "$out"
else
    result FAIL "docs: links and paths"
    printf '%s\n' "$out" | sed 's/^/     | /'
fi

# ---- the lessons' numbers, exercises and support table (make docs rewrites what is generated) ------
here=$(dirname "$0")
if ! command -v python3 >/dev/null 2>&1; then
    result FAIL "docs: numbers, exercises, support table" "python3 is missing (the checks are Python)"
else
    if out=$(python3 "$here/doc_numbers.py" 2>&1); then
        result PASS "docs: figures and tables match the record" "$(printf '%s' "$out" | tail -n 1)"
    else
        result FAIL "docs: figures and tables match the record" "(make docs rewrites stale tables)"
        printf '%s\n' "$out" | sed 's/^/     | /'
    fi
    if out=$(bash "$here/test_doc_numbers.sh" 2>&1); then
        result PASS "docs: the figure checker fails on wrong numbers" ""
    else
        result FAIL "docs: the figure checker fails on wrong numbers"
        printf '%s\n' "$out" | sed 's/^/     | /'
    fi
    if out=$(python3 "$here/rename_rows.py" 2>&1); then
        result PASS "docs: references use the record's rung names" "$(printf '%s' "$out" | tail -n 1)"
    else
        result FAIL "docs: references use the record's rung names" "(tests/rename_rows.py --write)"
        printf '%s\n' "$out" | sed 's/^/     | /'
    fi
    if out=$(python3 "$here/exercises.py" 2>&1); then
        result PASS "docs: every exercise has a solution" "$(printf '%s' "$out" | tail -n 1)"
    else
        result FAIL "docs: every exercise has a solution"
        printf '%s\n' "$out" | sed 's/^/     | /'
    fi
    out=$(python3 "$here/support_table.py" --bin "$build/bin" 2>&1)
    case $? in
    0) result PASS "docs: the support table is as declared" "$out" ;;
    77) printf '%-4s %-58s %s\n' note "docs: the support table" "$out" ;;
    *) result FAIL "docs: the support table is as declared" "$out" ;;
    esac
    out=$(python3 "$here/forced_choices.py" --bin "$build/bin" 2>&1)
    case $? in
    0) result PASS "docs: the forced choices are as --list says" "$out" ;;
    77) printf '%-4s %-58s %s\n' note "docs: the forced choices" "$out" ;;
    *) result FAIL "docs: the forced choices are as --list says" "$out" ;;
    esac
fi

# ---- the mutation suite: every patch of tests/mutants/ still applies (make mutants runs them) ------
if out=$("$(dirname "$0")/mutants.sh" --check 2>&1); then
    result PASS "mutants: every patch applies" "$(printf '%s' "$out" | tail -n 1)"
else
    result FAIL "mutants: every patch applies"
    printf '%s\n' "$out" | sed 's/^/     | /'
fi
if out=$("$(dirname "$0")/mutants.sh" --self-test 2>&1); then
    result PASS "mutants: case keys, --stop-after, racecheck" "$(printf '%s' "$out" | tail -n 1)"
else
    result FAIL "mutants: case keys, --stop-after, racecheck"
    printf '%s\n' "$out" | sed 's/^/     | /'
fi

# ---- the schedules lessons promise, in the SASS (not checked without cuobjdump or the sm_90a object)
# sass_check SCRIPT OBJECT PROGRAM SELF_TEST_LABEL LABEL PASS_TEXT: the script's self-test, then the
# object (or the program that holds it, where a build was copied without its objects: NOBUILD=1)
sass_check() {
    local out code=$2
    if out=$(python3 "$here/$1" --self-test 2>&1); then
        result PASS "$4" "$out"
    else
        result FAIL "$4" "$out"
    fi
    [ -e "$code" ] || code=$3
    [ -e "$code" ] || return 0
    out=$(python3 "$here/$1" "$code" 2>&1)
    case $? in
    0) result PASS "$5" "$(printf '%s\n' "$out" | grep -c '^ok') instantiations, $6" ;;
    77) printf '%-4s %-58s %s\n' note "$5" "$out" ;;
    *) result FAIL "$5"
       printf '%s\n' "$out" | sed 's/^/     | /' ;;
    esac
}
if command -v python3 >/dev/null 2>&1; then
    # chapter 10's v4_overlap: the softmax's exponentials between its two wgmma waits
    sass_check sass_overlap.py "$build/10_flash_attention/attn_hooks.cu.o" \
        "$build/bin/10_flash_attention" \
        "sass: the overlap check fails a hoisted wait" \
        "sass: v4_overlap's softmax between its waits" "66 MUFU.EX2 each"
    # chapter 05's fp8_v9: its scale loads a k-tile or more ahead of their use
    sass_check sass_early_loads.py "$build/05_mma_ptx/wgmma/hooks_fp8_v9_scale_loads.cu.o" \
        "$build/bin/05_wgmma_gemm" \
        "sass: the early-load check fails loads moved to their use" \
        "sass: fp8_v9's scale loads run ahead" "no sa * sb of its own k-tile's loads"
    # chapter 06's rungs g and h: an inside tile's steps without the rim's per-cell tests (the
    # program holds both rungs' kernels)
    sass_check sass_inside_path.py "$build/bin/06_sparse_stencil" "$build/bin/06_sparse_stencil" \
        "sass: the inside-path check fails hoisted rim tests" \
        "sass: rungs g and h skip the rim's tests inside" "under 60 predicate instructions each"
    # chapter 06's rate probe: the prmt of its mix issued, MIX per mma (its sums cannot show them)
    sass_check sass_prmt_mix.py "$build/06_sparse_stencil/stencil_probe.cu.o" \
        "$build/bin/06_sparse_stencil" \
        "sass: the mix check fails a probe without its prmt" \
        "sass: the rate probe issues its prmt mix" "MIX PRMT per HMMA"
fi

t_docs=$SECONDS

# ---- 3. bad input (no GPU needed) ------------------------------------------------------------------
# Every program gets these; a chapter adds its own in <folder>/bad_args.txt, one per line:
# "[PROGRAM,...:] ARGS => TEXT", for the programs named (all of the folder's when none are). Each
# must exit 2 with TEXT in its message: TEXT is a fragment of what the right check prints, so a
# line rejected by some unrelated check fails.
default_bad_args=(
    "--size 0x5x5 => every dimension must be in 1.." "--size abc => expected MxNxK"
    "--size 5x5 => expected MxNxK" "--size 5x5x5x5 => expected MxNxK" "--size 4x-4x4 => expected MxNxK"
    "--size 2000000x8x8 => every dimension must be in 1.." "--size 300000x300000x300000 => GiB"
    "--variant nope => unknown variant 'nope'" "--reps -1 => --reps" "--reps 0 => --reps"
    "--reps x => --reps" "--reps => --reps needs a value" "--warmup -3 => --warmup"
    "--seed -1 => --seed" "--seed 12abc => --seed" "--seed +5 => --seed" "--reps +5 => --reps"
    "--frobnicate => --frobnicate" "--test --bench => exclude each other"
    "--csv out.csv => --csv goes with --bench" "--bench --csv /nonexistent-dir/out.csv => cannot write"
    "--test --test => --test given twice" "--seed 1 --seed 2 => --seed given twice"
    "--variant all --variant=all => --variant given twice" "--reps 3 extra => unknown argument 'extra'"
)
# A program that does not take --size rejects every --size line with its own message.
no_size_fragment="takes no --size"
rec() { # status name [detail]: one line, whatever the detail holds
    local detail=${3:-}
    printf '%s\t%s\t%s\n' "$1" "$2" "${detail//$'\n'/ | }"
}
bad_input_program() { # FOLDER/PROGRAM: one record per test, "STATUS<TAB>NAME<TAB>DETAIL"
    local item=$1 dir c bin cases line from args want err rc csv takes_size entry
    dir=${item%%/*} c=${item#*/}
    bin=$build/bin/$c
    if [ ! -x "$bin" ]; then
        printf 'NOTBUILT\t%s\t%s\n' "$c/bad-input" "$c"
        return
    fi
    cases=()
    for line in "${default_bad_args[@]}"; do cases+=("shared: $line"); done
    if [ -f "$dir/bad_args.txt" ]; then
        while IFS= read -r line; do
            case $line in '' | '#'*) continue ;; esac
            if [[ $line =~ ^([0-9A-Za-z_,]+):\ (.*)$ ]]; then # for the programs named
                [[ ,${BASH_REMATCH[1]}, == *",$c,"* ]] || continue
                line=${BASH_REMATCH[2]}
            fi
            cases+=("chapter: $line")
        done <"$dir/bad_args.txt"
    fi
    takes_size=1
    "$bin" --help 2>/dev/null | grep -q -- '--size' || takes_size=0
    for entry in "${cases[@]}"; do
        from=${entry%%: *} line=${entry#*: }
        args=${line%% => *} want=${line#* => }
        if [ "$args" = "$line" ]; then
            rec FAIL "$c/bad-input: $args" "the line names no expected message (ARGS => TEXT)"
            continue
        fi
        # a shared --size line: a program without --size rejects it with its own message
        if [ "$from" = shared ] && [ $takes_size = 0 ]; then
            case $args in --size*) want=$no_size_fragment ;; esac
        fi
        # shellcheck disable=SC2086 # the arguments are split on purpose
        err=$(timeout -k 5 "$bad_input_timeout" "$bin" $args 2>&1 >/dev/null)
        rc=$?
        if [ "$rc" = 2 ] && [[ $err == *"$want"* ]]; then
            rec PASS "$c/bad-input: $args"
        elif [ "$rc" = 2 ] && [ -n "$err" ]; then
            rec FAIL "$c/bad-input: $args" "rejected by another check: stderr '$err', expected '$want'"
        else
            rec FAIL "$c/bad-input: $args" "exit $rc (want 2), stderr: ${err:-<empty>}"
        fi
    done
    # a rejected --bench leaves an existing --csv file as it was
    csv=$(mktemp)
    echo "kept" >"$csv"
    timeout -k 5 "$bad_input_timeout" "$bin" --bench --csv "$csv" --reps 0 >/dev/null 2>&1
    rc=$?
    if [ "$rc" = 2 ] && [ "$(cat "$csv")" = kept ]; then
        rec PASS "$c/bad-input: --bench --csv FILE --reps 0 leaves FILE"
    else
        rec FAIL "$c/bad-input: --bench --csv FILE --reps 0 leaves FILE" "exit $rc, FILE: $(head -c 80 "$csv")"
    fi
    rm -f "$csv"
    for args in --help --list; do
        if timeout -k 5 "$bad_input_timeout" "$bin" $args >/dev/null 2>&1; then
            rec PASS "$c/$args"
        else
            rec FAIL "$c/$args" "exit $?"
        fi
    done
}
# each program's cases in the background, TC_CPU_JOBS programs at once (default: the cores), the
# records printed in program order
cpu_jobs=${TC_CPU_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$cpu_jobs" -ge 1 ] 2>/dev/null || cpu_jobs=1
bad_dir=$build_alone_dir/bad
mkdir -p "$bad_dir"
(
    for item in "$@"; do
        while [ "$(jobs -rp | wc -l)" -ge "$cpu_jobs" ]; do wait -n; done
        bad_input_program "$item" >"$bad_dir/${item#*/}" &
    done
    wait
)
for item in "$@"; do
    while IFS=$'\t' read -r status name detail; do
        case $status in
        NOTBUILT) not_built "$name" "$detail" ;;
        *) result "$status" "$name" "$detail" ;;
        esac
    done <"$bad_dir/${item#*/}"
done
t_bad=$SECONDS

# ---- 4. GPU tests: the results of the programs started at the top ---------------------------------
wait "$tests_pid"
t_gpu=$SECONDS
for item in "$@"; do
    c=${item#*/}
    bin=$build/bin/$c
    if [ ! -x "$bin" ]; then
        not_built "$c --test" "$c"
        continue
    fi
    log=$build/logs/$c.test.log
    read -r rc wall cpu <"$gpu_dir/$c.rc" 2>/dev/null || { rc=1 wall=0 cpu=0; }
    # each program's wall time and CPU time: what make test's minutes go to
    took="$wall s, cpu $cpu s"
    # the program's own count: "<program> --test: N passed, N failed, N skipped"
    counts=$(grep -E -- '--test: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$log" | tail -n 1)
    inner_skipped=$(printf '%s' "$counts" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p')
    case $rc in
    0)
        detail="${counts#*--test: }, $took, log $log"
        [ -n "$counts" ] || detail="$(grep -c '^PASS' "$log") cases, $took, log $log"
        result PASS "$c --test" "$detail"
        # cases the program skipped count in the summary too
        skipped=$((skipped + ${inner_skipped:-0}))
        ;;
    77) skip_or_fail "$c --test" "$(grep -m1 '^SKIP' "$log" | sed 's/^SKIP: //')" ;;
    124 | 137) result FAIL "$c --test" "timed out after $test_timeout s (TC_TEST_TIMEOUT), log $log" ;;
    *)
        result FAIL "$c --test" "exit $rc${counts:+ (${counts#*--test: })}, $took, log $log"
        grep -E '^FAIL|error' "$log" | head -n 20 | sed 's/^/     | /'
        ;;
    esac
done

# ---- 4, continued: each chapter's example.cu --------------------------------------------------
for c in ${examples[@]+"${examples[@]}"}; do
    bin=$build/examples/$c
    if [ ! -x "$bin" ]; then
        if [ -f "$build/skipped/example-$c" ]; then
            skip_or_fail "$c/example" "$(cat "$build/skipped/example-$c")"
        else
            result FAIL "$c/example" "$bin is missing and the build gave no reason (run make)"
        fi
        continue
    fi
    log=$build/logs/$c.example.log
    timeout -k 10 "$test_timeout" "$bin" >"$log" 2>&1
    rc=$?
    case $rc in
    0) result PASS "$c/example" "$(tail -n 1 "$log")" ;;
    77) skip_or_fail "$c/example" "$(grep -m1 '^SKIP' "$log" | sed 's/^SKIP: //')" ;;
    *) result FAIL "$c/example" "exit $rc: $(tail -n 1 "$log")" ;;
    esac
done

# ---- 2, reported: each chapter built on its own ------------------------------------------------
[ -z "$build_alone_pid" ] || wait "$build_alone_pid"
t_alone=$SECONDS
for c in "${chapters[@]}"; do
    log=$build/logs/$c.build-alone.log
    out=$(cat "$build_alone_dir/$c.out" 2>/dev/null)
    case $(cat "$build_alone_dir/$c.rc" 2>/dev/null) in
    0) result PASS "$c: builds alone" "$out" ;;
    77) result SKIP "$c: builds alone" "$out" ;;
    *)
        result FAIL "$c: builds alone" "${out:-no result} (log $log)"
        tail -n 20 "$log" 2>/dev/null | sed 's/^/     | /'
        ;;
    esac
done

# where the minutes went: each phase ends at the mark (the GPU tests and the builds ran beside them)
printf '%-4s %-58s %s\n' note "time" "unit tests to $t_units s, docs $t_docs s, bad input $t_bad s, GPU tests $t_gpu s, builds alone $t_alone s"
echo "$passed passed, $failed failed, $skipped skipped in $SECONDS s"
[ "$failed" = 0 ]
