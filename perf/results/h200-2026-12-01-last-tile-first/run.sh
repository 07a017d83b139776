#!/bin/bash
# How the results here were made (2026-12-01, evening; NVIDIA H200, driver 580.159.04: the H100 was not lent). Probe
# binaries built here (nvcc 13.0, Kokkos 4.6.01 built by hand at /opt/kokkos-cuda, `cmake --build build/h100
# --target kattn_prefill_probe`), xz'd and carried to the device in .device/<name>/ (ignored by git) with
# libcudart.so.13; each call ran from the tree's root.
#   cur  = c628570's probe (the kernels of f07ad94)
#   v1   = the last tile first for teams of one warpgroup, and the mask by columns (95f53ae's kernel for them)
#   v2   = v1 + not-kept/opaque-accumulator.patch (the same 38.23 M warp instructions on b16 512: not kept)
#   v3   = v1 with the last tile first in every deep kernel (= 95f53ae + not-kept/two-warpgroups-too.patch)
#   v4   = 95f53ae + not-kept/diagonal-half-softmax.patch (a first tile of 32 keys or fewer: the softmax of its first half)
#   v5   = v4 + not-kept/item-end-barrier.patch (a claiming team's hand-off on the item's last barrier)
#   ship = 95f53ae (the last tile first for teams of one warpgroup and those with the producer: v1's kernel for
#          teams of 4, v3's for teams of 12)
# call 1 (~16:28 UTC) ROUNDS=3 bash call1.sh cur v1          -> call1/ (ab.txt, ncu.txt, kernels.txt: every kernel of
#                    b16 512's planned launch, the Q-block offsets kernel beside the Q-block kernel)
# call 2 (~16:37 UTC) ROUNDS=3 SOURCE=v2 bash ../h200-2026-11-30-item-claims/ab/call1.sh cur v1 v2 -> call2/
#                    (ab.txt, ncu.txt, t4-v2-stalls.txt and t4-v2-sass.csv.gz: source counters of b16 512, teams of 4)
# call 3 (~16:45 UTC) ROUNDS=3 bash ../h200-2026-11-30-item-claims/ab/call1.sh cur v1 v3 -> call3/
# call E (~17:05 UTC) ROUNDS=3 bash ../h200-2026-11-30-item-claims/ab/call1.sh cur v1 v3 v4 v5 -> call-exp/
# call 4 (~17:30 UTC) bash call4.sh: the full build of 95f53ae (kattn, kattn_tests, the probe in
#                    .device/ship/): probe A/B against cur, checks, sanitizers, targets beside SDPA -> call4/
# call 5 (~17:33 UTC) bash call5.sh: perf/run_suite.sh on 95f53ae (5 + 20 runs a case), the hardware model calibrated on
#                    it (call 4's targets held out) -> call5/; its h200.json, its sets' /tmp paths renamed to the
#                    files here and the one-warpgroup kernel's 242 registers, is data/hardware/models/h200.json
# here               `cmake --build build/h100 --target kattn_cli` (the recalibrated model built in)
# call 6 (~17:37 UTC) bash call6.sh: the latency experiment eager and replayed -> latency/
# summaries: summary.txt (python3 ../h200-2026-11-30-item-claims/summarize.py AB.txt NAMES...)
