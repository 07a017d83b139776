#!/usr/bin/env bash
# Device call 2 (2026-11-27 night): two warpgroups a team on rings and turns (team_size 8) beside
# one warpgroup (team_size 4) in one binary: tests, bench A/B, Nsight Compute.
set -x
mkdir -p .device/pkg && tar xJf .device/wide2.tar.xz -C .device/pkg
F=$PWD/.device/pkg/wide2; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
mkdir -p $R/raw; W=$R/raw
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
timeout 60 $F/kattn_backend_tests_Cuda.bin --gtest_filter='*TeamPipeline*:*WarpgroupRows*' > $W/backend-tests.txt 2>&1; echo "rc $?" >> $W/backend-tests.txt
timeout 150 $F/kattn_tests.bin --gtest_filter='*KernelEdgeCases*' --gtest_brief=1 > $W/tests.txt 2>&1; echo "rc $?" >> $W/tests.txt
{ grep -E "FAILED|PASSED|OK \]|rc " $W/backend-tests.txt; grep -E "FAILED|PASSED|rc " $W/tests.txt; } > $R/tests-summary.txt 2>&1
cat $R/tests-summary.txt | head -30
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
for i in 1 2; do for t in 4 8; do
  timeout 100 $F/kattn.bin bench --scenario $S --team-size $t --warmup 10 --runs 40 --no-check-values --output $W/ab-t$t-$i.json > $W/ab-t$t-$i.txt 2>&1
done; done
python3 - $W > $R/ab.txt <<'PY'
import json,sys,glob,collections
d=sys.argv[1]; res=collections.defaultdict(dict)
for f in sorted(glob.glob(f"{d}/ab-t*-*.json")):
    b=f.split('/')[-1].split('-')[1]
    for r in json.load(open(f))['results']:
        k=r.get('kernel_mean_us')
        n=r['case']+'/'+r.get('dtype','');
        if k is not None: res[n][b]=min(res[n].get(b,1e18),k)
print("case, kernel us (lower of two runs of 40): one warpgroup a team (team_size 4), two (team_size 8)")
for n,v in res.items():
    if 't4' in v and 't8' in v: print(f"{n:28s} one {v['t4']:9.1f} two {v['t8']:9.1f}  {v['t8']/v['t4']:.3f}x")
PY
cat $R/ab.txt
M=launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__shared_mem_per_block_dynamic
for c in prefill-b1-8k prefill-b16-512; do
  timeout 100 ncu --kernel-name-base demangled -k 'regex:QBlockMmaKernel' --launch-count 1 --metrics $M \
    $F/kattn.bin bench --scenario perf/scenarios/targets.json --case $c --team-size 8 --warmup 0 --runs 1 --no-check-values > $W/ncu-$c-t8.txt 2>&1
  echo "== $c t8"; grep -E 'launch__|sm__|smsp__|gpu__' $W/ncu-$c-t8.txt | sed 's/  */ /g' | cut -c1-160
done > $R/ncu.txt
cat $R/ncu.txt
cd $R && tar czf raw.tgz raw && rm -rf raw && ls
