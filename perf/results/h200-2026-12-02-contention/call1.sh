#!/bin/bash
# Stop 66, call 1: is b16 512 bound by each team's own chain or by what the SM's two teams share?
# HEAD's probe (6d0558f, .device/mend) on static grids of 264 teams (two an SM, the plan's), 132
# (one an SM) and 198, two rounds each; Nsight Compute's full set on b16 512 at teams of 4 for 264
# and 132 teams.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
xz -dc .device/mend/kattn_prefill_probe.xz > /tmp/mend && chmod +x /tmp/mend
for round in 1 2; do
  for g in 264 132 198; do KATTN_PROBE_GRID_TEAMS=$g /tmp/mend 40 10 | sed "s/^/g$g r$round /"; done
done > $OUT/grids.txt 2>&1
for g in 264 132; do
  KATTN_PROBE_GRID_TEAMS=$g ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 10 \
    --launch-count 1 --set full /tmp/mend 1 0 > $OUT/ncu-full-g$g.txt 2>&1
done
