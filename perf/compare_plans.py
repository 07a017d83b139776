#!/usr/bin/env python3
"""Tuned against untuned plans on the suite: two `kattn bench --output` runs of the same scenario, one
with the tuning table, one with `--untuned`, compared per case group (summarize_suite.py's groups):
the geometric-mean speed-up of the tuned plans and how many cases each way (docs/tuning-tables.md).

    python3 perf/compare_plans.py TUNED.json UNTUNED.json
"""
import argparse
import sys

import suite_json
import summarize_suite


def planned_times(doc):
    """{(case, dtype): mean µs} of the planned (not forced) results."""
    return {(r["case"], r["dtype"]): r["mean_us"] for r in doc["results"] if not r["forced"] and r.get("mean_us")}


def comparison_rows(tuned, untuned):
    """[(dtype, group, [untuned time / tuned time per case both ran])], in summarize_suite's order."""
    tuned_times, untuned_times = planned_times(tuned), planned_times(untuned)
    groups = {}
    for case in tuned["cases"]:
        key = (case["name"], case["dtype"])
        if key in tuned_times and key in untuned_times:
            ratios = groups.setdefault((case["dtype"], summarize_suite.group_of(case)), [])
            ratios.append(untuned_times[key] / tuned_times[key])
    return [(dtype, group[1], ratios) for (dtype, group), ratios in sorted(groups.items())]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tuned", help="kattn bench --output of the tuned plans")
    parser.add_argument("untuned", help="kattn bench --untuned --output of the same scenario (or another table's run)")
    args = parser.parse_args()
    try:
        tuned, untuned = suite_json.load(args.tuned), suite_json.load(args.untuned)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    # The second run is usually --untuned; another table's run (e.g. the previous one) compares too.
    other = "untuned" if untuned.get("untuned") else f"table {untuned.get('tuning_table') or 'built in'}"
    print(f"tuned {args.tuned} ({tuned['device']}, {tuned['date']}) against {other} {args.untuned}")
    print(f"{'dtype':<6} {'group':<12} {'cases':>5} {'speed-up':>9} {'faster':>7} {'slower':>7}")
    everything = []
    for dtype, group, ratios in comparison_rows(tuned, untuned):
        everything += ratios
        print(f"{dtype:<6} {group:<12} {len(ratios):>5} {summarize_suite.geometric_mean(ratios):>8.2f}x "
              f"{sum(r > 1 for r in ratios):>7} {sum(r < 1 for r in ratios):>7}")
    if everything:
        print(f"{'all':<19} {len(everything):>5} {summarize_suite.geometric_mean(everything):>8.2f}x "
              f"{sum(r > 1 for r in everything):>7} {sum(r < 1 for r in everything):>7}")
    print(f"speed-up: geometric mean of the {other} time over the tuned time; faster/slower: cases where the tuned "
          "plan was faster/slower")
    return 0


if __name__ == "__main__":
    sys.exit(main())
