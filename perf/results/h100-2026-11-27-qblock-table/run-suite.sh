# Device run 22: the suite beside SDPA on the Q-block table's kernels (for the tables, the model's calibration), the tuning sweep.
source .device/setup.sh
R=$OUT/r; mkdir -p $R/tune
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date; } > $R/device.txt
KATTN_SUITE_RUNS="--warmup 5 --runs 20 --no-check-values" timeout 330 perf/run_suite.sh build/h100 $R/suite > $R/suite-run.log 2>&1
tail -12 $R/suite-run.log
timeout 200 $K tune sweep --scenario perf/scenarios/suite.json,perf/scenarios/decode.json --no-check-values --output $R/tune/raw.json 2> $R/tune/tune.log > $R/tune/sweep.txt
tail -2 $R/tune/tune.log
mkdir -p .device/base && tar -C .device/base -xJf .device/base.tar.xz
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/.device/base/pkg/lib exec %s/.device/base/pkg/bin/kattn.bin "$@"\n' "$ROOT" "$ROOT" > .device/base/kattn
chmod +x .device/base/kattn; KB=$ROOT/.device/base/kattn
SH=perf/results/h100-2026-11-27-qblock-table/short-scenario.json
for i in 1 2; do
  timeout 60 $KB bench --scenario $SH --warmup 20 --runs 100 --no-check-values > $R/base-short-$i.txt 2>&1
  timeout 60 $K bench --scenario $SH --warmup 20 --runs 100 --no-check-values > $R/new-short-$i.txt 2>&1
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
best = {}
for k in ('base', 'new'):
    for f in sorted(glob.glob(f'{R}/{k}-short-*.txt')):
        for c, v in read(f).items(): best.setdefault(k, {})[c] = min(v, best.get(k, {}).get(c, v))
for c in best['base']: print(f"{c:28}{best['base'][c]:9.1f}{best['new'][c]:9.1f}  {best['new'][c]/best['base'][c]:6.3f}")
PY
gzip $R/tune/raw.json $R/tune/tune.log
tar -C $OUT -czf $OUT/run22.tgz r && rm -rf $R
