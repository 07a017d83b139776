#!/usr/bin/env bash
# Device call (2026-11-28, session 46): the shipped binary (the rescale under Q·K(t)ᵀ for teams of one
# warpgroup) against 66e1b76's (kattn_old.bin) on the prefill A/B scenario, then the suite and the
# targets beside PyTorch SDPA (the shipped table), Nsight Compute of the prefill targets' kernels and
# the stall samples of b16 512.
set -x
P=${1:-ws12}
mkdir -p .device/pkg && tar xJf .device/$P.tar.xz -C .device/pkg
F=$PWD/.device/pkg/ship; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH; S=perf/scenarios
mkdir -p build/h100/src && printf '#!/bin/sh\nexec %s/kattn "$@"\n' $F > build/h100/src/kattn && chmod +x build/h100/src/kattn
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
A=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
for i in 1; do for b in old new; do for t in 4 8; do
  exe=$F/kattn.bin; [ $b = old ] && exe=$F/kattn_old.bin;
  timeout 100 $exe bench --scenario $A --team-size $t --warmup 10 --runs 40 --no-check-values --output $R/ab-$b-t$t-$i.json > $R/ab-$b-t$t-$i.log 2>&1
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
KATTN_COMMIT=$(cat .device/commit) KATTN_SUITE_RUNS="--warmup 5 --runs 20 --no-check-values" timeout 200 perf/run_suite.sh build/h100 $R/suite > /dev/null 2>&1
tail -n 12 $R/suite/run.log
timeout 100 $F/kattn.bin bench --scenario $S/targets.json --warmup 20 --runs 100 --no-check-values --output $R/targets.json > $R/targets.txt 2>&1
timeout 100 python3 perf/torch_sdpa.py $R/targets.json > $R/sdpa-targets.txt 2>&1
grep -v stream $R/targets.txt | grep -E "^decode|^prefill|^mixed" | awk '{print $1, $2, $6, $12, $13, $14}'; tail -n 10 $R/sdpa-targets.txt
for c in prefill-b1-8k:8 prefill-b16-512:4; do
  timeout 60 ncu --kernel-name-base demangled -k 'regex:QBlockMmaKernel' --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section LaunchStats --section Occupancy --section InstructionStats $F/kattn.bin bench --scenario $S/targets.json --case ${c%:*} --team-size ${c#*:} --warmup 0 --runs 1 --no-check-values > /tmp/ncu.log 2>&1
  echo "== ${c%:*} team ${c#*:}" >> $R/ncu.txt; grep -E 'Duration|SM Frequency|Registers Per|Issue Slots Busy|Executed Instructions  |highest-utilized|Compute \(SM\) Throughput|Achieved Occupancy|Block Limit|Dynamic Shared' /tmp/ncu.log | sed 's/  */ /g' >> $R/ncu.txt
done; cat $R/ncu.txt
timeout 150 ncu --set full --import-source no --kernel-name-base demangled -k 'regex:QBlockMmaKernel' --launch-count 1 -o /tmp/b16 \
  $F/kattn.bin bench --scenario perf/scenarios/targets.json --case prefill-b16-512 --team-size 4 --warmup 0 --runs 1 --no-check-values > $R/ncu-b16.log 2>&1
ncu -i /tmp/b16.ncu-rep --page details > $R/ncu-b16-details.txt 2>&1
ncu -i /tmp/b16.ncu-rep --page source --csv --print-source sass > /tmp/b16-sass.csv 2>&1
python3 - /tmp/b16-sass.csv > $R/stalls-b16.txt <<'PY'
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
head -40 $R/stalls-b16.txt
(cd /tmp && xz -9 -k b16-sass.csv && cp b16-sass.csv.xz $R/)
gzip $R/targets.json; cd $R && tar czf bundle.tgz device.txt ab-*.json ab-*.log  targets.json.gz suite ncu-b16.log ncu-b16-details.txt b16-sass.csv.xz \
  && rm -rf device.txt ab-*.json ab-*.log  targets.json.gz suite ncu-b16.log ncu-b16-details.txt b16-sass.csv.xz; ls -la $R
