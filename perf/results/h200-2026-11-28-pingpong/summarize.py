#!/usr/bin/env python3
"""The A/B ratios (kernel µs, mean of 40 runs, new over base per round) and the median phase
clocks of each diagnostic run in this folder: python3 summarize.py > summary.txt"""
import os, re, statistics
here = os.path.dirname(os.path.abspath(__file__))

def rounds(path):  # {(binary, round): {case: µs}} from ab.sh's "== NAME round R" sections
    runs, key = {}, None
    for line in open(path):
        m = re.match(r'== (\S+) round (\d)', line)
        if m:
            key = (m.group(1), m.group(2))
            runs[key] = {}
        m = re.match(r'(\S+)\s+team\s+\d+\s+mean\s+([\d.]+)', line)
        if m and key: runs[key][m.group(1)] = float(m.group(2))
    return runs

# no-copies: lsnc = base without its K/V copies after the first tile, ppnc = pp without them
# (values wrong, timing only), beside base and pp in one call; ab-raw-lookups.txt: ppnl = pp
# copying without reading the block table (no-block-lookups.patch on pingpong.patch).
for folder, raw in (('rings', 'ab-raw.txt'), ('pingpong', 'ab-raw.txt'), ('no-copies', 'ab-raw.txt'),
                    ('no-copies', 'ab-raw-lookups.txt')):
    runs = rounds(os.path.join(here, folder, raw))
    for new in dict.fromkeys(name for name, _ in runs if name != 'base'):
        print(f'== {folder}/{raw}: {new} over base')
        for r in ('1', '2'):
            b, n = runs[('base', r)], runs[(new, r)]
            print(f'  round {r}:')
            for case in b:
                print(f'    {case:26s} {b[case]:8.1f} {n[case]:8.1f}  {n[case] / b[case]:.3f}x')

phases = {
    'rings-clocks.txt': 'land, full waits, copy K, turn, Q·Kᵀ issue, P·V issue, Q·Kᵀ wait, softmax, copy V',
    'rings-nocopy-clocks.txt': 'land, full waits, copy K, turn, Q·Kᵀ issue, P·V issue, Q·Kᵀ wait, softmax, copy V',
    'pingpong-clocks.txt': 'full waits, turn, products issued, copies, products waited, softmax, rescale and weights',
}
for name, labels in phases.items():
    path = os.path.join(here, 'clocks', name)
    if not os.path.exists(path): continue
    steps = {0: [], 1: []}
    for line in open(path):
        m = re.match(r'KCLK wg (\d) step (\d+) at (-?\d+) d (.*)', line)
        if m and int(m.group(2)) >= 4:  # past the item's first steps
            steps[int(m.group(1))].append((int(m.group(3)), [int(x) for x in m.group(4).split()]))
    print(f'== {name}: medians of steps 4 on, SM cycles ({labels})')
    for wg, rows in steps.items():
        period = statistics.median(b[0] - a[0] for a, b in zip(rows, rows[1:]))
        cols = [statistics.median(r[1][k] for r in rows) for k in range(len(rows[0][1]))]
        print(f'  warpgroup {wg}: step {period:.0f}; ' + ' '.join(f'{c:.0f}' for c in cols))
    offset = statistics.median(b[0] - a[0] for a, b in zip(steps[0], steps[1]))
    print(f'  warpgroup 1 starts a step {offset:.0f} cycles after warpgroup 0')
