#!/bin/bash
# Stop 62 (2026-12-01, night), H200: the Q-block offsets kernel's cost on b16 512, and the claiming
# kernels building their own Q-block table (measured, not kept). Probe builds here (nvcc 13.0, Kokkos
# 4.6.01, sm_90a), carried as .device/<name>/kattn_prefill_probe.xz with `carry: [".device"]`:
#   base     4bf9ccd
#   skipoff  base + not-kept/skip-offsets.patch (a hack for the ceiling: the offsets kernel once per
#            workspace and batch, the claim counter put back by the last team; crashed on the mixed
#            case's teams of 12, whose maps it skipped)
#   fold     not-kept/claiming-teams-build-their-table.patch as it stood at each call (call 2: Kokkos'
#            team scan on teams of 4 x 32 lanes; call 3: the scan on the first thread's lanes; call 4:
#            the entries handed round in scratch)
#   fold2    call 5: the patch as kept in not-kept/ (the row maps as words, scratch pointers found where used)
# Each call: its line below on the device (callN/ holds what came back); A/B rows are the lower of three rounds' medians (40 runs after 10).
bash perf/results/h200-2026-12-01-night/call1.sh   # base against skipoff
bash perf/results/h200-2026-12-01-night/ab-fold.sh fold    # call 2 (crashed on b16 512: illegal instruction)
bash perf/results/h200-2026-12-01-night/ab-fold.sh fold    # call 3
bash perf/results/h200-2026-12-01-night/ab-fold.sh fold    # call 4
bash perf/results/h200-2026-12-01-night/ab-fold.sh fold2   # call 5
bash perf/results/h200-2026-12-01-night/call6.sh   # the new GPU test KernelClaimingTeams.MatchOracle on 4bf9ccd's kernels + 26b77e7's test
# then, in the same lease: ncu launch__grid_size on that test (call6/ncu-grids.txt): the one-warpgroup kernel
# launched on 264 teams (resident, claiming) and on 2, unsegmented and segmented
bash perf/results/h200-2026-12-01-night/call6.sh   # again after 99080f8's mends (call6/after-mends/)
