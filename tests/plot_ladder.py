"""tests/plot_ladder.py CSV PNG - the figures of `make plot`, drawn from a bench CSV (the schema of
CONTRIBUTING.md).

PNG is the overview: one small panel per problem (the CSV's `problem` column), the problems in the
order the CSV first names them, laid out in up to four columns (read down, then across) so that it
fits a slide: 1600 pixels wide at most, as high as the tallest column needs with bars of at most 24
pixels, and 1200 pixels at most unless bars would get thinner than 13. Beside it, PNG with -NN before the extension (ladder-03.png) is the same figure
for chapter NN's programs alone, one per chapter that has rows.

A panel shows one size of its problem, the headline size: the largest M x N x K (or grid), or the
one HEADLINE names (the reference layer of chapter 02, the default stencil shape of chapter 06; the
same choices as the chapters' `make bench QUICK=1` arguments). Each rung at that size is one bar:
its length is the CSV's pct_of_baseline, the percentage of the baseline measured on the same GPU in
the same run, and the bar carries the rate. The panel's baseline is the one most of its rows name;
it is drawn once, grey, at 100 %, with the rates every program measured for it. A row whose baseline
is another rung (chapter 01's alignment rows name f16_f32) is scaled by that rung's percentage.
Ceilings (a variant named ..._ceiling or ..._bound: the mma.sync, wgmma, dp4a and int8 throughput
ceilings, the stencil's copy bound) are dashed vertical lines, each labelled in a row of its own
at the bottom of the panel; a ceiling that is its own baseline is placed by its rate over the panel
baseline's (as that program measured it, else the median over the chapter's programs, else over all).
Each program has its own colour in every figure; bars of a panel that mixes chapters are prefixed
with the chapter number, and the programs that share a panel are named in a legend at the top. A
row that failed its check is hatched red and marked FAIL.
"""
import csv
import os
import re
import statistics
import sys

import matplotlib
import matplotlib.colors
import matplotlib.patches

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backends.backend_agg import RendererAgg  # noqa: E402
from matplotlib.font_manager import FontProperties  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: E402

# problem -> the size (a substring of the CSV's size column) its panel shows, where the largest is
# not the one the chapter's lesson is about
HEADLINE = {
    "convolution": "n32c256h28w28k256r3s3p1u1d1",  # 02: ref_3x3_c256_28, the reference layer
    "stencil": "Box-2D49P",  # 06: the default shape
}

DPI = 100
MAX_W, MAX_H = 1600, 1200  # pixels
COL_W = 397  # one column of panels (four fill 1600 pixels)
TOP = 64  # the figure title
HEAD = 36  # a panel's title (two lines)
FOOT = 24  # a panel's x tick labels
GAP = 16  # between panels
UNIT_MAX, UNIT_MIN = 24, 13  # one bar
LABEL_PT, TEXT_PT, TITLE_PT = 8, 7, 8.5

BASE_COLOUR = "#9a9a9a"
CEIL_COLOUR = "#222222"
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
           "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd"]  # no grey, no red


def is_ceiling(variant):
    return variant.endswith("_ceiling") or variant.endswith("_bound")


def size_key(size):
    """Larger for larger problems: the product of the first AxB[xC] in the size, else of all numbers."""
    m = re.search(r"\d+(?:x\d+)+", size)
    nums = [int(x) for x in (m.group(0).split("x") if m else re.findall(r"\d+", size))]
    key = 1
    for n in nums:
        key *= n
    return key


def fmt_rate(r):
    return f"{r:.0f}" if r >= 100 else f"{r:.1f}" if r >= 10 else f"{r:.2f}"


def fmt_pct(p):
    return f"{p:.0f}%" if p >= 10 else f"{p:.1f}%"


def headline_size(problem, rows):
    sizes = []
    for r in rows:
        if not is_ceiling(r["variant"]) and r["size"] not in sizes:
            sizes.append(r["size"])
    if not sizes:
        return None
    want = HEADLINE.get(problem)
    if want:
        for s in sizes:
            if want in s:
                return s
    return max(sizes, key=size_key)  # the first of the largest


