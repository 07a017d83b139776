# Device run 12: whole K/V tiles by the tensor memory accelerator in the double-buffered warpgroup
# prefill; primitive tests first, A/B against d41cb01, validate, ncu, tests, targets beside SDPA.
# A record of the device call, not a script of the repository: .device/setup.sh unpacked the binaries
# built on the VM (db9eb45) and set K=kattn, T=kattn_tests; .device/base.tar.xz held d41cb01's kattn.
source .device/setup.sh
mkdir -p .device/base && tar -C .device/base -xJf .device/base.tar.xz
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/.device/base/pkg/lib exec %s/.device/base/pkg/bin/kattn.bin "$@"\n' "$ROOT" "$ROOT" > .device/base/kattn
chmod +x .device/base/kattn; KB=$ROOT/.device/base/kattn
R=$OUT/r; mkdir -p $R
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date; } > $R/device.txt
timeout 60 $T --gtest_filter='TeamBulkCopy*:WarpgroupRows*:ArchTable*' > $R/prim.txt 2>&1; echo "rc $?" >> $R/prim.txt; grep -E "OK|FAILED|rc |Failure|error" $R/prim.txt | head -20
if ! grep -q "rc 0" $R/prim.txt; then tar -C $OUT -czf $OUT/run12.tgz r; exit 1; fi
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
runs = {k: [read(f) for f in sorted(glob.glob(f'{R}/ab-{k}-*.txt'))] for k in ('base', 'new')}
best = {k: {c: min(r[c] for r in v if c in r) for c in v[0]} for k, v in runs.items() if v and v[0]}
print(f"{'case':28} {'base':>9} {'new':>9} {'ratio':>6}")
for c in best.get('base', {}):
    b, n = best['base'][c], best.get('new', {}).get(c, 0)
    print(f"{c:28} {b:9.1f} {n:9.1f} {n/b:6.3f}")
PY
timeout 120 $K validate data/references.h5 --variant all > $R/validate.txt 2>&1; echo "rc $?" >> $R/validate.txt; tail -2 $R/validate.txt
timeout 120 ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats \
  $K bench --case prefill-b1-8k --scenario perf/scenarios/targets.json --warmup 2 --runs 2 --no-check-values \
  > $R/ncu-b1-8k.txt 2>&1
grep -E 'Registers Per|Duration|Achieved Occupancy|No Eligible|Eligible Warps|Issued Warp|Executed Instructions  ' $R/ncu-b1-8k.txt
( time timeout 200 $T --gtest_brief=1 ) > $R/tests.txt 2>&1; echo "rc $?" >> $R/tests.txt; tail -4 $R/tests.txt
timeout 150 $K bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $R/targets.json > $R/targets.txt 2>&1
timeout 150 python3 perf/torch_sdpa.py $R/targets.json > $R/sdpa-targets.txt 2>&1
grep -v stream $R/targets.txt | grep -E 'prefill|mixed' | awk '{print $1, $12, $14}'; tail -12 $R/sdpa-targets.txt
tar -C $OUT -czf $OUT/run12.tgz r && rm -rf $R
# (then, in a second call, ncu --section WarpStateStats --section SourceCounters --section MemoryWorkloadAnalysis
#  of both binaries on the same case: ncu-memory-new.txt, ncu-memory-base.txt)
