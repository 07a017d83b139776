# Device call 14 (2026-11-27 14:43 UTC): dc29822 (the refitted table) built on the VM and carried
# Verify the 4-warp split-KV tree with its refitted table: GPU tests, validate, sanitizers of the
# split-KV variants, then the targets and the suite beside PyTorch SDPA, one call.
set -x
mkdir -p .device/pkg && tar xJf .device/final.tar.xz -C .device/pkg
F=$PWD/.device/pkg/final; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH; R=$OUT
ln -sfn $PWD /tmp/base-wt
mkdir -p build/h100/src && printf '#!/bin/sh\nexec %s/kattn "$@"\n' $F > build/h100/src/kattn && chmod +x build/h100/src/kattn
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
timeout 150 $F/kattn_tests.bin --gtest_brief=1 > $R/tests.txt 2>&1; echo "rc $?" >> $R/tests.txt
timeout 60 $F/kattn_backend_tests_Cuda.bin --gtest_brief=1 > $R/backend-tests.txt 2>&1; echo "rc $?" >> $R/backend-tests.txt
timeout 60 $F/kattn.bin validate data/references.h5 --variant all > $R/validate.txt 2>&1; echo "rc $?" >> $R/validate.txt
{ for t in memcheck racecheck; do timeout 60 compute-sanitizer --tool $t $F/kattn_backend_tests_Cuda.bin --gtest_filter='*KernelVariants*split_kv*' --gtest_brief=1; done; } > $R/sanitizers.txt 2>&1
tail -n 3 $R/tests.txt $R/backend-tests.txt $R/validate.txt; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $R/sanitizers.txt
timeout 120 $F/kattn bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $R/targets.json > $R/targets.txt 2>&1
timeout 120 python3 perf/torch_sdpa.py $R/targets.json > $R/sdpa-targets.txt 2>&1
KATTN_COMMIT=$(cat .device/commit) KATTN_SUITE_RUNS="--warmup 5 --runs 20 --no-check-values" timeout 240 perf/run_suite.sh $F $R/suite > /dev/null 2>&1
tail -n 12 $R/suite/run.log; grep -v stream $R/targets.txt | grep -E "^decode|^prefill|^mixed" | awk '{print $1, $6, $12}'
gzip $R/targets.json; cd $R && tar czf suite.tgz suite && rm -rf suite; ls $R
