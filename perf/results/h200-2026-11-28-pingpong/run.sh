#!/bin/bash
# How the results here were made (2026-11-28, NVIDIA H200; the H100 was not lent).
# Builds, on the 2-core VM (nvcc 13.0, Kokkos 4.6.01 at /opt/kokkos-cuda), one worktree per form:
#   git worktree add --detach /work/<form> b85e0c8 && cd /work/<form> && git apply <patch>
#   KATTN_KOKKOS_CUDA_ROOT=/opt/kokkos-cuda cmake --preset h100
#   cmake --build build/h100 -j2 --target kattn_prefill_probe      (fp16 unit: 6-8 min)
# base = b85e0c8 unchanged; rings = rings/rings.patch; pp = pingpong/pingpong.patch;
# clocks: rings + clocks/stamp_rings.py [nocopy], pingpong + clocks/pingpong-clocks.patch.
# The binaries went to .device/bin/<name>/ with libcudart.so.13 in .device/lib; each call carried .device.
# Calls (device tool, kind nvidia-h200):
#   16:08 UTC  bash .device/sass.sh; bash .device/ab.sh base rings     -> rings/ab-raw.txt, device.txt
#   16:21 UTC  .device/bin/clk/kattn_prefill_probe 3 1                 -> clocks/rings-clocks.txt
#   16:30 UTC  .device/bin/nocopy/kattn_prefill_probe 3 1              -> clocks/rings-nocopy-clocks.txt
#   16:39 UTC  bash .device/sass.sh; bash .device/ab.sh base pp        -> pingpong/ab-raw.txt
#   16:49 UTC  .device/bin/ppclk/kattn_prefill_probe 3 1               -> clocks/pingpong-clocks.txt
#   16:52, 16:55, 16:58 UTC  ./.device/wgmma_rate_probe as its cases grew (random operands, then the steps);
#   17:45 UTC  the committed perf/probes/wgmma_rate_probe.cu (kattn's ex2.approx.ftz, every warpgroup timed,
#              one block an SM by its shared memory) -> wgmma-rate.txt
#              (nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o .device/wgmma_rate_probe perf/probes/wgmma_rate_probe.cu)
#   17:09 UTC  bash .device/ab.sh base lsnc pp ppnc (no-copies/*.patch) -> no-copies/ab-raw.txt
#   17:33 UTC  bash .device/ab.sh base pp ppnl (no-copies/no-block-lookups.patch on pingpong) -> no-copies/ab-raw-lookups.txt
# Then, here: python3 summarize.py > summary.txt
