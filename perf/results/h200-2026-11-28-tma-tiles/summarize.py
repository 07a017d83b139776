#!/usr/bin/env python3
"""Each A/B file here (ab-raw-*.txt): per case and team size, the mean over rounds of each binary's
kernel µs (the probe's `mean`), each binary over the first one, and whether the outputs' checksums agree."""
import collections
import glob
import re

for path in sorted(glob.glob("ab-raw-*.txt")):
    runs = collections.defaultdict(lambda: collections.defaultdict(list))
    sums = collections.defaultdict(dict)
    names, name = [], None
    for line in open(path):
        header = re.match(r"== (\S+) round", line)
        if header:
            name = header.group(1)
            names += [name] if name not in names else []
            continue
        row = re.match(r"(\S+) team \d+ mean ([\d.]+) .* sum (\S+ \S+)", line)
        if row and name:
            runs[row.group(1)][name].append(float(row.group(2)))
            sums[row.group(1)][name] = row.group(3)
    print(f"== {path}: kernel µs of {', '.join(names)}; each over {names[0]}")
    for case, by_name in runs.items():
        present = [n for n in names if n in by_name]
        means = {n: sum(by_name[n]) / len(by_name[n]) for n in present}
        base = means.get(names[0])
        cols = "  ".join(f"{n} {means[n]:7.1f}" + (f" ({means[n] / base:.3f}x)" if base and n != names[0] else "")
                         for n in present)
        same = "checksums equal" if len(set(sums[case].values())) == 1 else "CHECKSUMS DIFFER"
        print(f"{case:26s} {cols}  {same}")
