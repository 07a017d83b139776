#!/usr/bin/env bash
# Two device calls (2026-11-28), each an A/B of one package: kattn_old.bin = 66e1b76's kattn (the
# shipped kernels) against kattn.bin.
#   item-walk/ (06:24 UTC, `bash ab-run.sh ws9a`): kattn.bin = 4c8e253, the rescale under Q·K(t)ᵀ and
#     the item walk (item-walk/item-walk.patch against 71fcc79); pf.o and rq.o: single-instantiation
#     probes (../h100-2026-11-28-softmax-beside-pv/land/probe.cpp) of 4c8e253 and 71fcc79.
#   rescale/ (06:27 UTC, `bash ab-run.sh ws9b`): kattn.bin = 71fcc79, the rescale under Q·K(t)ᵀ in
#     both kernels (no probes in the package).
set -x
P=${1:-ws9a}
mkdir -p .device/pkg && tar xJf .device/$P.tar.xz -C .device/pkg
F=$PWD/.device/pkg/ws9; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
mkdir -p build/h100/src && printf '#!/bin/sh\nexec %s/kattn "$@"\n' $F > build/h100/src/kattn && chmod +x build/h100/src/kattn
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
{ for o in $F/*.o; do echo "== $(basename $o)"; bash .device/sass.sh $o; done; } > $R/sass.txt 2>&1
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
for i in 1 2; do for b in old new; do for t in 4 8; do
  exe=$F/kattn.bin; [ $b = old ] && exe=$F/kattn_old.bin;
  timeout 100 $exe bench --scenario $S --team-size $t --warmup 10 --runs 40 --no-check-values --output $R/ab-$b-t$t-$i.json > $R/ab-$b-t$t-$i.log 2>&1
done; done; done
python3 - $R > $R/ab.txt <<'PY'
import json,sys,glob,collections
d=sys.argv[1]; res=collections.defaultdict(dict)
for f in sorted(glob.glob(f"{d}/ab-*-t*-*.json")):
    _,b,t,_=f.split('/')[-1].split('-')
    for r in json.load(open(f))['results']:
        k=r.get('kernel_mean_us'); n=r['case']+'/'+r.get('dtype','')+'/'+t
        if k is not None: res[n][b]=min(res[n].get(b,1e18),k)
print(f"{'case/dtype/team':40s} {'old':>9s} {'new':>9s}  new/old")
for n,v in sorted(res.items(), key=lambda x:(x[0].split('/')[-1],x[0])):
    if len(v)==2: print(f"{n:40s} {v['old']:9.1f} {v['new']:9.1f}  {v['new']/v['old']:.3f}x")
PY
cat $R/ab.txt
cd $R && tar czf logs.tgz *.log ab-*.json && rm -f *.log ab-*.json; ls $R
