#!/usr/bin/env python3
"""tests/forced_choices.py - CONTRIBUTING.md's table of the run-time choices that --test forces.

A launcher that chooses from the problem or the GPU (a tile width, a split, a grid, a path, a
number of steps per pass) declares its choices, and every program's --list prints them after the
row's description as "(--test forces: a, b, ...)"; --test runs every case once more per choice.
This script reads the --list of every program in the build (no GPU needed) and writes the table
between <!-- forced choices --> and <!-- end forced choices --> in CONTRIBUTING.md, one line per
program and list of choices, the variants that share it together.

Usage: tests/forced_choices.py [--write] [--bin build/bin] [CONTRIBUTING.md]
Without --write, reports the table as stale if it differs (exit 1); with --write, rewrites it.
A program missing from the build (made for other SMs) is reported and the check skipped (exit 77).
"""
import argparse
import os
import re
import subprocess
import sys

from doc_tables import ROOT, chapters, programs_of, update_marked

BEGIN, END = "<!-- forced choices -->", "<!-- end forced choices -->"
FORCED_RE = re.compile(r"^(\S+)\s.*\(--test forces: ([^)]*)\)\s*$")


def programs():
    """every program the chapters declare, in chapter order"""
    return [p for ch, mk in chapters() for p in programs_of(ch, mk)]


def table(bin_dir):
    rows, missing = [], []
    for prog in programs():
        path = os.path.join(bin_dir, prog)
        if not os.path.exists(path):
            missing.append(prog)
            continue
        out = subprocess.run([path, "--list"], capture_output=True, text=True).stdout
        groups = {}  # choices -> variants, in the order of the list
        for line in out.splitlines():
            m = FORCED_RE.match(line)
            if m:
                groups.setdefault(m.group(2).strip(), []).append(m.group(1))
        for choices, variants in groups.items():
            rows.append("| `%s` | %s | %s |" % (prog, ", ".join("`%s`" % v for v in variants),
                                                 choices))
    head = ["| program | variants | `--test` forces, besides the launcher's own choice |",
            "|---|---|---|"]
    return "\n".join(head + rows), missing


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("doc", nargs="?", default=os.path.join(ROOT, "CONTRIBUTING.md"))
    a = ap.parse_args()
    text, missing = table(a.bin)
    if missing:
        print("forced choices: not checked, programs not built: %s" % " ".join(missing))
        return 77
    return update_marked(a.doc, BEGIN, END, text + "\n", a.write,
                         "forced-choices table", "the programs' --list",
                         "forced choices: %d rows, as the programs declare" % (text.count("\n") - 1))

if __name__ == "__main__":
    sys.exit(main())
