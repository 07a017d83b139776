#!/usr/bin/env bash
# Device call 4 (2026-11-27): the deep warpgroup kernel with Q·K(t + 1)ᵀ issued a step ahead
# (scores ahead, KATTN_SCORES_AHEAD=1, the default of this binary) beside the deep kernel as shipped
# (KATTN_SCORES_AHEAD=0), one binary: validate, bench A/B (lower of two), Nsight Compute counts.
set -x
mkdir -p .device/pkg && tar xJf .device/ahead.tar.xz -C .device/pkg
F=$PWD/.device/pkg/ahead; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
timeout 120 $F/kattn.bin validate data/references.h5 --variant all > $R/validate.txt 2>&1; echo "rc $?" >> $R/validate.txt
tail -2 $R/validate.txt
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
timeout 60 $F/kattn.bin bench --scenario $S --warmup 2 --runs 3 > $R/check-values.txt 2>&1; echo "rc $?" >> $R/check-values.txt
tail -1 $R/check-values.txt; grep -ci 'mismatch\|fail' $R/check-values.txt
for i in 1 2; do for p in 0 1; do
  KATTN_SCORES_AHEAD=$p timeout 120 $F/kattn.bin bench --scenario $S --warmup 10 --runs 50 --no-check-values --output $R/ab-a$p-$i.json > $R/ab-a$p-$i.txt 2>&1
done; done
python3 - $R <<'PY' | tee $R/ab.txt
import json,sys,glob,collections
d=sys.argv[1]; res=collections.defaultdict(dict)
for f in sorted(glob.glob(f"{d}/ab-a*-*.json")):
    b=f.split('/')[-1].split('-')[1]
    for r in json.load(open(f))['results']:
        k=r.get('kernel_mean_us'); n=r['case']+'/'+r.get('dtype','')
        if k is not None: res[n][b]=min(res[n].get(b,1e18),k)
for n,v in res.items():
    if 'a0' in v and 'a1' in v: print(f"{n:28s} deep {v['a0']:9.1f} ahead {v['a1']:9.1f}  {v['a1']/v['a0']:.3f}x")
PY
M=launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,smsp__inst_executed.sum,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active
for c in prefill-b1-8k prefill-b16-512; do for p in 0 1; do
  KATTN_SCORES_AHEAD=$p timeout 120 ncu --kernel-name-base demangled -k 'regex:QBlockMmaKernel' --launch-count 1 --metrics $M \
    $F/kattn.bin bench --scenario perf/scenarios/targets.json --case $c --warmup 0 --runs 1 --no-check-values > $R/ncu-$c-a$p.txt 2>&1
  echo "== $c a$p"; grep -E 'launch__|sm__|smsp__|gpu__' $R/ncu-$c-a$p.txt | sed 's/  */ /g' | cut -c1-120
done; done > $R/ncu.txt
cat $R/ncu.txt
cd $R && tar czf r4.tgz *.json ab-a*.txt ncu-*.txt && rm -f *.json ab-a*.txt ncu-prefill* && ls
