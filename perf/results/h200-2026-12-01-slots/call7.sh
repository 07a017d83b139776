#!/bin/bash
# Stop 63, call 7: vote4 (the shipped form with its two guards for runs off their plan: no vote lost
# below the part's first sequence, a slot before the part's first token empty) alone, three rounds: its
# checksums against call 4's and memcheck over every probe case (the base build was no longer at hand).
set -u
ROUNDS=3 bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh vote4
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
compute-sanitizer --tool memcheck --print-limit 20 /tmp/vote4 2 0 > $OUT/memcheck-vote4.txt 2>&1
tail -2 $OUT/memcheck-vote4.txt
