#!/usr/bin/env bash
# tests/rung_diff.sh A B [diff options] - the step from rung file A to rung file B (CONTRIBUTING.md,
# "Rungs: one file per step"): diff of the two files with each one's rung prefix made the same
# word, RUNG, so that what a rename changes (wgmma_v4_cluster_kernel -> wgmma_v5_tmastore_kernel,
# WGMMA_V4_CLUSTER -> WGMMA_V5_CLUSTER) does not show and the step does.
#
# A rung file opens with "/* <name> - ..." (wgmma_v5_tmastore); its prefix is <name> up to and
# with its number (wgmma_v5_), in lower and upper case. Extra arguments go to diff (default -u).
#   tests/rung_diff.sh common/wgmma_v4_cluster.cuh 05_mma_ptx/wgmma/v5_tmastore.cuh
#   tests/rung_diff.sh 05_mma_ptx/wgmma/v5_tmastore.cuh 05_mma_ptx/wgmma/v6_streamk.cuh --stat
# --stat prints only the number of lines removed and added. Exit status: diff's.
set -u
a=${1:?usage: rung_diff.sh A B [diff options]}
b=${2:?usage: rung_diff.sh A B [diff options]}
shift 2
normalise() {
    local name short
    name=$(sed -n '1s|^/\* \([A-Za-z0-9_]*\) - .*|\1|p' "$1")
    if [ -z "$name" ]; then
        echo "rung_diff.sh: $1 does not open with '/* <rung name> - ...'" >&2
        exit 2
    fi
    short=$(printf '%s\n' "$name" | sed -n 's/^\(.*_v[0-9][0-9]*[a-z]\{0,1\}_\).*/\1/p')
    [ -z "$short" ] && short=${name}_
    sed -e "s/${name}/RUNG/g" -e "s/${short}/RUNG_/g" \
        -e "s/$(printf '%s' "$short" | tr '[:lower:]' '[:upper:]')/RUNG_/g" "$1"
}
if [ "${1:-}" = "--stat" ]; then
    diff <(normalise "$a") <(normalise "$b") | awk '/^</ { del++ } /^>/ { add++ }
        END { printf "%d lines removed, %d added\n", del, add }'
    exit 0
fi
diff "${@:--u}" --label "$a" --label "$b" <(normalise "$a") <(normalise "$b")
