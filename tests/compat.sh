#!/usr/bin/env bash
# tests/compat.sh OUT FOLDER/PROGRAM... - `make compat`: builds every program with each CUDA toolkit
# for each target SM and prints the table toolkit x SM x program -> built / skipped / failed.
#
# Toolkits (COMPAT_TOOLKITS, default "system 12.9 13"):
#   system  the toolkit the Makefile uses ($TC_CUDA_PATH, $TC_NVCC);
#   12.9    the newest CUDA 12.9 release, 13 the newest CUDA 13 release (any X or X.Y: the newest
#           release of that series). Each is assembled from the Python package registry, without
#           touching the system: pip downloads the wheels that the `cuda-toolkit` meta-package pins
#           for the release (extras nvcc, cudart, cccl, then cublas) and the newest
#           nvidia-cudnn-cuX into OUT/wheels/, they are unzipped into OUT/pypi/cuda-X.Y/, and
#           OUT/cuda-X.Y/ is the toolkit-shaped folder made of hard links to them (bin/, nvvm/,
#           include/, lib/, lib64 -> lib, targets/<arch>/). A later run of the same release reuses
#           it, or the finding that it is incomplete (rm -rf OUT to start afresh); offline, the
#           newest folder an earlier run left. A toolkit whose compiler pieces are not all in the
#           wheels (CUDA 12.x: nvidia-cuda-nvcc-cu12 ships only ptxas, the crt headers and libnvvm;
#           no nvcc, cicc, cudafe++, fatbinary or nvlink) is reported "not installed" with what is
#           missing, as is one pip could not fetch.
# SMs (COMPAT_SM, default "70 75 80 86 89 90 100 120"): one build per toolkit and SM, `make -k all`
#   with BUILD=OUT/out/<toolkit>-sm<SM>, run one at a time per job (COMPAT_JOBS, default nproc) so
#   that each log is in order and every line of it belongs to the command above it. sm_90 builds
#   the sm_90a-only programs too (the Makefile compiles them for sm_90a alone).
# Cells: built; skipped: the reason the Makefile gave (BUILD/skipped/PROGRAM, or the Makefile's own
#   error for an SM the toolkit cannot compile for, e.g. sm_70 with CUDA 13); failed: the first
#   error line of the program's own commands. Every line with "warning" in a program's commands
#   counts as a warning of that cell (the target is none). The row "common/, CPU tests" holds
#   libcommon.a and the CPU unit tests. Logs: OUT/logs/<toolkit>-sm<SM>.log; the table:
#   OUT/table.txt, and one line per cell in OUT/cells.tsv.
# Exits 1 when a cell failed or warned; a toolkit that is not installed is reported, not a failure.
set -u
out=${1:?usage: compat.sh OUT FOLDER/PROGRAM...}
shift
items=("$@")
top=$(cd "$(dirname "$0")/.." && pwd)
sms=${COMPAT_SM:-70 75 80 86 89 90 100 120}
toolkits=${COMPAT_TOOLKITS:-system 12.9 13}
jobs=${COMPAT_JOBS:-$(nproc)}
system_cuda=${TC_CUDA_PATH:-/usr/local/cuda}
system_nvcc=${TC_NVCC:-$system_cuda/bin/nvcc}
# the builds below are make's own: no jobserver or variables from a `make compat` around us
unset MAKEFLAGS MFLAGS MAKELEVEL
mkdir -p "$out/logs" "$out/wheels" "$out/pypi"
out=$(cd "$out" && pwd)
started=$SECONDS

# ---- toolkits -----------------------------------------------------------------------------------
# Each toolkit found or installed gets: tk_label, tk_path (CUDA_PATH), tk_cudnn (CUDNN_PATH or
# empty: the Makefile searches), or tk_missing (why it is not installed).
declare -A tk_label=() tk_path=() tk_cudnn=() tk_missing=()
tk_names=()

