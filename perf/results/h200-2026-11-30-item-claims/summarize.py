# A/B table of kattn_prefill_probe runs: `python3 summarize.py ab.txt base other...` gives each case's
# lowest median over the rounds (µs, kernel time from device events) per build, and each build's
# ratio to the first. A line of ab.txt: "<build> r<round> <case/tN> team T mean M median D min L sum A W".
import sys,collections
d=collections.defaultdict(list); order=[]
for l in open(sys.argv[1]):
    p=l.split()
    if len(p)<9 or p[3]!='team': continue
    d[(p[0],p[2])].append(float(p[8]))
    if p[2] not in order: order.append(p[2])
names=sys.argv[2:]; base=names[0]
print('%-24s'%'case'+''.join('%14s'%n for n in names))
for c in order:
    if (base,c) not in d: continue
    b=min(d[(base,c)]); row='%-24s%14.1f'%(c,b)
    for n in names[1:]:
        row+= ('%8.1f %5.3f'%(min(d[(n,c)]), min(d[(n,c)])/b)) if (n,c) in d else '%14s'%'-'
    print(row)
