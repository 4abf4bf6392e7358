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
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- forced choices -->", "<!-- end forced choices -->"
FORCED_RE = re.compile(r"^(\S+)\s.*\(--test forces: ([^)]*)\)\s*$")


def programs():
    """every program the chapters declare, as the Makefile names them: <chapter>_PROGS, else the
    chapter's folder name"""
    names = []
    for mk in sorted(glob.glob(os.path.join(ROOT, "*", "chapter.mk"))):
        chapter = os.path.basename(os.path.dirname(mk))
        progs = None
        for line in open(mk):
            m = re.match(r"\s*\$\(d\)_PROGS\s*:=\s*(.*)$", line.split("#", 1)[0])
            if m:
                progs = m.group(1).split()
        names += progs if progs else [chapter]
    return names


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
    doc = open(a.doc).read()
    i, j = doc.find(BEGIN), doc.find(END)
    if i < 0 or j < i:
        print("%s: no %s ... %s markers" % (a.doc, BEGIN, END))
        return 1
    new = doc[: i + len(BEGIN)] + "\n" + text + "\n" + doc[j:]
    n = text.count("\n") - 1
    if new == doc:
        print("forced choices: %d rows, as the programs declare" % n)
        return 0
    if a.write:
        open(a.doc, "w").write(new)
        print("rewrote the forced-choices table of %s (%d rows)" % (os.path.relpath(a.doc), n))
        return 0
    print("%s: the forced-choices table is stale against the programs' --list (make docs)"
          % os.path.relpath(a.doc, ROOT))
    return 1


if __name__ == "__main__":
    sys.exit(main())
