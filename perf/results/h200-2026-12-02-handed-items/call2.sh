#!/bin/bash
# Stop 64, call 2: base (2ecdee3, .device/mended2) against staged (a claiming team copies its part's
# cu_seqlens_q and seq_lens into scratch once, and its items find their rows there): the probe A/B,
# every Q-block launch of one probe run of each under Nsight Compute, memcheck of staged, the source
# counters of staged on b16 512 at teams of 4 (all in call2.tar.gz but ab.txt and ncu.txt).
set -u
SOURCE=staged ROUNDS=3 bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh mended2 staged
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
M=launch__registers_per_thread,launch__grid_size,launch__block_size,gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum
mkdir -p /tmp/c2
for n in mended2 staged; do
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlock --metrics $M --csv /tmp/$n 1 0 2>/dev/null \
    | grep -v '^==PROF==' | gzip > /tmp/c2/ncu-launches-$n.csv.gz
done
compute-sanitizer --tool memcheck --print-limit 20 /tmp/staged 2 0 > /tmp/c2/memcheck-staged.txt 2>&1
tail -2 /tmp/c2/memcheck-staged.txt
mv $OUT/t4-* /tmp/c2/ 2>/dev/null
tar czf $OUT/call2.tar.gz -C /tmp/c2 .
