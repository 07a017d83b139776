#!/usr/bin/env bash
# Device call 1 (2026-11-27 night 2; binary from 169d8a5 + producer-warpgroup.patch before the turns): the producer warpgroup (team_size 12) beside two warpgroups
# alone (team_size 8) in one binary: tests, bench A/B, Nsight Compute.
set -x
mkdir -p .device/pkg && tar xJf .device/ws1.tar.xz -C .device/pkg
F=$PWD/.device/pkg/ws1; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
timeout 240 $F/kattn_tests.bin --gtest_filter='WarpgroupRows.*:*TeamsOfEight*:*KernelEdgeCases*:TilePrimitives*:Planner.*' > $R/tests.txt 2>&1; echo "rc $?" >> $R/tests.txt
grep -E "FAILED|PASSED|rc " $R/tests.txt | head -30
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
timeout 60 $F/kattn.bin bench --scenario $S --team-size 12 --warmup 2 --runs 3 > $R/check-values.txt 2>&1; echo "rc $?" >> $R/check-values.txt
tail -3 $R/check-values.txt
for i in 1 2; do for t in 8 12; do
  timeout 100 $F/kattn.bin bench --scenario $S --team-size $t --warmup 10 --runs 40 --no-check-values --output $R/ab-t$t-$i.json > $R/ab-t$t-$i.txt 2>&1
done; done
python3 - $R <<'PY'
import json,sys,glob,collections
d=sys.argv[1]; res=collections.defaultdict(dict)
for f in sorted(glob.glob(f"{d}/ab-t*-*.json")):
    b=f.split('/')[-1].split('-')[1]
    for r in json.load(open(f))['results']:
        k=r.get('kernel_mean_us')
        n=r['case']+'/'+r.get('dtype','');
        if k is not None: res[n][b]=min(res[n].get(b,1e18),k)
for n,v in res.items():
    if 't8' in v and 't12' in v: print(f"{n:28s} two-wg {v['t8']:9.1f} producer {v['t12']:9.1f}  {v['t12']/v['t8']:.3f}x")
PY
M=launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__shared_mem_per_block_dynamic,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,lts__t_bytes.sum,dram__bytes_read.sum
for c in prefill-b1-8k; do for t in 8 12; do
  timeout 100 ncu --kernel-name-base demangled -k 'regex:QBlockMmaKernel' --launch-count 1 --metrics $M \
    $F/kattn.bin bench --scenario perf/scenarios/targets.json --case $c --team-size $t --warmup 0 --runs 1 --no-check-values > $R/ncu-$c-t$t.txt 2>&1
  echo "== $c t$t"; grep -E 'launch__|sm__|smsp__|gpu__|lts__|dram__|l1tex' $R/ncu-$c-t$t.txt | sed 's/  */ /g' | cut -c1-160
done; done
cd $R && tar czf r1.tgz *.json *.txt && rm -f *.json && ls
