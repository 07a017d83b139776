#!/bin/bash
# How the results here were made (2026-11-29 afternoon, stop 54; NVIDIA H200: the H100 was not lent).
# Binaries built here: nvcc 13.0, Kokkos 4.6.01 at /opt/kokkos-cuda, sm_90a (`h100` preset),
# stripped; carried to the device in .device/ (ignored by git).
#
# probe/first/     call 1 (12:40 UTC): two kattn_prefill_probe binaries, alternating, two rounds of
#                  10 + 40 runs, blocks 16 and 64, each case planned from the table and with teams
#                  of 4, 8 and 12:
#                    main = 4806b98 (the producer of 94408cd), qpre = the branch q-prefetch (the
#                    producer's warp 2 stages the next items' Q rows; K ring 3 -> 2 slots)
#                  for bs in 16 64; do export KATTN_PROBE_BLOCK_SIZE=$bs; for round in 1 2; do
#                    for n in main qpre; do $n/kattn_prefill_probe 40 10 >> ab-raw-block$bs.txt; done; done; done
#                  python3 ../ab_summary.py . main qpre > summary.txt
#                  ncu-b1-8192-*.txt: the first 8 Q-block launches (b1 8192: the table's team, 4, 8, 12;
#                  two launches each) of each binary:
#                    ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma \
#                      --launch-count 8 --metrics <launch, occupancy, issue, local stores> kattn_prefill_probe 1 0
# probe/resident/  call 2 (12:47 UTC): the same two binaries (0e0be0e's probe) with
#                    KATTN_PROBE_VARIANT=qblock_static KATTN_PROBE_GRID_TEAMS=132   (grid132/: blocks 16, 64)
#                    KATTN_PROBE_VARIANT=qblock_static KATTN_PROBE_GRID_TEAMS=264   (grid264/: block 16)
#                    the table's plans again                                         (table/: block 16)
#                  summary.txt: python3 ../ab_summary.py DIR main qpre for each
# checks-first/    call 3 (13:41 UTC): the first build of the merged branch (3c5438a's tree): .device/call3.sh
#                  (kattn_tests, validate --variant all, backend tests; memcheck of the rings' tests and of
#                  the 8/12-warp kernel tests; racecheck of the rings' tests and of the 12-warp kernel
#                  tests' static grids to the end) -> checks.txt, logs.tgz (racecheck: 94 + 2 hazards)
# tune/            call 4 (13:45 UTC) on 3c5438a's binaries, as .device/call2.sh of the stop before:
#                    kattn tune sweep --scenario perf/scenarios/suite.json,perf/scenarios/decode.json \
#                      --space data/tuning/spaces/gpu.json --no-check-values --commit 3c5438a --output raw.json
#                    kattn tune fit raw.json --arch h100 --max-depth 6 --output h100.json   (-> data/tuning/h100.json)
#                    kattn bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values \
#                      --tuning-table h100.json --output targets.json; python3 perf/torch_sdpa.py targets.json
#                    KATTN_SUITE_RUNS="--warmup 5 --runs 20 --no-check-values --tuning-table h100.json" \
#                      perf/run_suite.sh build/h100 suite            (suite.tgz: suite/ and the sweep's log)
# racecheck/       mbarrier_handoff.cu (plain CUDA; nvcc -O2 -gencode arch=compute_90a,code=sm_90a), run as
#                    compute-sanitizer --tool racecheck --racecheck-report all ./mbarrier_handoff MODE
#                  in calls 4 (modes 0-2: control-first.txt) and 5 (modes 0-3: control.txt)
# checks/ ncu/ latency/  call 5 (14:25 UTC): the shipped build (44589c5: every thread arrives on the Q
#                  buffers' barriers; the refitted table built in): .device/call5.sh: the racecheck control
#                  (modes 0-3), kattn_tests, validate --variant all, backend tests, memcheck/racecheck as in
#                  call 3 (checks/checks.txt, logs.tgz: 0 hazards), the targets (kattn bench, built-in table:
#                  checks/targets-summary.txt, targets.json.gz), the latency experiment eager and replayed
#                  (latency/summary.txt: the printed totals; the reports did not come back), and
#                    ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip {0,8} \
#                      --launch-count 1 --metrics <launch, occupancy, gmma instructions, issue, DRAM, local stores> \
#                      --section SpeedOfLight --section Occupancy kattn_prefill_probe 1 0
#                  (launch 1: b1 8192 planned -> ncu/b1-8192.txt; launch 9: b16 512 planned -> ncu/b16-512.txt)
# tune/model-calibrate-h200.txt: here, stop 54, data/hardware/models/h200.json's fit:
#                    kattn model calibrate --suite suite/suite.json --holdout targets.json \
#                      --hardware data/hardware/models/h200.json (the morning's) --timing kernel --output h200.json