def light(colour):
    r, g, b = matplotlib.colors.to_rgb(colour)
    return 0.299 * r + 0.587 * g + 0.114 * b > 0.6


def make_panel(problem, rows, programs):
    """The bars and ceilings of one problem's panel (rows: that problem's rows only)."""
    size = headline_size(problem, rows)
    at = [r for r in rows if not is_ceiling(r["variant"]) and r["size"] == size]
    ceilings = [r for r in rows if is_ceiling(r["variant"])]
    if not at:
        return None
    names = [r["baseline"] for r in at]
    base = max(dict.fromkeys(names), key=names.count)  # the most common, the first of equals
    chapters = sorted({r["chapter"][:2] for r in at + ceilings})
    prefix = len(chapters) > 1
    unit = at[0]["unit"]

    def label(r):
        return f'{r["chapter"][:2]} {r["variant"]}' if prefix else r["variant"]

    def colour(r):
        return PALETTE[programs.index(r["chapter"]) % len(PALETTE)]

    base_rows = [r for r in at if r["variant"] == base]
    items = []
    if base_rows:
        rates = [r["rate"] for r in base_rows]
        lo, hi = min(rates), max(rates)
        text = f"{fmt_rate(lo)} {unit}" if fmt_rate(lo) == fmt_rate(hi) else \
            f"{fmt_rate(lo)}–{fmt_rate(hi)} {unit} ({len(rates)} programs)"
        items.append(dict(kind="base", label=base, pct=100.0, text=text, colour=BASE_COLOUR, program="",
                          fail=any(r["verified"] == "fail" for r in base_rows)))
    left_out = []
    for r in at:
        if r["variant"] == base:
            continue
        pct, note = r["pct"], ""
        if r["baseline"] != base:  # scale by its baseline's percentage (chapter 01's extras)
            via = [b for b in at if b["variant"] == r["baseline"] and b["chapter"] == r["chapter"]
                   and b["baseline"] == base]
            if not via:
                left_out.append(r["variant"])
                continue
            pct, note = r["pct"] * via[0]["pct"] / 100.0, f' = {fmt_pct(r["pct"])} of {r["baseline"]}'
        items.append(dict(kind="bar", label=label(r), pct=pct, colour=colour(r), program=r["chapter"],
                          fail=r["verified"] == "fail",
                          text=f'{fmt_rate(r["rate"])} {unit} · {fmt_pct(pct)}{note}'))
    for r in ceilings:
        if r["unit"] != unit:
            continue
        if r["baseline"] == base:
            pct = r["pct"]
        else:  # its own baseline: place it by its rate over the panel baseline's
            same = [b["rate"] for b in base_rows if b["chapter"] == r["chapter"]] or \
                   [b["rate"] for b in base_rows if b["chapter"][:2] == r["chapter"][:2]] or \
                   [b["rate"] for b in base_rows]
            if not same:
                continue
            pct = 100.0 * r["rate"] / statistics.median(same)
        items.append(dict(kind="ceiling", label=label(r), pct=pct, colour=CEIL_COLOUR, fail=False,
                          program=r["chapter"],
                          text=f'{fmt_rate(r["rate"])} {unit} · {fmt_pct(pct)}'))
    # ceilings last, so their labels sit in rows of their own below the bars
    items.sort(key=lambda it: it["kind"] == "ceiling")
    return dict(problem=problem, size=size, base=base, unit=unit, items=items, left_out=left_out)


def text_width(s, pt, renderer, bold=False):
    w, _, _ = renderer.get_text_width_height_descent(
        s, FontProperties(size=pt, weight="bold" if bold else "normal"), ismath=False)
    return w


