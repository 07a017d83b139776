#!/bin/bash
# base2 against the shipped form (ship) at cache blocks of 16, 64 and 128 slots.
set -u
for bs in 16 64 128; do
  export KATTN_PROBE_BLOCK_SIZE=$bs
  bash .device/ab.sh base2 ship > /dev/null 2>&1
  mv $OUT/ab-raw.txt $OUT/ab-raw-ship-block$bs.txt
done
