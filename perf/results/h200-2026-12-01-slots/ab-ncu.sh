#!/bin/bash
# Stop 63, calls 2-: base (2da1681) against the build NAME (.device/NAME/): the probe A/B,
# then every Q-block launch of one probe run of each under Nsight Compute (registers, time,
# instructions, local loads and stores), and compute-sanitizer memcheck over every probe case of NAME.
set -u
ROUNDS=3 bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh base $1
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
M=launch__registers_per_thread,launch__grid_size,launch__block_size,gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum
for n in base $1; do
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlock --metrics $M --csv /tmp/$n 1 0 2>/dev/null \
    | grep -v '^==PROF==' > $OUT/ncu-launches-$n.csv
done
compute-sanitizer --tool memcheck --print-limit 20 /tmp/$1 2 0 > $OUT/memcheck-$1.txt 2>&1
tail -2 $OUT/memcheck-$1.txt
