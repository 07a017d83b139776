# Lower kernel mean (us) of the runs per binary and case: python3 ab_parse.py DIR targets|decode (files PREFIX-BINARY-RUN.json)
import json,sys,glob,collections
# usage: ab_parse.py DIR prefix  -> per case: lower kernel mean of the runs per binary
d=sys.argv[1]; pre=sys.argv[2]
res=collections.defaultdict(dict)
for f in sorted(glob.glob(f"{d}/{pre}-*-*.json")):
    b=f.split('/')[-1].split('-')[1]
    doc=json.load(open(f))
    for r in doc['results'] if 'results' in doc else doc['cases']:
        name=r.get('case') or r.get('name')
        k=r.get('kernel_mean_us')
        if k is None: continue
        res[name][b]=min(res[name].get(b,1e18),k)
for n,v in res.items():
    if 'base' in v and 'align' in v:
        print(f"{n:28s} base {v['base']:9.1f} align {v['align']:9.1f}  {v['align']/v['base']:.3f}x")
