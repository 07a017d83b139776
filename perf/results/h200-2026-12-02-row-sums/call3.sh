#!/bin/bash
# Stop 65, call 3: base (4814def, .device/blocks) against cuts (41552d0) and rcp (4814def with the
# inverse sums by the hardware reciprocal alone: which of cuts' two changes moves the time), five
# rounds; every Q-block launch of one probe run of rcp under Nsight Compute.
set -u
ROUNDS=5 bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh blocks cuts rcp
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
M=launch__registers_per_thread,launch__grid_size,launch__block_size,gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum
ncu --clock-control none --kernel-name-base demangled -k regex:QBlock --metrics $M --csv /tmp/rcp 1 0 2>/dev/null \
  | grep -v '^==PROF==' | gzip > $OUT/ncu-launches-rcp.csv.gz
