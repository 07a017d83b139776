#!/bin/bash
# How the results here were made (2026-11-29/30 night; NVIDIA H200, driver 580.159.04: the H100 was not lent).
# Probe binaries built here (nvcc 13.0, Kokkos 4.6.01 at /opt/kokkos-cuda, `cmake --build build/h100 --target
# kattn_prefill_probe`), stripped, xz'd and carried to the device in .device/ (ignored by git) with libcudart.so.13;
# each call ran from the tree's root as `bash .device/<script>`.
#   base = 3a1f3f9's probe (the shipped kernels before this stop)
#   new  = call 2: the producer's two streams of items (two-streams/two-streams.patch); call 3: the same with the
#          stream's K/V warp copying K a tile ahead of V; call 4: the Q and output rows of one warpgroup's teams by the
#          tensor memory accelerator (this commit's kernels)
# call 1 (23:36 UTC) call1-diagnosis.sh  -> diagnosis/ (Nsight Compute: PyTorch SDPA's cuDNN and flash kernels on b16 512
#                                          beside kattn's teams of 4 and 12; source counters of the teams of 12,
#                                          grouped by python3 perf/ncu_stalls.py: t12-stalls.txt)
# call 2 (23:49)     ab.sh (3 rounds, ncu of new's teams of 12)  -> two-streams/ab-call2.txt, ncu-call2.txt
# call 3 (00:02)     ab.sh (2 rounds, ncu of new's teams of 12)  -> two-streams/ab-call3.txt
# call 4 (00:16)     ab.sh as kept here (3 rounds, ncu of both on b16 512 at teams of 4) -> bulk-rows/ab.txt, ncu.txt
# summaries: python3 summarize.py AB.txt base new > summary*.txt
# call 5 (00:48)     call5-checks.sh      -> checks/ (the shipped build: kattn_tests, validate, backend tests, sanitizers,
#                                          the targets beside PyTorch SDPA, Nsight Compute of the probe's planned launches;
#                                          perf/results was moved aside for this call: the carry's 64 MiB). The build
#                                          predates the review's two mends (a comment; encode_row_tile_maps' static_assert
#                                          of LayoutRight views and its check of the views' head extent, both true of
#                                          every call's views)
# call 6 (01:00)     ../h200-2026-11-29-night-item-path/call8-suite.sh with KATTN_COMMIT=c549da7 -> suite/ (perf/run_suite.sh on c549da7's CLI, 5 + 20 runs a case, beside SDPA:
#                                          suite.json.gz and the summary table; the plots: python3 perf/plot_suite.py)
# call 7 (01:16)     ../h200-2026-11-29-night-item-path/call6-profile.sh on this build -> profile/t4-bulk-rows.txt (source counters of the shipped probe's b16 512 at teams
#                                          of 4, grouped by executed count: python3 perf/ncu_stalls.py)
# call 8 (01:31)     ab.sh with base = c549da7's probe, new = the producer's Q rows by the tensor memory accelerator
#                                          (producer-q/producer-q.patch, not kept), ncu of both on b16 512 at teams of 12
#                                          (launch skip 14) -> producer-q/ab.txt, ncu.txt, summary.txt
# call 9 (02:02)     call9-mends.sh       -> mends/ (the second read's mends: kattn_tests, validate, backend tests, memcheck and
#                                          racecheck of TeamBulkCopy; the probe against c549da7's, two rounds)
