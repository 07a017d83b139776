#!/usr/bin/env python3
"""Plots of a suite JSON (kattn bench with the merged baselines) after the paper's Figure 6, as PNG
files in OUT_DIR (docs/performance.md):

  latency-vs-batch-DTYPE.png   latency against batch size, a panel per decode share (rows) and maximum
                               sequence length (columns); solid: random lengths, dashed: fixed (Fig. 6a)
  latency-vs-tokens-DTYPE.png  latency and share of the hardware limit against batch tokens (the sum
                               of the sequence lengths), a column per decode share (Fig. 6c)
  serving.png                  the serving batches: latency, labelled with the share of the hardware limit

    python3 perf/plot_suite.py SUITE.json OUT_DIR
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after choosing the file-only backend)
from matplotlib.ticker import FuncFormatter, LogFormatter  # noqa: E402

import suite_json  # noqa: E402

LINESTYLES = {"rand": "-", "fixed": "--"}
MARKERS = {"rand": "o", "fixed": "s"}
PATTERN_LABELS = {"rand": "lengths in [max/4, max]", "fixed": "lengths = max"}


def colors(labels):
    palette = plt.get_cmap("tab10").colors
    return {label: palette[i % len(palette)] for i, label in enumerate(labels)}


def ordered_labels(impls):
    """kattn first, then its forced variants, then the baselines."""
    return sorted(impls, key=lambda label: (not label.startswith("kattn"), label != "kattn", label))


def title(doc, what):
    commit = doc.get("commit") or "commit unknown"
    return f"{what} — {doc['device']} ({doc['backend']}), {commit}, {doc['date']}"


def figure_legend(fig, color_of, patterns):
    handles = [plt.Line2D([], [], color=c, lw=2, label=label) for label, c in color_of.items()]
    handles += [plt.Line2D([], [], color="grey", ls=LINESTYLES[p], marker=MARKERS[p], label=PATTERN_LABELS[p])
                for p in patterns]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False)


def percent_label(share):
    return f"{100 * share:.0f}%" if share >= 0.0995 else f"{100 * share:.2g}%"


def short_number(value, unit=1000):
    """16, 300, 4k, 2.5M: tick labels for sizes (unit 1024) and microseconds (unit 1000)."""
    for suffix, scale in (("M", unit ** 2), ("k", unit)):
        if value >= scale:
            return f"{value / scale:g}{suffix}"
    return f"{value:g}"


def log_axes(ax, x_base):
    """Log scales labelled with short plain numbers rather than powers (2^4, 3x10^2)."""
    ax.set_xscale("log", base=x_base)
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: short_number(value, unit=1024)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: short_number(value)))
    ax.yaxis.set_minor_formatter(LogFormatter(labelOnlyBase=False, minor_thresholds=(1, 0.5)))
    ax.grid(True, which="both", alpha=0.3)


def save(fig, path, top):
    fig.tight_layout(rect=(0, 0.05, 1, top))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_latency_vs_batch(doc, cases, impls, color_of, dtype, path):
    shares = sorted({c["spec"]["decode_share"] for c in cases})
    lengths = sorted({c["spec"]["max_seq_len"] for c in cases})
    fig, axes = plt.subplots(len(shares), len(lengths), squeeze=False,
                             figsize=(max(10.0, 2.7 * len(lengths)), 2.5 * len(shares) + 1.2))
    for row, share in enumerate(shares):
        for col, length in enumerate(lengths):
            ax = axes[row][col]
            panel = [c for c in cases if c["spec"]["decode_share"] == share and c["spec"]["max_seq_len"] == length]
            if not panel:
                ax.set_axis_off()
                ax.text(0.5, 0.5, "not in the suite", ha="center", va="center", transform=ax.transAxes, color="grey")
                continue
            for label in impls:
                for pattern in LINESTYLES:
                    points = sorted((c["spec"]["batch_size"], suite_json.time_us(impls[label][c["name"]])) for c in panel
                                    if suite_json.pattern(c) == pattern and c["name"] in impls[label])
                    if points:
                        ax.plot(*zip(*points), color=color_of[label], ls=LINESTYLES[pattern], marker=MARKERS[pattern],
                                ms=3, lw=1.2)
            log_axes(ax, x_base=2)
            ax.set_title(f"max len {short_number(length, unit=1024)}, decode {share:.0%}", fontsize=9)
            if col == 0:
                ax.set_ylabel("latency (µs)")
            if row == len(shares) - 1:
                ax.set_xlabel("batch size")
    figure_legend(fig, color_of, LINESTYLES)
    fig.suptitle(title(doc, f"latency against batch size, {dtype}"), fontsize=11)
    save(fig, path, top=0.95)


def plot_latency_vs_tokens(doc, cases, impls, color_of, dtype, path):
    shares = sorted({c["spec"]["decode_share"] for c in cases})
    fig, axes = plt.subplots(2, len(shares), figsize=(max(10.0, 4.2 * len(shares)), 7.5), squeeze=False, sharex="col")
    for col, share in enumerate(shares):
        panel = [c for c in cases if c["spec"]["decode_share"] == share]
        for label in impls:
            for pattern in MARKERS:
                hits = [(suite_json.batch_tokens(c), impls[label][c["name"]]) for c in panel
                        if suite_json.pattern(c) == pattern and c["name"] in impls[label]]
                if not hits:
                    continue
                x = [tokens for tokens, _ in hits]
                style = dict(color=color_of[label], marker=MARKERS[pattern], s=12, alpha=0.8,
                             facecolors="none" if pattern == "fixed" else color_of[label])
                axes[0][col].scatter(x, [suite_json.time_us(r) for _, r in hits], **style)
                limit = [(t, 100 * suite_json.limit_share(r)) for t, r in hits if suite_json.limit_share(r) is not None]
                if limit:
                    axes[1][col].scatter(*zip(*limit), **style)
        axes[0][col].set_title(f"decode share {share:.0%}", fontsize=10)
        axes[1][col].axhline(100, color="black", lw=0.8)
        axes[1][col].set_xlabel("batch tokens (sum of sequence lengths)")
        for ax in axes[:, col]:
            log_axes(ax, x_base=4)
    axes[0][0].set_ylabel("latency (µs)")
    axes[1][0].set_ylabel("share of the hardware limit (%)")
    figure_legend(fig, color_of, MARKERS)
    fig.suptitle(title(doc, f"latency against batch tokens, {dtype}") + "\nhardware limit: "
                 "bytes at the measured copy bandwidth or FLOPs at peak, whichever takes longer", fontsize=10)
    save(fig, path, top=0.93)


def plot_serving(doc, cases, impls, color_of, path):
    """A dot per implementation and case on a log axis, labelled with the share of the hardware limit."""
    dtypes = sorted({c["dtype"] for c in cases})
    rows = max(sum(c["dtype"] == dtype for c in cases) for dtype in dtypes)
    fig, axes = plt.subplots(1, len(dtypes), figsize=(max(10.0, 6.5 * len(dtypes)), 0.3 * rows * len(impls) + 2.0),
                             squeeze=False)
    step = 0.8 / len(impls)
    for ax, dtype in zip(axes[0], dtypes):
        names = [c["name"] for c in cases if c["dtype"] == dtype]
        for i, label in enumerate(impls):
            for y, name in enumerate(names):
                row = impls[label].get(name)
                if row is None:
                    continue
                ax.plot(suite_json.time_us(row), y + i * step, "o", color=color_of[label])
                share = suite_json.limit_share(row)
                if share is not None:
                    ax.annotate(percent_label(share), (suite_json.time_us(row), y + i * step), xytext=(5, 0),
                                textcoords="offset points", va="center", fontsize=7)
        ax.set_yticks([y + 0.4 - step / 2 for y in range(len(names))], names, fontsize=8)
        ax.set_ylim(len(names) - 0.1, -0.1 - step)
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: short_number(value)))
        ax.set_xlabel("latency (µs); label: share of the hardware limit")
        ax.grid(True, which="both", alpha=0.3)
        ax.set_title(dtype, fontsize=10)
    figure_legend(fig, color_of, [])
    fig.suptitle(title(doc, "serving batches (a missing dot: the backend refused the shape)"), fontsize=11)
    save(fig, path, top=0.92)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", help="suite JSON (kattn bench --output, baselines merged by torch_sdpa.py)")
    parser.add_argument("out_dir", help="folder for the PNG files")
    args = parser.parse_args()
    try:
        doc = suite_json.load(args.suite)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    os.makedirs(args.out_dir, exist_ok=True)
    impls = suite_json.implementations(doc)
    impls = {label: impls[label] for label in ordered_labels(impls)}
    color_of = colors(impls)
    written = []
    for dtype in sorted({c["dtype"] for c in doc["cases"]}):
        grid = [c for c in doc["cases"] if c["dtype"] == dtype and suite_json.is_grid(c)]
        if grid:
            written.append(os.path.join(args.out_dir, f"latency-vs-batch-{dtype}.png"))
            plot_latency_vs_batch(doc, grid, impls, color_of, dtype, written[-1])
            written.append(os.path.join(args.out_dir, f"latency-vs-tokens-{dtype}.png"))
            plot_latency_vs_tokens(doc, grid, impls, color_of, dtype, written[-1])
    serving = [c for c in doc["cases"] if not suite_json.is_grid(c)]
    if serving:
        written.append(os.path.join(args.out_dir, "serving.png"))
        plot_serving(doc, serving, impls, color_of, written[-1])
    print("wrote " + ", ".join(written))


if __name__ == "__main__":
    main()
