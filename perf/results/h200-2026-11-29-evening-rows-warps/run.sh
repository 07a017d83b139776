#!/bin/bash
# How the results here were made (2026-11-29 evening; NVIDIA H200, driver 580.159.04: the H100 was not lent).
# Binaries built here on a fresh VM: nvcc 13.0, Kokkos 4.6.01 (built by hand, docs/building.md) at /opt/kokkos-cuda,
# `cmake --preset h100`, stripped, carried to the device in .device/ (ignored by git) with libcudart.so.13.
# A/Bs: two kattn_prefill_probe binaries alternating, 40 runs after 10, kernel time, L2 flushed;
# summarize.py ab.txt A B gives the lower of the rounds' medians and whether the checksums agree.
#
# cross-item/   calls 1 (16:37 UTC) and 2 (16:58): base = 2820368's probe, xitem = cross-item.patch (teams without a
#               producer stream their items: the next item's first K/V pair under the last step, its Q rows after the
#               item's last Q·Kᵀ). ab-first.txt: the first build (the next item through a pointer: 80 bytes of stack);
#               ab.txt: the second (by value), planned and on static grids of 264, 528, 1056 teams:
#                 for g in plan 264 528 1056; do for round in 1 2; do for n in base xitem; do
#                   [grid] KATTN_PROBE_VARIANT=qblock_static KATTN_PROBE_GRID_TEAMS=$g $n/kattn_prefill_probe 40 10
#               summary.txt: python3 ../summarize.py ab.txt base xitem; ptxas.txt: registers and stack of the three builds
#               (the TU compiled here with -Xptxas -v)
# profile/      call 3 (17:00): Nsight Compute on the base probe, b16 512 with teams of 12 (launch 15) and of 4 (11):
#                 ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip {14,10} \
#                   --launch-count 1 --section SourceCounters --section WarpStateStats --section SpeedOfLight \
#                   --section LaunchStats -o t -f base/kattn_prefill_probe 1 0
#                 ncu -i t.ncu-rep --page source --csv --print-source sass > t.csv; python3 perf/ncu_stalls.py t.csv
#               -> t12-stalls-base.txt, t4-stalls-base.txt, launch.txt; in call 4 the same of the shipped change
#               (t12-stalls-rows-warps.txt)
# rows-warps/   call 4 (17:12): base against q2 = the shipped change (the producer's Q rows on warps 2 and 3; partial
#               tiles held, not waited for), three rounds planned, then one round each at KATTN_PROBE_BLOCK_SIZE=64;
#               summary.txt: python3 ../summarize.py ab.txt base q2
# checks/       calls 5-9 (17:50-18:02): the shipped build: .device/verify.sh (kattn_tests, validate --variant all, backend tests,
#               memcheck and racecheck of the rings' tests and the 8/12-warp kernel tests, the targets beside
#               PyTorch SDPA, Nsight Compute of the planned b1 8192 and b16 512 launches)
#               (call 5: checks.txt, targets-*.txt, targets.json.gz, ncu-*.txt; the 32 CLI tests failed there with the
#               CLI not at its build path, so call 6 re-ran kattn_tests with it in place: kattn_tests-cli-in-place.txt;
#               calls 7-9: memcheck and racecheck of kattn_backend_tests_Cuda --gtest_filter='*TileRings*', the last
#               after the Boxed test lifted the scratch check itself; call 10 (18:35) the same after the review's mend
#               of the held ring test (a warp barrier before its arrivals): rings-sanitizers.txt)