def partition(heights, k):
    """Split the list into at most k contiguous groups, minimising the tallest group."""
    n = len(heights)
    k = min(k, n)
    best = None

    def rec(start, groups_left, acc):
        nonlocal best
        if groups_left == 1:
            cand = acc + [list(range(start, n))]
            tallest = max(sum(heights[i] for i in g) for g in cand)
            if best is None or tallest < best[0]:
                best = (tallest, cand)
            return
        for end in range(start + 1, n - groups_left + 2):
            rec(end, groups_left - 1, acc + [list(range(start, end))])

    rec(0, k, [])
    return best[1]


def draw_panel(ax, p):
    items = p["items"]
    n = len(items)
    xmax = max(max(it["pct"] for it in items), 100.0) * 1.08
    ax.set_xlim(0, xmax)
    ax.set_ylim(n - 0.5, -0.5)
    ax.axvline(100, color="#555555", lw=0.8, zorder=1)
    for y, it in enumerate(items):
        inside = it["pct"] > 0.55 * xmax
        if it["kind"] == "ceiling":
            ax.axvline(it["pct"], color=CEIL_COLOUR, lw=0.9, ls=(0, (4, 3)), zorder=1.5)  # behind bars
            ax.plot([it["pct"]], [y], marker="D", ms=5, color=CEIL_COLOUR, zorder=4)
        else:
            ax.barh(y, it["pct"], height=0.72, color=it["colour"], zorder=2,
                    hatch="////" if it["fail"] else None, edgecolor="red" if it["fail"] else None)
        text = it["text"] + ("  FAIL" if it["fail"] else "")
        pad = 0.012 * xmax + (0.012 * xmax if it["kind"] == "ceiling" else 0)
        on_bar = inside and it["kind"] != "ceiling"
        ax.text(it["pct"] - pad if inside else it["pct"] + pad, y, text, va="center",
                ha="right" if inside else "left", fontsize=TEXT_PT, zorder=5,
                color="black" if not on_bar or light(it["colour"]) else "white",
                bbox=None if on_bar else dict(fc="white", ec="none", pad=0.5, alpha=0.85))
    ax.set_yticks(range(n), [it["label"] for it in items], fontsize=LABEL_PT)
    for tick, it in zip(ax.get_yticklabels(), items):
        if it["kind"] == "ceiling":
            tick.set_fontstyle("italic")
        if it["fail"]:
            tick.set_color("red")
    ax.tick_params(axis="y", length=0, pad=3)
    ax.tick_params(axis="x", labelsize=TEXT_PT, length=2, pad=1)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.0f}%"))
    ax.grid(axis="x", color="#e4e4e4", lw=0.6, zorder=0)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def figure_title(rows, which):
    first = rows[0]
    shas = list(dict.fromkeys(r["git_sha"] for r in rows))
    dates = sorted(r["date"][:10] for r in rows if r["date"])
    gpus = list(dict.fromkeys(r["gpu"] for r in rows))
    gpu = " + ".join(gpus) if len(gpus) > 1 else \
        f'{first["gpu"]} (cc {first["cc"]}, {first["sms"]} SMs, {first["clock_mhz"]} MHz)'
    when = dates[0] if dates and dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}" if dates else ""
    line1 = f'Tensor-core ladder{which}: {gpu}, commit {", ".join(shas)}'
    line2 = (f'driver {first["driver"]}, CUDA {first["cuda"]}, {when}.  Each panel: one problem at one '
             "size; bar = % of the baseline measured in the same run, with the rate.")
    return line1, line2


def panel_title(p):
    ceil = "; dashed: ceilings" if any(it["kind"] == "ceiling" for it in p["items"]) else ""
    return f'{p["problem"]}, {p["size"]}', f'% of {p["base"]} (same run){ceil}'


