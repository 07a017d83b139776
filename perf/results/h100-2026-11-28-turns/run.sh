#!/usr/bin/env bash
# Device call A (2026-11-28, session 47): the two warpgroups' turns (kattn.bin) against the shipped
# 7a9b6b8 (kattn_old.bin) in one call: the prefill A/B scenario at team sizes 4 and 8, two rounds; then
# the targets and the suite beside PyTorch SDPA on the shipped table with the new binary.
# Kept here: ab.txt (ab-raw.tgz), sass.txt (probe of the turns kernel, fp16, no score features) and
# device.txt; the targets and the suite on this binary (not shipped) were read and left out.
set -x
mkdir -p .device/pkg && tar xJf .device/ws19.tar.xz -C .device/pkg
F=$PWD/.device/pkg/tn; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH; S=perf/scenarios
mkdir -p build/h100/src && printf '#!/bin/sh\nexec %s/kattn.bin "$@"\n' $F > build/h100/src/kattn && chmod +x build/h100/src/kattn
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
for o in $F/*.o; do bash .device/sass.sh $o; cuobjdump -sass $o | grep -c -E 'STL|LDL'; done > $R/sass.txt 2>&1
A=perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json
for i in 1 2; do for b in old new; do for t in 8 4; do
  exe=$F/kattn.bin; [ $b = old ] && exe=$F/kattn_old.bin
  timeout 100 $exe bench --scenario $A --team-size $t --warmup 10 --runs 40 --no-check-values --output $R/ab-$b-t$t-$i.json > $R/ab-$b-t$t-$i.log 2>&1
done; done; done
python3 - $R > $R/ab.txt <<'PY'
import json,sys,glob,collections
d=sys.argv[1]; res=collections.defaultdict(dict)
for f in sorted(glob.glob(f"{d}/ab-*-t*-*.json")):
    _,b,t,_=f.split('/')[-1].split('-')
    for r in json.load(open(f))['results']:
        k=r.get('kernel_mean_us'); n=r['case']+'/'+r.get('dtype','')+'/'+t
        if k is not None: res[n][b]=min(res[n].get(b,1e18),k)
print(f"{'case/dtype/team':40s} {'old':>9s} {'new':>9s}  new/old")
for n,v in sorted(res.items(), key=lambda x:(x[0].split('/')[-1],x[0])):
    if len(v)==2: print(f"{n:40s} {v['old']:9.1f} {v['new']:9.1f}  {v['new']/v['old']:.3f}x")
PY
cat $R/ab.txt
timeout 60 $F/kattn.bin bench --scenario $A --team-size 8 --warmup 1 --runs 2 > $R/check-values.txt 2>&1; echo "rc $?" >> $R/check-values.txt; tail -1 $R/check-values.txt
timeout 80 $F/kattn.bin bench --scenario $S/targets.json --warmup 20 --runs 100 --no-check-values --output $R/targets.json > $R/targets.txt 2>&1
timeout 80 python3 perf/torch_sdpa.py $R/targets.json > $R/sdpa-targets.txt 2>&1
grep -v stream $R/targets.txt | grep -E "^decode|^prefill|^mixed" | awk '{print $1, $2, $6, $12, $13, $14}'; tail -n 10 $R/sdpa-targets.txt
KATTN_COMMIT=$(cat .device/commit) KATTN_SUITE_RUNS="--warmup 5 --runs 20 --no-check-values" timeout 170 perf/run_suite.sh build/h100 $R/suite > /dev/null 2>&1
tail -n 12 $R/suite/run.log
gzip $R/targets.json; cd $R && tar czf raw.tgz ab-*.json ab-*.log check-values.txt suite && rm -rf ab-*.json ab-*.log check-values.txt suite; ls $R
