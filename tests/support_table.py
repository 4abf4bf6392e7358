#!/usr/bin/env python3
"""tests/support_table.py - README.md's "What runs on my GPU" table, derived from the declarations.

What a program needs comes from two places, and nothing else is consulted:
  - its chapter.mk: the minimum SM ($(d)_MIN_SM or <program>_MIN_SM), the arch-specific targets
    (TARGETS_A, e.g. 90a) and whether the program is built for those alone (ONLY_A), read with
    the top-level Makefile's rules (a program's own setting, else its chapter's);
  - the program's --list (no GPU needed): every variant row names its minimum, sm_NN, or the
    arch-specific code it needs, sm_NNa (which runs on compute capability NN alone).
A GPU of compute capability X with a build for it (make detects SM) builds a program when
X >= its minimum and, for an ONLY_A program, X is one of its targets; a variant runs when X >=
its sm_NN, or X == NN for sm_NNa.

Usage: tests/support_table.py [--write] [--bin build/bin] [README.md]
Without --write, reports the table between <!-- support table --> and <!-- end support table -->
as stale if it differs (exit 1); with --write, rewrites it. A program missing from the build
(made for other SMs) is reported and the check skipped (exit 77).
"""
import argparse
import os
import re
import subprocess
import sys

from doc_tables import ROOT, chapters, programs_of, update_marked

COLUMNS = [(75, "T4, RTX 20"), (80, "A100"), (86, "RTX 30"), (89, "RTX 40, L4"),
           (90, "H100, H200"), (100, "B200"), (120, "RTX 50")]
BEGIN, END = "<!-- support table -->", "<!-- end support table -->"
ROW_RE = re.compile(r"^\s*(\S+)\s+(?:\S+\s+)?sm_(\d+)(a?)\b")


def programs():
    """[(chapter, program, min_sm, [targets_a numbers], only_a)] in chapter order"""
    out = []
    for ch, mk in chapters():
        for p in programs_of(ch, mk):
            get = lambda k: mk.get(f"{p}_{k}") or mk.get(f"{ch}_{k}") or ""
            targets = [int(t.rstrip("a")) for t in get("TARGETS_A").split()]
            out.append((ch, p, int(get("MIN_SM")), targets, get("ONLY_A") == "yes"))
    return out


def variants(binary):
    """[(name, sm, arch_specific)] from the program's --list"""
    text = subprocess.run([binary, "--list"], capture_output=True, text=True, check=True).stdout
    return [(m.group(1), int(m.group(2)), m.group(3) == "a")
            for m in map(ROW_RE.match, text.splitlines()) if m]


def cell(x, prog, rows):
    _, _, min_sm, targets, only_a = prog
    if x < min_sm or (only_a and x not in targets):
        return "—"
    need = {}
    for _, sm, arch in rows:
        if (arch and x != sm) or (not arch and x < sm):
            key = f"sm_{sm}a" if arch else f"sm_{sm}"
            need[key] = need.get(key, 0) + 1
    if not need:
        return "all"
    missing = sum(need.values())
    why = ", ".join(f"{n} need{'s' if n == 1 else ''} {k}" for k, n in sorted(need.items()))
    return f"{len(rows) - missing} of {len(rows)} ({why})"


def table(bin_dir):
    head = "| program | " + " | ".join(f"sm_{x} ({g})" for x, g in COLUMNS) + " |"
    lines = [head, "|---|" + "---|" * len(COLUMNS)]
    missing = []
    for prog in programs():
        ch, p = prog[0], prog[1]
        binary = os.path.join(bin_dir, p)
        if not os.access(binary, os.X_OK):
            missing.append(p)
            continue
        rows = variants(binary)
        lines.append(f"| {ch[:2]} `{p}` | " + " | ".join(cell(x, prog, rows) for x, _ in COLUMNS)
                     + " |")
    return "\n".join(lines) + "\n", missing


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("readme", nargs="?", default=os.path.join(ROOT, "README.md"))
    a = ap.parse_args()
    new, missing = table(a.bin)
    if missing:
        print(f"SKIP support table: not built here: {' '.join(missing)} (build with SM=\"80 90\")")
        return 77
    return update_marked(a.readme, BEGIN, END, new, a.write,
                         "support table", "the declarations",
                         f"support table: {new.count(chr(10)) - 2} programs, as declared")

if __name__ == "__main__":
    sys.exit(main())
