# Device run 36 (2026-11-27): one step in the all-features warpgroup kernel (the unmasked trips only
# where the logits' hooks are compiled out): validate; A/B in one call of 4dca551 (base), the
# kernel-parameter build (param) and this tree (single) on the window and prefill A/B scenarios,
# lower of three runs.
# (.device/features-scenario.json is single-step/features-scenario.json here.)
source .device/setup.sh
R=$OUT/r; mkdir -p $R
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date; } > $R/device.txt
timeout 90 $K validate data/references.h5 --variant all > $R/validate.txt 2>&1; echo "rc $?" >> $R/validate.txt; tail -2 $R/validate.txt
mkdir -p .device/ab && tar -C .device/ab -xJf .device/ab.tar.xz
for b in base param; do printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/.device/pkg/lib exec %s/.device/ab/%s.bin "$@"\n' "$ROOT" "$ROOT" $b > .device/ab/$b; chmod +x .device/ab/$b; done
cp $K .device/ab/single
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
for i in 1 2 3; do for b in base param single; do
  timeout 60 .device/ab/$b bench --scenario perf/scenarios/window.json --warmup 10 --runs 50 --no-check-values > $R/$b-window-$i.txt 2>&1
  timeout 100 .device/ab/$b bench --scenario $S --warmup 10 --runs 50 --no-check-values > $R/$b-prefill-$i.txt 2>&1
  timeout 100 .device/ab/$b bench --scenario .device/features-scenario.json --warmup 10 --runs 50 --no-check-values > $R/$b-features-$i.txt 2>&1
done; done
python3 .device/ab_parse.py base,param,single $R/*-window-*.txt $R/*-features-*.txt $R/*-prefill-*.txt | tee $R/ab.txt
tar -C $OUT -czf $OUT/run36.tgz r && rm -rf $R
