#!/bin/bash
# How the results here were made (2026-11-29 night; NVIDIA H200, driver 580.159.04: the H100 was not lent).
# Probe binaries built here (nvcc 13.0, Kokkos 4.6.01 at /opt/kokkos-cuda, `cmake --build build/h100 --target
# kattn_prefill_probe`), stripped, carried to the device in .device/ (ignored by git) with libcudart.so.13; each call's
# script is kept here beside its results (they ran from the tree's root as `bash .device/<script>`).
#   base = 47297c2's probe (the evening's shipped kernels)
#   new  = the max's lag + output pairs + wait_all + rows' addresses by __shfl_sync (not kept)
#   lp   = the max's lag + output pairs + wait_all (shipped, with the divisions below)
#   v4   = lp + a row a lane for the output and Q rows + the item's indices by FastDivisor (the row a lane not kept)
#   ship = this commit's build (lp + the item's indices by FastDivisor)
# call 1 (19:58 UTC) call1-shuffles.sh    -> shuffles/ab.txt, shuffles/t4-stalls.txt (Nsight Compute source counters of
#                                            new's b16 512 at teams of 4, python3 perf/ncu_stalls.py)
# call 2 (20:17)     ab.sh base lp new    -> lp/ab.txt, lp/ncu.txt -> lp/summary.txt, shuffles/summary.txt
# call 3 (20:49)     ab.sh base lp v4     -> rows-a-lane/ab.txt, ncu.txt -> rows-a-lane/summary.txt, lp/summary-call3.txt
# calls 4, 5 (21:19) call4-checks.sh main, then call4-checks.sh sanitize -> checks/ (the shipped build: A/B against lp,
#                                            kattn_tests, validate, backend tests, targets beside SDPA, Nsight Compute;
#                                            sanitizers.txt); perf/results was moved aside for these calls (the carry's 64 MiB)
# call 6             call6-profile.sh     -> profile/t4-ship.txt (source counters of the shipped probe's b16 512, teams of 4)
# profile/t4-base-47297c2.txt: python3 perf/ncu_stalls.py on the evening's source counters of base's b16 512 at teams
# of 4 (perf/results/h200-2026-11-29-evening-rows-warps/run.sh, call 3), with the new grouping by executed count.
# summaries: python3 ../h200-2026-11-29-evening-rows-warps/summarize.py AB.txt A B (the lower of the rounds' medians;
# checksums equal or not).
# call 7 (21:35)     call7-backend-tests.sh -> checks/backend-tests-mended.txt (kattn_backend_tests_Cuda rebuilt after the
#                                            review's mend of RowMaximaMoveOnlyPastTheLag: all, then WarpRows under
#                                            memcheck and racecheck)
# call 8 (21:47)     call8-suite.sh       -> suite/ (perf/run_suite.sh on the shipped CLI, 5 + 20 runs a case, beside SDPA:
#                                            suite.json.gz and the summary table; the plots: python3 perf/plot_suite.py)
# call 9 (22:15)     call9-refactor.sh    -> refactor/ (the Q row lookup as one member of the kernel and no empty branch:
#                                            its probe against the shipped one, every output bit-equal, 0.993-1.009x;
#                                            kattn_tests, validate, backend tests) -> refactor/summary.txt
