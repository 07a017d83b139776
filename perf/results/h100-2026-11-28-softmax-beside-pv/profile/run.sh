#!/usr/bin/env bash
# Device call (2026-11-28): full Nsight Compute profile of the shipped two-warpgroup kernel (team_size 8)
# on prefill b1 8192 and b16 512, and of the one-warpgroup kernel (team_size 4) on b16 512: speed of
# light, L2/memory, pipes, warp states, and the SASS lines with the most stall samples.
set -x
mkdir -p .device/pkg && tar xJf .device/ws2.tar.xz -C .device/pkg
F=$PWD/.device/pkg/ws2; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; date -u; } > $R/device.txt
prof() {  # name case team
  timeout 150 ncu --set full --import-source no --kernel-name-base demangled -k 'regex:QBlockMmaKernel' --launch-count 1 -o /tmp/$1 \
    $F/kattn.bin bench --scenario perf/scenarios/targets.json --case $2 --team-size $3 --warmup 0 --runs 1 --no-check-values > /tmp/$1.log 2>&1
  ncu -i /tmp/$1.ncu-rep --page details > $R/$1-details.txt 2>&1
  ncu -i /tmp/$1.ncu-rep --page source --csv --print-source sass > /tmp/$1-sass.csv 2>&1
  ncu -i /tmp/$1.ncu-rep --page raw --csv > /tmp/$1-raw.csv 2>&1
}
prof b1-8k-t8 prefill-b1-8k 8
prof b16-512-t8 prefill-b16-512 8
prof b16-512-t4 prefill-b16-512 4
python3 - /tmp > $R/sass-top.txt <<'PY'
import csv,sys,glob,io
for f in sorted(glob.glob(sys.argv[1]+'/*-sass.csv')):
    txt=open(f).read(); i=txt.find('"Address"')
    if i<0: print(f, 'no table', txt[:400]); continue
    rows=list(csv.DictReader(io.StringIO(txt[i:])))
    keys=list(rows[0].keys()); print('==', f, len(rows), 'rows; columns:', keys[:40])
    sk=[k for k in keys if 'Sampling' in k and 'All' in k] or [k for k in keys if 'Samp' in k]
    print('sample column', sk)
    if not sk: continue
    k=sk[0]; tot=sum(float(r[k] or 0) for r in rows) or 1
    top=sorted(rows,key=lambda r:-float(r[k] or 0))[:70]
    for r in top: print(f"{float(r[k] or 0)/tot*100:5.1f}%  {r.get('Address','')}  {r.get('Source','')[:110]}  | {r.get('Warp Stall Sampling (All Samples)','')}")
PY
timeout 200 cuobjdump -sass $F/kattn.bin > /tmp/all.sass 2>&1
python3 - <<'PY2'
import re
out=open('/tmp/sass-qblock.txt','w'); keep=False; n=0
for line in open('/tmp/all.sass', errors='replace'):
    if 'Function :' in line:
        name=line.split('Function :')[1].strip()
        keep=('QBlockMmaKernel' in name and 'ScoreFeaturesILj0E' in name and 'Li128ELb1ELb1ELi2E' in name and n<4)
        if keep: n+=1
    if keep: out.write(line)
print('functions kept', n)
PY2
cd /tmp && tar czf $R/prof.tgz *.ncu-rep *-sass.csv *-raw.csv *.log sass-*.txt && ls -la $R
