#!/usr/bin/env python3
"""Where a kernel's warps stall, from Nsight Compute's source page of one profiled launch:
    ncu -i REPORT.ncu-rep --page source --csv --print-source sass > SASS.csv
    python3 perf/ncu_stalls.py SASS.csv
prints each stall reason's share of all samples; the lines grouped by how often each ran (a kernel's
code run once an item, once a step, ...: each group's lines, instructions and samples); then, in
address order, the SASS lines holding at least 0.15 % of the samples with their executed count and
their three largest reasons."""
import collections
import csv
import io
import sys


def main(path):
    text = open(path).read()
    rows = list(csv.DictReader(io.StringIO(text[text.find('"Address"'):])))
    reasons = [k for k in rows[0] if k.startswith('stall_')]
    num = lambda row, key: float(row.get(key) or 0)
    totals = {k: sum(num(r, k) for r in rows) for k in reasons}
    everything = sum(totals.values()) or 1
    print('stall breakdown (share of all samples):')
    for k, v in sorted(totals.items(), key=lambda x: -x[1]):
        if v:
            print(f"  {k:28s} {v / everything * 100:5.1f}%")
    sampled = 'Warp Stall Sampling (All Samples)'
    all_samples = sum(num(r, sampled) for r in rows) or 1
    executed = 'Instructions Executed'
    groups = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for r in rows:
        g = groups[int(num(r, executed))]
        g[0] += 1
        g[1] += num(r, executed)
        g[2] += num(r, sampled)
    all_executed = sum(g[1] for g in groups.values()) or 1
    print(f'\nlines by executed count ({int(all_executed)} warp instructions): count, lines, '
          'share of instructions, share of samples')
    for count, (lines, n, samples) in sorted(groups.items(), key=lambda x: -x[1][1])[:12]:
        if count:
            print(f"  {count:>9d} {lines:6d} {n / all_executed * 100:5.1f}% {samples / all_samples * 100:5.1f}%")
    print('\ninstructions with >= 0.15% of samples, in address order: share, executed, top stalls')
    for r in rows:
        if num(r, sampled) / all_samples >= 0.0015:
            top = sorted(((num(r, k), k[6:]) for k in reasons), reverse=True)[:3]
            print(f"{num(r, sampled) / all_samples * 100:5.2f}% {r['Address'][-5:]} "
                  f"{int(num(r, 'Instructions Executed')):>9d}  {r['Source'][:70]:70s} " +
                  ' '.join(f"{k}:{v / max(num(r, sampled), 1) * 100:.0f}" for v, k in top if v))


if __name__ == '__main__':
    main(sys.argv[1])
