# Device run 26 (2026-11-27): two warpgroups a team, compile-time (Warpgroups = 1 folds to the
# shipped kernel): A/B of HEAD 35833f8 against it (team 4), --team-size 4 against 8 on prefills
# whose K/V pass the L2, validate, the new tests.
source .device/setup.sh
mkdir -p .device/base && tar -C .device/base -xJf .device/base.tar.xz
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/.device/base/pkg/lib exec %s/.device/base/pkg/bin/kattn.bin "$@"\n' "$ROOT" "$ROOT" > .device/base/kattn
chmod +x .device/base/kattn; KB=$ROOT/.device/base/kattn
R=$OUT/r; mkdir -p $R
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date; } > $R/device.txt
parse() { python3 - "$@" <<'PY'
import sys, re
best, order = {}, []
for f in sys.argv[2:]:
    tag = f.split('/')[-1].split('-')[0]
    for l in open(f):
        p = l.split()
        if len(p) > 14 and 'stream' not in l and re.match(r'^[0-9.]+$', p[11]) and 'x' in p[5]:
            k = (p[0], tag + p[5].split('x')[0]); best[k] = min(best.get(k, 1e30), float(p[11]))
            if p[0] not in order: order.append(p[0])
cols = sys.argv[1].split(',')
print(f"{'case':28}" + ''.join(f"{c:>10}" for c in cols) + f"  {cols[1]}/{cols[0]}")
for c in order:
    v = [best.get((c, k)) for k in cols]
    if all(v): print(f"{c:28}" + ''.join(f"{x:10.1f}" for x in v) + f"  {v[1]/v[0]:6.3f}")
PY
}
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
for i in 1 2; do
  timeout 100 $KB bench --scenario $S --warmup 10 --runs 50 --no-check-values > $R/base-$i.txt 2>&1
  timeout 100 $K bench --scenario $S --warmup 10 --runs 50 --no-check-values > $R/new-$i.txt 2>&1
done
parse base4,new4 $R/base-*.txt $R/new-*.txt | tee $R/ab-head.txt
L=.device/long-scenario.json  # compile-time/long-scenario.json
for i in 1 2; do timeout 150 $K bench --scenario $L --warmup 3 --runs 15 --team-size 4,8 --no-check-values > $R/long-$i.txt 2>&1; done
parse long4,long8 $R/long-*.txt | tee $R/ab-long.txt
timeout 60 $K validate data/references.h5 --variant all > $R/validate.txt 2>&1; echo "rc $?" >> $R/validate.txt; tail -2 $R/validate.txt
timeout 200 $T --gtest_brief=1 --gtest_filter="*KernelTeamShapes*:*TeamTile*:*Warpgroup*" > $R/tests-new.txt 2>&1; echo "rc $?" >> $R/tests-new.txt; grep -E "PASSED|SKIPPED|FAILED|rc " $R/tests-new.txt | head -20
tar -C $OUT -czf $OUT/run26.tgz r && rm -rf $R
