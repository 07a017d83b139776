#!/bin/bash
# How the results here were made (2026-11-28, late evening, NVIDIA H200; the H100 was not lent).
# Builds, on the 2-core VM (nvcc 13.0, Kokkos 4.6.01 at /opt/kokkos-cuda), one worktree a form:
#   base2  = 53703b4 with this stop's perf/probes/prefill_probe.cpp (checksums, odd-lengths)
#   tmaa   = base2 + tma-lockstep.patch (whole K/V tiles by TMA boxes of 16 slots in the lockstep
#            kernels, each warp's lane 0 its blocks' boxes right after the team barrier)
#   pptma  = tmaa + tma-pingpong.patch (two warpgroups: rings and turns, the boxes on full/empty
#            mbarriers), built with -DKATTN_TMA_AFTER_ISSUE (one warpgroup: the boxes after Q·Kᵀ's issue)
#   prodcp = base2 + ../h100-2026-11-28-producer-exit/producer-exit.patch (git apply --3way), the probe
#            asked for teams of 12 too ({0, 4, 8, 12} in prefill_probe.cpp)
#   prodtma = prodcp + tma-producer.patch (the producer's one warp issues the boxes, lane b block b's)
#            both against a copy of the Kokkos install with ../h100-2026-11-27-producer/
#            kokkos-graph-launch-bounds.patch (KATTN_KOKKOS_CUDA_ROOT=/opt/kokkos-cuda-lb)
#   KATTN_KOKKOS_CUDA_ROOT=/opt/kokkos-cuda cmake --preset h100 -B build/<form> [-DCMAKE_CXX_FLAGS=...]
#   cmake --build build/<form> -j2 --target kattn_prefill_probe
#   nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o .device/tile_copy_probe perf/probes/tile_copy_probe.cu
# Binaries in .device/bin/<form>/ (libcudart.so.13 in .device/lib), carried to each call.
# Calls in order (device tool, kind nvidia-h200, between about 20:15 and 21:15 UTC), with ab.sh of ../h200-2026-11-28-pingpong:
#   call 1  bash .device/ab.sh base2 tmaa                     -> ab-raw-lockstep.txt, device.txt
#   call 2  ./.device/tile_copy_probe (first form); ncu of the first QBlockMma launch of each binary:
#              ncu -k regex:QBlockMma --kernel-name-base demangled --launch-count 1 --section SpeedOfLight
#                --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats
#                --section Occupancy .device/bin/<form>/kattn_prefill_probe 1 0   -> ncu-base2.txt, ncu-tmaa.txt
#   call 3  bash .device/ab.sh base2 pptma                    -> ab-raw-pingpong.txt
#   call 4  ./.device/tile_copy_probe (the committed form)   -> tile-copy.txt
#   call 5  bash .device/ab.sh base2 prodtma, prodtma's first form (lane 0 issuing every box, its
#              block-id loads one after another)                 -> ab-raw-producer-lane0.txt
#   call 6  bash .device/ab.sh base2 prodtma prodcp             -> ab-raw-producer.txt
#   call 7  KATTN_PROBE_BLOCK_SIZE=64, then 128: bash .device/ab.sh base2 tmaa (the probe's block
#              size from the environment, both rebuilt)     -> ab-raw-block64.txt, ab-raw-block128.txt
#   call 8  the same with ship (53703b4's tree + tma-ship.patch: the boxes in the two-warpgroup
#              kernel only, and only where the launch gives maps, at blocks of >= 64 slots; its
#              tests and docs; built for the h100 preset) against base2 at blocks 16, 64, 128
#              (blocks3.sh here, run from .device/)                   -> ab-raw-ship-block16.txt, -block64.txt, -block128.txt
#   call 9  ncu-ship.sh here (run from .device/): Nsight Compute of b1 8192's first Q-block launch at
#              block 16, base2 and ship                   -> ncu-ship-base2.txt, ncu-ship-ship.txt
# Then, here: python3 summarize.py > summary.txt
# Not measured: tma-own-kernel.patch (against c7f7cda) = tma-ship.patch with the boxes in a kernel instantiation of
# their own (QBlockMmaKernel's BulkTiles), so that the block-16 kernel compiles to base's PTX; built, not yet timed.
