#!/usr/bin/env python3
"""tests/doc_numbers.py - the lessons' numbers come from the measured record.

Two kinds of marker in the Markdown files tie a figure to docs/bench-h200.csv (or another CSV named
in the marker), so that a lesson cannot drift from the record:

1. Generated tables. A table between
       <!-- table: chapter=05_wgmma_gemm
            row "cuBLAS (`cublas_f16f32`)" = cublas_f16f32 | cublas_bf16f32
            row "`v1_wgmma`" = v1_wgmma | v1_wgmma_bf16
            col "f16 4096³" = 1 4096x4096x4096 rate
            col "% cuBLAS" = 1 4096x4096x4096 pct
            col "bf16 4096³" = 2 4096x4096x4096 rate
       -->
       ... the table ...
       <!-- end table -->
   is rewritten from the CSV by `--write` (`make docs`); without it a table that differs from what
   the CSV gives is reported (stale). A row names one or more variants (|-separated); a column takes
   the n-th variant of the row (1-based), the size column's value and a field: rate (2 decimals),
   pct (pct_of_baseline, 1 decimal), ms (ms_median, 3 decimals), rel_err (3 significant digits),
   or any CSV column name (printed as it is). The first column holds the row labels. A column
   may add `csv=FILE` or `chapter=NAME` to read elsewhere; `header "..."` names the first
   column (default "variant"). Directives are separated by new lines or `;`. The marker may
   instead name a file that holds them, `<!-- table: spec=docs/tables/NAME.txt -->` (lines
   starting with # are comments there), which keeps a lesson short. A missing value prints as
   "—".

2. Checked figures in prose. A number followed by a marker
       763.30<!-- fig 05_wgmma_gemm v4_cluster 8192x8192x8192 rate -->
       1.7×<!-- fig ratio 05_wgmma_gemm fp8_v3_wide_e4m3 8192x8192x8192 rate / 05_wgmma_gemm v4_cluster 8192x8192x8192 rate -->
       +1.6%<!-- fig change 05_wgmma_gemm v6_streamk 8192x8192x8192 rate / 05_wgmma_gemm v5_tmastore 8192x8192x8192 rate -->
   is recomputed: `fig` is a value, `ratio` a / b, `change` (a / b - 1) in percent, `share` a / b in
   percent; the number just before the marker (signs, ×, % and thousands commas allowed) must equal
   the recomputed value rounded to as many decimals as the text prints (a number in scientific
   notation, 1.05e-4, to as many significant digits). A marker with no number right before it is
   reported, so that none is skipped unseen. An optional `csv=FILE`
   after `fig` reads another CSV; a size with spaces is quoted ("Box-2D9P 10240x10240 T10").

Usage: tests/doc_numbers.py [--write] [--csv docs/bench-h200.csv] [FILE.md ...]
With no files, every Markdown file of the repository. Prints one line per problem and a summary
("N tables, N figures checked"); exits 1 on any problem (with --write, on anything it could not
resolve).
"""
import argparse
import csv
import glob
import os
import re
import shlex
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_csv_cache = {}


def load_csv(path):
    full = path if os.path.isabs(path) else os.path.join(ROOT, path)
    if full not in _csv_cache:
        rows = {}
        with open(full, newline="") as f:
            for r in csv.DictReader(f):
                rows.setdefault((r["chapter"], r["variant"], r["size"]), []).append(r)
        _csv_cache[full] = rows
    return _csv_cache[full]


def value(csv_path, chapter, variant, size, field):
    """variant may be NAME:PRECISION where two rows share a name and a size (a probe's f16 and
    bf16 ceilings)"""
    name, _, precision = variant.partition(":")
    rows = load_csv(csv_path).get((chapter, name, size), [])
    if precision:
        rows = [r for r in rows if r["precision"] == precision]
    if not rows:
        raise KeyError(f"no row {chapter} {variant} {size} in {csv_path}")
    if len(rows) > 1:
        raise KeyError(f"{len(rows)} rows {chapter} {variant} {size} in {csv_path}: name the "
                       f"precision ({', '.join(r['precision'] for r in rows)}) as {name}:PRECISION")
    r = rows[0]
    key = {"rate": "rate", "pct": "pct_of_baseline", "ms": "ms_median"}.get(field, field)
    if key not in r:
        raise KeyError(f"no column '{key}' in {csv_path}")
    return r[key]


def fmt(field, text):
    if text is None or text == "":
        return "—"
    if field == "rate":
        return f"{float(text):.2f}"
    if field == "pct":
        return f"{float(text):.1f}"
    if field == "ms":
        return f"{float(text):.3f}"
    if field == "rel_err":
        return f"{float(text):.3g}"
    return text


# ---- tables ---------------------------------------------------------------------------------------
TABLE_RE = re.compile(r"<!-- table:(.*?)-->\n(.*?)<!-- end table -->", re.S)


def parse_spec(spec):
    words = spec.split()
    if len(words) == 1 and words[0].startswith("spec="):  # the directives kept in a file
        spec = open(os.path.join(ROOT, words[0][5:])).read()
        spec = "\n".join(ln for ln in spec.splitlines() if not ln.lstrip().startswith("#"))
    opts = {"chapter": None, "csv": "docs/bench-h200.csv", "header": "variant"}
    rows, cols = [], []
    directives = [d for line in spec.strip().splitlines() for d in line.split(";")]
    for line in directives:
        words = shlex.split(line.strip())
        if not words:
            continue
        if words[0] == "row":
            label, eq, rest = words[1], words[2], words[3:]
            if eq != "=":
                raise ValueError(f"row: expected 'row \"label\" = variant | ...': {line}")
            names = [w for w in " ".join(rest).split("|")]
            rows.append((label, [n.strip() for n in names]))
        elif words[0] == "col":
            label, eq, rest = words[1], words[2], words[3:]
            if eq != "=" or len(rest) < 3:
                raise ValueError(f"col: expected 'col \"label\" = N SIZE FIELD': {line}")
            extra = dict(w.split("=", 1) for w in rest[3:])
            cols.append((label, int(rest[0]), rest[1], rest[2], extra))
        elif words[0] == "header":
            opts["header"] = words[1]
        else:
            for w in words:
                if "=" not in w:
                    raise ValueError(f"table: unknown word '{w}'")
                k, v = w.split("=", 1)
                opts[k] = v
    if not opts["chapter"]:
        raise ValueError("table: no chapter=")
    return opts, rows, cols