# what nvcc needs, relative to a toolkit folder (the nv/ headers are CCCL's: cuda_fp16.h uses them)
required_compiler=(bin/nvcc bin/ptxas bin/cudafe++ bin/fatbinary bin/nvlink nvvm/bin/cicc
    nvvm/libdevice/libdevice.10.bc include/crt/host_config.h include/cuda_runtime.h
    lib64/libcudart_static.a cccl)
required_cublas=(include/cublas_v2.h lib64/libcublas.so lib64/libcublasLt.so)

missing_in() { # folder files... -> the files missing from the folder, one line ("cccl": CCCL's nv/)
    local dir=$1 f miss=""
    shift
    for f in "$@"; do
        case $f in
        cccl) [ -e "$dir/include/nv/target" ] || [ -e "$dir/include/cccl/nv/target" ] || miss+=" include/nv/target (CCCL)" ;;
        *) [ -e "$dir/$f" ] || miss+=" $f" ;;
        esac
    done
    echo "${miss# }"
}

nvcc_release() { # nvcc -> "13.0" from `nvcc --version`
    "$1" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\),.*/\1/p'
}

# pip download with its own log; prints the wheel files it saved or found already downloaded
fetch() { # dest log pip-arguments...
    local dest=$1 log=$2
    shift 2
    local this=$log.this status
    mkdir -p "$dest"
    pip download --only-binary=:all: --no-cache-dir --progress-bar off -d "$dest" "$@" >"$this" 2>&1
    status=$?
    cat "$this" >>"$log"
    [ "$status" -eq 0 ] && sed -n 's/^ *Saved \(.*\.whl\)$/\1/p; s/^ *File was already downloaded \(.*\.whl\)$/\1/p' "$this" | sort -u
    rm -f "$this"
}

pip_error() { # log -> its first error line, or its last line
    grep -m1 -E 'ERROR|error' "$1" || tail -n 1 "$1"
}

# wheel file -> "name version" (the name with dashes, as pip spells it)
wheel_id() {
    basename "$1" | awk -F- '{ gsub(/_/, "-", $1); print $1 " " $2 }'
}

# Assembles OUT/cuda-X.Y from the unzipped wheels in OUT/pypi/cuda-X.Y: the nvidia/<component>/
# folders (one, nvidia/cu13, for CUDA 13; one per component for CUDA 12) merged by hard links,
# cuDNN left apart (CUDNN_PATH).
assemble() { # site tk
    local site=$1 tk=$2 d f base arch
    rm -rf "$tk"
    mkdir -p "$tk"
    for d in "$site"/nvidia/*/; do
        case $d in */cudnn/) continue ;; esac
        cp -alf "$d". "$tk"/
    done
    [ -d "$tk/lib" ] && [ ! -e "$tk/lib64" ] && ln -s lib "$tk/lib64"
    # the unversioned names the linker looks for (wheels hold no symbolic links)
    for d in "$tk/lib" "$site/nvidia/cudnn/lib"; do
        [ -d "$d" ] || continue
        for f in "$d"/lib*.so.[0-9]*; do
            f=${f##*/}
            [[ $f =~ ^lib[^.]+\.so\.[0-9]+$ ]] || continue
            base=${f%%.so.*}.so
            [ -e "$d/$base" ] || ln -s "$f" "$d/$base"
        done
    done
    arch=$(uname -m)-linux
    [ "$arch" = aarch64-linux ] && arch=sbsa-linux
    mkdir -p "$tk/targets/$arch"
    ln -sfn ../../include "$tk/targets/$arch/include"
    ln -sfn ../../lib "$tk/targets/$arch/lib"
}

