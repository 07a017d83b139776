#!/bin/bash
# How the results here were made (2026-12-01; NVIDIA H200, driver 580.159.04: the H100 was not lent). Probe binaries
# built here (nvcc 13.0, Kokkos 4.6.01 built by hand at /opt/kokkos-cuda, `cmake --build build/h100 --target
# kattn_prefill_probe`), xz'd and carried to the device in .device/<name>/ (ignored by git) with libcudart.so.13;
# each call ran from the tree's root.
#   base  = 5ad1648's probe (the shipped kernels)
#   lean  = base + lean/lean-tiles.patch: teams of one warpgroup on one K and two V tiles beside the Q rows (64 KB),
#           under launch bounds of three teams an SM (168 registers)
#   lean2 = lean + lean/process-forceinline.patch (process() force-inlined)
#   prod1 = base + producer/producer-one-warpgroup.patch: the producer warpgroup beside one warpgroup of rows
#           (teams of 8, two an SM: setmaxnreg 24 / 232 under launch bounds of 256 threads, 2 blocks)
# call 1 (13:37 UTC) ROUNDS=3 bash ab.sh base lean        -> lean/ab.txt, lean/ncu.txt, lean/regs.txt
# call 2 (13:53 UTC) ROUNDS=3 bash ab.sh base lean2       -> lean/ab2.txt, lean/ncu2.txt, lean/regs2.txt
# call 3 (14:01 UTC) bash s2.sh prod1                     -> producer/ab.txt, producer/ncu.txt, producer/regs.txt
# here: lean/ptxas.txt (ptxas on the lean build's PTX at register caps 168-232; the commands are its first line)
# summaries: summary.txt (python3 ../h200-2026-11-30-item-claims/summarize.py AB.txt NAMES...)
# call 7 (14:47 UTC) profile.sh on c628570's probe (the shipped kernels): source counters of b16 512 at teams of 4
#                    -> profile/t4-stalls.txt (perf/ncu_stalls.py), profile/t4-sass.csv.gz
# call 8 (14:56 UTC) ROUNDS=3 bash ab.sh cur stsm: cur = c628570's probe, stsm = + stsm/output-rows-by-stmatrix.patch
#                    (an item's output rows into the Q buffer by stmatrix) -> stsm/ab.txt, stsm/ncu.txt
