#!/bin/bash
# Stop 66 (2026-12-02), H200: what bounds b16 512 at two teams of one warpgroup an SM, and cuts of
# the register rows' softmax measured against 6d0558f's probe. Probe builds here (nvcc 13.0, Kokkos
# 4.6.01, sm_90a), carried as .device/<name>/kattn_prefill_probe.xz with `carry: [".device"]`:
#   mend  6d0558f (the base)
#   v1    block_rows_apply by the fast divisor (a `%` by the block size an item gone)
#   v3    v1 + the register rows' running maxima in log2 units and their chains from their first
#         score: shipped, 540f180
#   v5    v3 + the rescale factors and the sums' rescale only where a row of the warp moved (a
#         uniform branch): not kept (not-kept/rescale-only-where-moved.patch; ptxas serialized the
#         two-warpgroup kernels' products, not-kept/ptxas-rescale-only-where-moved.txt)
#   v7    v3 with two chains a row instead of four: not kept (not-kept/two-chains.patch)
# Each call: its line below on the device (callN/ holds what came back). A/B rows are the lower of
# three rounds' medians (40 runs after 10), summary.txt has the tables.
bash perf/results/h200-2026-12-02-contention/call1.sh                          # one, two, 1.5 teams an SM; Nsight Compute's full set
ROUNDS=3 SOURCE=v3 bash perf/results/h200-2026-12-02-contention/ab.sh mend v1 v3  # call 2
ROUNDS=3 bash perf/results/h200-2026-12-02-contention/ab.sh mend v3 v5            # call 3
ROUNDS=3 SOURCE=v7 bash perf/results/h200-2026-12-02-contention/ab.sh mend v3 v7  # call 4
# Calls 5 and 6: the stop before's calls as they are, on 540f180's builds (.device/tests/*.xz and
# .device/ship/kattn.xz, built here):
bash perf/results/h200-2026-12-02-row-sums/call4.sh   # call 5: kattn_tests, the Cuda backend tests, memcheck and racecheck
bash perf/results/h200-2026-12-02-row-sums/call5.sh   # call 6: validate --variant all, the targets beside PyTorch SDPA
# Call 7: the suite beside PyTorch SDPA on 540f180's CLI and the hardware model calibrated on it (call 6's targets held
# out), the call of 2026-12-01 as it is (.device/commit, .device/targets.json.gz from call6/):
bash perf/results/h200-2026-12-01-last-tile-first/call5.sh
