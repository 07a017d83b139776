#!/bin/bash
# Stop 62, call 2: the claiming kernels' own Q-block table (fold) against base (4bf9ccd), three rounds; Nsight
# Compute counts on b16 512 at teams of 4; compute-sanitizer memcheck over one run of every probe case.
set -u
ROUNDS=3 bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh base fold
python3 perf/results/h200-2026-11-30-item-claims/summarize.py $OUT/ab.txt base fold > $OUT/summary.txt 2>&1
compute-sanitizer --tool memcheck /tmp/fold 1 0 > $OUT/memcheck.txt 2>&1; echo "memcheck rc $?" >> $OUT/memcheck.txt
