#!/bin/bash
# Stop 64, call 6: base (2ecdee3, .device/mended2) against blocks (shipped, 4814def's kernels) again on
# another instance, five rounds: the spread of call 4's 0.991x.
ROUNDS=5 bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh mended2 blocks
