# Device run 21: the Q-block table with the sequences staged in scratch (new) against its first form
# (mid, 1c05f6e); Kokkos Kernels' TeamGemm on the device (kk, 1c05f6e + team_gemm_available() on
# CUDA) against the loops (mid) on fp32 cases; validate, tests, sanitizers, targets beside SDPA,
# the latency experiment.
source .device/setup.sh
for b in mid kk; do
  mkdir -p .device/$b && tar -C .device -xJf .device/$b.tar.xz
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/.device/pkg/lib exec %s/.device/%s/kattn.bin "$@"\n' "$ROOT" "$ROOT" "$b" > .device/$b/kattn
  chmod +x .device/$b/kattn
done
KM=$ROOT/.device/mid/kattn; KK=$ROOT/.device/kk/kattn
R=$OUT/r; mkdir -p $R/sanitize $R/kk $R/latency
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date; } > $R/device.txt
timeout 120 $K validate data/references.h5 --variant all > $R/validate.txt 2>&1; echo "rc $?" >> $R/validate.txt; tail -1 $R/validate.txt
timeout 120 $KK validate data/references.h5 --variant all > $R/kk/validate.txt 2>&1; echo "rc $?" >> $R/kk/validate.txt; tail -1 $R/kk/validate.txt
compare() {  # compare DIR A B: the lower of the runs of each binary's kernel time
python3 - "$@" <<'PY'
import sys, glob, re
R, A, B = sys.argv[1:4]
def read(f):
    d = {}
    for l in open(f):
        p = l.split()
        if len(p) > 14 and 'stream' not in l and re.match(r'^[0-9.]+$', p[11]): d[p[0] + ' ' + p[1]] = float(p[11])
    return d
best = {}
for k in (A, B):
    for f in sorted(glob.glob(f'{R}/{k}-*.txt')):
        for c, v in read(f).items(): best.setdefault(k, {})[c] = min(v, best.get(k, {}).get(c, v))
print(f"{'case variant':44}{A:>10}{B:>10}  {B}/{A}")
for c in best.get(A, {}):
    a, b = best[A][c], best.get(B, {}).get(c, 0)
    print(f"{c:44}{a:10.1f}{b:10.1f}  {b/a:6.3f}")
PY
}
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
SH=perf/results/h100-2026-11-27-qblock-table/short-scenario.json
for i in 1 2; do
  for b in mid new; do
    X=$K; [ $b = mid ] && X=$KM
    timeout 100 $X bench --scenario $S --warmup 10 --runs 50 --no-check-values > $R/$b-$i.txt 2>&1
    timeout 60 $X bench --scenario $SH --warmup 20 --runs 100 --no-check-values > $R/$b-short-$i.txt 2>&1
  done
done
compare $R mid new | tee $R/ab.txt
M=launch__registers_per_thread,smsp__inst_executed.sum,gpu__time_duration.sum
for c in d0-b1-16-fixed-fp16 d0-b128-16-fixed-fp16 d0-b32-64-fixed-fp16; do
  for b in mid new; do
    X=$K; [ $b = mid ] && X=$KM
    echo "== $c $b"
    timeout 100 ncu --clock-control none --kernel-name-base demangled -k regex:'QBlockMma|QBlockOffsets' --launch-skip 2 --launch-count 2 --metrics $M \
      $X bench --case ${c%-fp16} --scenario $SH --warmup 1 --runs 1 --no-check-values 2>&1 | grep -E '^  [a-z]|registers|inst_executed|duration' | sed 's/(Kokkos.*//' | cut -c1-120
  done
done > $R/ncu-counts.txt 2>&1
grep -E '==|duration' $R/ncu-counts.txt
KS=perf/results/h100-2026-11-27-kokkos-kernels/scenario.json
for i in 1 2; do
  for b in mid kk; do
    X=$KK; [ $b = mid ] && X=$KM
    timeout 150 $X bench --scenario $KS --warmup 3 --runs 10 --no-check-values > $R/kk/$b-$i.txt 2>&1
    timeout 60 $X bench --scenario $KS --case decode-b16-1k --variant segmented_static,qblock_static --warmup 3 --runs 10 --no-check-values > $R/kk/$b-forced-$i.txt 2>&1
  done
done
compare $R/kk mid kk | tee $R/kk/ab.txt
( time timeout 200 $T --gtest_brief=1 ) > $R/tests.txt 2>&1; echo "rc $?" >> $R/tests.txt; tail -3 $R/tests.txt
SS=perf/results/h100-2026-11-26-overlap/sanitize/scenario.json
timeout 60 $K refgen --scenario $SS --output /tmp/deep.h5 > $R/sanitize/refgen.txt 2>&1
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $K validate /tmp/deep.h5 --variant all > $R/sanitize/memcheck-deep.txt 2>&1; echo "rc $?" >> $R/sanitize/memcheck-deep.txt
for v in qblock qblock_static; do
  timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $K validate /tmp/deep.h5 --variant $v --case deep-prefill-bf16 > $R/sanitize/racecheck-$v.txt 2>&1; echo "rc $?" >> $R/sanitize/racecheck-$v.txt
done
tail -n 2 $R/sanitize/*.txt
timeout 150 $K bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $R/targets.json > $R/targets.txt 2>&1
timeout 150 python3 perf/torch_sdpa.py $R/targets.json > $R/sdpa-targets.txt 2>&1
grep -v stream $R/targets.txt | grep -E 'prefill|mixed|decode' | awk '{print $1, $12, $14}'; tail -10 $R/sdpa-targets.txt
for g in "" --graph-replay; do
  timeout 100 $K simulate --model data/models/llama-3.1-8b.json --latency-experiment --warmup 1 --runs 1 --rows 6 $g \
    --output $R/latency/latency-planned${g:+-graph}.json > $R/latency/latency-planned${g:+-graph}.txt 2>&1
  tail -4 $R/latency/latency-planned${g:+-graph}.txt
done
gzip $R/latency/*.json $R/targets.json
tar -C $OUT -czf $OUT/run21.tgz r && rm -rf $R
