#!/bin/bash
# Call 1: the A/B of ../h200-2026-11-30-item-claims/ab/call1.sh (probe builds named as arguments, the first the
# base, alternating ROUNDS rounds; Nsight Compute counts of b16 512 at teams of 4), then every kernel of the
# probe's planned b16 512 launch (its Q-block offsets kernel beside the Q-block kernel) timed by Nsight Compute.
set -u
bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh "$@"
M=gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size
ncu --clock-control none --kernel-name-base demangled -k regex:QBlock --launch-skip 20 --launch-count 4 --metrics $M /tmp/$1 1 0 \
  2>&1 | grep -v '^==PROF==' | grep -E 'ParallelFor|gpu__time|inst_exec|grid_size|block_size' > $OUT/kernels.txt 2>&1
