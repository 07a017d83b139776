#!/usr/bin/env bash
# Device call (2026-11-28): the copies of tile t + 1 between the issue of Q·K(t)ᵀ and of P·V(t - 1) (new)
# against the kept step (old: 66e1b76's kernels, the binary of land/), one call: GPU tests, validate,
# sanitizers of the new binary, the A/B, Nsight Compute of both.
set -x
mkdir -p .device/pkg && tar xJf .device/ws6.tar.xz -C .device/pkg
F=$PWD/.device/pkg/ws6; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
mkdir -p build/h100/src && printf '#!/bin/sh\nexec %s/kattn "$@"\n' $F > build/h100/src/kattn && chmod +x build/h100/src/kattn
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
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
timeout 170 $F/kattn_tests.bin --gtest_brief=1 > $R/tests.log 2>&1; echo "rc $?" >> $R/tests.log
timeout 60 $F/kattn.bin validate data/references.h5 --variant all > $R/validate.log 2>&1; echo "rc $?" >> $R/validate.log
for t in memcheck racecheck; do timeout 100 compute-sanitizer --tool $t $F/kattn_tests.bin --gtest_filter='*TeamsOfEightWarps/qblock:*TeamsOfEightWarps/qblock_static:*CacheRowsOffTheTileCopy*' --gtest_brief=1 > $R/$t.log 2>&1; done
{ tail -n 3 $R/tests.log; tail -n 3 $R/validate.log; grep -h -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/memcheck.log $R/racecheck.log; } > $R/checks.txt; cat $R/checks.txt
for b in old new; do for c in prefill-b1-8k:8 prefill-b16-512:4; do
  exe=$F/kattn.bin; [ $b = old ] && exe=$F/kattn_old.bin
  timeout 60 ncu --kernel-name-base demangled -k 'regex:QBlockMmaKernel' --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section LaunchStats --section InstructionStats $exe bench --scenario perf/scenarios/targets.json --case ${c%:*} --team-size ${c#*:} --warmup 0 --runs 1 --no-check-values > /tmp/ncu.log 2>&1
  echo "== $b ${c%:*} team ${c#*:}" >> $R/ncu.txt; grep -E 'Duration|SM Frequency|Registers Per|Issue Slots Busy|Executed Instructions  |highest-utilized|Compute \(SM\) Throughput' /tmp/ncu.log | sed 's/  */ /g' >> $R/ncu.txt
done; done
cat $R/ncu.txt
cd $R && tar czf logs.tgz *.log ab-*.json && rm -f *.log ab-*.json; ls $R
