#!/bin/bash
# Call C (after call B, the same binaries): run.sh's Nsight Compute line alone, on call A's targets.json,
# once ncu-b16-512.sh took SDPA's kernels from perf/torch_sdpa.py; every ncu-*, *-stalls and *-sass
# file here is from it.
set -u
[ -d .device/lib ] || tar xJf .device/lib.tar.xz -C .device
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
xz -dc .device/bin/kattn.xz > /tmp/kattn && chmod +x /tmp/kattn
D=perf/results/h100-2026-12-06-checks; T=/tmp/c; mkdir -p $T; SECONDS=0
gzip -dc $D/targets.json.gz > /tmp/targets.json
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $T/device-callC.txt
bash $D/ncu-b16-512.sh $T /tmp/kattn /tmp/targets.json
echo "ncu ${SECONDS} s" > $T/times-callC.txt
tar czf $OUT/callC.tgz -C /tmp c
cat $T/times-callC.txt $T/device-callC.txt; cat $T/ncu-*.txt; head -n 12 $T/*-stalls.txt
