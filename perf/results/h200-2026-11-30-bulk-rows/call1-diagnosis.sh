#!/bin/bash
# Diagnostic (2026-11-29 late): what cuDNN's and FlashAttention-2's prefill kernels are on b16 512 (launch shape,
# registers, shared memory, tensor-pipe activity), beside kattn's teams of 4 and of 12 on the same case; and the source
# counters of kattn's teams of 12 on b16 512.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
xz -dc .device/kattn_prefill_probe.xz > /tmp/probe && chmod +x /tmp/probe
M=launch__registers_per_thread,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,gpu__time_duration.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__warps_active.avg.per_cycle_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
cat > /tmp/sdpa.py <<'PY'
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
b = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}[sys.argv[1]]
q = torch.randn(16, 32, 512, 128, device="cuda", dtype=torch.half)
k = torch.randn(16, 8, 512, 128, device="cuda", dtype=torch.half)
v = torch.randn(16, 8, 512, 128, device="cuda", dtype=torch.half)
torch.cuda.synchronize()
for _ in range(3):
    with sdpa_kernel(b):
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
torch.cuda.synchronize()
PY
for be in cudnn flash; do
  echo "== $be b16 512"
  ncu --clock-control none -k regex:'^(?!.*(distribution|elementwise|fill|copy|Memset|vectorized)).*' --launch-skip 2 --launch-count 2 \
    --metrics $M python3 /tmp/sdpa.py $be 2>&1 | grep -v '^==PROF==' | tail -40
done > $OUT/baselines-ncu.txt 2>&1
for spec in "t4 10" "t12 14" "t12-b1-8k 6"; do
  set -- $spec
  echo "== kattn $1 (launch skip $2)"
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip $2 --launch-count 1 --metrics $M /tmp/probe 1 0 2>&1 | grep -v '^==PROF==' | grep -A20 QBlockMma | head -22
done > $OUT/kattn-ncu.txt 2>&1
ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 14 --launch-count 1 \
  --section SourceCounters --section WarpStateStats --section LaunchStats -o /tmp/t12 -f /tmp/probe 1 0 > $OUT/t12-run.txt 2>&1
ncu -i /tmp/t12.ncu-rep --page source --csv --print-source sass > /tmp/t12.csv 2>/dev/null
python3 perf/ncu_stalls.py /tmp/t12.csv > $OUT/t12-stalls.txt 2>&1
gzip -c /tmp/t12.csv > $OUT/t12-sass.csv.gz
