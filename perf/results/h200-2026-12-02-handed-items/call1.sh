#!/bin/bash
# Stop 64, call 1: base (2ecdee3, .device/mended2) against handed (a claiming team's first warp finds
# the next item's work item under the item's first copies, handed round in scratch) and handed-vote
# (handed with the owner's offsets and length read in the vote's last round, by shuffles): the probe
# A/B, every Q-block launch of one probe run of each under Nsight Compute, memcheck of each new form; the source counters of handed-vote.
set -u
SOURCE=handed-vote ROUNDS=3 bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh mended2 handed handed-vote
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
M=launch__registers_per_thread,launch__grid_size,launch__block_size,gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum
for n in mended2 handed handed-vote; do
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlock --metrics $M --csv /tmp/$n 1 0 2>/dev/null \
    | grep -v '^==PROF==' | gzip > $OUT/ncu-launches-$n.csv.gz
done
for n in handed handed-vote; do
  compute-sanitizer --tool memcheck --print-limit 20 /tmp/$n 2 0 > $OUT/memcheck-$n.txt 2>&1
  tail -2 $OUT/memcheck-$n.txt
done
