#!/usr/bin/env bash
# Five device calls (2026-11-28, 11:58, 12:09, 12:29, 13:13 and 13:18 UTC), each an A/B of fp16 probe
# binaries in one call: `base` (d7f7673's kernels) against the same launch path with one patch of this
# folder (block-ids/registers: its patch not kept). profile/run.sh is the profile's call.
# Built here, before kattn_prefill_probe existed, from the same parts it now builds from: d7f7673's
# src/kattn/attention.cpp with its instantiations cut to plan_attention/run for fp16 q, cache and out
# (2 min 13 s of nvcc_wrapper, -O3 -gencode=arch=compute_90a,code=sm_90a -DKATTN_WARPGROUP_MMA), linked with
# the library's other objects and a driver timing the cases of perf/probes/prefill_probe.cpp as it does
# (kernel time by CUDA events, the L2 flushed, 10 + 40 runs; its inputs then filled on the host). The
# poly-exp builds set -DKATTN_EXP_POLY_EVERY=4, 2 or 1. `kattn_prefill_probe` builds either in one
# command now (apply the patch, then `cmake --build build/h100 --target kattn_prefill_probe`); its lines
# begin as the first driver's, which ab.py reads.
# The device loop (.device/probe held the stripped binaries; `split_probe` the new target on d7f7673's
# kernels, in the third call); ab.py summarizes.
cd .device/probe
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/device.txt
for r in 1 2; do
  for b in base $NEW; do ./$b 40 10 > $OUT/$b-$r.txt 2>&1; done  # NEW: "new", "poly4 poly2 poly1", "sums"
done
