#!/bin/bash
# How the results here were made (2026-12-01; NVIDIA H200, driver 580.159.04: the H100 was not lent). The full build
# of c628570 (`cmake --build build/h100`, nvcc 13.0, Kokkos 4.6.01 at /opt/kokkos-cuda, sm_90a), its kattn and
# kattn_tests xz'd into .device/bin/ (ignored by git) with libcudart.so.13; each call ran from the tree's root.
# Calls A-C were the day's 4th to 6th; the others are in ../h200-2026-12-01-teams-an-sm/.
# call A (14:29 UTC) tuneA.sh: kattn tune sweep (suite + decode scenarios, data/tuning/spaces/gpu.json, 250 s) and
#                    fit (depth 6) -> data/tuning/h100.json; the targets with the fitted table beside PyTorch SDPA
#                    -> tune/ (raw.json.gz, sweep.log, fit.log, targets.json.gz, targets.log, sdpa-targets.txt)
# here               the fitted table copied into data/tuning/h100.json, `cmake --build build/h100` (relinks)
# call B (14:35 UTC) callB.sh: the build with the fitted table: perf/run_suite.sh (5 + 20 runs a case) -> suite/;
#                    kattn model calibrate on it (targets of call A held out) -> model-calibrate-h200.txt and
#                    data/hardware/models/h200.json (its sets' /tmp paths renamed to the files here);
#                    validate --variant all -> checks/validate.txt; its latency experiment kept only the
#                    reports' last lines (their summaries came back from call C)
# call C (14:39 UTC) callC.sh: the latency experiment eager and replayed -> latency/ (its JSON reports), and
#                    kattn_tests (the CLI at its build path) -> checks/kattn_tests.txt
