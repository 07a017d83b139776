#!/bin/bash
# Stop 65, call 6 (the final read's mend: the stmatrix asm as fragment_detail::store_matrices beside
# load_matrices): cuts (41552d0) against mend, one round; outputs must be bit-equal.
ROUNDS=1 bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh cuts mend
