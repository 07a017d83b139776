#!/bin/bash
# Stop 63, call 8: mended (the final read's mends: the claim counters put back by arrive_last, the
# search's binary part by find_owner) alone, three rounds: its checksums against call 4's and memcheck
# over every probe case.
set -u
ROUNDS=3 bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh mended
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
compute-sanitizer --tool memcheck --print-limit 20 /tmp/mended 2 0 > $OUT/memcheck-mended.txt 2>&1
tail -2 $OUT/memcheck-mended.txt
