# Device run 34 (2026-11-27): the score rules as kernel parameters (after 3ed8b2b): GPU tests,
# validate, compute-sanitizer memcheck and racecheck of the kernel variants.
source .device/setup.sh
R=$OUT/r; mkdir -p $R/sanitize
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date; } > $R/device.txt
timeout 90 $K validate data/references.h5 --variant all > $R/validate.txt 2>&1; echo "rc $?" >> $R/validate.txt; tail -2 $R/validate.txt
( time timeout 120 $TC --gtest_brief=1 ) > $R/tests-backend-cuda.txt 2>&1; echo "rc $?" >> $R/tests-backend-cuda.txt; grep -E 'PASSED|SKIPPED|FAILED|rc ' $R/tests-backend-cuda.txt | head -8
( time timeout 240 $T --gtest_brief=1 ) > $R/tests.txt 2>&1; echo "rc $?" >> $R/tests.txt; grep -E 'PASSED|SKIPPED|FAILED|rc ' $R/tests.txt | head -12
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $TC --gtest_filter='*KernelVariants*' > $R/sanitize/$tool-backend-cuda.txt 2>&1; echo "rc $?" >> $R/sanitize/$tool-backend-cuda.txt
  tail -n 3 $R/sanitize/$tool-backend-cuda.txt
done
tar -C $OUT -czf $OUT/run34.tgz r && rm -rf $R
