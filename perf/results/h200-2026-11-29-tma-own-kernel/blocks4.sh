#!/bin/bash
# base2 against own16 (the bulk tiles' own kernel, boxes from 16 slots) at blocks 16 and 32, and
# against own16 and pptma (ping-pong rings with boxes) at blocks 64 and 128.
set -u
for bs in 16 32 64 128; do
  export KATTN_PROBE_BLOCK_SIZE=$bs
  if [ $bs -le 32 ]; then bash .device/ab.sh base2 own16 > /dev/null 2>&1
  else bash .device/ab.sh base2 own16 pptma > /dev/null 2>&1; fi
  mv $OUT/ab-raw.txt $OUT/ab-raw-block$bs.txt
done
