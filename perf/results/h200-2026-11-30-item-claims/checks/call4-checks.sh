#!/bin/bash
# Session 59, call 3: the shipped build's checks on the device: GPU tests, validate, backend tests, sanitizers on the
# kernel tests that run the one-warpgroup kernel (its static grid claiming items) and on the tile primitives' tests.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
for b in kattn kattn_tests kattn_backend_tests_Cuda; do xz -dc .device/ship/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
mkdir -p $PWD/build/h100/src && cp /tmp/kattn $PWD/build/h100/src/kattn
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt
{
  echo "== kattn_tests"; /tmp/kattn_tests --gtest_brief=1 2>&1 | tail -n 4; echo "rc ${PIPESTATUS[0]}"
  echo "== validate"; /tmp/kattn validate data/references.h5 --variant all 2>&1 | tail -n 2; echo "rc ${PIPESTATUS[0]}"
  echo "== backend tests"; /tmp/kattn_backend_tests_Cuda --gtest_brief=1 2>&1 | tail -n 3; echo "rc ${PIPESTATUS[0]}"
} > $OUT/checks.txt 2>&1
{
  K='AllVariants/GuardRegions.*:AllVariants/KernelEdgeCases.*/qblock_static'
  echo "== memcheck $K"; timeout 170 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/kattn_tests --gtest_brief=1 --gtest_filter="$K" 2>&1 | tail -n 3; echo "rc ${PIPESTATUS[0]}"
  R='AllVariants/GuardRegions.*/qblock_static_*'
  echo "== racecheck $R"; timeout 150 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 /tmp/kattn_tests --gtest_brief=1 --gtest_filter="$R" 2>&1 | tail -n 4; echo "rc ${PIPESTATUS[0]}"
} > $OUT/sanitizers.txt 2>&1
