#!/usr/bin/env bash
# Device call 1 (2026-11-28, session 47): the producer warpgroup with its threads leaving the kernel at
# their roles' end (team_size 12) beside the shipped two warpgroups (team_size 8) in one binary:
# SASS of the probes, kernel tests, a value-checked bench, the A/B, Nsight Compute.
set -x
mkdir -p .device/pkg && tar xJf .device/ws15.tar.xz -C .device/pkg
F=$PWD/.device/pkg/pe; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
{ for o in $F/*.o; do echo "== $(basename $o)"; bash .device/sass.sh $o; cuobjdump -sass $o | grep -c -E 'STL|LDL'; done; } > $R/sass.txt 2>&1
cat $R/sass.txt | cut -c1-400
timeout 150 $F/kattn_tests.bin --gtest_brief=1 --gtest_filter='WarpgroupRows.*:*TeamsOfEightAndTwelve*:*KernelTeamsOfEightWarps*:*KernelEdgeCases*:TilePrimitives*:Planner.*:*Pipeline*' > $R/tests.txt 2>&1; echo "rc $?" >> $R/tests.txt
tail -4 $R/tests.txt
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
timeout 60 $F/kattn.bin bench --scenario $S --team-size 12 --warmup 1 --runs 2 > $R/check-values.txt 2>&1; echo "rc $?" >> $R/check-values.txt
grep -i -E 'mismatch|fail|error|rc ' $R/check-values.txt | head
for i in 1 2; do for t in 8 12; do
  timeout 100 $F/kattn.bin bench --scenario $S --team-size $t --warmup 10 --runs 40 --no-check-values --output $R/ab-t$t-$i.json > $R/ab-t$t-$i.txt 2>&1
done; done
python3 - $R > $R/ab.txt <<'PY'
import json,sys,glob,collections
d=sys.argv[1]; res=collections.defaultdict(dict)
for f in sorted(glob.glob(f"{d}/ab-t*-*.json")):
    b=f.split('/')[-1].split('-')[1]
    for r in json.load(open(f))['results']:
        k=r.get('kernel_mean_us'); n=r['case']+'/'+r.get('dtype','')
        if k is not None: res[n][b]=min(res[n].get(b,1e18),k)
print(f"{'case/dtype':32s} {'t8 (shipped)':>12s} {'t12 (producer)':>14s}  t12/t8")
for n,v in res.items():
    if 't8' in v and 't12' in v: print(f"{n:32s} {v['t8']:12.1f} {v['t12']:14.1f}  {v['t12']/v['t8']:.3f}x")
PY
cat $R/ab.txt
M=launch__registers_per_thread,launch__occupancy_limit_registers,smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__shared_mem_per_block_dynamic,sm__cycles_elapsed.avg.per_second,local_load_bytes:l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum
M=${M%,local*},l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum
for ct in prefill-b1-8k:8 prefill-b1-8k:12 prefill-b16-512:4 prefill-b16-512:12; do c=${ct%:*}; t=${ct#*:}
  timeout 100 ncu --kernel-name-base demangled -k 'regex:QBlockMmaKernel' --launch-count 1 --metrics $M \
    $F/kattn.bin bench --scenario perf/scenarios/targets.json --case $c --team-size $t --warmup 0 --runs 1 --no-check-values > $R/ncu-$c-t$t.txt 2>&1
  echo "== $c t$t"; grep -E 'launch__|sm__|smsp__|gpu__|l1tex' $R/ncu-$c-t$t.txt | sed 's/  */ /g' | cut -c1-160
done > $R/ncu.txt
cat $R/ncu.txt
cd $R && tar czf r1.tgz *.json ab-t*.txt ncu-*.txt check-values.txt && rm -f *.json ab-t*.txt ncu-*.txt check-values.txt && ls
