# Device run 30 (2026-11-27): A/B in one call of 4dca551 (base), the score features as types (feat)
# and the same with the L2's 256-byte prefetch on the split-KV block tiles (pref): prefill A/B
# scenario, window scenario (the all-features kernels), decode scenario; lower of two runs each.
source .device/setup.sh
R=$OUT/r; mkdir -p $R
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date; } > $R/device.txt
mkdir -p .device/ab && tar -C .device/ab -xJf .device/ab.tar.xz
for b in base feat pref; do printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/.device/pkg/lib exec %s/.device/ab/%s.bin "$@"\n' "$ROOT" "$ROOT" $b > .device/ab/$b; chmod +x .device/ab/$b; done
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
for i in 1 2; do for b in base feat pref; do
  timeout 100 .device/ab/$b bench --scenario $S --warmup 10 --runs 50 --no-check-values > $R/$b-prefill-$i.txt 2>&1
  timeout 60 .device/ab/$b bench --scenario perf/scenarios/window.json --warmup 10 --runs 50 --no-check-values > $R/$b-window-$i.txt 2>&1
done; done
python3 .device/ab_parse.py base,feat,pref $R/*-prefill-*.txt $R/*-window-*.txt | tee $R/ab-prefill.txt
tar -C $OUT -czf $OUT/run30.tgz r && rm -rf $R
