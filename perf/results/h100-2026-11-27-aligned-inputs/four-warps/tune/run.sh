# Device call 13 (2026-11-27 14:38 UTC): kattn tune sweep of 0345216; the fit here with the OpenMP build's kattn:
# kattn tune sweep of the 4-warp split-KV tree (suite + decode scenarios), for the refit of data/tuning/h100.json.
mkdir -p .device/pkg && tar xJf .device/fw.tar.xz -C .device/pkg
K=.device/pkg/fw/kattn; S=perf/scenarios
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/device.txt
timeout 560 $K tune sweep --scenario $S/suite.json,$S/decode.json --space data/tuning/spaces/gpu.json --no-check-values \
  --commit $(cat .device/commit) --output $OUT/raw.json > $OUT/tune.log 2>&1
echo "rc $?"; tail -n 3 $OUT/tune.log; gzip $OUT/raw.json; gzip $OUT/tune.log; ls -la $OUT
kattn tune fit raw.json --arch h100 --max-depth 6 --output h100.json > fit.log   # data/tuning/h100.json of dc29822
