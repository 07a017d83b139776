#!/bin/bash
# Calls 1 and 2: the A/B of ../h200-2026-11-30-item-claims/ab/call1.sh (the probe builds named as arguments
# alternating, ROUNDS rounds; Nsight Compute counts of b16 512 at teams of 4), then each binary's registers.
set -u
bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh "$@"
for n in "$@"; do echo "== $n"; cuobjdump -res-usage /tmp/$n 2>&1 | grep -A1 QBlockMma | grep -o 'REG:[0-9]* STACK:[0-9]* SHARED:[0-9]* LOCAL:[0-9]*' | sort | uniq -c; done > $OUT/regs.txt 2>&1
