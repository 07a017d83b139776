#!/usr/bin/env bash
# The committed kattn_prefill_probe (bba514c's driver, d7f7673's kernels) on the device.
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/device.txt
timeout 200 .device/probe/kattn_prefill_probe 40 10 > $OUT/probe.txt 2>&1; echo "rc $?" >> $OUT/probe.txt
cat $OUT/probe.txt
