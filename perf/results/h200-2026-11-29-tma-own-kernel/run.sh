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
#
# Later calls (same day):
#   01:01 UTC  checks.sh  on the first build of 6a02578: a floating-point exception (the box rows asked
#              with a tile of 0 keys; fixed before 6a02578 was committed, not kept)
#   01:44 UTC  checks.sh  on the build of 6a02578 (passed; superseded by the 02:37 call)
#   01:58 UTC  call4.sh   the CUDA backend tests of that build with compute-sanitizer on the bulk copies'
#              tests (passed; superseded), then blocks4.sh: base2 against
#     own16 = /work/ship (c7f7cda + tma-own-kernel.patch) with kBulkCopyMinBoxRows = 16: the bulk tiles'
#             own kernel at every block size from 16 slots (at blocks >= 64 the same launches as own)
#     pptma = base2 + ../h200-2026-11-28-tma-tiles/tma-lockstep.patch + tma-pingpong.patch, built with
#             -DKATTN_TMA_AFTER_ISSUE (the ping-pong rings with boxes; ../h200-2026-11-28-tma-tiles/run.sh)
#              at blocks 16 and 32 (base2, own16) and 64 and 128 (base2, own16, pptma)
#                                                                  -> ab-raw-boxes16-block*.txt
#   02:37 UTC  checks.sh  on the shipped build (boxes from 32 slots): kattn, kattn_tests and
#              kattn_backend_tests_Cuda with their shared libraries, stripped, in one xz tarball
#                                                                  -> checks.txt, checks-logs.tgz
