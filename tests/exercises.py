#!/usr/bin/env python3
"""tests/exercises.py - every exercise of a lesson has its solution in the chapter's NOTES.md.

A lesson (any Markdown file of a chapter folder but NOTES.md) lists its exercises under a heading
"## Exercises", as a numbered list whose items open with a label of effort in bold:
    1. **(15 min) The descriptor's stride.** ...
    2. **(1 h)** ...
    3. **(project) Clusters of 4.** ...
The labels are (15 min), (1 h) and (project); any other is reported.

The chapter's NOTES.md answers them after a marker naming the lesson,
    <!-- solutions: WGMMA.md -->
    1. **(15 min) The descriptor's stride.** With a stride of 512 bytes ...
with one item per exercise, numbered as in the lesson, up to the next marker or the next "## "
heading. Where an exercise has a title (the bold words after the label), its solution must open
with the same title (the label may be left out there), so that a reordered list is caught.

Usage: tests/exercises.py [CHAPTER ...]   (default: every chapter folder NN_*)
Prints a line per chapter (lessons, exercises, solutions) and one per problem; exits 1 on any.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LABELS = ("15 min", "1 h", "project")
ITEM_RE = re.compile(r"^(\d+)\. \*\*(.*?)\*\*", re.M)
LABEL_RE = re.compile(r"^\(([^)]*)\)\s*(.*)$")
MARK_RE = re.compile(r"<!-- solutions: (\S+) -->")


def norm(title):
    return re.sub(r"[\s.:]+$", "", re.sub(r"\s+", " ", title)).strip().lower()


def section(text, heading_re):
    """the text of the first '## ' section whose heading matches, else None"""
    m = re.search(r"^## " + heading_re + r".*$", text, re.M)
    if not m:
        return None, 0
    end = re.search(r"^## ", text[m.end():], re.M)
    body = text[m.end():m.end() + end.start()] if end else text[m.end():]
    return body, text[:m.end()].count("\n") + 1


def exercises(path, problems):
    """[(number, label, title)] of the lesson's Exercises section"""
    text = open(path).read()
    body, line0 = section(text, r"Exercises\b")
    if body is None:
        return []
    out = []
    for m in ITEM_RE.finditer(body):
        line = line0 + body[:m.start()].count("\n")
        lm = LABEL_RE.match(m.group(2))
        rel = os.path.relpath(path, ROOT)
        if not lm:
            problems.append(f"{rel}:{line}: exercise {m.group(1)} has no label (15 min, 1 h, project)")
            out.append((int(m.group(1)), "", m.group(2)))
            continue
        if lm.group(1) not in LABELS:
            problems.append(f"{rel}:{line}: exercise {m.group(1)}: label '({lm.group(1)})' is not "
                            f"one of (15 min), (1 h), (project)")
        out.append((int(m.group(1)), lm.group(1), lm.group(2)))
    numbers = [n for n, _, _ in out]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"{os.path.relpath(path, ROOT)}: exercises numbered {numbers}, not 1..n")
    return out


def solutions(notes_path):
    """{lesson file: [(number, title)]} after each marker of NOTES.md"""
    if not os.path.exists(notes_path):
        return {}
    text = open(notes_path).read()
    out = {}
    marks = list(MARK_RE.finditer(text))
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        h = re.search(r"^## ", text[m.end():end], re.M)
        if h:
            end = m.end() + h.start()
        items = []
        for it in ITEM_RE.finditer(text[m.end():end]):
            lm = LABEL_RE.match(it.group(2))
            items.append((int(it.group(1)), lm.group(2) if lm else it.group(2)))
        out.setdefault(m.group(1), []).extend(items)
    return out


def check_chapter(folder, problems):
    lessons = sorted(p for p in glob.glob(os.path.join(folder, "*.md"))
                     if os.path.basename(p) != "NOTES.md")
    notes = os.path.join(folder, "NOTES.md")
    sols = solutions(notes)
    rel_notes = os.path.relpath(notes, ROOT)
    n_ex = n_sol = 0
    for lesson in lessons:
        name = os.path.basename(lesson)
        ex = exercises(lesson, problems)
        if not ex:
            continue
        n_ex += len(ex)
        got = sols.get(name)
        if got is None:
            problems.append(f"{rel_notes}: no '<!-- solutions: {name} -->' for {len(ex)} exercises")
            continue
        by_number = {n: t for n, t in got}
        n_sol += sum(1 for n, _, _ in ex if n in by_number)
        for n, _, title in ex:
            if n not in by_number:
                problems.append(f"{rel_notes}: {name}'s exercise {n} has no solution")
            elif title and norm(by_number[n]) != norm(title):
                problems.append(f"{rel_notes}: {name}'s exercise {n} is '{title}', its solution "
                                f"'{by_number[n]}'")
        extra = sorted(set(by_number) - {n for n, _, _ in ex})
        if extra:
            problems.append(f"{rel_notes}: solutions {extra} of {name} answer no exercise")
    for name in sols:
        if not os.path.exists(os.path.join(folder, name)):
            problems.append(f"{rel_notes}: solutions for {name}, which is not a lesson here")
    return n_ex, n_sol


def main():
    folders = sys.argv[1:] or sorted(d for d in glob.glob(os.path.join(ROOT, "[0-9][0-9]_*"))
                                     if os.path.isdir(d))
    problems, total_ex, total_sol = [], 0, 0
    for f in folders:
        f = f if os.path.isabs(f) else os.path.join(ROOT, f)
        before = len(problems)
        n_ex, n_sol = check_chapter(f.rstrip("/"), problems)
        total_ex += n_ex
        total_sol += n_sol
        print(f"{os.path.basename(f.rstrip('/')):24s} {n_ex:3d} exercises {n_sol:3d} solutions"
              + (f"  ({len(problems) - before} problems)" if len(problems) > before else ""))
    for p in problems:
        print(p)
    print(f"{total_ex} exercises, {total_sol} with solutions"
          + (f", {len(problems)} problems" if problems else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
