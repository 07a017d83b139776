#!/bin/bash
# Stop 63 (2026-12-01, late), H200: Q blocks found by each work item from cu_seqlens_q (slots), the
# tensor maps written only where the workspace lacks them, the claim counters in the workspace's
# counters. Probe builds here (nvcc 13.0, Kokkos 4.6.01, sm_90a), carried as
# .device/<name>/kattn_prefill_probe.xz with `carry: [".device"]`:
#   base   2da1681 (the Q-block offsets kernel before every Q-block launch)
#   slots  the change with a binary search of cu_seqlens_q a work item
#   vote   the warps' vote instead (qblock_slots.hpp's owner_of as first written)
#   vote2  the vote with the lanes' masks read where used and the part's first slot from the host
#   vote3  vote2 with a mixed call's decodes on the caller's instance and the rest on the side one
#   vote4  vote3 with two guards for runs off their plan (shipped)
# Each call: its line below on the device (callN/ holds what came back); A/B rows are the lower of
# three rounds' medians (40 runs after 10); ncu_launches.py reads the ncu-launches-*.csv (gzipped here
# after the calls, as are call 5's test logs).
bash perf/results/h200-2026-12-01-slots/call1.sh          # base against slots, memcheck of slots
bash perf/results/h200-2026-12-01-slots/ab-ncu.sh vote    # call 2
bash perf/results/h200-2026-12-01-slots/ab-ncu.sh vote2   # call 3
bash perf/results/h200-2026-12-01-slots/ab-ncu.sh vote3   # call 4
bash perf/results/h200-2026-12-01-slots/call5.sh          # the GPU tests of the shipped change
bash perf/results/h200-2026-12-01-slots/call6.sh          # racecheck on the new tests alone
bash perf/results/h200-2026-12-01-slots/call7.sh          # the shipped form with its two guards, alone
bash perf/results/h200-2026-12-01-slots/call8.sh          # the final read's mends with find_owner (teams of 8 spilled: not kept)
bash perf/results/h200-2026-12-01-slots/call9.sh          # the mends kept
