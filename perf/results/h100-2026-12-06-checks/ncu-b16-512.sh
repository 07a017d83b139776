#!/bin/bash
# Nsight Compute on prefill b16 512 (no clock control; the third launch of each kernel): kattn's planned
# kernel, PyTorch SDPA's cuDNN and flash kernels (perf/torch_sdpa.py on the same case), and kattn's
# teams of 8 and 12 forced onto 128-row items. For each: its launch metrics (ncu-NAME.txt); for kattn,
# cuDNN and the teams of 12 also where the warps stall (NAME-stalls.txt by perf/ncu_stalls.py, the SASS
# lines in NAME-sass.csv.gz). Usage: ncu-b16-512.sh OUT_DIR KATTN TARGETS_JSON (a kattn bench --output).
set -u
T=$1 K=$2 J=$3
M=launch__registers_per_thread,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__warps_active.avg.per_cycle_active,smsp__average_warp_latency_per_inst_issued.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed
KATTN=regex:QBlockMma
SDPA="regex:^(?!.*(distribution|elementwise|fill|copy|Memset|vectorized)).*"
B16=($K bench --scenario perf/scenarios/targets.json --case prefill-b16-512 --warmup 2 --runs 1 --no-check-values)
TEAMS=(--variant qblock_static --tile-size 128 --block-m 128 --team-size)
TORCH=(python3 perf/torch_sdpa.py $J --case prefill-b16-512 --warmup 2 --runs 1 --backends)
# profile NAME STALLS(0|1) KERNEL_FILTER COMMAND...
profile() {
  local name=$1 stalls=$2 filter=$3; shift 3
  local ncu=(ncu --clock-control none --kernel-name-base demangled -k "$filter" --launch-skip 2 --launch-count 1)
  timeout 120 "${ncu[@]}" --metrics $M "$@" 2>&1 | grep -v '^==PROF==' | grep -B2 -A22 'Section: Command line' > $T/ncu-$name.txt
  [ "$stalls" = 1 ] || return 0
  timeout 150 "${ncu[@]}" --section SourceCounters --section WarpStateStats -o /tmp/$name -f "$@" > /dev/null 2>&1
  ncu -i /tmp/$name.ncu-rep --page source --csv --print-source sass > /tmp/$name.csv 2>/dev/null
  python3 perf/ncu_stalls.py /tmp/$name.csv > $T/$name-stalls.txt 2>&1
  gzip -c /tmp/$name.csv > $T/$name-sass.csv.gz
}
profile kattn 1 $KATTN "${B16[@]}"
profile cudnn 1 "$SDPA" "${TORCH[@]}" torch-cudnn
profile flash 0 "$SDPA" "${TORCH[@]}" torch-flash
profile teams8 0 $KATTN "${B16[@]}" "${TEAMS[@]}" 8
profile teams12 1 $KATTN "${B16[@]}" "${TEAMS[@]}" 12
