#!/usr/bin/env bash
# tests/build_alone.sh FOLDER LOG - proves that a chapter lifts out: copies FOLDER and common/ (and
# nothing else) into an empty temporary folder and runs there, with bash -e, the shell block that
# follows the line `<!-- build-alone -->` in FOLDER/README.md: the very command the README gives
# a reader who copies the chapter into a project of their own (it puts its programs in bin/).
# The block's output goes to LOG.
#
# Prints one line (what was built, or why not) and exits 0 when the block succeeded, 1 when it
# failed or the README has no such block, 77 when the chapter needs cuDNN and the top-level
# Makefile found none ($TC_HAVE_CUDNN empty). $TC_NVCC, when set, is the nvcc to put first on PATH.
set -u
chapter=${1:?usage: build_alone.sh FOLDER LOG}
log=${2:?usage: build_alone.sh FOLDER LOG}
top=$(cd "$(dirname "$0")/.." && pwd)
readme=$top/$chapter/README.md

# the first fenced block after the marker
block=$(awk '/<!-- build-alone -->/ { found = 1; next }
             found && /^```/ { if (inside) exit; inside = 1; next }
             inside { print }' "$readme" 2>/dev/null)
if [ -z "$block" ]; then
    echo "$chapter/README.md has no shell block after <!-- build-alone -->"
    exit 1
fi
if grep -qE '^\$\(d\)_NEEDS *:= *cudnn' "$top/$chapter/chapter.mk" && [ -z "${TC_HAVE_CUDNN:-}" ]; then
    echo "cuDNN not found (the Makefile's search; set CUDNN_PATH)"
    exit 77
fi
if [ -n "${TC_NVCC:-}" ]; then PATH=$(dirname "$TC_NVCC"):$PATH; fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/build-alone.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -R "$top/common" "$top/$chapter" "$tmp/"
if (cd "$tmp" && bash -e -x -c "$block") >"$log" 2>&1; then
    echo "built: $(ls "$tmp/bin" 2>/dev/null | tr '\n' ' ')"
    exit 0
fi
echo "the README's build block failed"
exit 1
