#!/bin/bash
# The refactor's build (the kernel's Q row lookup as one member, no empty branch): its probe against the shipped one
# (outputs must be bit-equal), GPU tests with the CLI at its build path, validate, backend tests.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
for b in kattn kattn_tests kattn_backend_tests_Cuda kattn_prefill_probe ship_probe; do xz -dc .device/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
mkdir -p /work/main/build/h100/src && cp /tmp/kattn /work/main/build/h100/src/kattn
mkdir -p /tmp/ship /tmp/refactor && mv /tmp/ship_probe /tmp/ship/kattn_prefill_probe && mv /tmp/kattn_prefill_probe /tmp/refactor/
for round in 1 2; do
  for n in ship refactor; do
    /tmp/$n/kattn_prefill_probe 40 10 | sed "s/^/$n gridplan r$round /"
  done
done > $OUT/ab.txt 2>&1
{
  echo "== kattn_tests"; /tmp/kattn_tests --gtest_brief=1 2>&1 | tail -n 4; echo "rc ${PIPESTATUS[0]}"
  echo "== validate"; /tmp/kattn validate data/references.h5 --variant all 2>&1 | tail -n 1; echo "rc ${PIPESTATUS[0]}"
  echo "== backend tests"; /tmp/kattn_backend_tests_Cuda --gtest_brief=1 2>&1 | tail -n 3; echo "rc ${PIPESTATUS[0]}"
} > $OUT/checks.txt 2>&1