def draw(rows, png, which, columns, programs):
    problems = list(dict.fromkeys(r["problem"] for r in rows))
    panels = []
    for prob in problems:
        p = make_panel(prob, [r for r in rows if r["problem"] == prob], programs)
        if p:
            panels.append(p)
            if p["left_out"]:
                print(f'  {prob}: left out {", ".join(p["left_out"])} (baseline not in the panel)')
    if not panels:
        return None
    renderer = RendererAgg(MAX_W, MAX_H, DPI)
    fixed = HEAD + FOOT + GAP
    # columns: as many as asked, in reading order; then the bar pitch that fits MAX_H
    k = min(columns, len(panels))
    groups = partition([len(p["items"]) + fixed / UNIT_MAX for p in panels], k)
    bars = max(sum(len(panels[i]["items"]) for i in g) for g in groups)
    fixed_px = max(len(g) for g in groups) * fixed
    unit = max(UNIT_MIN, min(UNIT_MAX, (MAX_H - TOP - fixed_px) / bars))
    col_h = [sum(len(panels[i]["items"]) * unit + fixed for i in g) for g in groups]
    line1, line2 = figure_title(rows, which)
    # programs whose bars share a panel with another program's: their colours get a legend
    shared = []
    for p in panels:
        progs = list(dict.fromkeys(it["program"] for it in p["items"] if it["kind"] == "bar"))
        if len(progs) > 1:
            shared += [q for q in progs if q not in shared]
    legend_w = sum(text_width(q, TEXT_PT, renderer) + 34 for q in shared)
    need = max(text_width(line1, 11, renderer, bold=True), text_width(line2, 8.5, renderer)) + 40
    col_w = max(COL_W, min(MAX_W // len(groups), (need + legend_w) / len(groups)))
    width, height = int(round(col_w * len(groups))), int(round(TOP + max(col_h)))
    fig = plt.figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    fig.text(10 / width, 1 - 8 / height, line1, fontsize=11, weight="bold", va="top")
    fig.text(10 / width, 1 - 30 / height, line2, fontsize=8.5, va="top", color="#333333")
    if shared:
        handles = [matplotlib.patches.Patch(color=PALETTE[programs.index(q) % len(PALETTE)], label=q)
                   for q in shared]
        fig.legend(handles=handles, loc="upper right", bbox_to_anchor=(1 - 8 / width, 1 - 28 / height),
                   ncol=len(shared), fontsize=TEXT_PT, frameon=False, handlelength=1.2,
                   columnspacing=1.2, borderaxespad=0)
    for c, g in enumerate(groups):
        labels = [it["label"] for i in g for it in panels[i]["items"]]
        left = 12 + max(text_width(s, LABEL_PT, renderer) for s in labels)
        x0, x1 = c * col_w + left, (c + 1) * col_w - 18
        y = TOP
        for i in g:
            p = panels[i]
            h = len(p["items"]) * unit
            top = y + HEAD
            t1, t2 = panel_title(p)
            fig.text((c * col_w + 10) / width, 1 - (y + 2) / height, t1, fontsize=TITLE_PT,
                     weight="bold", va="top")
            fig.text((c * col_w + 10) / width, 1 - (y + 17) / height, t2, fontsize=TITLE_PT - 0.5,
                     va="top", color="#333333")
            ax = fig.add_axes([x0 / width, 1 - (top + h) / height, (x1 - x0) / width, h / height])
            draw_panel(ax, p)
            y = top + h + FOOT + GAP
    fig.savefig(png, dpi=DPI)
    plt.close(fig)
    return width, height


def main(csv_path, png_path):
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["rate"] = float(r["rate"] or 0)
        r["pct"] = float(r["pct_of_baseline"] or 0)
    if not rows:
        print(f"make plot: {csv_path} has no rows")
        return 1
    programs = list(dict.fromkeys(r["chapter"] for r in rows))  # a colour each, in every figure
    size = draw(rows, png_path, "", 4, programs)
    print(f"wrote {png_path} ({size[0]} x {size[1]} pixels)")
    stem, ext = os.path.splitext(png_path)
    for ch in dict.fromkeys(r["chapter"][:2] for r in rows):
        sel = [r for r in rows if r["chapter"][:2] == ch]
        out = f"{stem}-{ch}{ext or '.png'}"
        size = draw(sel, out, f", chapter {ch}", 3, programs)
        if size:
            print(f"wrote {out} ({size[0]} x {size[1]} pixels)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_ladder.py CSV PNG")
    sys.exit(main(sys.argv[1], sys.argv[2]))
