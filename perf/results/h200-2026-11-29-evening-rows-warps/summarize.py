#!/usr/bin/env python3
"""Lower of the rounds' medians (kernel µs) of two probe binaries in an A/B file whose lines read
"BINARY GRID ROUND case/tN team T mean M median D min L sum A W"; the ratio B/A and whether the
output checksums agree.  Usage: summarize.py ab.txt A B"""
import collections
import sys

path, a, b = sys.argv[1:4]
medians, sums = collections.defaultdict(list), {}
for line in open(path):
    f = line.split()
    if len(f) < 15 or f[0] not in (a, b):
        continue
    key = (f[3], f[1], f[0])
    medians[key].append(float(f[9]))
    sums.setdefault(key, (f[13], f[14]))
for case, grid in sorted({(k[0], k[1]) for k in medians}):
    x, y = medians.get((case, grid, a)), medians.get((case, grid, b))
    if x and y:
        same = sums[(case, grid, a)] == sums[(case, grid, b)]
        print(f"{case:28s} {grid:9s} {a} {min(x):8.1f} {b} {min(y):8.1f} ratio {min(y) / min(x):.3f}"
              f"{'' if same else '  CHECKSUMS DIFFER'}")
