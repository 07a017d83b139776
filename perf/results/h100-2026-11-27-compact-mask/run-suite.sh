# Device run 18: the compact mask's suite beside SDPA, the tuning sweep on its kernels, compute-sanitizer.
# A record of the device call, as run.sh; its suite, sweep and sanitizers ran the binaries of run.sh (5d3810f's code,
# built before the commit: the suite names them f8f278e-dirty). tune/fit.log and model-calibrate.txt ran here (OpenMP build).
source .device/setup.sh
R=$OUT/r; mkdir -p $R/sanitize $R/tune
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date; } > $R/device.txt
KATTN_SUITE_RUNS="--warmup 5 --runs 20 --no-check-values" timeout 300 perf/run_suite.sh build/h100 $R/suite > $R/suite-run.log 2>&1
tail -12 $R/suite-run.log
S=perf/results/h100-2026-11-26-overlap/sanitize/scenario.json
timeout 60 $K refgen --scenario $S --output /tmp/deep.h5 > $R/sanitize/refgen.txt 2>&1
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $K validate /tmp/deep.h5 --variant all > $R/sanitize/memcheck-deep.txt 2>&1; echo "rc $?" >> $R/sanitize/memcheck-deep.txt
for v in qblock qblock_static; do
  timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $K validate /tmp/deep.h5 --variant $v --case deep-prefill-bf16 > $R/sanitize/racecheck-$v.txt 2>&1; echo "rc $?" >> $R/sanitize/racecheck-$v.txt
done
tail -n 3 $R/sanitize/*.txt
timeout 200 $K tune sweep --scenario perf/scenarios/suite.json,perf/scenarios/decode.json --no-check-values --output $R/tune/raw.json 2> $R/tune/tune.log > $R/tune/sweep.txt
tail -2 $R/tune/tune.log
gzip $R/tune/raw.json $R/tune/tune.log
tar -C $OUT -czf $OUT/run18.tgz r && rm -rf $R
