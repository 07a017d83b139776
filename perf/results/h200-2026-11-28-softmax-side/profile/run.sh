#!/usr/bin/env bash
# Device call (2026-11-28, afternoon): Nsight Compute's source page of the two-warpgroup prefill kernel
# (d7f7673's kernels, through kattn_prefill_probe of the split build), b1 8192: where a step's stalls sit.
set -x
R=$OUT; P=$PWD/.device/probe/kattn_prefill_probe
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
timeout 300 ncu --set full --import-source no --kernel-name-base demangled -k 'regex:QBlockMmaKernel' --launch-count 1 -o /tmp/b1 $P 1 0 > $R/ncu.log 2>&1
ncu -i /tmp/b1.ncu-rep --page details > $R/ncu-details.txt 2>&1
ncu -i /tmp/b1.ncu-rep --page source --csv --print-source sass > /tmp/b1-sass.csv 2>&1
python3 - /tmp/b1-sass.csv > $R/stalls.txt <<'PY'
import csv,sys,io
txt=open(sys.argv[1]).read(); rows=list(csv.DictReader(io.StringIO(txt[txt.find('"Address"'):])))
keys=list(rows[0].keys()); st=[k for k in keys if k.startswith('stall_')]
num=lambda r,k: float(r.get(k) or 0)
tot={k:sum(num(r,k) for r in rows) for k in st}; T=sum(tot.values()) or 1
print('stall breakdown (share of all samples):')
for k,v in sorted(tot.items(), key=lambda x:-x[1]):
    if v: print(f"  {k:28s} {v/T*100:5.1f}%")
S='Warp Stall Sampling (All Samples)'; A=sum(num(r,S) for r in rows) or 1
print('\ninstructions with >= 0.15% of samples, in address order: share, executed, top stalls')
for r in rows:
    if num(r,S)/A>=0.0015:
        top=sorted(((num(r,k),k[6:]) for k in st), reverse=True)[:3]
        print(f"{num(r,S)/A*100:5.2f}% {r['Address'][-5:]} {int(num(r,'Instructions Executed')):>9d}  {r['Source'][:70]:70s} " + ' '.join(f"{k}:{v/max(num(r,S),1)*100:.0f}" for v,k in top if v))
PY
head -30 $R/stalls.txt
cd /tmp && xz -9 -k b1-sass.csv && cp b1-sass.csv.xz $R/; ls -la $R
