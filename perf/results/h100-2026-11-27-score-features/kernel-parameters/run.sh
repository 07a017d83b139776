# Device run 35 (2026-11-27): A/B in one call of 4dca551 (base), 3ed8b2b (split) and this tree
# (param: the score rules as kernel parameters) on the prefill A/B, window and decode scenarios,
# lower of two runs; then this tree's targets beside PyTorch SDPA (kernel time, L2 flushed).
source .device/setup.sh
R=$OUT/r; mkdir -p $R
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date; } > $R/device.txt
mkdir -p .device/ab && tar -C .device/ab -xJf .device/ab.tar.xz
for b in base split; do printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/.device/pkg/lib exec %s/.device/ab/%s.bin "$@"\n' "$ROOT" "$ROOT" $b > .device/ab/$b; chmod +x .device/ab/$b; done
cp $K .device/ab/param
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
for i in 1 2; do for b in base split param; do
  timeout 100 .device/ab/$b bench --scenario $S --warmup 10 --runs 50 --no-check-values > $R/$b-prefill-$i.txt 2>&1
  timeout 60 .device/ab/$b bench --scenario perf/scenarios/window.json --warmup 10 --runs 50 --no-check-values > $R/$b-window-$i.txt 2>&1
  timeout 120 .device/ab/$b bench --scenario perf/scenarios/decode.json --warmup 10 --runs 50 --no-check-values > $R/$b-decode-$i.txt 2>&1
done; done
python3 .device/ab_parse.py base,split,param $R/*-prefill-*.txt $R/*-window-*.txt $R/*-decode-*.txt | tee $R/ab.txt
timeout 200 $K bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $R/targets.json > $R/targets.txt 2>&1
timeout 200 python3 perf/torch_sdpa.py $R/targets.json > $R/sdpa-targets.txt 2>&1
grep -v stream $R/targets.txt | grep -E 'prefill|mixed|decode' | awk '{print $1, $6, $12, $14, $NF}'; tail -14 $R/sdpa-targets.txt
gzip $R/targets.json
tar -C $OUT -czf $OUT/run35.tgz r && rm -rf $R
