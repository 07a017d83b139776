#!/bin/bash
# How the results here were made (2026-11-29, NVIDIA H200; the H100 was not lent). Binaries built
# here: nvcc 13.0, Kokkos 4.6.01 at /opt/kokkos-cuda, sm_90a (`h100` preset), stripped; carried to
# the device in .device/ (ignored by git).
#
# probe/  two device calls (04:35 and 04:55 UTC) of two kattn_prefill_probe binaries, alternating,
#         two rounds of 10 + 40 runs, at cache blocks of 16 and 64 slots:
#           own  = the shipped probe (c7f7cda + the bulk tiles' own kernel, boxes from 32 slots as
#                  71ea5f6 ships them: block 16 as 65dddd5)
#           prod = this stop's producer warpgroup (team 12), first form (first-ab-raw-*: one thread
#                  issuing every box of a tile, `one-thread-producer.patch`), then the shipped form
#                  (ab-raw-*: warp 0 the K ring, warp 1 the V ring, a lane a block)
#         for bs in 16 64; do export KATTN_PROBE_BLOCK_SIZE=$bs; for round in 1 2; do for n in own prod; do
#           .device/bin/$n/kattn_prefill_probe 40 10 >> ab-raw-block$bs.txt; done; done; done
#         summary.txt: python3 summarize.py . ; sass-summary.txt: LDL/STL of the producer kernels
#         (cuobjdump -sass on the device; the rows' loop has none, the producer's copy loop spills at 24).
# checks/ the build of the producer (ac9c856): .device/call1.sh (kattn_tests, validate, backend tests,
#         compute-sanitizer) at 05:36 UTC.
# sweep-trap/ .device/call3.sh at 05:50 UTC: the tuning sweep of ac9c856 had trapped on d0-b2-1k-fixed
#         (segmented_static, 4 segments, team 12: a negative ring count from empty segments).
# verify/ the shipped build (197cdd5 = this commit's kernels): .device/call1.sh at 06:26 UTC (kattn_tests,
#         validate, backend tests, compute-sanitizer memcheck of the 8- and 12-warp kernel tests and
#         memcheck/racecheck of the primitives' tests; racecheck of the 12-warp kernel tests timed out
#         at 120 s; the sweep-trap case re-run: rc 0) -> checks.txt, logs.tgz
# tune/   .device/call2.sh at 06:31 UTC:
#           kattn tune sweep --scenario perf/scenarios/suite.json,perf/scenarios/decode.json \
#             --space data/tuning/spaces/gpu.json --no-check-values --commit 197cdd5 --output raw.json
#           kattn tune fit raw.json --arch h100 --max-depth 6 --output h100.json   (-> data/tuning/h100.json)
#           kattn bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values \
#             --tuning-table h100.json --output targets.json; python3 perf/torch_sdpa.py targets.json
#           KATTN_SUITE_RUNS="--warmup 5 --runs 20 --no-check-values --tuning-table h100.json" \
#             perf/run_suite.sh build/h100 suite            (suite.tgz: suite/ and the sweep's log)
#         raw.json.gz and suite.tgz were removed on 2026-11-29 (stop 54): the sweep and suite of
#         ../h200-2026-11-29-q-prefetch/tune/ replace them (fit.log, h100.json and the targets stay).
#         model-calibrate-h200.txt: here, 2026-11-29 (stop 53), the h200.json fit of that stop:
#           kattn model calibrate --suite suite/suite.json --holdout targets.json \
#             --hardware h200-start.json --timing kernel --output h200.json
#           (h200-start.json: data/hardware/models/h100.json with memory_gb_per_s 4800)
