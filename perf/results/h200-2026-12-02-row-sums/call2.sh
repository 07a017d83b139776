#!/bin/bash
# Stop 65, call 2: base (4814def, .device/blocks) against cuts (a row's inverse sum by the hardware
# reciprocal on CUDA; a warp's output rows into the Q tile by stmatrix).
bash perf/results/h200-2026-12-02-row-sums/ab.sh blocks cuts call2
