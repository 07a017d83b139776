#!/bin/bash
# Stop 73 (2026-12-06): one A/B call of kattn_prefill_probe builds (.device/NAME/kattn_prefill_probe.xz,
# the first the base), built here (nvcc 13.0, Kokkos 4.6.01 with building.md's CUDA 13 signatures,
# sm_90a) and carried with `carry: [".device"]`:
#   base  121b8b5 (main at this stop's start)
#   v1    an item stored by the copy engine ends on its last barrier: the lead writes the next claim
#         before it, and the item loop's own barrier goes
#   v2    v1, and the output rows go out through the third V buffer, so that the next item's Q rows
#         by the copy engine need not wait for the read of the last item's output rows
#   v3    base, and an item's output rows by the copy engine go out after the item loop's barrier
#         (the lead hands them over there), not after a barrier of their own
#   v4    v3, and the warp converged again (__syncwarp) after the lead's hand-over
# Call 1: ab.sh base v1 v2; call 2: RACECHECK=0 ab.sh base v3 (racecheck of the probe had passed its
# 120 s within b1 8192, its output not kept); call 3: RACECHECK=0 SOURCE=v4 ab.sh base v4.
# ROUNDS rounds (default 2) alternating, 40 runs after 10 (ab.txt); each build's Q-block launches of
# one probe run under Nsight Compute (registers, instructions, time); memcheck and racecheck of the last.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
for n in "$@"; do xz -dc .device/$n/kattn_prefill_probe.xz > /tmp/$n && chmod +x /tmp/$n; done
for round in $(seq 1 ${ROUNDS:-2}); do
  for n in "$@"; do /tmp/$n 40 10 | sed "s/^/$n r$round /"; done
done > $OUT/ab.txt 2>&1
date -u +"A/B done %T" >> $OUT/device.txt
M=launch__registers_per_thread,launch__grid_size,launch__block_size,gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_inst_executed_op_local_ld.sum
for n in "$@"; do
  timeout 90 ncu --clock-control none --kernel-name-base demangled -k regex:QBlock --metrics $M --csv /tmp/$n 1 0 2>/dev/null \
    | grep -v '^==PROF==' | gzip > $OUT/ncu-launches-$n.csv.gz
done
if [ -n "${SOURCE:-}" ]; then  # SOURCE's source counters on b16 512 at teams of 4 (the probe's 11th Q-block launch)
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 10 --launch-count 1 \
    --section SourceCounters --section WarpStateStats -o /tmp/t4 -f /tmp/$SOURCE 1 0 > /dev/null 2>&1
  ncu -i /tmp/t4.ncu-rep --page source --csv --print-source sass > /tmp/t4.csv 2>/dev/null
  python3 perf/ncu_stalls.py /tmp/t4.csv > $OUT/t4-$SOURCE-stalls.txt 2>&1
  gzip -c /tmp/t4.csv > $OUT/t4-$SOURCE-sass.csv.gz
fi
last=${@: -1}
timeout 120 compute-sanitizer --tool memcheck --print-limit 20 /tmp/$last 1 0 > $OUT/memcheck-$last.txt 2>&1
[ "${RACECHECK:-1}" = 0 ] || timeout 120 compute-sanitizer --tool racecheck --print-limit 20 /tmp/$last 1 0 > $OUT/racecheck-$last.txt 2>&1
tail -n 2 $OUT/*check-$last.txt
