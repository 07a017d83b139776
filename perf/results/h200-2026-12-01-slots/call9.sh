#!/bin/bash
# Stop 63, call 9: mended2 (call 8's mends less find_owner, which cost teams of 8 spills again: the claim counters put back by arrive_last, the maps' launch tidied; the search as call 7's)
# alone, three rounds: its checksums against call 4's and memcheck
# over every probe case.
set -u
ROUNDS=3 bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh mended2
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
compute-sanitizer --tool memcheck --print-limit 20 /tmp/mended2 2 0 > $OUT/memcheck-mended2.txt 2>&1
tail -2 $OUT/memcheck-mended2.txt
