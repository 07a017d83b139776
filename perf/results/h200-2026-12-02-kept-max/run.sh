#!/bin/bash
# Stop 68 (2026-12-02, evening), H200 (only H200 kinds were lent): the one-warpgroup Q-block
# kernel's steps at the rows' kept maxima, made exact (a vote in the next barrier, the missed tile's
# Q·Kᵀ taken again), against 7032300's probe. Builds here (nvcc 13.0, Kokkos 4.6.01 with the CUDA 13
# signatures of docs/building.md, sm_90a), carried as .device/<name>/kattn_prefill_probe.xz,
# .device/tests/*.xz and .device/ship/kattn.xz with `carry: [".device"]`:
#   base   7032300 (main before this stop)
#   kept   warp_softmax_weights_at_kept_max and team_barrier_any in teams of one warpgroup, the
#          item driver's three calls of process() made one (three copies had outgrown the inliner:
#          a call, C7510) with the next item a select of the lead's claim
#   kept2  kept, the vote's result passed through a warp vote (no change: reverted)
#   kept3  kept, the next item never a select of the lead's own claim (this stop's commit)
# Each call: its line below on the device (callN/ holds what came back). A/B rows are the lower of
# three rounds' medians (40 runs after 10); summary.txt has the tables.
ROUNDS=3 SOURCE=kept bash perf/results/h200-2026-12-02-contention/ab.sh base kept     # call 1
ROUNDS=3 SOURCE=kept2 bash perf/results/h200-2026-12-02-contention/ab.sh base kept2   # call 2
ROUNDS=3 SOURCE=kept3 bash perf/results/h200-2026-12-02-contention/ab.sh base kept3   # call 3
# call 4 (the session's end near: validate, the targets and the suite not run): the
# Cuda backend tests whole, kattn_tests --gtest_filter='*ExtremeLogits*:Kernel*:*WarpRows*', racecheck on
# ExtremeLogits.LaterTilesScoringPast*qblock_fp16 (call4/)
