#!/bin/bash
# Stop 65: one probe A/B call, `ab.sh BASE OTHER NAME` (builds .device/BASE/ and .device/OTHER/):
# three rounds alternating, OTHER's source counters, every Q-block launch of one probe run of each
# under Nsight Compute, memcheck of OTHER; the last three as $OUT/NAME.tar.gz.
set -u
base=$1 other=$2 name=$3
ROUNDS=3 SOURCE=$other bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh $base $other
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
M=launch__registers_per_thread,launch__grid_size,launch__block_size,gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum
mkdir -p /tmp/$name
for n in $base $other; do
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlock --metrics $M --csv /tmp/$n 1 0 2>/dev/null \
    | grep -v '^==PROF==' | gzip > /tmp/$name/ncu-launches-$n.csv.gz
done
compute-sanitizer --tool memcheck --print-limit 20 /tmp/$other 2 0 > /tmp/$name/memcheck-$other.txt 2>&1
tail -2 /tmp/$name/memcheck-$other.txt
tar czf $OUT/$name.tar.gz -C /tmp/$name .
