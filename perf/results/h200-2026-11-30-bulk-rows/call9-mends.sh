#!/bin/bash
# The second read's mends on the device: GPU tests (the CLI at its build path), validate, backend tests, memcheck and
# racecheck on the bulk copies' tests, and the probe against c549da7's (outputs and times).
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
for b in kattn kattn_tests kattn_backend_tests_Cuda kattn_prefill_probe; do xz -dc .device/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
xz -dc .device/base/kattn_prefill_probe.xz > /tmp/base && chmod +x /tmp/base
mkdir -p /work/main/build/h100/src && cp /tmp/kattn /work/main/build/h100/src/kattn
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt
{
  echo "== kattn_tests"; /tmp/kattn_tests --gtest_brief=1 2>&1 | tail -n 4; echo "rc ${PIPESTATUS[0]}"
  echo "== validate"; /tmp/kattn validate data/references.h5 --variant all 2>&1 | tail -n 2; echo "rc ${PIPESTATUS[0]}"
  echo "== backend tests"; /tmp/kattn_backend_tests_Cuda --gtest_brief=1 2>&1 | tail -n 3; echo "rc ${PIPESTATUS[0]}"
  B='TeamBulkCopy.*'
  echo "== memcheck backend $B"; timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/kattn_backend_tests_Cuda --gtest_brief=1 --gtest_filter="$B" 2>&1 | tail -n 3; echo "rc ${PIPESTATUS[0]}"
  echo "== racecheck backend $B"; timeout 120 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 /tmp/kattn_backend_tests_Cuda --gtest_brief=1 --gtest_filter="$B" 2>&1 | tail -n 4; echo "rc ${PIPESTATUS[0]}"
} > $OUT/checks.txt 2>&1
for round in 1 2; do
  /tmp/base 40 10 | sed "s/^/base r$round /"
  /tmp/kattn_prefill_probe 40 10 | sed "s/^/mend r$round /"
done > $OUT/ab.txt 2>&1
