"""A/B of two kattn_prefill_probe binaries: ab_summary.py DIR BASE NEW.
Reads DIR/ab-raw-block{16,64}.txt ("== NAME round R" headers, then the probe's lines); per case and
team size the lower median of the rounds, NEW/BASE, the best team of each, and whether the output
checksums agree."""
import collections
import re
import sys

d, base, new = sys.argv[1:4]
for bs in (16, 64):
    try:
        f = open(f"{d}/ab-raw-block{bs}.txt")
    except OSError:
        continue
    best = collections.defaultdict(lambda: 1e18)
    sums = {}
    name = None
    for line in f:
        m = re.match(r"== (\S+) round", line)
        if m:
            name = m.group(1)
            continue
        m = re.match(r"(\S+)/t(\d+) team (\d+) mean ([\d.]+) median ([\d.]+) min ([\d.]+) sum (\S+) (\S+)", line)
        if m:
            key = (m.group(1), int(m.group(2)), name)
            best[key] = min(best[key], float(m.group(5)))
            sums[key] = (m.group(7), m.group(8))
    print(f"block {bs} (median µs, lower of the rounds; t0 = the table's team)")
    for case in sorted({k[0] for k in best}):
        cols = []
        for t in (0, 4, 8, 12):
            a, b = best.get((case, t, base)), best.get((case, t, new))
            if a and b:
                same = sums.get((case, t, base)) == sums.get((case, t, new))
                cols.append(f"t{t} {a:7.1f}->{b:7.1f} {b / a:.3f}{'' if same else '!'}")
        ba = min(best[(case, t, base)] for t in (4, 8, 12))
        bb = min(best[(case, t, new)] for t in (4, 8, 12))
        print(f"  {case:18s} " + " | ".join(cols) + f" | best {ba:7.1f}->{bb:7.1f} {bb / ba:.3f}")
    print("  (! : output checksums differ)")
