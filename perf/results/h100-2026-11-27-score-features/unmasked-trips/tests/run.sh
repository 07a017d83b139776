# Device run 32 (2026-11-27): the deep warpgroup kernel steps the unmasked tiles without the mask (after 496f401):
# GPU tests (default backend, per-backend Cuda and Serial), validate, compute-sanitizer
# memcheck/racecheck/synccheck of the kernel variants.
source .device/setup.sh
R=$OUT/r; mkdir -p $R/sanitize
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date; } > $R/device.txt
timeout 90 $K validate data/references.h5 --variant all > $R/validate.txt 2>&1; echo "rc $?" >> $R/validate.txt; tail -2 $R/validate.txt
for b in TC; do X=${!b}; ( time timeout 120 $X --gtest_brief=1 ) > $R/tests-backend-$b.txt 2>&1; echo "rc $?" >> $R/tests-backend-$b.txt; grep -E 'PASSED|SKIPPED|FAILED|rc ' $R/tests-backend-$b.txt | head -8; done
( time timeout 240 $T --gtest_brief=1 ) > $R/tests.txt 2>&1; echo "rc $?" >> $R/tests.txt; grep -E 'PASSED|SKIPPED|FAILED|rc ' $R/tests.txt | head -12
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $TC --gtest_filter='*KernelVariants*' > $R/sanitize/$tool-backend-cuda.txt 2>&1; echo "rc $?" >> $R/sanitize/$tool-backend-cuda.txt
  tail -n 3 $R/sanitize/$tool-backend-cuda.txt
done
tar -C $OUT -czf $OUT/run32.tgz r && rm -rf $R
