# Lower of the runs' kernel µs (column 12 of `kattn bench`) per case and binary tag (file name
# before the first '-'), then each column over the first.
import re, sys
best, order = {}, []
for f in sys.argv[2:]:
    tag = f.split('/')[-1].split('-')[0]
    for l in open(f):
        p = l.split()
        if len(p) > 14 and 'stream' not in l and re.match(r'^[0-9.]+$', p[11]) and 'x' in p[5]:
            k = (p[0], tag); best[k] = min(best.get(k, 1e30), float(p[11]))
            if p[0] not in order: order.append(p[0])
cols = sys.argv[1].split(',')
print(f"{'case':30}" + ''.join(f"{c:>10}" for c in cols) + ''.join(f"  {c}/{cols[0]}" for c in cols[1:]))
for c in order:
    v = [best.get((c, k)) for k in cols]
    if all(v): print(f"{c:30}" + ''.join(f"{x:10.1f}" for x in v) + ''.join(f"  {x / v[0]:{len(k) + len(cols[0]) + 1}.3f}" for x, k in zip(v[1:], cols[1:])))
