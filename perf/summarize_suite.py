#!/usr/bin/env python3
"""A short summary of a suite JSON: per dtype and decode share (and the serving batches), kattn's
share of the hardware limit and its speed-up over each baseline (docs/performance.md).

    python3 perf/summarize_suite.py SUITE.json
"""
import argparse
import math
import statistics
import sys

import suite_json


def group_of(case):
    """(order, label): the grid by decode share, then the serving batches."""
    if not suite_json.is_grid(case):
        return (2.0, "serving")
    share = case["spec"]["decode_share"]
    return (share, f"decode {share:.0%}")


def summary_rows(doc):
    """[(dtype, group, cases, kattn limit shares, {baseline: [baseline time / kattn time]})]."""
    impls = suite_json.implementations(doc)
    kattn = impls.get("kattn", {})
    baselines = sorted(label for label in impls if not label.startswith("kattn"))
    groups = {}
    for case in doc["cases"]:
        groups.setdefault((case["dtype"], group_of(case)), []).append(case)
    rows = []
    for (dtype, group), cases in sorted(groups.items()):
        ran = [c for c in cases if c["name"] in kattn]
        shares = [s for s in (suite_json.limit_share(kattn[c["name"]]) for c in ran) if s is not None]
        ratios = {b: [suite_json.time_us(impls[b][c["name"]]) / suite_json.time_us(kattn[c["name"]]) for c in ran if c["name"] in impls[b]]
                  for b in baselines}
        rows.append((dtype, group[1], len(cases), shares, ratios))
    return rows


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", help="suite JSON (kattn bench --output, baselines merged by torch_sdpa.py)")
    try:
        doc = suite_json.load(parser.parse_args().suite)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    hardware = doc["hardware"]
    peaks = ", ".join(f"{d} {p}" for d, p in hardware["peak_tflop_per_s"].items() if p) or "unknown"
    print(f"suite summary: {doc['device']} ({doc['backend']}, {doc['arch']}), commit {doc.get('commit') or 'unknown'}, "
          f"{doc['date']}; copy {hardware['copy_gb_per_s']:.0f} GB/s, peak TFLOP/s {peaks}")
    rows = summary_rows(doc)
    baselines = sorted({b for *_, ratios in rows for b in ratios})
    print(f"{'dtype':<6} {'group':<12} {'cases':>5}  {'kattn % of limit: median (min-max)':<36}"
          + "".join(f" {'vs ' + b:>18}" for b in baselines))
    for dtype, group, count, shares, ratios in rows:
        limit = (f"{100 * statistics.median(shares):.1f} ({100 * min(shares):.1f}-{100 * max(shares):.1f})"
                 if shares else "-")
        cells = "".join(f" {f'{geometric_mean(r):.2f}x ({len(r)})' if r else '-':>18}" for r in
                        (ratios.get(b, []) for b in baselines))
        print(f"{dtype:<6} {group:<12} {count:>5}  {limit:<36}{cells}")
    print("vs BACKEND: geometric mean of the backend's time over kattn's, over the cases both ran (count); "
          "above 1x kattn is faster")
    return 0


if __name__ == "__main__":
    sys.exit(main())
