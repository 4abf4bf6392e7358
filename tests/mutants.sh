#!/usr/bin/env bash
# tests/mutants.sh [--check] [--list] [--build-only] [--shard i/n] [--chapters "05 07"] [--jobs J]
#                  [--stop-after K] [--no-racecheck|--racecheck-all] [--build DIR] [--keep] [MUTANT...] - the
#                  mutation suite behind `make mutants`.
#
# tests/mutants/NNN_name.patch is a plausible bug in a kernel or a launcher: a unified diff (applied
# with `patch -p1` from the repository root) after a header of "# key: value" lines:
#   # mutant: NNN_name          the file's own name, without .patch
#   # program: 05_wgmma_gemm    the program to rebuild and whose --test must catch it
#   # variants: v5_tmastore,v5_tmastore_bf16   the --variant names run, one after another
#   # kind: tail | lane map | swizzle | promotion | beta | stream-K | metadata | sign | CRT | ...
#   # bug: what the change does, in one line (optional)
#   # expect: the test cases that should reveal it and why, how many; why only one if only one
# For each selected mutant (sorted by name) it copies the working tree (the files git tracks or
# does not ignore; never BUILD) to a scratch folder, applies the patch, builds only the program,
# runs `PROGRAM --test --variant V` for each variant (TC_REQUIRE_GPU and TC_TEST_SMALL unset,
# timeout TC_MUTANT_TIMEOUT seconds, default 120) and prints one line per mutant:
#   caught   some case failed (exit 1; a crash or a timeout counts too): the FAIL lines and the
#            distinct failing cases are counted, and a mutant with one failing case is named as a
#            single witness; or every case passed and the second check, racecheck, found a hazard
#   missed   exit 0, every case passed, and racecheck found no hazard (or was not run)
#   invalid  the patch does not apply, the program does not build with it, or the build
#            recompiled nothing (the patch misses the program's sources)
#   skipped  every variant exited 77 (no GPU, too old a GPU), or the unmutated program cannot be
#            built here
# The second check: a mutant whose --test passes is run again under compute-sanitizer's racecheck
# (make sanitize's exclusions and cp.async tracking, tests/racecheck_opts.sh), with
# TC_TEST_SMALL=1, for each of its variants; a hazard catches it when the unmutated program run the
# same way has none. A race the GPU's timing hides (a copy that lands before its late read) passes
# every case but not racecheck. Needs compute-sanitizer (PATH, else $TC_CUDA_PATH/bin; a line says
# when it is off); --no-racecheck leaves it out. Logs: BUILD/mutants/logs/racecheck/.
# The summary: "N caught, N missed, N invalid, N skipped of N mutants". Builds run in parallel (--jobs,
# default the number of cores), the --test runs one after another (one GPU). Results go to
# BUILD/mutants/: results/NAME.txt per mutant, table.txt (every mutant, with its latest result:
# kind, caught/missed, FAIL lines, failing cases, seconds), logs/. Exit 0 when no selected mutant
# was missed or invalid, else 1.
#
# Object cache: the unmutated programs are first brought up to date in BUILD (make), and each
# scratch build starts from a copy of their objects with the timestamps kept, so that make
# recompiles only what depends on the patched files (their -MMD dependencies say which). Only
# with the default BUILD=build (the dependency files name their objects by that path); with
# another BUILD every scratch build starts from nothing.
#
# Options
#   --self-test   check the case keys, --stop-after's filter, the racecheck summaries and the
#                 first-hazard stop on made-up output (no GPU, no build)
#   --check       only check that every patch has a well-formed header, names a program and variants
#                 that exist, and applies to this tree with no fuzz (a dry run), and, where BUILD
#                 holds the program's dependency files, that every patched file is one of its
#                 sources or their includes; exit 1 otherwise.
#                 make test runs it (tests/run_tests.sh), so CI keeps the patches applicable
#   --table       print the table of every mutant's latest result in BUILD/mutants/results (from
#                 any run or shard: copy the results folders of several runs together first) with
#                 each result's date, GPU and commit, and a summary line; runs nothing
#   --list        the selected mutants with their shard, program, kind and estimated seconds, and each
#                 shard's total (estimates: BUILD/mutants/results' measured times where there are
#                 some, else 0.1 s per GEMM case and forced run, 15 s per variant otherwise: an
#                 H100's times, 2026-12-05)
#   --build-only  apply and build each selected mutant, run nothing: the "invalid" check on a
#                 machine without a GPU
#   --shard i/n   mutant k (0-based, sorted by name, of all of them) belongs to shard (k mod n) + 1
#   --chapters L  only the mutants whose program lives in these chapters ("05 07" or folder names)
#   --jobs J      J / 2 mutant builds at once, each make -j2 (default J: the number of cores)
#   --stop-after K  stop a mutant's --test runs once K distinct cases have failed (the program is
#                 ended, its remaining variants are not run): a caught mutant then costs the time
#                 to its K-th failing case instead of the whole test, and its count reads "K cases
#                 (stopped)", enough to tell a single witness from a catch by several. Default 0
#                 (run everything), or TC_MUTANT_STOP_AFTER; make mutants STOP_AFTER=K
#   --no-racecheck  no second check under racecheck for the mutants whose --test passed
#   --racecheck-all the second check on every mutant that ran, caught or not, its finding added to
#                 the result's detail (a caught mutant stays caught): to test the check itself, on
#                 mutants known to race (002, 160)
#   --build DIR   the build folder (make's BUILD; default build)
#   --keep        keep the scratch trees (their path is printed)
#   MUTANT...     only these mutants (names, or NNN prefixes)
# Environment: TC_SM, TC_NVCC, TC_HOST_CC, TC_CUDA_PATH, TC_CUDNN_PATH (when set, passed to every
# make as SM, NVCC, HOST_CC, CUDA_PATH, CUDNN_PATH; the Makefile's mutants verb sets them),
# TC_MUTANT_TIMEOUT (seconds per --test run, default 120: the longest variant's --test takes
# seconds; a mutant that hangs costs it, and with --stop-after its other variants are not run),
# TC_MUTANT_RACE_TIMEOUT (per racecheck run, default 600), TC_MUTANT_STOP_AFTER (--stop-after's
# default).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
mdir=$top/tests/mutants
usage() {
    echo "usage: tests/mutants.sh [--check] [--list] [--build-only] [--shard i/n] [--chapters \"05 07\"]" \
        "[--jobs J] [--stop-after K] [--no-racecheck|--racecheck-all] [--build DIR] [--keep] [MUTANT...]" >&2
    exit 2
}

