"""tests/doc_tables.py - what the generated tables of the documentation share (support_table.py,
forced_choices.py): the programs the chapters declare, and the check or rewrite of a table kept
between two markers of a Markdown file."""
import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_mk(chapter_dir):
    """the chapter.mk's variables, $(d) replaced by the chapter's name"""
    name = os.path.basename(chapter_dir)
    out = {}
    for line in open(os.path.join(chapter_dir, "chapter.mk")):
        line = line.split("#", 1)[0]
        m = re.match(r"\s*([^\s:]+)\s*:=\s*(.*)$", line)
        if m:
            out[m.group(1).replace("$(d)", name)] = m.group(2).strip()
    return name, out


def chapters():
    """[(chapter, its chapter.mk variables)] in chapter order"""
    return [read_mk(os.path.dirname(d))
            for d in sorted(glob.glob(os.path.join(ROOT, "[0-9][0-9]_*", "chapter.mk")))]


def programs_of(chapter, mk):
    """the programs of a chapter as the Makefile names them: <chapter>_PROGS, else the folder's"""
    return (mk.get(chapter + "_PROGS") or chapter).split()


def update_marked(path, begin, end, body, write, what, against, same):
    """Compares BODY with the text between the markers BEGIN and END of PATH (one newline after
    BEGIN; BODY ends where END starts). Equal: prints SAME, 0. Different: with WRITE rewrites it
    ("rewrote the WHAT of PATH"), 0; without, prints that the WHAT is stale against AGAINST, 1.
    No markers: 1."""
    text = open(path).read()
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        print("%s: no %s ... %s markers" % (path, begin, end))
        return 1
    start = i + len(begin) + 1
    if text[start:j] == body:
        print(same)
        return 0
    rel = os.path.relpath(path, ROOT)
    if not write:
        print("%s: the %s is stale against %s (make docs)" % (rel, what, against))
        return 1
    open(path, "w").write(text[:start] + body + text[j:])
    print("rewrote the %s of %s" % (what, rel))
    return 0
