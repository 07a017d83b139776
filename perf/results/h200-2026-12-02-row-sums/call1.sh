#!/bin/bash
# Stop 65, call 1: base (4814def, .device/blocks) against sums (the deep kernels' row sums of the
# weights by the tensor cores beside P·V, a tile of 1s as B, instead of a FADD a score).
bash perf/results/h200-2026-12-02-row-sums/ab.sh blocks sums call1
