#!/bin/bash
# A/B of two kattn_prefill_probe builds (base = 3a1f3f9, new = the Q and output rows by the tensor memory accelerator), alternating,
# three rounds, every case planned and at teams of 4, 8 and 12; then Nsight Compute counts of both on b16 512 at teams of 4.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
for n in base new; do xz -dc .device/$n/kattn_prefill_probe.xz > /tmp/$n && chmod +x /tmp/$n; done
for round in 1 2 3; do
  for n in base new; do /tmp/$n 40 10 | sed "s/^/$n r$round /"; done
done 2>&1 | tee $OUT/ab.txt
M=launch__registers_per_thread,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__warps_active.avg.per_cycle_active,sm__throughput.avg.pct_of_peak_sustained_elapsed
for n in base new; do
  echo "== $n b16 512, teams of 4 (launch skip 10)"
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 10 --launch-count 1 --metrics $M /tmp/$n 1 0 2>&1 | grep -v '^==PROF==' | grep -A16 QBlockMma | head -18
done > $OUT/ncu.txt 2>&1
