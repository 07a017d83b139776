#!/usr/bin/env bash
# Device call (2026-11-28, session 47): the step-clocks diagnostic build (clock64 stamps of team 0's
# steps and item phases, one lane a warpgroup) on the targets' prefills, planned and forced shapes.
set -x
mkdir -p .device/pkg && tar xJf .device/ws18.tar.xz -C .device/pkg
F=$PWD/.device/pkg/sc; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
S=perf/scenarios/targets.json
for c in prefill-b1-8k prefill-b16-512 mixed-part-chunks; do
  timeout 60 $F/kattn.bin bench --scenario $S --case $c --warmup 3 --runs 5 --no-check-values > $R/clocks-$c.txt 2>&1
  for t in 4 8; do timeout 60 $F/kattn.bin bench --scenario $S --case $c --team-size $t --warmup 3 --runs 5 --no-check-values > $R/clocks-$c-t$t.txt 2>&1; done
done
timeout 60 $F/kattn.bin bench --scenario $S --case prefill-b16-512 --team-size 4 --grid-teams 264 --warmup 3 --runs 5 --no-check-values > $R/clocks-prefill-b16-512-t4-g264.txt 2>&1
for f in $R/clocks-*.txt; do echo "== $f"; grep -E 'KATTN_CLOCK (case|item)' $f | head -12; grep -E 'KATTN_CLOCK step' $f | head -6; grep -E '^prefill|^mixed' $f | cut -c1-140; done
