#!/usr/bin/env bash
# Device call (2026-11-28): kattn simulate's latency experiment (Figure 9), eager and graph replay, on
# 7a9b6b8's binary (the shipped table), session 46.
set -x
mkdir -p .device/pkg && tar xJf .device/ws12.tar.xz -C .device/pkg
F=$PWD/.device/pkg/ship; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH; R=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
for g in "" --graph-replay; do n=latency-planned${g:+-graph}
  timeout 150 $F/kattn.bin simulate --model data/models/llama-3.1-8b.json --latency-experiment --warmup 1 --runs 1 --rows 6 $g \
    --output $R/$n.json > $R/$n.txt 2>&1; echo "rc $?"; gzip $R/$n.json
done
grep -E "TTFT|ITL|E2EL|attention" $R/latency-planned*.txt | grep -E "Mean|share" | head -20; ls $R
