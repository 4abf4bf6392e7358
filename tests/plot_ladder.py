"""Draws the performance ladder from build/bench.csv: one panel per problem, one bar per row,
labelled with the row's percentage of its baseline (measured in the same run)."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(csv_path, png_path):
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    problems = []
    for r in rows:
        if r["problem"] not in problems:
            problems.append(r["problem"])
    fig, axes = plt.subplots(len(problems), 1, figsize=(11, 0.45 * len(rows) + 1.6 * len(problems)),
                             squeeze=False)
    for ax, prob in zip(axes[:, 0], problems):
        sel = [r for r in rows if r["problem"] == prob]
        labels = [f'{r["chapter"]}/{r["variant"]} {r["size"]}' for r in sel]
        rates = [float(r["rate"]) for r in sel]
        bars = ax.barh(range(len(sel)), rates, color=["tab:blue" if r["verified"] == "pass" else "tab:red" for r in sel])
        ax.set_yticks(range(len(sel)), labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel(" / ".join(sorted({r["unit"] for r in sel})))
        ax.set_title(f'{prob} on {sel[0]["gpu"]} (CUDA {sel[0]["cuda"]}, {sel[0]["git_sha"]})', fontsize=10)
        for bar, r in zip(bars, sel):
            ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2,
                    f' {float(r["pct_of_baseline"]):.0f}% of {r["baseline"]}', va="center", fontsize=7)
        ax.margins(x=0.25)
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    print(f"wrote {png_path}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
