#!/bin/bash
# Stop 74 (2026-12-07): what b16 512's teams of 4 would run with their K/V copies off their warps
# (an ideal producer), and a producer team whose two warpgroups of rows each take the teams of 4's
# item path. kattn_prefill_probe builds (.device/NAME/kattn_prefill_probe.xz), built here (nvcc 13.0,
# Kokkos 4.6.01 with building.md's CUDA 13 signatures, sm_90a) and carried with `carry: [".device"]`:
#   base  5ed6d85 (main at this stop's start)
#   c1    ceiling.patch, KATTN_PROBE_CEILING 1 (timing only): a one-warpgroup team copies an item's
#         first (diagonal) K/V tile only; its other turns read what the buffers hold (zeros from the
#         team's start, then earlier tiles): the steps' copies and block ids gone
#   c2    KATTN_PROBE_CEILING 2: no K/V copy and no block id at all
#   c3    KATTN_PROBE_CEILING 3: c2, and an item's first Q·Kᵀ issued without waiting for its Q rows
#   ts    two-streams-lean.patch without its last two changes: the producer team (teams of 12) on two
#         streams of items, each warpgroup of rows its own 64-row items over 64-key tiles (the
#         patch of perf/results/h200-2026-11-30-bulk-rows/two-streams) with the one-warpgroup
#         step at kept maxima (the vote a warpgroup's bar.red.or, K(t) held for a retake until
#         the vote of step t + 1)
#   ts2   ts, and the producer's block ids read a tile ahead and kept for V; registers 40 / 232
#   ts3   ts2, and V(t - 1) copied before K(t) (two-streams-lean.patch as it stands)
# Built here and not run (the stop's device time was spent): producer-rings.patch (on top of
# two-streams-lean.patch: git apply both, in that order), ts3 with a
# stream's Q rows by one box of the copy engine (the teams of 4's RowTileMaps, one arrival; the rows
# fence their output rows' generic accesses before they free the buffer to it) and rings of 2 K,
# 3 V and 1 Q tile a stream, for the next stop's first call: ab.sh base ts3 NEXT.
# Call 1: SOURCE=c2 ab.sh base c1 c2 c3; call 2: MEMCHECK=ts ab.sh base ts; call 3: ROUNDS=2
# SOURCE=ts2 SOURCE_SKIP=14 MEMCHECK=ts2 ab.sh base ts ts2; call 4: ROUNDS=1 ab.sh ts2 ts3.
# c1-c3's outputs are wrong by design; ts-ts3's are bit-equal to base's teams of 4.
# ROUNDS rounds (default 3) alternating, 40 runs after 10 (ab.txt; summary.txt the lower of the
# rounds' medians, in µs); each build's Q-block launches of one probe run under Nsight Compute
# (registers, instructions, issue, time: ncu-launches-NAME.csv.gz); with SOURCE=NAME that build's
# source counters on b16 512 (the probe's Q-block launch SOURCE_SKIP + 1: 11 teams of 4, 15 teams of
# 12); with MEMCHECK=NAME one run of that build under memcheck.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
for n in "$@"; do xz -dc .device/$n/kattn_prefill_probe.xz > /tmp/$n && chmod +x /tmp/$n; done
for round in $(seq 1 ${ROUNDS:-3}); do
  for n in "$@"; do timeout 120 /tmp/$n 40 10 | sed "s/^/$n r$round /"; done
done > $OUT/ab.txt 2>&1
date -u +"A/B done %T" >> $OUT/device.txt
M=launch__registers_per_thread,launch__grid_size,launch__block_size,gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__sass_inst_executed_op_local_ld.sum
for n in "$@"; do
  timeout 90 ncu --clock-control none --kernel-name-base demangled -k regex:QBlock --metrics $M --csv /tmp/$n 1 0 2>/dev/null \
    | grep -v '^==PROF==' | gzip > $OUT/ncu-launches-$n.csv.gz
done
date -u +"ncu done %T" >> $OUT/device.txt
if [ -n "${SOURCE:-}" ]; then  # SOURCE's source counters on b16 512 (SOURCE_SKIP: above)
  timeout 150 ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip ${SOURCE_SKIP:-10} --launch-count 1 \
    --section SourceCounters --section WarpStateStats -o /tmp/t4 -f /tmp/$SOURCE 1 0 > /dev/null 2>&1
  ncu -i /tmp/t4.ncu-rep --page source --csv --print-source sass > /tmp/t4.csv 2>/dev/null
  python3 perf/ncu_stalls.py /tmp/t4.csv > $OUT/source-$SOURCE-stalls.txt 2>&1
  gzip -c /tmp/t4.csv > $OUT/source-$SOURCE-sass.csv.gz
fi
if [ -n "${MEMCHECK:-}" ]; then  # MEMCHECK's one probe run under compute-sanitizer memcheck
  timeout 150 compute-sanitizer --tool memcheck --print-limit 20 /tmp/$MEMCHECK 1 0 > $OUT/memcheck-$MEMCHECK.txt 2>&1
  tail -n 2 $OUT/memcheck-$MEMCHECK.txt
fi
