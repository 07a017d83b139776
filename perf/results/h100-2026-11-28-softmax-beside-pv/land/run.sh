#!/usr/bin/env bash
# Device call (2026-11-28): a step's end at the top of the next loop trip (the wait for P·V(t - 1) after
# the softmax's exponentials) against the shipped kernels (old: 169d8a5's, the binary of the last calls),
# one call: GPU tests, validate, sanitizers, the A/B, Nsight Compute, the targets beside PyTorch SDPA.
set -x
mkdir -p .device/pkg && tar xJf .device/ws5.tar.xz -C .device/pkg
F=$PWD/.device/pkg/ws5; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
mkdir -p build/h100/src && printf '#!/bin/sh\nexec %s/kattn "$@"\n' $F > build/h100/src/kattn && chmod +x build/h100/src/kattn
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
timeout 170 $F/kattn_tests.bin --gtest_brief=1 > $R/tests.log 2>&1; echo "rc $?" >> $R/tests.log
timeout 60 $F/kattn.bin validate data/references.h5 --variant all > $R/validate.log 2>&1; echo "rc $?" >> $R/validate.log
for t in memcheck racecheck; do timeout 100 compute-sanitizer --tool $t $F/kattn_tests.bin --gtest_filter='*TeamsOfEightWarps/qblock:*TeamsOfEightWarps/qblock_static:*CacheRowsOffTheTileCopy*' --gtest_brief=1 > $R/$t.log 2>&1; done
{ tail -n 3 $R/tests.log; tail -n 3 $R/validate.log; grep -h -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/memcheck.log $R/racecheck.log; } > $R/checks.txt; cat $R/checks.txt
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
for b in old new; do for c in prefill-b1-8k:8 prefill-b16-512:4; do
  exe=$F/kattn.bin; [ $b = old ] && exe=$F/kattn_old.bin
  timeout 60 ncu --kernel-name-base demangled -k 'regex:QBlockMmaKernel' --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section LaunchStats --section InstructionStats $exe bench --scenario perf/scenarios/targets.json --case ${c%:*} --team-size ${c#*:} --warmup 0 --runs 1 --no-check-values > /tmp/ncu.log 2>&1
  echo "== $b ${c%:*} team ${c#*:}" >> $R/ncu.txt; grep -E 'Duration|SM Frequency|Registers Per|Issue Slots Busy|Executed Instructions  |highest-utilized|Compute \(SM\) Throughput' /tmp/ncu.log | sed 's/  */ /g' >> $R/ncu.txt
done; done
cat $R/ncu.txt
timeout 120 $F/kattn bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $R/targets.json > $R/targets.txt 2>&1
timeout 120 python3 perf/torch_sdpa.py $R/targets.json > $R/sdpa-targets.txt 2>&1
grep -v stream $R/targets.txt | grep -E "^decode|^prefill|^mixed" | awk '{print $1, $2, $6, $12, $13}'; tail -n 14 $R/sdpa-targets.txt
{ echo "== SASS of the probe: copies between the scores and P·V"; bash .device/sass.sh .device/mid.o; } >> $R/ncu.txt 2>&1
gzip $R/targets.json; cd $R && tar czf logs.tgz *.log ab-*.json && rm -f *.log ab-*.json; ls $R
