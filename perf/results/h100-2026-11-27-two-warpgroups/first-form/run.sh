# Device run 25 (2026-11-27): two warpgroups a team sharing K/V tiles (team_size 8 on the warpgroup path):
# the new kernel tests, validate, an A/B of --team-size 4 against 8 on the prefill A/B scenario, ncu.
source .device/setup.sh
R=$OUT/r; mkdir -p $R
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date; } > $R/device.txt
timeout 150 $T --gtest_brief=1 --gtest_filter='*KernelTeamShapes*:*TilePrimitives*:*QBlockTable*:*WarpKeyRows*' > $R/tests-new.txt 2>&1; echo "rc $?" >> $R/tests-new.txt; grep -E 'PASSED|SKIPPED|FAILED|rc ' $R/tests-new.txt | head -20
S=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
for i in 1 2; do
  timeout 200 $K bench --scenario $S --warmup 10 --runs 50 --team-size 4,8 --no-check-values > $R/ab-$i.txt 2>&1
done
python3 - $R <<'PY'
import sys, glob, re
R = sys.argv[1]
best = {}
for f in sorted(glob.glob(f'{R}/ab-*.txt')):
    for l in open(f):
        p = l.split()
        if len(p) > 14 and 'stream' not in l and re.match(r'^[0-9.]+$', p[11]) and 'x' in p[5]:
            k = (p[0], p[5].split('x')[0]); best[k] = min(best.get(k, 1e30), float(p[11]))
cases = sorted({c for c, _ in best}, key=lambda c: list(best).index((c, '4')) if (c, '4') in best else 0)
print(f"{'case':28}{'team4':>10}{'team8':>10}  8/4")
for c in cases:
    a, b = best.get((c, '4')), best.get((c, '8'))
    if a and b: print(f"{c:28}{a:10.1f}{b:10.1f}  {b/a:6.3f}")
PY
grep -iE 'error|fail|mismatch' $R/ab-1.txt | head -5
M=launch__registers_per_thread,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
for c in prefill-b1-8k prefill-b16-512; do
  for t in 4 8; do
    echo "== $c team $t"
    timeout 120 ncu --clock-control none --kernel-name-base demangled -k regex:'QBlockMma' --launch-skip 1 --launch-count 1 --metrics $M \
      $K bench --case $c --scenario $S --warmup 1 --runs 1 --team-size $t --no-check-values 2>&1 | grep -E 'registers|inst_executed|duration|warps_active|tensor|issue_active|occupancy' | cut -c1-150
  done
done > $R/ncu.txt 2>&1
cat $R/ncu.txt
tar -C $OUT -czf $OUT/run25.tgz r && rm -rf $R
