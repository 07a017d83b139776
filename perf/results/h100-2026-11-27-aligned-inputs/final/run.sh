# Device calls 10 and 11 (2026-11-27, b3e7f93 built on the VM, carried as .device/final.tar.xz by .device/pack_final.sh)
# Final checks of the aligned-inputs tree: GPU tests, validate, memcheck of the aligned harness.
set -x
mkdir -p .device/pkg && tar xJf .device/final.tar.xz -C .device/pkg
F=$PWD/.device/pkg/final; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
ln -sfn $PWD /tmp/base-wt   # the tests' KATTN_CLI_PATH and KATTN_DATA_DIR name the build tree /tmp/base-wt
mkdir -p build/h100/src && printf '#!/bin/sh\nexec %s/kattn "$@"\n' $F > build/h100/src/kattn && chmod +x build/h100/src/kattn
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/device.txt
timeout 330 $F/kattn_tests.bin --gtest_brief=1 > $OUT/tests.txt 2>&1; echo "rc $?" >> $OUT/tests.txt
timeout 120 $F/kattn_backend_tests_Cuda.bin --gtest_brief=1 > $OUT/backend-tests.txt 2>&1; echo "rc $?" >> $OUT/backend-tests.txt
timeout 60 $F/kattn.bin validate data/references.h5 --variant all > $OUT/validate.txt 2>&1; echo "rc $?" >> $OUT/validate.txt
{ timeout 60 compute-sanitizer --tool memcheck $F/kattn_tests.bin --gtest_filter='AlignedInputs.*' --gtest_brief=1;
  timeout 60 compute-sanitizer --tool memcheck $F/kattn.bin bench --scenario perf/scenarios/targets.json --case decode-b8-4k --warmup 1 --runs 2; } > $OUT/memcheck.txt 2>&1
tail -n 4 $OUT/tests.txt $OUT/backend-tests.txt $OUT/validate.txt; grep -E "ERROR SUMMARY" $OUT/memcheck.txt

# The targets and the suite beside PyTorch SDPA, aligned-inputs tree, one call.
set -x
mkdir -p .device/pkg && tar xJf .device/final.tar.xz -C .device/pkg
F=$PWD/.device/pkg/final; R=$OUT
timeout 200 $F/kattn bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $R/targets.json > $R/targets.txt 2>&1
timeout 200 python3 perf/torch_sdpa.py $R/targets.json > $R/sdpa-targets.txt 2>&1
KATTN_COMMIT=$(cat .device/commit) KATTN_SUITE_RUNS="--warmup 5 --runs 20 --no-check-values" timeout 420 perf/run_suite.sh $F $R/suite > /dev/null 2>&1
tail -n 45 $R/suite/run.log; gzip $R/targets.json; cd $R && tar czf suite.tgz suite && rm -rf suite; ls $R
