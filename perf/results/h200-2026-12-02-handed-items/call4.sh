#!/bin/bash
# Stop 64, call 4: base (2ecdee3, .device/mended2) against blocks (a tile's block ids by unsigned
# 32-bit offsets, team_stage.hpp's tile_blocks; and PublishedMaps' fixed record, host only): the
# probe A/B, every Q-block launch of one probe run of each under Nsight Compute, memcheck of blocks.
set -u
ROUNDS=3 bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh mended2 blocks
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
M=launch__registers_per_thread,launch__grid_size,launch__block_size,gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum
mkdir -p /tmp/c4
for n in mended2 blocks; do
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlock --metrics $M --csv /tmp/$n 1 0 2>/dev/null \
    | grep -v '^==PROF==' | gzip > /tmp/c4/ncu-launches-$n.csv.gz
done
compute-sanitizer --tool memcheck --print-limit 20 /tmp/blocks 2 0 > /tmp/c4/memcheck-blocks.txt 2>&1
tail -2 /tmp/c4/memcheck-blocks.txt
tar czf $OUT/call4.tar.gz -C /tmp/c4 .
