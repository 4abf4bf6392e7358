#!/usr/bin/env python3
"""tests/rename_rows.py [--write] [--csv docs/bench-h200.csv] - move the lessons' references to a
program's bench rows from the old rung names to the new ones (docs/rung-names.md), once the record
holds rows under the new names.

docs/rung-names.md maps, per program (its "## Chapter NN, `PROGRAM`" sections), old rung names to
new ones; a rung whose rows exist under several suffixes (`_bf16`, `_e4m3`, `_e5m2`) is listed once.
The references this script rewrites are the machine-read ones only: the row names in the table
specs of docs/tables/*.txt whose `chapter=` is that program, and the figure markers
(`<!-- fig PROGRAM NAME ... -->`, also inside `fig ratio` markers) in every Markdown file. Prose is
left alone (it names rungs by their new names already, or says which names a record used).

A program is renamed only when the record has a row of it under a new name and none under an old
one (that is, after `make bench` refreshed its rows): before that, the old names are right.
Without --write it prints what it would change and exits 1 if anything would; with --write it
changes the files. tests/doc_numbers.py then checks every table and figure against the record."""
import argparse
import csv
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUFFIXES = ("", "_bf16", "_e4m3", "_e5m2")


def mappings():
    """{program: {old_name: new_name}} from docs/rung-names.md (rows whose new name is a name)"""
    text = open(os.path.join(ROOT, "docs", "rung-names.md"), encoding="utf-8").read()
    out, program = {}, None
    for line in text.splitlines():
        m = re.match(r"^## Chapter \d+, `([^`]+)`", line)
        if m:
            program = m.group(1)
            out.setdefault(program, {})
            continue
        m = re.match(r"^\| `([A-Za-z0-9_]+)` \| `([A-Za-z0-9_]+)` \|", line)
        if program and m and m.group(1) != m.group(2):
            for suffix in SUFFIXES:
                out[program][m.group(1) + suffix] = m.group(2) + suffix
    return out


def recorded(csv_path):
    """{program: set of variant names} in the record"""
    names = {}
    with open(csv_path, encoding="utf-8") as f:
        for row in csv.DictReader(f):
            names.setdefault(row["chapter"], set()).add(row["variant"])
    return names


def rename_token(name, table):
    return table.get(name, name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--csv", default=os.path.join(ROOT, "docs", "bench-h200.csv"))
    args = ap.parse_args()
    maps, rows = mappings(), recorded(args.csv)
    ready = {}
    for program, table in maps.items():
        have = rows.get(program, set())
        old_present = any(n in have for n in table)
        new_present = any(n in have for n in table.values())
        state = "renamed in the record" if new_present and not old_present else (
            "old names in the record" if old_present and not new_present else "mixed or absent")
        print(f"{program}: {state}")
        if new_present and not old_present:
            ready[program] = table
    changes = []
    # table specs: `row "..." = NAME | NAME` lines of a spec whose chapter is the program
    for spec in sorted(glob.glob(os.path.join(ROOT, "docs", "tables", "*.txt"))):
        text = open(spec, encoding="utf-8").read()
        m = re.search(r"^chapter=(\S+)", text, re.M)
        if not m or m.group(1) not in ready:
            continue
        table = ready[m.group(1)]

        def fix_row(line):
            if not line.startswith("row "):
                return line
            head, _, names = line.partition(" = ")
            return head + " = " + " | ".join(rename_token(n.strip(), table)
                                             for n in names.split("|"))
        new = "\n".join(fix_row(l) for l in text.split("\n"))
        if new != text:
            changes.append((spec, text, new))
    # figure markers in Markdown: "<!-- fig ... PROGRAM NAME ..." (NAME right after PROGRAM)
    for md in sorted(glob.glob(os.path.join(ROOT, "**", "*.md"), recursive=True)):
        if "/." in md.replace(ROOT, ""):
            continue
        text = open(md, encoding="utf-8").read()
        new = text
        for program, table in ready.items():
            pattern = re.compile(r"(<!-- fig[^>]*?\b" + re.escape(program) + r" )([A-Za-z0-9_]+)")
            while True:
                replaced = pattern.sub(lambda m: m.group(1) + rename_token(m.group(2), table), new)
                if replaced == new:
                    break
                new = replaced
        if new != text:
            changes.append((md, text, new))
    for path, old, new in changes:
        diff = sum(a != b for a, b in zip(old.split("\n"), new.split("\n")))
        print(f"{'rewrote' if args.write else 'would rewrite'} {os.path.relpath(path, ROOT)}: "
              f"{diff} lines")
        if args.write:
            open(path, "w", encoding="utf-8").write(new)
    if not changes:
        print("nothing to rename")
    return 0 if args.write or not changes else 1


if __name__ == "__main__":
    sys.exit(main())
