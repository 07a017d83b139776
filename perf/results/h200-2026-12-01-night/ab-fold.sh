#!/bin/bash
# Stop 62, calls 2-5: the probe build NAME (.device/NAME, a form of not-kept/claiming-teams-build-their-table.patch)
# against base (4bf9ccd), three rounds; Nsight Compute counts on b16 512 at teams of 4; compute-sanitizer memcheck
# over one run of every probe case. Usage: bash ab-fold.sh NAME (from the repository root).
set -u
name=$1
ROUNDS=3 bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh base $name
python3 perf/results/h200-2026-11-30-item-claims/summarize.py $OUT/ab.txt base $name > $OUT/summary.txt 2>&1
compute-sanitizer --tool memcheck /tmp/$name 1 0 > $OUT/memcheck.txt 2>&1; echo "memcheck rc $?" >> $OUT/memcheck.txt