def render(opts, rows, cols):
    numeric = all(c[3] in ("rate", "pct", "ms", "rel_err") for c in cols)
    out = ["| " + " | ".join([opts["header"]] + [c[0] for c in cols]) + " |",
           "|---|" + "|".join(["---:" if numeric else "---"] * len(cols)) + "|"]
    for label, names in rows:
        cells = [label]
        for (_, n, size, field, extra) in cols:
            if n < 1 or n > len(names):
                raise ValueError(f"row {label}: no variant {n}")
            name = names[n - 1]
            if name == "-":
                cells.append("")
                continue
            try:
                v = value(extra.get("csv", opts["csv"]), extra.get("chapter", opts["chapter"]),
                          name, size, field)
            except KeyError:
                v = None
            cells.append(fmt(field, v))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


# ---- figures --------------------------------------------------------------------------------------
FIG_RE = re.compile(r"([+−-]?[0-9][0-9,]*(?:\.[0-9]+)?(?:[eE][+−-]?[0-9]+)?)\s*(×|%|x)?\s*<!-- fig (.*?)-->")
MARKER_RE = re.compile(r"<!-- fig ")


def term(words, default_csv):
    """chapter variant size field -> float"""
    if len(words) != 4:
        raise ValueError(f"expected 'chapter variant size field', got {' '.join(words)}")
    return float(value(default_csv, *words))


def recompute(spec):
    words = shlex.split(spec)  # a size with spaces is quoted: "Box-2D9P 10240x10240 T10"
    csv_path = "docs/bench-h200.csv"
    if words and words[0].startswith("csv="):
        csv_path = words.pop(0)[4:]
    kind = words[0] if words and words[0] in ("ratio", "change", "share") else "value"
    if kind != "value":
        words = words[1:]
    if kind == "value":
        return term(words, csv_path)
    if "/" not in words:
        raise ValueError(f"{kind}: expected 'a / b'")
    i = words.index("/")
    a, b = term(words[:i], csv_path), term(words[i + 1:], csv_path)
    return {"ratio": a / b, "change": 100.0 * (a / b - 1.0), "share": 100.0 * a / b}[kind]


def check_figure(number, spec):
    printed = number.replace(",", "").replace("−", "-")
    want = recompute(spec)
    got = float(printed)
    if "e" in printed.lower():  # 1.05e-4: as many significant digits as the text prints
        mantissa = printed.lower().split("e")[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        text = f"{want:.{decimals}e}"
        return float(text) == got, text
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    ok = abs(round(want, decimals) - got) < 0.5 * 10 ** -decimals + 1e-9
    return ok, f"{want:.{decimals}f}"


def process(path, write):
    text = open(path).read()
    problems, n_tables, n_figs = [], 0, 0
    rel = os.path.relpath(path, ROOT)

    def table_sub(m):
        nonlocal n_tables
        n_tables += 1
        line = text[:m.start()].count("\n") + 1
        try:
            opts, rows, cols = parse_spec(m.group(1))
            new = render(opts, rows, cols)
        except (ValueError, KeyError) as e:
            problems.append(f"{rel}:{line}: table: {e}")
            return m.group(0)
        if new != m.group(2):
            if not write:
                problems.append(f"{rel}:{line}: table is stale against its CSV (make docs)")
            return m.group(0)[:m.start(2) - m.start()] + new + "<!-- end table -->"
        return m.group(0)

    new_text = TABLE_RE.sub(table_sub, text)
    # a marker the figure pattern does not reach (no number right before it, or the marker broken
    # over lines) would be skipped silently: report it
    reached = {m.start(3) - len("<!-- fig ") for m in FIG_RE.finditer(new_text)}
    for m in MARKER_RE.finditer(new_text):
        if m.start() not in reached:
            line = new_text[:m.start()].count("\n") + 1
            problems.append(f"{rel}:{line}: a fig marker with no number right before it (or one "
                            f"broken over lines): it checks nothing")
    for m in FIG_RE.finditer(new_text):
        n_figs += 1
        line = new_text[:m.start()].count("\n") + 1
        try:
            ok, want = check_figure(m.group(1), m.group(3).strip())
        except (ValueError, KeyError) as e:
            problems.append(f"{rel}:{line}: figure: {e}")
            continue
        if not ok:
            problems.append(f"{rel}:{line}: '{m.group(1)}' is not what the record gives: {want} "
                            f"({m.group(3).strip()})")
    if write and new_text != text:
        open(path, "w").write(new_text)
        print(f"rewrote the tables of {rel}")
    return problems, n_tables, n_figs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write", action="store_true", help="rewrite stale tables (make docs)")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or sorted(p for p in glob.glob(os.path.join(ROOT, "**", "*.md"), recursive=True)
                              if "/build/" not in p)
    problems, tables, figs = [], 0, 0
    for f in files:
        p, t, n = process(f, a.write)
        problems += p
        tables += t
        figs += n
    for p in problems:
        print(p)
    print(f"{tables} tables and {figs} figures checked against the record"
          + (f", {len(problems)} problems" if problems else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
