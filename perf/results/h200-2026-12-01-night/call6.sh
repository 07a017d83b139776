#!/bin/bash
# Stop 62, call 6: the GPU test of claiming teams (KernelClaimingTeams.MatchOracle, new) on 4bf9ccd's kernels, with
# the static-grid edge cases beside it; compute-sanitizer memcheck on the new test.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /work && ln -sfn $PWD /work/main
xz -dc .device/tests/kattn_tests.xz > /tmp/kattn_tests && chmod +x /tmp/kattn_tests
/tmp/kattn_tests --gtest_filter='KernelClaimingTeams.*:*StaticGridOfOneTeam*:*TeamsOfEightAndTwelveWarps*' > $OUT/tests.txt 2>&1
echo "rc $?" >> $OUT/tests.txt
timeout 300 compute-sanitizer --tool memcheck /tmp/kattn_tests --gtest_filter='KernelClaimingTeams.*' > $OUT/memcheck.txt 2>&1
echo "rc $?" >> $OUT/memcheck.txt
