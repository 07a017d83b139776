# Device run 23: the Q-block table with the sequences' starts and lengths staged before the scan (one
# round trip); A/B against 5d3810f (before the table), validate, tests, ncu of the offsets kernel, sanitizers.
source .device/setup.sh
mkdir -p .device/base && tar -C .device/base -xJf .device/base.tar.xz
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/.device/base/pkg/lib exec %s/.device/base/pkg/bin/kattn.bin "$@"\n' "$ROOT" "$ROOT" > .device/base/kattn
chmod +x .device/base/kattn; KB=$ROOT/.device/base/kattn
R=$OUT/r; mkdir -p $R/sanitize
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date; } > $R/device.txt
timeout 120 $K validate data/references.h5 --variant all > $R/validate.txt 2>&1; echo "rc $?" >> $R/validate.txt; tail -1 $R/validate.txt
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
SH=perf/results/h100-2026-11-27-qblock-table/short-scenario.json
for i in 1 2; do
  for b in base new; do
    X=$K; [ $b = base ] && X=$KB
    timeout 100 $X bench --scenario $S --warmup 10 --runs 50 --no-check-values > $R/$b-$i.txt 2>&1
    timeout 60 $X bench --scenario $SH --warmup 20 --runs 100 --no-check-values > $R/$b-short-$i.txt 2>&1
  done
done
python3 - $R <<'PY' | tee $R/ab.txt
import sys, glob, re
R = sys.argv[1]
def read(f):
    d = {}
    for l in open(f):
        p = l.split()
        if len(p) > 14 and 'stream' not in l and re.match(r'^[0-9.]+$', p[11]): d[p[0]] = float(p[11])
    return d
best = {}
for k in ('base', 'new'):
    for f in sorted(glob.glob(f'{R}/{k}-*.txt')):
        for c, v in read(f).items(): best.setdefault(k, {})[c] = min(v, best.get(k, {}).get(c, v))
print(f"{'case':28}{'base':>9}{'new':>9}  new/base")
for c in best['base']: print(f"{c:28}{best['base'][c]:9.1f}{best['new'][c]:9.1f}  {best['new'][c]/best['base'][c]:6.3f}")
PY
M=launch__registers_per_thread,smsp__inst_executed.sum,gpu__time_duration.sum
for c in d0-b1-16-fixed d0-b128-16-fixed d0-b32-64-fixed; do
  for b in base new; do
    X=$K; [ $b = base ] && X=$KB
    echo "== $c $b"
    timeout 100 ncu --clock-control none --kernel-name-base demangled -k regex:'QBlockMma|QBlockOffsets' --launch-skip 2 --launch-count 2 --metrics $M \
      $X bench --case $c --scenario $SH --warmup 1 --runs 1 --no-check-values 2>&1 | grep -E '^  [a-z]|registers|inst_executed|duration' | sed 's/(Kokkos.*//' | cut -c1-120
  done
done > $R/ncu-counts.txt 2>&1
grep -E '==|duration' $R/ncu-counts.txt
( time timeout 200 $T --gtest_brief=1 ) > $R/tests.txt 2>&1; echo "rc $?" >> $R/tests.txt; tail -3 $R/tests.txt
SS=perf/results/h100-2026-11-26-overlap/sanitize/scenario.json
timeout 60 $K refgen --scenario $SS --output /tmp/deep.h5 > $R/sanitize/refgen.txt 2>&1
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $K validate /tmp/deep.h5 --variant all > $R/sanitize/memcheck-deep.txt 2>&1; echo "rc $?" >> $R/sanitize/memcheck-deep.txt
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $K validate /tmp/deep.h5 --variant qblock_static --case deep-prefill-bf16 > $R/sanitize/racecheck-qblock_static.txt 2>&1; echo "rc $?" >> $R/sanitize/racecheck-qblock_static.txt
tail -n 2 $R/sanitize/*.txt
tar -C $OUT -czf $OUT/run23.tgz r && rm -rf $R
