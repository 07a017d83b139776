#!/usr/bin/env bash
# A/B: 068c9ff (base) against the same kernels on 512-byte aligned q, caches and out (align), one call.
set -x
mkdir -p .device/pkg && for b in base align; do tar xJf .device/$b.tar.xz -C .device/pkg; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
R="--warmup 10 --runs 50 --no-check-values"
for i in 1 2; do
  for b in base align; do
    .device/pkg/$b/kattn bench --scenario perf/scenarios/targets.json $R --output $OUT/targets-$b-$i.json > $OUT/targets-$b-$i.txt 2>&1
    .device/pkg/$b/kattn bench --scenario perf/scenarios/decode.json $R --output $OUT/decode-$b-$i.json > $OUT/decode-$b-$i.txt 2>&1
  done
done
python3 perf/torch_sdpa.py $OUT/targets-align-1.json > $OUT/sdpa-targets.txt 2>&1
python3 perf/torch_sdpa.py $OUT/decode-align-1.json > $OUT/sdpa-decode.txt 2>&1
cd $OUT && tar czf ab.tgz *.json *.txt && rm -f *.json && ls
