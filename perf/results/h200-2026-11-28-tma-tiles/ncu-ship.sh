#!/bin/bash
# Nsight Compute of b1 8192's first Q-block launch at block 16: base2 against ship (the boxes' code present, rows used).
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
for n in base2 ship; do
  timeout 200 ncu -k regex:QBlockMma --kernel-name-base demangled --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats \
    --metrics smsp__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_local_op_st.sum \
    .device/bin/$n/kattn_prefill_probe 1 0 > $OUT/ncu-ship-$n.txt 2>&1
  grep -E "Duration|Spilling Requests|Registers Per|inst_executed|local_op|Warp Cycles Per Issued" $OUT/ncu-ship-$n.txt
done
