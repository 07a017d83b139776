import re,collections,sys
d=sys.argv[1]
for bs in (16,64):
    try: f=open(f'{d}/ab-raw-block{bs}.txt')
    except: continue
    res=collections.defaultdict(lambda: collections.defaultdict(lambda: 1e18)); sums={}
    name=None
    for line in f:
        m=re.match(r'== (\S+) round',line)
        if m: name=m.group(1); continue
        m=re.match(r'(\S+)/t(\d+) team (\d+) mean ([\d.]+) median ([\d.]+) min ([\d.]+) sum (\S+) (\S+)',line)
        if m:
            case,t=m.group(1),m.group(2)
            res[(case,t)][name]=min(res[(case,t)][name],float(m.group(5)))
            sums[(case,t,name)]=(m.group(7),m.group(8))
    print("block",bs)
    for case in sorted(set(c for c,t in res)):
        o=res[(case,'8')].get('own'); a=res[(case,'8')].get('prod'); b=res[(case,'12')].get('prod'); o4=res[(case,'4')].get('own')
        print(f"  {case:20s} own t4 {o4:8.1f} t8 {o:8.1f} | prod t8 {a:8.1f} t12 {b:8.1f} | t12/own-t8 {b/o:.3f} t12/best-own {b/min(o,o4):.3f} sums {sums[(case,'12','prod')]==sums[(case,'8','own')]}")