mode=run shard_i=0 shard_n=1 chapters="" jobs="" build=build keep=0 only=() no_race=0 race_all=0
stop_after=${TC_MUTANT_STOP_AFTER:-0}
while [ $# -gt 0 ]; do
    case $1 in
    --check) mode=check ;;
    --self-test) mode=self-test ;;
    --table) mode=table ;;
    --no-racecheck) no_race=1 ;;
    --racecheck-all) race_all=1 ;;
    --list) mode=list ;;
    --build-only) mode=build ;;
    --shard)
        [ $# -ge 2 ] || usage
        if [[ $2 =~ ^([0-9]+)/([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -ge 1 ] &&
            [ "${BASH_REMATCH[1]}" -le "${BASH_REMATCH[2]}" ]; then
            shard_i=${BASH_REMATCH[1]} shard_n=${BASH_REMATCH[2]}
        else
            echo "tests/mutants.sh: bad --shard '$2': expected i/n with 1 <= i <= n" >&2
            exit 2
        fi
        shift
        ;;
    --chapters) [ $# -ge 2 ] || usage; chapters=$2; shift ;;
    --jobs)
        [ $# -ge 2 ] || usage
        [[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "tests/mutants.sh: bad --jobs '$2'" >&2; exit 2; }
        jobs=$2
        shift
        ;;
    --stop-after) [ $# -ge 2 ] || usage; stop_after=$2; shift ;;
    --build) [ $# -ge 2 ] || usage; build=$2; shift ;;
    --keep) keep=1 ;;
    -h | --help) sed -n '2,/^set -u$/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "tests/mutants.sh: unknown option '$1'" >&2; usage ;;
    *) only+=("$1") ;;
    esac
    shift
done
[ -n "$jobs" ] || jobs=$(nproc 2>/dev/null || echo 4)
[ $no_race = 0 ] || [ $race_all = 0 ] || { echo "tests/mutants.sh: --no-racecheck and --racecheck-all exclude each other" >&2; exit 2; }
[[ $stop_after =~ ^[0-9]+$ ]] || { echo "tests/mutants.sh: bad --stop-after '$stop_after': expected a count, 0 for none" >&2; exit 2; }

# a failing case's key: its FAIL line up to the check result, without the status, the variants'
# names and a forced choice (so a case run once per variant or per choice counts once)
case_key_awk='
    function case_key(line,    t, i, nt, s, vsn, va) {
        sub(/ (FAIL|PASS): .*/, "", line); sub(/^FAIL +/, "", line); sub(/force=[^ ]+/, "", line)
        vsn = split(vs, va, ","); delete isv; for (i = 1; i <= vsn; i++) isv[va[i]] = 1
        nt = split(line, t, " "); s = ""
        for (i = 1; i <= nt; i++) if (!(t[i] in isv)) s = s (s == "" ? "" : " ") t[i]
        return s
    }'
case_keys() { # VARIANTS (comma-separated): FAIL lines in, their distinct keys out
    awk -v vs="$1" "$case_key_awk"'{ print case_key($0) }' | sort -u
}
stop_filter() { # K VARIANTS PRIOR: the output passed on, ended after the K-th distinct failing
    # case, counting the keys in the file PRIOR (those of the variants run before) as found
    awk -v k="$1" -v vs="$2" -v prior="$3" "$case_key_awk"'
        BEGIN { while ((getline x < prior) > 0) if (!(x in seen)) { seen[x] = 1; n++ } }
        { print; fflush() }
        /^FAIL / { c = case_key($0); if (!(c in seen)) { seen[c] = 1; n++ } }
        n >= k { print "mutants: stopped after " k " distinct failing cases"; exit }'
}
# --self-test: the case keys, the filter, the summaries and the first-hazard stop on made-up output
# (make test runs it; no GPU)
# race_hazards LOG: the hazards of racecheck's last summary line in LOG (errors plus warnings;
# nothing when there is none), e.g. "RACECHECK SUMMARY: 100 hazards displayed (86016 errors,
# 12288 warnings)" -> 98304: --error-exitcode cannot tell, since a program that fails a case
# under the tool exits 1 whatever racecheck found
# (1 when first_hazard_run stopped the run at its first hazard, before any summary)
race_hazards() {
    local n
    n=$(sed -n 's/.*RACECHECK SUMMARY: .*(\([0-9]*\) errors*, \([0-9]*\) warnings*).*/\1 \2/p' "$1" |
        tail -n 1 | awk '{ print $1 + $2 }')
    [ -n "$n" ] || ! grep -q "^$first_hazard_stop" "$1" || n=1
    [ -z "$n" ] || echo "$n"
}
# first_hazard_run LOG SECONDS DIR COMMAND...: runs COMMAND in DIR, output to LOG, in a session of its
# own, and ends the whole session at the first hazard racecheck prints or after SECONDS (a line in
# LOG says which). The second check needs one hazard, not all of them: a race in every launch of a
# 40-case --test reports tens of thousands, and mutant 002's run under racecheck outlasted a whole
# 10-minute shard (an H100, 2026-12-06).
first_hazard_stop='mutants: racecheck stopped at the first hazard'
first_hazard_run() {
    local log=$1 limit=$2 dir=$3 pid waited=0
    shift 3
    : >"$log" # before the poll's first read: the background job creates it only when it starts
    (cd "$dir" && exec setsid "$@") >>"$log" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        if grep -qE 'Potential (RAW|WAR|WAW) hazard|Race reported' "$log"; then
            echo "$first_hazard_stop" >>"$log"
            break
        fi
        if [ $waited -ge "$limit" ]; then
            echo "mutants: racecheck timed out after $limit s" >>"$log"
            break
        fi
        sleep 1
        waited=$((waited + 1))
    done
    kill -TERM -- "-$pid" "$pid" 2>/dev/null
    for waited in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null && sleep 0.5; done
    kill -KILL -- "-$pid" "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 0
}

self_test() {
    local t bad=0 got
    t=$(mktemp -d "${TMPDIR:-/tmp}/tc-mutants-self.XXXXXX")
    got=$(printf '%s\n' 'FAIL v1 64x64 s1 force=row32 FAIL: 3 of 9' 'FAIL v2 64x64 s1 FAIL: 1 of 9' \
        'FAIL v1  8x8  s2  PASS: ok FAIL: L' | case_keys v1,v2 | tr '\n' '|')
    [ "$got" = '64x64 s1|8x8 s2|' ] || { echo "self-test: case_keys gave '$got'" >&2; bad=1; }
    printf '8x8 s2\n' >"$t/prior"
    got=$(for i in 1 2 3 4 5; do printf 'PASS v1 %dx%d s1\nFAIL v1 %dx%d s1 force=a FAIL: x\nFAIL v1 %dx%d s1 force=b FAIL: x\n' \
        $i $i $i $i $i $i; done | stop_filter 3 v1 "$t/prior" | tail -n 2 | tr '\n' '|')
    [ "$got" = 'FAIL v1 2x2 s1 force=a FAIL: x|mutants: stopped after 3 distinct failing cases|' ] ||
        { echo "self-test: stop_filter ended with '$got'" >&2; bad=1; }
    got=$(printf 'PASS a\nFAIL v1 1x1 FAIL: x\nPASS b\n' | stop_filter 3 v1 /dev/null | tr '\n' '|')
    [ "$got" = 'PASS a|FAIL v1 1x1 FAIL: x|PASS b|' ] || { echo "self-test: a short run became '$got'" >&2; bad=1; }
    printf '%s\n' 'FAIL v1 1x1' '========= RACECHECK SUMMARY: 100 hazards displayed (86016 errors, 12288 warnings)' >"$t/r1"
    printf '%s\n' '========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)' >"$t/r2"
    printf '%s\n' '========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)' >"$t/r3"
    printf '%s\n' 'SKIP no GPU' >"$t/r4"
    got="$(race_hazards "$t/r1")|$(race_hazards "$t/r2")|$(race_hazards "$t/r3")|$(race_hazards "$t/r4")"
    [ "$got" = '98304|1|0|' ] || { echo "self-test: racecheck summaries read as '$got'" >&2; bad=1; }
    # the second check ends a run at its first hazard, and a run with none at the time limit
    local t0=$SECONDS
    # (the tool's child, here a sleep in a second process, must end with it: the pid files, each
    # written before the line the poll waits for)
    first_hazard_run "$t/h1" 20 "$t" bash -c 'sleep 30 & echo $! >p1; echo "========= Error: Potential RAW hazard detected at __shared__ 0x10 in block (0,0,0) :"; wait'
    first_hazard_run "$t/h2" 2 "$t" bash -c 'sleep 30 & echo $! >p2; echo "========= RACECHECK SUMMARY:"; wait'
    # (a killed child stays a zombie until its new parent reaps it: allow that up to 5 s)
    local alive=0 f k
    for f in "$t/p1" "$t/p2"; do
        for k in 1 2 3 4 5 6 7 8 9 10; do
            [ -s "$f" ] && ! kill -0 "$(cat "$f")" 2>/dev/null && break
            sleep 0.5
        done
        [ -s "$f" ] && ! kill -0 "$(cat "$f")" 2>/dev/null || alive=$((alive + 1))
    done
    got="$(race_hazards "$t/h1")|$(race_hazards "$t/h2")|$(tail -n 1 "$t/h2")|$((SECONDS - t0 < 15))|$alive"
    [ "$got" = '1||mutants: racecheck timed out after 2 s|1|0' ] ||
        { echo "self-test: the first-hazard stop gave '$got' in $((SECONDS - t0)) s" >&2; bad=1; }
    rm -rf "$t"
    [ $bad = 0 ] && echo "mutants: self-test passed (case keys, --stop-after's filter, racecheck summaries, the first-hazard stop)"
    return $bad
}
if [ $mode = self-test ]; then self_test; exit; fi
case $build in /*) build_abs=$build ;; *) build_abs=$top/$build ;; esac

# ---- the programs: chapter.mk's $(d)_PROGS (or the folder's name) and their sources --------------
declare -A prog_dir=() prog_srcs=()
for mk in "$top"/*/chapter.mk; do
    d=$(basename "$(dirname "$mk")")
    progs=$(sed -nE 's/^\$\(d\)_PROGS *:= *//p' "$mk")
    [ -n "$progs" ] || progs=$d
    for p in $progs; do
        prog_dir[$p]=$d
        srcs=$(sed -nE "s/^${p}_SRCS *:= *//p" "$mk")
        [ -n "$srcs" ] || srcs=$(sed -nE 's/^\$\(d\)_SRCS *:= *//p' "$mk")
        prog_srcs[$p]=$srcs
    done
done

# ---- the mutants and their headers -------------------------------------------------------------
shopt -s nullglob
all=()
for f in "$mdir"/*.patch; do all+=("$(basename "$f" .patch)"); done
shopt -u nullglob
if [ ${#all[@]} -eq 0 ]; then
    echo "tests/mutants.sh: no patches in $mdir" >&2
    exit 1
fi
mapfile -t all < <(printf '%s\n' "${all[@]}" | LC_ALL=C sort)

declare -A h_program=() h_variants=() h_kind=() h_expect=() h_bug=() h_mutant=()
for m in "${all[@]}"; do
    while IFS= read -r line; do
        case $line in '# '*) ;; *) break ;; esac
        if [[ $line =~ ^#\ (mutant|program|variants|kind|expect|bug):\ *(.*)$ ]]; then
            val=${BASH_REMATCH[2]}
            case ${BASH_REMATCH[1]} in
            mutant) h_mutant[$m]=$val ;; program) h_program[$m]=$val ;;
            variants) h_variants[$m]=$val ;; kind) h_kind[$m]=$val ;;
            expect) h_expect[$m]=$val ;; bug) h_bug[$m]=$val ;;
            esac
        fi
    done <"$mdir/$m.patch"
done

# the files a patch changes ("+++ b/PATH")
patched_files() { sed -nE 's/^\+\+\+ b\/([^[:space:]]+).*/\1/p' "$mdir/$1.patch"; }

# apply_patch DIR PATCH [--dry-run]: patch -p1 with no fuzz (git apply where patch is missing)
apply_patch() {
    if command -v patch >/dev/null 2>&1; then
        patch -d "$1" -p1 -s -f --fuzz=0 --no-backup-if-mismatch ${3:+--dry-run} <"$2"
    else
        (cd "$1" && git apply -p1 ${3:+--check} "$2")
    fi
}

# header_problem NAME: why the header is not well formed, or nothing
header_problem() {
    local m=$1 v src found
    [[ $m =~ ^[0-9]{3}_[a-z0-9_]+$ ]] || { echo "the file name must be NNN_short_name.patch"; return; }
    [ "${h_mutant[$m]:-}" = "$m" ] || { echo "'# mutant: $m' missing or different (${h_mutant[$m]:-none})"; return; }
    local p=${h_program[$m]:-}
    [ -n "$p" ] || { echo "no '# program:' line"; return; }
    [ -n "${prog_dir[$p]:-}" ] || { echo "program '$p' is no chapter.mk's program"; return; }
    [ -n "${h_variants[$m]:-}" ] || { echo "no '# variants:' line"; return; }
    [ -n "${h_kind[$m]:-}" ] || { echo "no '# kind:' line"; return; }
    [ -n "${h_expect[$m]:-}" ] || { echo "no '# expect:' line"; return; }
    [ -n "$(patched_files "$m")" ] || { echo "no '+++ b/FILE' line: not a unified diff"; return; }
    for v in ${h_variants[$m]//,/ }; do
        [[ $v =~ ^[A-Za-z0-9_]+$ ]] || { echo "bad variant name '$v'"; return; }
        found=0
        for src in ${prog_srcs[$p]}; do
            case $src in *.c) grep -qF "\"$v\"" "$top/${prog_dir[$p]}/$src" 2>/dev/null && found=1 ;; esac
        done
        [ $found = 1 ] || { echo "variant '$v' is not in $p's variant table"; return; }
    done
}

# misses_program NAME: when the program's objects were built (their -MMD files are in BUILD), a
# patched file that none of them depends on, and no common/ source of the library either: such a
# mutant would build to the same program and be reported invalid by `make mutants`. Nothing when
# the dependency files are missing (not built here).
misses_program() {
    local m=$1 p=${h_program[$1]} f src deps=()
    for src in ${prog_srcs[$p]}; do
        [ -f "$build_abs/${prog_dir[$p]}/$src.d" ] || return 0
        deps+=("$build_abs/${prog_dir[$p]}/$src.d")
    done
    for f in $(patched_files "$m"); do
        case $f in common/*.c | common/*.cu) continue ;; esac # the library every program links
        grep -qE "(^|[[:space:]/])$f( |:|\\|$)" "${deps[@]}" ||
            { echo "patches $f, which none of $p's sources includes (the mutant would build to the same program)"; return; }
    done
}

# ---- --check -----------------------------------------------------------------------------------
if [ $mode = check ]; then
    bad=0
    if ! command -v patch >/dev/null 2>&1 && ! command -v git >/dev/null 2>&1; then
        echo "neither patch nor git is installed: cannot check the patches"
        exit 1
    fi
    for m in "${all[@]}"; do
        why=$(header_problem "$m")
        if [ -z "$why" ] && ! out=$(apply_patch "$top" "$mdir/$m.patch" --dry-run 2>&1); then
            why="does not apply to this tree: $(printf '%s' "$out" | head -n 3 | tr '\n' ' ')"
        fi
        [ -n "$why" ] || why=$(misses_program "$m")
        if [ -n "$why" ]; then
            echo "tests/mutants/$m.patch: $why"
            bad=$((bad + 1))
        fi
    done
    if [ $bad -gt 0 ]; then
        echo "$bad of ${#all[@]} patches are broken (regenerate a patch whose context moved: edit, then diff -u)"
        exit 1
    fi
    echo "${#all[@]} patches, every header well formed, every patch applies"
    exit 0
fi

# ---- the selection -----------------------------------------------------------------------------
in_chapters() { # program
    [ -z "$chapters" ] && return 0
    local d=${prog_dir[$1]} w
    for w in $chapters; do
        case $d in "$w" | "$w"_*) return 0 ;; esac
    done
    return 1
}
for w in $chapters; do
    ok=0
    for d in "${prog_dir[@]}"; do case $d in "$w" | "$w"_*) ok=1 ;; esac; done
    [ $ok = 1 ] || { echo "tests/mutants.sh: --chapters: no chapter '$w'" >&2; exit 2; }
done
sel=()
declare -A shard_of=()
for k in "${!all[@]}"; do
    m=${all[$k]}
    shard_of[$m]=$((k % shard_n + 1))
    [ "$shard_i" = 0 ] || [ "${shard_of[$m]}" = "$shard_i" ] || continue
    if [ ${#only[@]} -gt 0 ]; then
        hit=0
        for o in "${only[@]}"; do case $m in "$o" | "$o"_*) hit=1 ;; esac; done
        [ $hit = 1 ] || continue
    fi
    if [ -n "$(header_problem "$m")" ]; then
        echo "tests/mutants.sh: $m: $(header_problem "$m") (tests/mutants.sh --check)" >&2
        exit 2
    fi
    in_chapters "${h_program[$m]}" || continue
    sel+=("$m")
done
if [ ${#sel[@]} -eq 0 ]; then
    echo "tests/mutants.sh: no mutant selected" >&2
    exit 2
fi

out=$build_abs/mutants

# the table of every mutant's latest result (BUILD/mutants/results/NAME.txt, whichever run and
# shard left it), then a summary line over all of them
write_table() {
    local m r kind result fails ncases bs rs first date gpu commit n_c=0 n_m=0 n_i=0 n_n=0 n_s=0
    printf '%-40s %-16s %-8s %5s %5s %7s  %-17s %-24s %s\n' mutant kind result fails cases seconds \
        date gpu first_failing_case
    for m in "${all[@]}"; do
        r=$out/results/$m.txt
        if [ -f "$r" ]; then
            IFS='|' read -r _ kind _ result fails ncases bs rs first _ date gpu commit < <(tail -n 1 "$r")
            printf '%-40s %-16s %-8s %5s %5s %7s  %-17s %-24s %s\n' "$m" "$kind" "$result" "$fails" \
                "$ncases" "$((bs + rs))" "${date:--}" "${gpu:--}${commit:+ $commit}" "$first"
            case $result in caught) n_c=$((n_c + 1)) ;; missed) n_m=$((n_m + 1)) ;;
            invalid) n_i=$((n_i + 1)) ;; *) n_s=$((n_s + 1)) ;; esac
        else
            printf '%-40s %-16s %-8s %5s %5s %7s  %-17s %-24s %s\n' "$m" "${h_kind[$m]}" "not run" - - - - - ""
            n_n=$((n_n + 1))
        fi
    done
    echo "all ${#all[@]} mutants: $n_c caught, $n_m missed, $n_i invalid, $n_s skipped, $n_n not run"
}
if [ $mode = table ]; then
    write_table
    exit 0
fi

# ---- estimates: measured seconds per (program, variant) where a run left some ------------------
declare -A measured=()
for r in "$out"/results/*.txt; do
    [ -f "$r" ] || continue
    while IFS='|' read -r key _ prog _ _ _ _ _ _ per_variant _; do
        [ "$key" = mutant ] && continue
        for pv in $per_variant; do # variant=STATUS:FAILS:SECONDS; a skipped run measured nothing
            v=${pv%%=*} s=${pv##*:}
            case $pv in *=skip:* | *=usage:* | *=stopped:* | *=notrun:*) continue ;; esac
            [[ $s =~ ^[0-9]+$ ]] && measured[$prog/$v]=$s
        done
    done <"$r"
done
# runs of one GEMM variant's --test: 1 + the forced choices of its table row (.n_forced, directly
# or through a macro of the same file)
forced_count() { # program variant
    local src n
    for src in ${prog_srcs[$1]}; do
        case $src in *.c) ;; *) continue ;; esac
        src=$top/${prog_dir[$1]}/$src
        grep -qF "\"$2\"" "$src" || continue
        n=$(awk -v v="\"$2\"" '
            /^#define [A-Za-z_0-9]+ .*\.n_forced *= *[0-9]/ {
                match($0, /\.n_forced *= *[0-9]+/); x = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", x)
                macro[$2] = x }
            index($0, ".name = " v) { on = 1 }
            on && index($0, ".name = ") && !index($0, ".name = " v) { exit }
            on { if (match($0, /\.n_forced *= *[0-9]+/)) { x = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", x); print x; exit }
                 for (k in macro) if (index($0, k)) { print macro[k]; exit } }
        ' "$src")
        echo "${n:-0}"
        return
    done
    echo 0
}
is_gemm() { # program: its driver is the GEMM driver (43 cases per run)
    local s
    for s in ${prog_srcs[$1]}; do grep -qs 'tc_gemm_main' "$top/${prog_dir[$1]}/$s" && return 0; done
    return 1
}
estimate() { # mutant -> seconds of its --test runs
    local m=$1 p=${h_program[$1]} v t=0
    for v in ${h_variants[$m]//,/ }; do
        if [ -n "${measured[$p/$v]:-}" ]; then
            t=$((t + measured[$p/$v]))
        elif is_gemm "$p"; then # H100, 2026-12-05: 54 runs of v5_tmastore in 5.7 s, 7.3 s for fp8_v5's
            t=$((t + 2 + 43 * (1 + $(forced_count "$p" "$v")) / 10))
        else # the same run: 10_flash_attention's v2_wgmma 1-3 s a row, 06's whole --test 13 s
            t=$((t + 15))
        fi
    done
    echo $t
}

# ---- --list ------------------------------------------------------------------------------------
if [ $mode = list ]; then
    # the rows of the selection; the totals of every shard of n (with the same chapters and names)
    declare -A shard_total=() shard_count=() listed=()
    for m in "${sel[@]}"; do listed[$m]=1; done
    printf '%-5s %-40s %-22s %-16s %5s  %s\n' shard mutant program kind est_s variants
    for m in "${all[@]}"; do
        in_chapters "${h_program[$m]}" || continue
        if [ ${#only[@]} -gt 0 ]; then
            hit=0
            for o in "${only[@]}"; do case $m in "$o" | "$o"_*) hit=1 ;; esac; done
            [ $hit = 1 ] || continue
        fi
        e=$(estimate "$m")
        s=${shard_of[$m]}
        shard_total[$s]=$((${shard_total[$s]:-0} + e)) shard_count[$s]=$((${shard_count[$s]:-0} + 1))
        [ -n "${listed[$m]:-}" ] || continue
        printf '%-5s %-40s %-22s %-16s %5d  %s\n' "$s/$shard_n" "$m" "${h_program[$m]}" "${h_kind[$m]}" "$e" \
            "${h_variants[$m]}"
    done
    for s in $(printf '%s\n' "${!shard_total[@]}" | sort -n); do
        printf 'shard %s/%s: %d mutants, about %d s of --test runs (+ the builds, in parallel: the first takes 1-2 min)\n' \
            "$s" "$shard_n" "${shard_count[$s]}" "${shard_total[$s]}"
    done
    exit 0
fi

mkdir -p "$out/results" "$out/logs"

# ---- make, with the caller's compilers and targets (never its MAKEFLAGS: a fresh make) ---------
make_vars=()
[ -z "${TC_SM:-}" ] || make_vars+=("SM=$TC_SM")
[ -z "${TC_NVCC:-}" ] || make_vars+=("NVCC=$TC_NVCC")
[ -z "${TC_HOST_CC:-}" ] || make_vars+=("HOST_CC=$TC_HOST_CC")
[ -z "${TC_CUDA_PATH:-}" ] || make_vars+=("CUDA_PATH=$TC_CUDA_PATH")
[ -z "${TC_CUDNN_PATH:-}" ] || make_vars+=("CUDNN_PATH=$TC_CUDNN_PATH")
run_make() { # DIR BUILD ARGS...
    local dir=$1 b=$2
    shift 2
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES make --no-print-directory -C "$dir" \
        BUILD="$b" ${make_vars[@]+"${make_vars[@]}"} "$@"
}

# the programs the selection needs, brought up to date in BUILD (the cache every scratch build
# starts from)
needed=$(for m in "${sel[@]}"; do echo "${h_program[$m]}"; done | sort -u)
use_cache=0
[ "$build" = build ] && use_cache=1
declare -A prog_ok=()
echo "mutants: ${#sel[@]} selected$([ "$shard_i" = 0 ] || echo " (shard $shard_i/$shard_n)"); results in $out"
if [ $use_cache = 1 ]; then
    t0=$(date +%s)
    targets=()
    for p in $needed; do targets+=("$build/bin/$p"); done
    run_make "$top" "$build" -k -j"$jobs" "${targets[@]}" >"$out/logs/unmutated.build.log" 2>&1
    for p in $needed; do
        if run_make "$top" "$build" -q "$build/bin/$p" >/dev/null 2>&1; then
            prog_ok[$p]=1
        else # a program the Makefile skips (SM, cuDNN) has a skip-PROGRAM target that says why
            run_make "$top" "$build" "skip-$p" >/dev/null 2>&1
        fi
    done
    echo "mutants: the unmutated programs are up to date in $build ($(($(date +%s) - t0)) s)"
else
    for p in $needed; do prog_ok[$p]=1; done
fi
skip_reason() { # program
    if [ -f "$build_abs/skipped/$1" ]; then
        echo "the build skips $1: $(cat "$build_abs/skipped/$1")"
    else
        echo "the unmutated $1 does not build (log $out/logs/unmutated.build.log)"
    fi
}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/tc-mutants.XXXXXX")
status=$scratch/.status
mkdir -p "$status"
builder=
cleanup() {
    [ -z "$builder" ] || kill "$builder" 2>/dev/null
    if [ $keep = 1 ]; then echo "mutants: scratch trees kept in $scratch"; else rm -rf "$scratch"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the working tree without BUILD: what git tracks or does not ignore (every file when not a git
# checkout), timestamps kept
copy_tree() { # DEST
    if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        (cd "$top" && git ls-files -z --cached --others --exclude-standard |
            while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
            tar --null -T - -cf -) | tar -xf - -C "$1"
    else
        (cd "$top" && tar --exclude=./.git --exclude="./$build" -cf - .) | tar -xf - -C "$1"
    fi
}
# the cache: BUILD's objects of the program's chapter and of common/, timestamps kept
seed_cache() { # DEST PROGRAM
    local parts=() x
    for x in .flags libcommon.a common "${prog_dir[$2]}"; do
        [ -e "$build_abs/$x" ] && parts+=("$x")
    done
    mkdir -p "$1/build"
    [ ${#parts[@]} -eq 0 ] || (cd "$build_abs" && tar -cf - "${parts[@]}") | tar -xf - -C "$1/build"
}

# build_one NAME: writes $status/NAME.built "RC SECONDS WHY"
build_one() {
    local m=$1 p=${h_program[$1]} dir=$scratch/$1 log=$out/logs/$1.build.log t0 rc=0 why=""
    t0=$(date +%s)
    mkdir -p "$dir"
    : >"$log"
    if [ -z "${prog_ok[$p]:-}" ]; then
        echo "77 0 $(skip_reason "$p")" >"$status/$m.built"
        return
    fi
    copy_tree "$dir" >>"$log" 2>&1 || { rc=2 why="could not copy the tree (log $log)"; }
    if [ $rc = 0 ] && [ $use_cache = 1 ]; then seed_cache "$dir" "$p" >>"$log" 2>&1; fi
    if [ $rc = 0 ] && ! apply_patch "$dir" "$mdir/$m.patch" >>"$log" 2>&1; then
        rc=1 why="the patch does not apply (log $log)"
    fi
    if [ $rc = 0 ]; then
        sleep 1 # every object of the cache is older than the patched files
        (cd "$dir" && patched_files "$m" | while IFS= read -r f; do touch "$f"; done)
        touch "$dir/.patched"
        if ! run_make "$dir" build -j2 "build/bin/$p" >>"$log" 2>&1; then
            rc=1 why="$p does not build with the patch (log $log)"
        elif [ -z "$(find "$dir/build" -name '*.o' -newer "$dir/.patched" -print -quit)" ]; then
            rc=1 why="the build recompiled nothing: the patch misses $p's sources (log $log)"
        fi
    fi
    echo "$rc $(($(date +%s) - t0)) $why" >"$status/$m.built"
}
build_all() {
    local m par=$(((jobs + 1) / 2))
    for m in "${sel[@]}"; do
        while [ "$(jobs -rp | wc -l)" -ge "$par" ]; do wait -n 2>/dev/null || sleep 1; done
        build_one "$m" &
    done
    wait
}
build_all &
builder=$!

# ---- the runs, one after another, as the builds finish -----------------------------------------
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null)
[ -z "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ] || commit+="+changes"
timeout_s=${TC_MUTANT_TIMEOUT:-120}
race_timeout_s=${TC_MUTANT_RACE_TIMEOUT:-600} # racecheck runs the small sizes 10-100x slower
# racecheck, for the mutants whose --test passed (when compute-sanitizer is on PATH): sets
# race_caught ("N hazards in VARIANT" at the first variant with one) or race_missed (why not)
race_stage=0 sanitizer=""
if [ $mode = run ] && [ $no_race = 0 ]; then
    sanitizer=$(command -v compute-sanitizer 2>/dev/null)
    [ -n "$sanitizer" ] || [ ! -x "${TC_CUDA_PATH:-/usr/local/cuda}/bin/compute-sanitizer" ] ||
        sanitizer=${TC_CUDA_PATH:-/usr/local/cuda}/bin/compute-sanitizer
    if [ -n "$sanitizer" ]; then
        PATH=$(dirname "$sanitizer"):$PATH
        # shellcheck source=tests/racecheck_opts.sh
        . "$top/tests/racecheck_opts.sh"
        race_stage=1
        echo "mutants: a mutant that passes --test is run under racecheck on the small sizes; $race_async_note"
    else
        echo "mutants: racecheck off (no compute-sanitizer on PATH or in \$TC_CUDA_PATH/bin): a race that passes --test counts as missed"
    fi
fi
mkdir -p "$out/logs/racecheck"
# racecheck_run DIR PROGRAM_PATH VARIANT LOG: prints the hazards racecheck reported (errors plus
# warnings, from its summary line; 1 when the run was stopped at its first hazard; nothing when
# there is neither: the tool failed or timed out, log LOG). The
# exit status is not used: --error-exitcode applies only when the program itself exits 0, and a
# race that fails a case under the tool's timing exits 1 with its hazards reported all the same.
racecheck_run() {
    first_hazard_run "$4" "$race_timeout_s" "$1" env -u TC_REQUIRE_GPU TC_TEST_SMALL=1 \
        compute-sanitizer --tool racecheck --racecheck-report hazard "${racecheck_opts[@]}" \
        "$2" --test --variant "$3"
    race_hazards "$4"
}
declare -A race_unmutated=() # PROGRAM/VARIANT: the unmutated program's hazards, measured once
# race_check MUTANT PROGRAM DIR: sets race_caught (the first variant whose run reports hazards
# that the unmutated program's does not) or race_missed (why not)
race_check() {
    local v log n base notes=""
    race_caught="" race_missed=""
    for v in ${h_variants[$1]//,/ }; do
        log=$out/logs/racecheck/$1.$v.log
        n=$(racecheck_run "$3" "build/bin/$2" "$v" "$log")
        if [ -z "$n" ]; then
            grep -q '^SKIP' "$log" && continue # exit 77: this variant does not run here
            notes+=" $v: no racecheck summary (log $log);"
            continue
        fi
        [ "$n" -gt 0 ] || continue
        if [ ! -x "$build_abs/bin/$2" ]; then
            notes+=" $v: $n hazards, and no unmutated $2 in $build_abs/bin to compare;"
            continue
        fi
        if [ -z "${race_unmutated[$2/$v]+set}" ]; then
            race_unmutated[$2/$v]=$(racecheck_run "$top" "$build_abs/bin/$2" "$v" \
                "$out/logs/racecheck/unmutated.$2.$v.log")
        fi
        base=${race_unmutated[$2/$v]}
        if [ "${base:-x}" = 0 ]; then
            if grep -q "^$first_hazard_stop" "$log"; then
                race_caught="a hazard in $v (stopped at the first; the unmutated program: none)"
            else
                race_caught="$n hazards in $v (the unmutated program: none)"
            fi
            return
        fi
        notes+=" $v: $n hazards, the unmutated program ${base:-no summary} (log $out/logs/racecheck/unmutated.$2.$v.log);"
    done
    race_missed=${notes:-no hazard}
}
n_caught=0 n_missed=0 n_invalid=0 n_skipped=0
single=() missed=() invalid=()
for m in "${sel[@]}"; do
    p=${h_program[$m]} dir=$scratch/$m
    while [ ! -f "$status/$m.built" ]; do sleep 1; done
    read -r brc bsec bwhy <"$status/$m.built"
    per_variant="" fails=0 run_s=0 result="" detail="" cases="" ncases=0
    if [ "$brc" = 77 ]; then
        result=skipped detail=$bwhy
    elif [ "$brc" != 0 ]; then
        result=invalid detail=$bwhy
    elif [ $mode = build ]; then
        result=built detail="built in ${bsec} s"
    else
        any_caught=0 any_ran=0 notes="" skip_note="" stopped=0 hung=0
        # this mutant's logs of an earlier run in the same BUILD would count as found cases
        rm -f "$out/logs/$m".*.log "$out/logs/racecheck/$m".*.log
        for v in ${h_variants[$m]//,/ }; do
            log=$out/logs/$m.$v.log
            if [ $stopped = 1 ]; then # --stop-after: enough failing cases already
                rm -f "$log"
                per_variant+="$v=notrun:0:0 "
                continue
            fi
            t0=$(date +%s)
            if [ "$stop_after" -gt 0 ]; then
                # the output through a filter that ends the run at the K-th distinct failing case
                # (counting those of the variants before): the program dies of SIGPIPE on its
                # next line
                cat "$out/logs/$m".*.log 2>/dev/null | grep '^FAIL ' | case_keys "${h_variants[$m]}" >"$scratch/$m.prior"
                { (cd "$dir" && env -u TC_REQUIRE_GPU -u TC_TEST_SMALL \
                    timeout -k 10 "$timeout_s" stdbuf -oL -eL "build/bin/$p" --test --variant "$v" 2>&1) |
                    stop_filter "$stop_after" "${h_variants[$m]}" "$scratch/$m.prior" >"$log"
                    rc=${PIPESTATUS[0]}; } 2>/dev/null
                if grep -q '^mutants: stopped after' "$log"; then rc=1 stopped=1; fi
            else
                { (cd "$dir" && env -u TC_REQUIRE_GPU -u TC_TEST_SMALL \
                    timeout -k 10 "$timeout_s" "build/bin/$p" --test --variant "$v") >"$log" 2>&1; } 2>/dev/null
                rc=$?
            fi
            sec=$(($(date +%s) - t0)) run_s=$((run_s + sec))
            nf=$(grep -c '^FAIL ' "$log")
            fails=$((fails + nf))
            case $rc in
            0) st=pass any_ran=1 ;;
            1)
                any_caught=1 any_ran=1 st=caught
                [ "$nf" -gt 0 ] || { st=crash notes+=" $v: exit 1 with no FAIL line ($(tail -n 1 "$log" | cut -c1-80));"; }
                ;;
            77) st=skip skip_note=$(grep -m1 '^SKIP' "$log" | cut -c1-120) ;;
            124 | 137)
                any_caught=1 any_ran=1 st=timeout notes+=" $v: timed out after $timeout_s s;"
                # a hang is a catch; with --stop-after, the mutant's other variants would hang too
                [ "$stop_after" -gt 0 ] && hung=1
                ;;
            2) st=usage notes+=" $v: exit 2: $(grep -m1 -v '^$' "$log" | cut -c1-100);" ;;
            *) any_caught=1 any_ran=1 st=crash notes+=" $v: exit $rc$([ $rc -gt 128 ] && echo " (signal $((rc - 128)))");" ;;
            esac
            [ $stopped = 0 ] || st=stopped
            [ "${hung:-0}" = 0 ] || stopped=1
            per_variant+="$v=$st:$nf:$sec "
        done
        # distinct failing cases: the FAIL line up to its check result, without the status, the
        # variant and a forced choice (so a case run once per choice counts once)
        cases=$(cat "$out/logs/$m".*.log 2>/dev/null | grep '^FAIL ' | case_keys "${h_variants[$m]}")
        ncases=$(printf '%s' "$cases" | grep -c .)
        if [ $any_caught = 1 ]; then
            result=caught
            detail="$fails FAIL lines, $ncases cases"
            [ $stopped = 0 ] || detail+=" (stopped)"
            [ "$ncases" = 1 ] && detail+=" (single witness: $cases)"
        elif printf '%s' "$per_variant" | grep -q '=usage:'; then
            result=invalid
        elif [ $any_ran = 1 ]; then
            result=missed detail="every case passed"
        else
            result=skipped detail="every variant skipped: $skip_note"
        fi
        [ -z "$notes" ] || detail+="${detail:+;}$notes"
        [ "$result" = skipped ] || [ -z "$skip_note" ] || detail+="; some variants skipped: $skip_note"
        # the second check: a mutant every case passed, run again under racecheck (make sanitize's
        # check) on the small sizes; a hazard catches it (a race the GPU's timing hides)
        if [ "$result" = caught ] && [ $race_all = 1 ] && [ $race_stage = 1 ]; then
            race_check "$m" "$p" "$dir"
            detail+="; racecheck: ${race_caught:-$race_missed}"
        elif [ "$result" = missed ] && [ $race_stage = 1 ]; then
            race_check "$m" "$p" "$dir"
            if [ -n "$race_caught" ]; then
                result=caught detail="every --test case passed; racecheck: $race_caught"
                per_variant+="racecheck=caught "
            else
                detail+="; racecheck: $race_missed"
            fi
        fi
    fi
    case $result in
    caught)
        n_caught=$((n_caught + 1))
        [ "${ncases:-0}" = 1 ] && single+=("$m")
        ;;
    missed)
        n_missed=$((n_missed + 1)) missed+=("$m")
        detail+=" (the bug: ${h_bug[$m]:-see the patch})"
        ;;
    invalid) n_invalid=$((n_invalid + 1)) invalid+=("$m") ;;
    skipped) n_skipped=$((n_skipped + 1)) ;;
    built) ;;
    esac
    printf '%-8s %-40s %-22s %-16s %s\n' "$result" "$m" "$p" "${h_kind[$m]}" "$detail"
    if [ $mode = run ]; then
        first=$(printf '%s\n' "$cases" | head -n 1)
        printf 'mutant|kind|program|result|fail_lines|cases|build_s|run_s|first_case|per_variant|date|gpu|commit\n%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n' \
            "$m" "${h_kind[$m]}" "$p" "$result" "$fails" "${ncases:-0}" "$bsec" "$run_s" "$first" \
            "$per_variant" "$(date -u +%Y-%m-%dT%H:%MZ)" "$gpu_name" "$commit" >"$out/results/$m.txt"
    fi
    [ $keep = 1 ] || [ ! -d "$dir" ] || rm -rf "$dir"
done
wait "$builder" 2>/dev/null
builder=

# ---- the table of every mutant's latest result, and the summary --------------------------------
[ $mode = run ] && write_table >"$out/table.txt"
total=${#sel[@]}
if [ $mode = build ]; then
    echo "$((total - n_invalid - n_skipped)) built, $n_invalid invalid, $n_skipped skipped of $total mutants"
else
    echo "$n_caught caught, $n_missed missed, $n_invalid invalid, $n_skipped skipped of $total mutants"
    [ ${#single[@]} -eq 0 ] || echo "single witness (one failing case): ${single[*]}"
    [ ${#missed[@]} -eq 0 ] || echo "missed: ${missed[*]}"
    echo "table: $out/table.txt"
fi
[ ${#invalid[@]} -eq 0 ] || echo "invalid: ${invalid[*]}"
[ $n_invalid = 0 ] && [ $n_missed = 0 ]
