#!/usr/bin/env bash
# tests/plot_ladder.sh CSV PNG - `make plot`: the ladder as a bar chart, with matplotlib.
set -u
csv=${1:?usage: plot_ladder.sh CSV PNG}
png=${2:?usage: plot_ladder.sh CSV PNG}
if [ ! -f "$csv" ]; then
    echo "make plot: $csv does not exist; run 'make bench' first"
    exit 1
fi
if ! python3 -c 'import matplotlib' 2>/dev/null; then
    echo "make plot needs python3 with matplotlib: install it with 'python3 -m pip install matplotlib'"
    echo "(or 'apt-get install python3-matplotlib'), then run 'make plot' again"
    exit 1
fi
exec python3 "$(dirname "$0")/plot_ladder.py" "$csv" "$png"
