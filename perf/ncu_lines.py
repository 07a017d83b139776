#!/usr/bin/env python3
"""Where a kernel's instructions come from in its CUDA source, from Nsight Compute's source page of
one launch of a build compiled with -lineinfo, profiled with --import-source yes:
    ncu -i REPORT.ncu-rep --page source --csv --print-source cuda,sass | gzip > CUDA-SASS.csv.gz
    python3 perf/ncu_lines.py CUDA-SASS.csv.gz ITEM_COUNTS STEP_COUNTS ITEMS
Each SASS instruction counts once, for the innermost source line the page lists it under (an
inlined function's line, not its caller's). ITEM_COUNTS and STEP_COUNTS are comma-separated
executed counts (warp instructions) that mark a line run once a work item or once a step (for
b16 512 at teams of 4: 16384,16896,14336,12288,4224,4096,20480 and 57344,43008,30720); ITEMS is
the item-warps to divide by (16384). Prints the totals, each file's instructions an item-warp and
share of the stall samples, then the source lines by their instructions an item-warp."""
import collections
import csv
import gzip
import sys


def main():
    path, item_counts, step_counts, items = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    item_counts = {int(c) for c in item_counts.split(',')}
    step_counts = {int(c) for c in step_counts.split(',')}
    opened = gzip.open(path, 'rt') if path.endswith('.gz') else open(path)
    per_line = collections.defaultdict(lambda: [0, 0, 0, 0])  # item, step, all instructions; samples
    seen, source_file, source_line = set(), None, None
    for row in csv.reader(opened):
        if not row or row[0] in ('Function Name', 'Line No'):
            continue
        if row[0] == 'File Path':
            source_file = row[1].split('/')[-1]
        elif row[0] != '':
            source_line = int(row[0])
        elif row[2] not in seen:  # a SASS row: address, instruction, samples, ..., executed
            seen.add(row[2])
            try:
                executed, samples = int(row[7]), int(row[4])
            except ValueError:
                continue
            counts = per_line[(source_file, source_line)]
            counts[0] += executed if executed in item_counts else 0
            counts[1] += executed if executed in step_counts else 0
            counts[2] += executed
            counts[3] += samples
    total_samples = sum(c[3] for c in per_line.values()) or 1
    print('%d instructions at %d addresses; %.1f an item-warp on item lines, %.1f on step lines' %
          (sum(c[2] for c in per_line.values()), len(seen), sum(c[0] for c in per_line.values()) / items,
           sum(c[1] for c in per_line.values()) / items))
    by_file = collections.defaultdict(lambda: [0, 0])
    for (name, _), counts in per_line.items():
        by_file[name][0] += counts[0]
        by_file[name][1] += counts[3]
    print('\nfile: item-line instructions an item-warp, share of all stall samples')
    for name, (item, samples) in sorted(by_file.items(), key=lambda kv: -kv[1][0])[:15]:
        print('  %-30s %7.1f %6.1f %%' % (name, item / items, 100.0 * samples / total_samples))
    print('\nline: item-line instructions an item-warp, step-line ones, share of all stall samples')
    for (name, line), counts in sorted(per_line.items(), key=lambda kv: -kv[1][0])[:40]:
        print('  %-28s %5d %7.1f %7.1f %6.2f %%' %
              (name, line, counts[0] / items, counts[1] / items, 100.0 * counts[3] / total_samples))


if __name__ == '__main__':
    main()
