#!/usr/bin/env bash
# Device call 2 (2026-11-27): the pipelined kernel (producer warp) beside the deep warpgroup kernel
# in one binary (KATTN_PIPELINED=0 keeps the deep one): validate, bench A/B, Nsight Compute.
set -x
mkdir -p .device/pkg && tar xJf .device/pipe2.tar.xz -C .device/pkg
F=$PWD/.device/pkg/pipe2; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
timeout 120 $F/kattn.bin validate data/references.h5 --variant all > $R/validate.txt 2>&1; echo "rc $?" >> $R/validate.txt
tail -3 $R/validate.txt
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
timeout 60 $F/kattn.bin bench --scenario $S --warmup 2 --runs 3 > $R/check-values.txt 2>&1; echo "rc $?" >> $R/check-values.txt
tail -3 $R/check-values.txt
for i in 1 2; do for p in 0 1; do
  KATTN_PIPELINED=$p timeout 120 $F/kattn.bin bench --scenario $S --warmup 10 --runs 50 --no-check-values --output $R/ab-p$p-$i.json > $R/ab-p$p-$i.txt 2>&1
done; done
python3 - $R <<'PY'
import json,sys,glob,collections
d=sys.argv[1]; res=collections.defaultdict(dict)
for f in sorted(glob.glob(f"{d}/ab-p*-*.json")):
    b=f.split('/')[-1].split('-')[1]
    for r in json.load(open(f))['results']:
        k=r.get('kernel_mean_us')
        n=r['case']+'/'+r.get('dtype','');
        if k is not None: res[n][b]=min(res[n].get(b,1e18),k)
for n,v in res.items():
    if 'p0' in v and 'p1' in v: print(f"{n:28s} deep {v['p0']:9.1f} pipelined {v['p1']:9.1f}  {v['p1']/v['p0']:.3f}x")
PY
M=launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
for c in prefill-b1-8k prefill-b16-512; do for p in 0 1; do
  KATTN_PIPELINED=$p timeout 120 ncu --kernel-name-base demangled -k 'regex:QBlock(Mma|Pipelined)Kernel' --launch-count 1 --metrics $M \
    $F/kattn.bin bench --scenario perf/scenarios/targets.json --case $c --warmup 0 --runs 1 --no-check-values > $R/ncu-$c-p$p.txt 2>&1
  echo "== $c p$p"; grep -E 'launch__|sm__|smsp__|gpu__' $R/ncu-$c-p$p.txt | sed 's/  */ /g' | cut -c1-160
done; done
cd $R && tar czf r1.tgz *.json *.txt && rm -f *.json && ls
