#!/bin/bash
# How the results here were made (2026-11-29, about 00:20 UTC, NVIDIA H200; the H100 was not lent).
# Probe binaries built here (nvcc 13.0, Kokkos 4.6.01 at /opt/kokkos-cuda, sm_90a):
#   base2 = 53703b4 with the prefill probe of c7f7cda (see ../h200-2026-11-28-tma-tiles/run.sh)
#   own   = c7f7cda + ../h200-2026-11-28-tma-tiles/tma-own-kernel.patch (the shipped form: the bulk
#           tiles as the two-warpgroup kernel's own instantiation, boxes from 64 slots a block)
#   KATTN_KOKKOS_CUDA_ROOT=/opt/kokkos-cuda cmake --preset h100 -B build/h100
#   cmake --build build/h100 -j2 --target kattn_prefill_probe
# One device call (kind nvidia-h200), binaries in .device/bin/<name>/ carried to it:
for bs in 16 64 128; do
  export KATTN_PROBE_BLOCK_SIZE=$bs
  for round in 1 2; do
    for n in base2 own; do
      echo "== $n round $round" >> ab-raw-own-block$bs.txt
      timeout 120 .device/bin/$n/kattn_prefill_probe 40 10 >> ab-raw-own-block$bs.txt 2>&1
    done
  done
done
# summary.txt: python3 ../h200-2026-11-28-tma-tiles/summarize.py > summary.txt (in this folder)
