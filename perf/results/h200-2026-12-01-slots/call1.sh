#!/bin/bash
# Stop 63, call 1: base (2da1681's kernels: the Q-block offsets kernel before every Q-block launch)
# against slots (items find their Q blocks by slots, the tensor maps written only where the workspace
# lacks them, the claim counters in the workspace's counters): the probe A/B, then compute-sanitizer
# memcheck over every probe case of slots (2 runs, no warm-up).
set -u
ROUNDS=3 bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh base slots
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
compute-sanitizer --tool memcheck --print-limit 20 /tmp/slots 2 0 > $OUT/memcheck-slots.txt 2>&1
tail -5 $OUT/memcheck-slots.txt
