# Device run 28 (2026-11-27): main at 4dca551: the targets beside PyTorch SDPA (kernel time, L2 flushed).
source .device/setup.sh
R=$OUT/r; mkdir -p $R
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date; } > $R/device.txt
timeout 200 $K bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $R/targets.json > $R/targets.txt 2>&1
timeout 200 python3 perf/torch_sdpa.py $R/targets.json > $R/sdpa-targets.txt 2>&1
grep -v stream $R/targets.txt | grep -E 'prefill|mixed|decode' | awk '{print $1, $6, $12, $14, $NF}'; tail -14 $R/sdpa-targets.txt
gzip $R/targets.json
tar -C $OUT -czf $OUT/run28.tgz r && rm -rf $R
