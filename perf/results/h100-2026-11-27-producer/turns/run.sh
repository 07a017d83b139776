#!/usr/bin/env bash
# Device call 2 (2026-11-27 night 2; binary from 169d8a5 + producer-warpgroup.patch): the producer warpgroup with the rows' warpgroups in turns
# (ping-pong) and waits that suspend, against two warpgroups alone (team_size 8), one binary:
# tests, bench A/B, Nsight Compute, memcheck and racecheck of the producer kernel.
set -x
mkdir -p .device/pkg && tar xJf .device/ws2.tar.xz -C .device/pkg
F=$PWD/.device/pkg/ws2; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
timeout 200 $F/kattn_tests.bin --gtest_filter='WarpgroupRows.*:*TeamsOfEight*:*KernelEdgeCases*:Planner.*' > $R/tests.log 2>&1; echo "rc $?" >> $R/tests.log
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
timeout 60 $F/kattn.bin bench --scenario $S --team-size 12 --warmup 2 --runs 3 > $R/check-values.log 2>&1; echo "rc $?" >> $R/check-values.log
{ grep -E "FAILED|PASSED|rc " $R/tests.log | head -20; tail -2 $R/check-values.log; } > $R/checks.txt
for i in 1 2; do for t in 8 12; do
  timeout 100 $F/kattn.bin bench --scenario $S --team-size $t --warmup 10 --runs 40 --no-check-values --output $R/ab-t$t-$i.json > $R/ab-t$t-$i.log 2>&1
done; done
python3 - $R > $R/ab.txt <<'PY'
import json,sys,glob,collections
d=sys.argv[1]; res=collections.defaultdict(dict)
for f in sorted(glob.glob(f"{d}/ab-t*-*.json")):
    b=f.split('/')[-1].split('-')[1]
    for r in json.load(open(f))['results']:
        k=r.get('kernel_mean_us')
        n=r['case']+'/'+r.get('dtype','');
        if k is not None: res[n][b]=min(res[n].get(b,1e18),k)
for n,v in res.items():
    if 't8' in v and 't12' in v: print(f"{n:28s} two-wg {v['t8']:9.1f} producer+turns {v['t12']:9.1f}  {v['t12']/v['t8']:.3f}x")
PY
cat $R/ab.txt
M=launch__registers_per_thread,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__shared_mem_per_block_dynamic
timeout 100 ncu --kernel-name-base demangled -k 'regex:QBlockMmaKernel' --launch-count 1 --metrics $M \
    $F/kattn.bin bench --scenario perf/scenarios/targets.json --case prefill-b1-8k --team-size 12 --warmup 0 --runs 1 --no-check-values > $R/ncu.log 2>&1
grep -E 'launch__|sm__|smsp__|gpu__' $R/ncu.log | sed 's/  */ /g' | cut -c1-160 | tee $R/ncu.txt
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool $F/kattn_tests.bin --gtest_filter='AllVariants/KernelEdgeCases.TeamsOfEightAndTwelveWarps/qblock_static' > $R/$tool.log 2>&1; echo "rc $?" >> $R/$tool.log
  tail -4 $R/$tool.log >> $R/sanitizers.txt
done
cat $R/sanitizers.txt
cd $R && tar czf r2.tgz *.json *.log && rm -f *.json *.log && ls
