#!/bin/bash
# Session 58, call 8: the review's mends (one count of a tile's keys, the zero loop's form, a comment) against a339d63's
# probe, two rounds, every output checksum to compare.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
for n in shipped mends; do xz -dc .device/$n/kattn_prefill_probe.xz > /tmp/$n && chmod +x /tmp/$n; done
for round in 1 2; do
  for n in shipped mends; do /tmp/$n 40 10 | sed "s/^/$n r$round /"; done
done > $OUT/ab.txt 2>&1
