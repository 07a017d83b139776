#!/usr/bin/env bash
# Device call (2026-11-28): the K/V copies of tile t + 1 issued after step t's products (new) against the
# shipped order (old: 169d8a5's kernels, the binary of the last calls), one call: tests, A/B, Nsight Compute.
set -x
mkdir -p .device/pkg && tar xJf .device/ws4.tar.xz -C .device/pkg
F=$PWD/.device/pkg/ws4; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
timeout 200 $F/kattn_tests.bin --gtest_filter='WarpgroupRows.*:*TeamsOfEight*:*KernelEdgeCases*:Planner.*:*Warpgroup*' > $R/tests.log 2>&1; echo "rc $?" >> $R/tests.log
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
for t in 4 8; do timeout 60 $F/kattn.bin bench --scenario $S --team-size $t --warmup 2 --runs 3 > $R/check-t$t.log 2>&1; echo "rc $?" >> $R/check-t$t.log; done
{ grep -E "FAILED|PASSED|rc " $R/tests.log | head -20; tail -n 2 $R/check-t4.log $R/check-t8.log; } > $R/checks.txt; cat $R/checks.txt
for i in 1 2; do for b in old new; do for t in 4 8; do
  exe=$F/kattn.bin; [ $b = old ] && exe=$F/kattn_old.bin
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
for n,v in sorted(res.items(), key=lambda x:(x[0].split('/')[-1],x[0])):
    if 'old' in v and 'new' in v: print(f"{n:32s} old {v['old']:9.1f} new {v['new']:9.1f}  {v['new']/v['old']:.3f}x")
PY
cat $R/ab.txt
timeout 150 ncu --set full --import-source no --kernel-name-base demangled -k 'regex:QBlockMmaKernel' --launch-count 1 -o /tmp/new8 \
  $F/kattn.bin bench --scenario perf/scenarios/targets.json --case prefill-b1-8k --team-size 8 --warmup 0 --runs 1 --no-check-values > $R/ncu.log 2>&1
ncu -i /tmp/new8.ncu-rep --page details > $R/ncu-details.txt 2>&1
ncu -i /tmp/new8.ncu-rep --page source --csv --print-source sass > /tmp/new8-sass.csv 2>&1
python3 - /tmp/new8-sass.csv > $R/stalls.txt <<'PY'
import csv,sys,io
txt=open(sys.argv[1]).read(); rows=list(csv.DictReader(io.StringIO(txt[txt.find('"Address"'):])))
keys=list(rows[0].keys()); st=[k for k in keys if k.startswith('stall_')]
num=lambda r,k: float(r.get(k) or 0)
tot={k:sum(num(r,k) for r in rows) for k in st}; T=sum(tot.values()) or 1
print('stall breakdown (share of all samples):')
for k,v in sorted(tot.items(), key=lambda x:-x[1]):
    if v: print(f"  {k:28s} {v/T*100:5.1f}%")
S='Warp Stall Sampling (All Samples)'; A=sum(num(r,S) for r in rows) or 1
print('\ninstructions with >= 0.15% of samples, in address order: share, executed, top stalls')
for r in rows:
    if num(r,S)/A>=0.0015:
        top=sorted(((num(r,k),k[6:]) for k in st), reverse=True)[:3]
        print(f"{num(r,S)/A*100:5.2f}% {r['Address'][-5:]} {int(num(r,'Instructions Executed')):>9d}  {r['Source'][:70]:70s} " + ' '.join(f"{k}:{v/max(num(r,S),1)*100:.0f}" for v,k in top if v))
PY
head -40 $R/stalls.txt
cd /tmp && xz -9 -k new8-sass.csv && cp new8-sass.csv.xz $R/ && tar czf $R/ab.tgz -C $R $(cd $R && ls ab-*.json ab-*.log) && rm -f $R/ab-*.json $R/ab-*.log; ls -la $R
