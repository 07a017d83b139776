#!/bin/bash
# Stop 72 (2026-12-06), one call on the H100: 710a2e8's CLI and test binaries (built here: nvcc 13.0,
# Kokkos 4.6.01 with the CUDA 13 signatures of docs/building.md, sm_90a; carried as .device/bin/*.xz
# and .device/lib.tar.xz) — the GPU tests, compute-sanitizer on the tile primitives and the claiming
# teams, Nsight Compute on prefill b16 512 (kattn's planned kernel and PyTorch's cuDNN and flash
# kernels: launch shape, instructions, issue, tensor pipe, stall reasons), the targets beside SDPA.
set -u
[ -d .device/lib ] || tar xJf .device/lib.tar.xz -C .device
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /work && ln -sfn $PWD /work/main build/h100/src build/h100/tests
for b in kattn kattn_tests kattn_backend_tests_Cuda; do xz -dc .device/bin/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
cp /tmp/kattn build/h100/src/kattn
K=/tmp/kattn; C=$(cat .device/commit); T=/tmp/o; mkdir -p $T; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $T/device.txt
# GPU tests (host-only suites and the differential runs left to CI)
timeout 120 /tmp/kattn_backend_tests_Cuda > $T/backend-tests.txt 2>&1; echo "rc $?" >> $T/backend-tests.txt
timeout 240 /tmp/kattn_tests --gtest_filter='-*Differential*:Cli.*:HardwareModel.*' > $T/tests.txt 2>&1
echo "rc $?" >> $T/tests.txt; echo "tests ${SECONDS} s" >> $T/times.txt
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool /tmp/kattn_backend_tests_Cuda \
    --gtest_filter='*TeamBulkCopy*:*WarpgroupRows*:*WarpRows*' > $T/$tool-primitives.txt 2>&1
  echo "rc $?" >> $T/$tool-primitives.txt
done
timeout 90 compute-sanitizer --tool memcheck /tmp/kattn_tests --gtest_filter='KernelClaimingTeams.*' \
  > $T/memcheck-claiming.txt 2>&1; echo "rc $?" >> $T/memcheck-claiming.txt
echo "sanitizers ${SECONDS} s" >> $T/times.txt
# The targets beside PyTorch SDPA (kernel time, L2 flushed)
timeout 100 $K bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --commit $C \
  --output $T/targets.json > $T/targets-bench.txt 2>&1
timeout 60 python3 perf/torch_sdpa.py $T/targets.json >> $T/targets-bench.txt 2>&1
echo "targets rc $? ${SECONDS} s" >> $T/times.txt
# Nsight Compute on b16 512: the same metrics for kattn's kernel and SDPA's
M=launch__registers_per_thread,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__warps_active.avg.per_cycle_active,smsp__average_warp_latency_per_inst_issued.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed
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
KSEL="regex:^(?!.*(distribution|elementwise|fill|copy|Memset|vectorized|Flush|flush)).*"
for be in cudnn flash; do
  echo "== $be b16 512"
  timeout 120 ncu --clock-control none -k "$KSEL" --launch-skip 2 --launch-count 1 --metrics $M \
    python3 /tmp/sdpa.py $be 2>&1 | grep -v '^==PROF==' | tail -24
done > $T/ncu-sdpa.txt 2>&1
echo "== kattn b16 512 (planned)" > $T/ncu-kattn.txt
timeout 120 ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 2 --launch-count 1 \
  --metrics $M $K bench --scenario perf/scenarios/targets.json --case prefill-b16-512 --warmup 2 --runs 1 \
  --no-check-values 2>&1 | grep -v '^==PROF==' | grep -A24 QBlockMma | head -26 >> $T/ncu-kattn.txt
for who in kattn cudnn; do
  if [ $who = kattn ]; then
    timeout 150 ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 2 --launch-count 1 \
      --section SourceCounters --section WarpStateStats -o /tmp/$who -f $K bench --scenario perf/scenarios/targets.json \
      --case prefill-b16-512 --warmup 2 --runs 1 --no-check-values > $T/ncu-$who-run.txt 2>&1
  else
    timeout 150 ncu --clock-control none -k "$KSEL" --launch-skip 2 --launch-count 1 \
      --section SourceCounters --section WarpStateStats -o /tmp/$who -f python3 /tmp/sdpa.py cudnn > $T/ncu-$who-run.txt 2>&1
  fi
  ncu -i /tmp/$who.ncu-rep --page source --csv --print-source sass > /tmp/$who.csv 2>/dev/null
  python3 perf/ncu_stalls.py /tmp/$who.csv > $T/$who-stalls.txt 2>&1
  gzip -c /tmp/$who.csv > $T/$who-sass.csv.gz
done
echo "ncu ${SECONDS} s" >> $T/times.txt
gzip $T/targets.json
tar czf $OUT/call.tgz -C /tmp o
cat $T/times.txt $T/device.txt; tail -n 3 $T/backend-tests.txt
grep -E "^\[  (PASSED|FAILED|SKIPPED)|tests ran|^rc" $T/tests.txt | tail -6
grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|^rc" $T/memcheck-*.txt $T/racecheck-*.txt
tail -n 26 $T/targets-bench.txt; cat $T/ncu-kattn.txt $T/ncu-sdpa.txt | head -80
head -n 14 $T/kattn-stalls.txt $T/cudnn-stalls.txt
