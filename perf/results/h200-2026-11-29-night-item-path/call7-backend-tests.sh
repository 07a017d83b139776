#!/bin/bash
# The backend tests after the lag test's mend (its rises pin the lag's units): all, then WarpRows under the sanitizers.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
xz -dc .device/kattn_backend_tests_Cuda.xz > /tmp/bt && chmod +x /tmp/bt
/tmp/bt --gtest_brief=1 2>&1 | tail -n 3; echo "rc ${PIPESTATUS[0]}"
/tmp/bt --gtest_filter='WarpRows.*' 2>&1 | grep -E 'OK|FAILED'
compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/bt --gtest_brief=1 --gtest_filter='WarpRows.*' 2>&1 | tail -n 2; echo "rc ${PIPESTATUS[0]}"
compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/bt --gtest_brief=1 --gtest_filter='WarpRows.*' 2>&1 | tail -n 2; echo "rc ${PIPESTATUS[0]}"
