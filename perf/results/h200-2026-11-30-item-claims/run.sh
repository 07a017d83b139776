#!/bin/bash
# How the results here were made (2026-11-30 late morning; NVIDIA H200, driver 580.159.04: the H100 was not lent).
# Probe binaries built here (nvcc 13.0, Kokkos 4.6.01 at /opt/kokkos-cuda, `cmake --build build/h100 --target
# kattn_prefill_probe`), the shipped builds by `cmake --build build/h100`; xz'd and carried to the device in
# .device/<name>/ (ignored by git) with libcudart.so.13; each call ran from the tree's root as `bash .device/<script>`.
#   base59 = HEAD's probe before this stop (d5189cf's kernels)
#   a1     = a step's Q·K(t)ᵀ issued before the copies of tile t + 1
#   a2     = a1 + the block ids read in place (not-kept/scores-before-copies.patch is a2)
#   xr     = base59 + a team's exit waiting for its output's read only
#   dq     = xr + the items claimed from a counter in every kernel of one or two warpgroups (no threshold)
#   ship   = f657f66's probe: the claims in teams of one warpgroup on deep tiles, the grid clamped to the resident teams
# call 1 (07:27 UTC) ab/call1.sh base59 a1 a2 (ROUNDS=2 SOURCE=a2) -> ab/call1-*, profile/t4-scores-first-stalls.txt
# call 2 (07:57)     ab/call2.sh: base59 xr dq planned, base59 and dq on static grids of 264 and 528 -> ab/call2-*
# call 3 (08:44)     checks/call3-targets.sh: ab/call1.sh base59 ship (three rounds), the targets beside PyTorch SDPA
#                    (f657f66's CLI) -> checks/call3-*, checks/targets-*
# call 4 (08:45)     checks/call4-checks.sh: f657f66's kattn_tests, validate, backend tests, sanitizers -> checks/
# call 5 (08:47)     the suite on f657f66 (perf/run_suite.sh, 5 + 20 runs a case, beside SDPA) -> suite-f657f66/
#                    (its summary; against-block-rows.txt compares kattn's times case by case with the stop before's)
# call 6 (09:25)     final/call6.sh 7b0fd7e: the final build's kattn_tests and validate, its probe against base59 (three
#                    rounds), the targets beside SDPA -> final/; the suite beside SDPA (5 + 20 runs a case) -> suite/
# summaries: python3 summarize.py ab/callN-ab.txt NAMES...