# Installs the newest release of CUDA series $1 (12.9, 13, ...) from PyPI; sets the tk_* entries.
install_pypi() { # series
    local series=$1 lo hi major minor spec log meta ver xy name site tk wheels more miss w
    major=${series%%.*}
    if [ "$series" = "$major" ]; then
        lo=$major hi=$((major + 1))
    else
        minor=${series#*.}
        lo=$series hi=$major.$((minor + 1))
    fi
    spec="cuda-toolkit>=$lo,<$hi"
    log=$out/logs/pip-cuda-$series.log
    : >"$log"
    echo "CUDA $series: asking PyPI for the newest $spec (log: ${log#"$top"/})"
    meta=$(fetch "$out/wheels/meta" "$log" --no-deps "$spec" | grep '/cuda_toolkit-' | tail -n 1)
    if [ -z "$meta" ]; then
        # offline: the newest folder an earlier run assembled for this series
        tk=$(printf '%s\n' "$out"/cuda-"$series"* | sort -V | tail -n 1)
        if [ -f "$tk/.compat-ok" ] || [ -f "$tk/.compat-missing" ]; then
            name=${tk##*/}
            tk_names+=("$name")
            tk_path[$name]=$tk
            if [ -f "$tk/.compat-ok" ]; then
                tk_label[$name]="$(head -n 1 "$tk/.compat-ok") (PyPI could not be asked: the folder of an earlier run)"
                tk_cudnn[$name]=$(sed -n 's/^cudnn=//p' "$tk/.compat-ok")
            else
                tk_label[$name]="$(head -n 1 "$tk/.compat-missing") (PyPI could not be asked: an earlier run's finding)"
                tk_missing[$name]=$(sed -n 's/^missing=//p' "$tk/.compat-missing")
            fi
            return
        fi
        name=cuda-$series
        tk_names+=("$name")
        tk_label[$name]="CUDA $series (PyPI)"
        tk_missing[$name]="pip could not fetch $spec: $(pip_error "$log")"
        return
    fi
    ver=$(wheel_id "$meta" | cut -d' ' -f2)
    xy=$(echo "$ver" | cut -d. -f1-2)
    name=cuda-$xy
    tk_names+=("$name")
    site=$out/pypi/$name
    tk=$out/$name
    tk_path[$name]=$tk
    if [ -f "$tk/.compat-ok" ] && [ "$(sed -n 's/^meta=//p' "$tk/.compat-ok")" = "$ver" ]; then
        echo "CUDA $series: $name already assembled (cuda-toolkit $ver)"
        tk_label[$name]=$(head -n 1 "$tk/.compat-ok")
        tk_cudnn[$name]=$(sed -n 's/^cudnn=//p' "$tk/.compat-ok")
        return
    fi
    if [ -f "$tk/.compat-missing" ] && [ "$(sed -n 's/^meta=//p' "$tk/.compat-missing")" = "$ver" ]; then
        echo "CUDA $series: cuda-toolkit $ver was found incomplete before"
        tk_label[$name]=$(head -n 1 "$tk/.compat-missing")
        tk_missing[$name]=$(sed -n 's/^missing=//p' "$tk/.compat-missing")
        return
    fi
    rm -rf "$site" "$tk"
    mkdir -p "$site"
    # 1. the compiler and runtime: enough to see whether nvcc can work at all
    echo "CUDA $series: downloading cuda-toolkit[nvcc,cudart,cccl]==$ver"
    wheels=$(fetch "$out/wheels/$name" "$log" "cuda-toolkit[nvcc,cudart,cccl]==$ver")
    if [ -z "$wheels" ]; then
        tk_label[$name]="CUDA $xy (PyPI cuda-toolkit $ver)"
        tk_missing[$name]="pip could not fetch cuda-toolkit[nvcc,cudart,cccl]==$ver: $(pip_error "$log")"
        return
    fi
    for w in $wheels; do unzip -q -o "$w" -d "$site"; done
    assemble "$site" "$tk"
    tk_label[$name]="CUDA $xy (PyPI cuda-toolkit $ver: $(for w in $wheels; do wheel_id "$w" | tr ' ' =; done | grep -v '^cuda-toolkit=' | tr '\n' ' ' | sed 's/ $//'))"
    miss=$(missing_in "$tk" "${required_compiler[@]}")
    if [ -n "$miss" ]; then
        tk_missing[$name]="its PyPI wheels lack $miss"
        printf '%s\nmeta=%s\nmissing=%s\n' "${tk_label[$name]}" "$ver" "${tk_missing[$name]}" >"$tk/.compat-missing"
        return
    fi
    # 2. cuBLAS (the meta-package's pin) and the newest cuDNN for this major version
    echo "CUDA $series: downloading cuda-toolkit[cublas]==$ver and nvidia-cudnn-cu$major"
    more=$(fetch "$out/wheels/$name" "$log" "cuda-toolkit[cublas]==$ver")
    more+=" "$(fetch "$out/wheels/$name" "$log" --no-deps "nvidia-cudnn-cu$major" | grep '/nvidia_cudnn_')
    for w in $more; do unzip -q -o "$w" -d "$site"; done
    # shellcheck disable=SC2086 # file names without blanks, one or more a line
    wheels=$(printf '%s\n' $wheels $more | sort -u)
    assemble "$site" "$tk"
    tk_label[$name]="CUDA $xy (PyPI cuda-toolkit $ver: $(for w in $wheels; do wheel_id "$w" | tr ' ' =; done | grep -v '^cuda-toolkit=' | tr '\n' ' ' | sed 's/ $//'))"
    miss=$(missing_in "$tk" "${required_compiler[@]}" "${required_cublas[@]}")
    if [ -n "$miss" ]; then
        tk_missing[$name]="its PyPI wheels lack $miss"
        printf '%s\nmeta=%s\nmissing=%s\n' "${tk_label[$name]}" "$ver" "${tk_missing[$name]}" >"$tk/.compat-missing"
        return
    fi
    # cuDNN apart: CUDNN_PATH, the only place the Makefile then searches (none: chapter 02 skipped)
    tk_cudnn[$name]=$out/none
    [ -f "$site/nvidia/cudnn/include/cudnn.h" ] && tk_cudnn[$name]=$site/nvidia/cudnn
    printf '%s\nmeta=%s\ncudnn=%s\n' "${tk_label[$name]}" "$ver" "${tk_cudnn[$name]}" >"$tk/.compat-ok"
}

for t in $toolkits; do
    if [ "$t" = system ]; then
        rel=$(nvcc_release "$system_nvcc")
        name=system-${rel:-none}
        tk_names+=("$name")
        tk_path[$name]=$system_cuda
        tk_cudnn[$name]=
        tk_label[$name]="CUDA ${rel:-?} (system: $system_cuda)"
        [ -n "$rel" ] || tk_missing[$name]="$system_nvcc does not run"
        continue
    fi
    if ! command -v pip >/dev/null || ! command -v unzip >/dev/null; then
        tk_names+=("cuda-$t")
        tk_label[cuda-$t]="CUDA $t (PyPI)"
        tk_missing[cuda-$t]="pip and unzip are needed to install it"
        continue
    fi
    install_pypi "$t"
done

# a toolkit is usable once its nvcc compiles and links a kernel
for name in "${tk_names[@]}"; do
    [ -n "${tk_missing[$name]:-}" ] && continue
    smoke=$out/logs/smoke-$name
    printf '__global__ void k(int *p) { *p = 1; }\nint main() { k<<<1, 1>>>(0); return 0; }\n' >"$smoke.cu"
    if ! "${tk_path[$name]}/bin/nvcc" -o "$smoke" "$smoke.cu" >"$smoke.log" 2>&1; then
        tk_missing[$name]="its nvcc cannot build a kernel: $(grep -m1 -iE 'error|fatal' "$smoke.log" || head -n 1 "$smoke.log")"
    fi
done

# ---- builds -------------------------------------------------------------------------------------
build_cell() { # name sm
    local name=$1 sm=$2 path=${tk_path[$1]}
    local extra=()
    [ -n "${tk_cudnn[$name]}" ] && extra=("CUDNN_PATH=${tk_cudnn[$name]}")
    [ -n "${TC_CHAPTERS:-}" ] && extra+=("CHAPTERS=$TC_CHAPTERS")
    make -C "$top" --no-print-directory -k -j1 BUILD="$out/out/$name-sm$sm" SM="$sm" \
        CUDA_PATH="$path" NVCC="$path/bin/nvcc" ${extra[@]+"${extra[@]}"} GIT_SHA=compat all \
        >"$out/logs/$name-sm$sm.log" 2>&1
}
cells=()
for name in "${tk_names[@]}"; do
    [ -n "${tk_missing[$name]:-}" ] && continue
    for sm in $sms; do cells+=("$name $sm"); done
done
echo "building ${#cells[@]} cells (toolkit x SM), $jobs at a time; logs in ${out#"$top"/}/logs/"
running=0
for cell in "${cells[@]}"; do
    read -r name sm <<<"$cell"
    rm -rf "$out/out/$name-sm$sm"
    (
        t0=$SECONDS
        build_cell "$name" "$sm"
        echo "  built $name sm_$sm ($((SECONDS - t0)) s)"
    ) &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

# ---- the table ----------------------------------------------------------------------------------
# which program each source belongs to: <program>_SRCS in its chapter.mk, or $(d)_SRCS for a
# chapter of one program
declare -A src_prog=()
rows=("common/, CPU tests")
for item in "${items[@]}"; do
    folder=${item%%/*} prog=${item#*/}
    rows+=("$prog")
    srcs=$(sed -n "s/^$prog""_SRCS[[:space:]]*:=//p" "$top/$folder/chapter.mk")
    # shellcheck disable=SC2016 # $(d) is make's, in the file
    [ -z "$srcs" ] && [ "$prog" = "$folder" ] && srcs=$(sed -n 's/^$(d)_SRCS[[:space:]]*:=//p' "$top/$folder/chapter.mk")
    for s in $srcs; do src_prog[$folder/$s.o]+="$prog|"; done
done

# Splits a cell's log into the commands make ran (-j1: each command line is followed by its own
# output) and prints, per row: "row<TAB>warnings<TAB>first error line".
sources=$out/logs/sources.tsv
for k in "${!src_prog[@]}"; do printf '%s\t%s\n' "$k" "${src_prog[$k]}"; done >"$sources"
attribute() { # log build
    local log=$1 build=$2
    awk -v build="$build/" -v sources="$sources" '
        BEGIN { while ((getline line < sources) > 0) { split(line, kv, "\t"); owner[kv[1]] = kv[2] } }
        function target_of(line) {
            if (match(line, / -o [^ ]+/)) return substr(line, RSTART + 4, RLENGTH - 4)
            if (line ~ /^ar rcs /) { split(line, w, " "); return w[3] }
            return ""
        }
        function rows_of(t,   rel) {
            rel = substr(t, length(build) + 1)
            if (rel ~ /^bin\//) return substr(rel, 5) "|"
            if (rel in owner) return owner[rel]
            return "common/, CPU tests|"
        }
        # a command make ran: a compiler writing into BUILD (-o), or ar; what follows is its output
        index($0, " -o " build) > 0 || /^ar rcs / {
            t = target_of($0); cur = (t == "" || index(t, build) != 1) ? "" : rows_of(t); next
        }
        /^skipping / { cur = ""; next }
        /^rm / { cur = ""; next }
        /^make(\[[0-9]+\])?: \*\*\* \[/ {
            # make names the failed target: the line belongs to it
            if (match($0, /: [^ :]+\] Error/)) cur = rows_of(substr($0, RSTART + 2, RLENGTH - 9))
        }
        cur != "" {
            k = split(cur, rs, "|")
            for (i = 1; i <= k; i++) {
                r = rs[i]
                if (r == "") continue
                if (tolower($0) ~ /warning/) warn[r]++
                if (!(r in err) && ($0 ~ /error|fatal|Error [0-9]|undefined reference/)) err[r] = $0
                seen[r] = 1
            }
        }
        END { for (r in seen) printf "%s\t%d\t%s\n", r, warn[r], err[r] }
    ' "$log"
}

table=$out/table.txt
tsv=$out/cells.tsv
printf 'toolkit\tsm\tprogram\tstatus\twarnings\tdetail\n' >"$tsv"
total_built=0 total_skipped=0 total_failed=0 total_warn=0
{
    echo "make compat: every program built with each toolkit for each SM ($(date -u '+%Y-%m-%d %H:%M UTC'), $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown))"
    for name in "${tk_names[@]}"; do
        echo
        echo "== ${tk_label[$name]}"
        if [ -n "${tk_missing[$name]:-}" ]; then
            echo "   not installed: ${tk_missing[$name]}"
            printf '%s\t-\t-\tnot installed\t0\t%s\n' "$name" "${tk_missing[$name]}" >>"$tsv"
            continue
        fi
        [ -n "${tk_cudnn[$name]}" ] && echo "   CUDNN_PATH=${tk_cudnn[$name]#"$top"/}"
        declare -A cell=() notes=()
        note_list=()
        for sm in $sms; do
            build=$out/out/$name-sm$sm
            log=$out/logs/$name-sm$sm.log
            # the Makefile refused the SM itself (e.g. sm_70 with CUDA 13): one reason for the column
            refused=$(sed -n 's/^Makefile:[0-9]*: \*\*\* \(.*\)\.  Stop\.$/\1/p' "$log" | head -n 1)
            declare -A warns=() errs=()
            while IFS=$'\t' read -r r w e; do
                [ -n "$r" ] || continue
                warns[$r]=$w errs[$r]=$e
            done < <([ -z "$refused" ] && attribute "$log" "$build")
            for r in "${rows[@]}"; do
                w=${warns[$r]:-0}
                if [ -n "$refused" ]; then
                    status=skipped detail=$refused
                elif [ "$r" = "common/, CPU tests" ]; then
                    if [ -f "$build/libcommon.a" ] && [ -z "${errs[$r]:-}" ]; then status=built detail=""; else status=failed detail=${errs[$r]:-libcommon.a or a CPU test was not built}; fi
                elif [ -f "$build/bin/$r" ]; then
                    status=built detail=""
                elif [ -f "$build/skipped/$r" ]; then
                    status=skipped detail=$(cat "$build/skipped/$r")
                else
                    status=failed detail=${errs[$r]:-}
                    [ -n "$detail" ] || detail="not built, and no error line of its own (see ${log#"$top"/})"
                fi
                printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$sm" "$r" "$status" "$w" "$detail" >>"$tsv"
                case $status in
                built) text=built total_built=$((total_built + 1)) ;;
                skipped) text=skip total_skipped=$((total_skipped + 1)) ;;
                failed) text=FAIL total_failed=$((total_failed + 1)) ;;
                esac
                if [ -n "$detail" ]; then
                    key="$status: $detail"
                    if [ -z "${notes[$key]:-}" ]; then
                        note_list+=("$key")
                        notes[$key]=${#note_list[@]}
                    fi
                    text+="[${notes[$key]}]"
                fi
                if [ "$w" -gt 0 ]; then text+=" ${w}w"; total_warn=$((total_warn + w)); fi
                cell[$r,$sm]=$text
            done
            unset warns errs
        done
        printf '   %-22s' program
        for sm in $sms; do printf ' %-10s' "sm_$sm"; done
        echo
        for r in "${rows[@]}"; do
            printf '   %-22s' "$r"
            for sm in $sms; do printf ' %-10s' "${cell[$r,$sm]}"; done
            echo
        done
        for i in "${!note_list[@]}"; do echo "   [$((i + 1))] ${note_list[$i]}"; done
        unset cell notes
    done
    echo
    echo "legend: built; skip[n] / FAIL[n]: note n gives the Makefile's reason / the first error line; Nw: N warning lines in that program's build"
    echo "logs: ${out#"$top"/}/logs/<toolkit>-sm<SM>.log; every cell: ${tsv#"$top"/}"
    echo "compat: $total_built built, $total_skipped skipped, $total_failed failed, $total_warn warnings ($((SECONDS - started)) s)"
} >"$table"
cat "$table"
[ "$total_failed" -eq 0 ] && [ "$total_warn" -eq 0 ]
