#!/usr/bin/env bash
# Device call (2026-11-28, afternoon): Nsight Compute's source page of the two-warpgroup prefill kernel
# (d7f7673's kernels, through kattn_prefill_probe of the split build), b1 8192: where a step's stalls sit.
set -x
R=$OUT; P=$PWD/.device/probe/kattn_prefill_probe
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
timeout 300 ncu --set full --import-source no --kernel-name-base demangled -k 'regex:QBlockMmaKernel' --launch-count 1 -o /tmp/b1 $P 1 0 > $R/ncu.log 2>&1
ncu -i /tmp/b1.ncu-rep --page details > $R/ncu-details.txt 2>&1
ncu -i /tmp/b1.ncu-rep --page source --csv --print-source sass > /tmp/b1-sass.csv 2>&1
python3 perf/ncu_stalls.py /tmp/b1-sass.csv > $R/stalls.txt  # the call ran the same code inline
head -30 $R/stalls.txt
cd /tmp && xz -9 -k b1-sass.csv && cp b1-sass.csv.xz $R/; ls -la $R
