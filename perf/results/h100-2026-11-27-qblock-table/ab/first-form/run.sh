# Device run 20: a Q-block table written by the offsets kernel (no binary search an item); validate,
# tests, memcheck/racecheck, an A/B against 5d3810f's binary, ncu counts, the targets beside SDPA.
source .device/setup.sh
mkdir -p .device/base && tar -C .device/base -xJf .device/base.tar.xz
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/.device/base/pkg/lib exec %s/.device/base/pkg/bin/kattn.bin "$@"\n' "$ROOT" "$ROOT" > .device/base/kattn
chmod +x .device/base/kattn; KB=$ROOT/.device/base/kattn
R=$OUT/r; mkdir -p $R/sanitize
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date; } > $R/device.txt
timeout 120 $K validate data/references.h5 --variant all > $R/validate.txt 2>&1; echo "rc $?" >> $R/validate.txt; tail -1 $R/validate.txt
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
B="bench --scenario $S --warmup 10 --runs 50 --no-check-values"
for i in 1 2; do
  timeout 100 $KB $B > $R/ab-base-$i.txt 2>&1
  timeout 100 $K $B > $R/ab-new-$i.txt 2>&1
done
python3 - $R <<'PY'
import sys, glob, re
R = sys.argv[1]
def read(f):
    d = {}
    for l in open(f):
        p = l.split()
        if len(p) > 14 and 'stream' not in l and re.match(r'^[0-9.]+$', p[11]): d[p[0]] = float(p[11])
    return d
keys = ('base', 'new')
runs = {k: [read(f) for f in sorted(glob.glob(f'{R}/ab-{k}-*.txt'))] for k in keys}
best = {k: {c: min(r[c] for r in v if c in r) for c in v[0]} for k, v in runs.items() if v and v[0]}
print(f"{'case':28}" + ''.join(f"{k:>9}" for k in keys) + "  new/base")
for c in best.get('base', {}):
    b = best['base'][c]
    v = [best.get(k, {}).get(c, 0) for k in keys]
    print(f"{c:28}" + ''.join(f"{x:9.1f}" for x in v) + f"  {v[1]/b:6.3f}")
PY
M=launch__registers_per_thread,smsp__inst_executed.sum,gpu__time_duration.sum
for c in prefill-b16-512 d0-b128-64-fixed-fp16 prefill-b1-8k; do
  for b in base new; do
    X=$K; [ $b = base ] && X=$KB
    echo "== $c $b"
    timeout 100 ncu --clock-control none --kernel-name-base demangled -k regex:'QBlockMma|QBlockOffsets' --launch-skip 2 --launch-count 2 --metrics $M \
      $X bench --case $c --scenario $S --warmup 1 --runs 1 --no-check-values 2>&1 | grep -E 'QBlock|registers|inst_executed|duration' | sed 's/(Kokkos.*//' | cut -c1-150
  done
done > $R/ncu-counts.txt 2>&1
cat $R/ncu-counts.txt
( time timeout 200 $T --gtest_brief=1 ) > $R/tests.txt 2>&1; echo "rc $?" >> $R/tests.txt; tail -3 $R/tests.txt
SS=perf/results/h100-2026-11-26-overlap/sanitize/scenario.json
timeout 60 $K refgen --scenario $SS --output /tmp/deep.h5 > $R/sanitize/refgen.txt 2>&1
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $K validate /tmp/deep.h5 --variant all > $R/sanitize/memcheck-deep.txt 2>&1; echo "rc $?" >> $R/sanitize/memcheck-deep.txt
for v in qblock qblock_static; do
  timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $K validate /tmp/deep.h5 --variant $v --case deep-prefill-bf16 > $R/sanitize/racecheck-$v.txt 2>&1; echo "rc $?" >> $R/sanitize/racecheck-$v.txt
done
tail -n 2 $R/sanitize/*.txt
timeout 150 $K bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $R/targets.json > $R/targets.txt 2>&1
timeout 150 python3 perf/torch_sdpa.py $R/targets.json > $R/sdpa-targets.txt 2>&1
grep -v stream $R/targets.txt | grep -E 'prefill|mixed|decode' | awk '{print $1, $12, $14}'; tail -14 $R/sdpa-targets.txt
tar -C $OUT -czf $OUT/run20.tgz r && rm -rf $R
