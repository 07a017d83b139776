#!/usr/bin/env python3
"""Where a kernel's warps stall, from Nsight Compute's source page of one profiled launch:
    ncu -i REPORT.ncu-rep --page source --csv --print-source sass > SASS.csv
    python3 perf/ncu_stalls.py SASS.csv
prints each stall reason's share of all samples, then, in address order, the SASS lines holding at
least 0.15 % of the samples with their executed count and their three largest reasons."""
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
    print('\ninstructions with >= 0.15% of samples, in address order: share, executed, top stalls')
    for r in rows:
        if num(r, sampled) / all_samples >= 0.0015:
            top = sorted(((num(r, k), k[6:]) for k in reasons), reverse=True)[:3]
            print(f"{num(r, sampled) / all_samples * 100:5.2f}% {r['Address'][-5:]} "
                  f"{int(num(r, 'Instructions Executed')):>9d}  {r['Source'][:70]:70s} " +
                  ' '.join(f"{k}:{v / max(num(r, sampled), 1) * 100:.0f}" for v, k in top if v))


if __name__ == '__main__':
    main(sys.argv[1])
