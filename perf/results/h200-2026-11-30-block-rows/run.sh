#!/bin/bash
# How the results here were made (2026-11-30 morning; NVIDIA H200, driver 580.159.04: the H100 was not lent).
# Probe binaries built here (nvcc 13.0, Kokkos 4.6.01 at /opt/kokkos-cuda, `cmake --build build/h100 --target
# kattn_prefill_probe`), xz'd and carried to the device in .device/<name>/ (ignored by git) with libcudart.so.13;
# each call ran from the tree's root as `bash .device/<script>`: ab/call1.sh (calls 2-5 ran it with the builds named
# below in place of base v1 v2, the source counters in call 2 only), checks/call6-checks.sh, and the night's
# ../h200-2026-11-29-night-item-path/call8-suite.sh with KATTN_COMMIT=a339d63.
#   base = 460a362's probe (the kernels before this stop)
#   v1   = the pair copy's rows located by steps (not-kept/rows-located-by-steps.patch) + one warpgroup's Q
#          descriptors from a constant row
#   v2   = v1 + a row's rescale factor 1 off -inf + the causal mask without its lower bound
#   v3   = v2 without the located steps, with the block rows (TeamTileCopy::BlockRows) in every deep team, the ids
#          read with their copies
#   v4   = v3 with the block rows for one warpgroup only and a tile's block ids read a step ahead (TileBlocks)
#   v5   = v4 + an item's first P·V setting the accumulator: this commit's kernels
#   v6   = v5 + the next item's entry prefetched into L1 (not-kept/item-prefetch.patch)
# call 1 (03:31 UTC) ab/call1.sh  base v1 v2, three rounds; ncu of each on b16 512 at teams of 4; source counters of
#                                  v2 -> ab/call1-*.txt, profile/t4-v2-stalls.txt
# call 2 (03:44)     base v3; source counters of v3 -> ab/call2-*.txt, profile/t4-v3-*
# call 3 (03:58)     base v4 -> ab/call3-*.txt
# call 4 (04:07)     base v4 v5 -> ab/call4-*.txt
# call 5 (04:15)     v5 v6 -> ab/call5-*.txt
# summaries: summary.txt (python3 ../h200-2026-11-30-bulk-rows/summarize.py ab/callN-ab.txt A B)
# call 6 (04:45)     checks/call6-checks.sh -> checks/ (the shipped build a339d63: kattn_tests, validate, backend tests,
#                                          sanitizers, the targets beside PyTorch SDPA, Nsight Compute of the probe's
#                                          planned launches; perf/results was moved aside for this call: the carry's 64 MiB)
# call 7 (04:47)     the night's call8-suite.sh -> suite/ (perf/run_suite.sh on a339d63's CLI, 5 + 20 runs a case, beside SDPA:
#                                          suite.json.gz and the summary table; the plots: python3 perf/plot_suite.py)
# call 8 (05:18)     mends/call8-mends.sh -> mends/ (the review's mends: one count of a tile's keys, the zero loop's form, a
#                                          comment; the probe against a339d63's, two rounds: every output bit-equal)
# call 9 (05:42)     mends/call8-mends.sh with `read2` for `mends` -> second-read/ (the second read's mends, not kept:
#                                          not-kept/second-read.patch, a no-tile item's zeros chosen at the accumulator's
#                                          construction and the block rows' check by the FastDivisor; outputs bit-equal,
#                                          teams of 8 1.048-1.064x slower on the long cases, one warpgroup 1.00-1.01x)
