#!/usr/bin/env python3
"""A/B summary of two kattn_prefill_probe builds alternating in one call: per case and team size, the lower of the
rounds' medians (kernel us), their ratio, and whether the output checksums are equal. Usage: summarize.py AB.txt A B"""
import collections
import re
import sys

f,a,b=sys.argv[1:4]
d=collections.defaultdict(list); sums={}
order=[]
for l in open(f):
    m=re.match(r'(\w+) r(\d) (\S+) team (\d+) mean \S+ median (\S+) min \S+ sum (\S+) (\S+)',l)
    if not m: continue
    n,r,case,team,med,s1,s2=m.groups()
    if case not in order: order.append(case)
    d[(case,n)].append(float(med)); sums[(case,n)]=(s1,s2,team)
for c in order:
    x=min(d[(c,a)]); y=min(d[(c,b)])
    print(f"{c:28s} {a} {x:8.1f} {b} {y:8.1f} {y/x:.3f} team {sums[(c,a)][2]}->{sums[(c,b)][2]} eq={sums[(c,a)][:2]==sums[(c,b)][:2]}")
