#!/usr/bin/env python3
"""Kernel µs (mean of 40 runs) of each case and team size, new over base per round: python3 ab.py > summary.txt"""
import glob, os, re
here = os.path.dirname(os.path.abspath(__file__))
def read(path):  # lines "case/tTEAM team N mean M median ..." of the probe
    times = {}
    for line in open(path):
        m = re.match(r'(\S+)\s+team\s+\d+\s+mean\s+([\d.]+)', line)
        if m: times[m.group(1)] = float(m.group(2))
    return times
for folder in ('pv-slices', 'poly-exp', 'tensor-sums', 'block-ids/registers', 'block-ids/slots'):
    print(f'== {folder} ({open(os.path.join(here, folder, "device.txt")).readline().strip()})')
    runs = sorted(glob.glob(os.path.join(here, folder, '*-[12].txt')))
    variants = sorted({os.path.basename(p).rsplit('-', 1)[0] for p in runs} - {'base'})
    for variant in variants:
        for r in ('1', '2'):
            base, new = os.path.join(here, folder, f'base-{r}.txt'), os.path.join(here, folder, f'{variant}-{r}.txt')
            if not os.path.exists(new): continue
            b, n = read(base), read(new)
            print(f'  {variant}, round {r}:')
            for case in b:
                if case in n: print(f'    {case:26s} {b[case]:8.1f} {n[case]:8.1f}  {n[case] / b[case]:.3f}x')
