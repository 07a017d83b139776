#!/bin/bash
# Stop 67 (2026-12-02, afternoon), H200 (only H200 kinds were lent): cuts of the one-warpgroup Q-block
# kernel's instructions measured against 540f180's probe, the latency experiment and a refit of the
# tuning table on 540f180's CLI. Probe builds here (nvcc 13.0, Kokkos 4.6.01, sm_90a), carried as
# .device/<name>/kattn_prefill_probe.xz with `carry: [".device"]`:
#   base  540f180 (the stop before's v3)
#   vB    Q's descriptors made from K's and their distance each step (not-kept/q-descriptor-from-k.patch)
#   vC    vB + the V buffers' slots carried from turn to turn instead of (t - tile_begin) % 3
#         (not-kept/v-slots-carried.patch)
# Built, not run: the accumulator given its value by an empty asm at an item's start
# (not-kept/accumulator-set-by-empty-asm.patch): ptxas serialized the products of every warpgroup
# kernel (not-kept/ptxas-accumulator-set-by-empty-asm.txt).
# Each call: its line below on the device (callN/ holds what came back). A/B rows are the lower of
# three rounds' medians (40 runs after 10).
ROUNDS=3 SOURCE=vB bash perf/results/h200-2026-12-02-contention/ab.sh base vB vC   # call 1 (13:17 UTC)
bash perf/results/h200-2026-12-02-item-start/call2.sh   # call 2 (13:23 UTC), 540f180's CLI as .device/bin/kattn.xz
ROUNDS=3 SOURCE=vD bash perf/results/h200-2026-12-02-contention/ab.sh base vD      # call 3 (13:52 UTC)
#   vD  the kept-max probe (not-kept/kept-max-probe.patch): an unmasked step's weights against each
#       row's kept max, no tile max; a lane's share of a row's sum past 2^15 moves the max by a power
#       of two. Not for shipping: a weight of 2^128 and up and a row still at -inf give inf/NaN.
ROUNDS=3 SOURCE=vE bash perf/results/h200-2026-12-02-contention/ab.sh base vE      # call 4 (14:45 UTC)
#   vE  the rows' maxima kept without their lanes' reduction and the rescale where every lane's
#       scores of the warp stay within the lag (a warp vote; exact): not-kept/lane-max-vote.patch
