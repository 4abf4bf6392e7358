#!/usr/bin/env bash
# tests/plot_ladder.sh CSV PNG - `make plot`: the ladder's figures, drawn with matplotlib
# (tests/plot_ladder.py): PNG is the overview, one panel per problem at its headline size, and
# PNG with -NN before the extension is chapter NN's figure (build/ladder-03.png).
#   make plot                                              build/bench.csv -> build/ladder.png
#   make plot CSV=docs/bench-h200.csv PNG=docs/ladder-h200.png   the repository's figures
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
mkdir -p "$(dirname "$png")"
exec python3 "$(dirname "$0")/plot_ladder.py" "$csv" "$png"
