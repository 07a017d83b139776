#!/usr/bin/env bash
# Device call 3 (2026-11-27): where the warps' time goes, deep warpgroup kernel (p0) beside the
# pipelined one (p1), prefill b1 8192: Nsight Compute's SASS source page (stall samples per
# instruction), summed per opcode and stall reason (summary.txt).
set -x
mkdir -p .device/pkg && tar xJf .device/pipe2.tar.xz -C .device/pkg
F=$PWD/.device/pkg/pipe2; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
for p in 0 1; do
  KATTN_PIPELINED=$p timeout 200 ncu --clock-control none --kernel-name-base demangled -k 'regex:QBlock(Mma|Pipelined)Kernel' --launch-count 1 \
    --section SourceCounters --section WarpStateStats --page source --csv --print-source sass \
    $F/kattn.bin bench --scenario perf/scenarios/targets.json --case prefill-b1-8k --warmup 0 --runs 1 --no-check-values > $R/sass-p$p.csv 2>&1
done
python3 - $R > $R/summary.txt <<'PY'
import csv,sys,collections,io
for p in (0,1):
    lines=open(f"{sys.argv[1]}/sass-p{p}.csv").read().splitlines()
    start=next(i for i,l in enumerate(lines) if l.startswith('"Address"'))
    rows=list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))
    reasons=[k for k in rows[0] if k.startswith('stall_') and 'Not Issued' not in k]
    tot=collections.Counter(); byop=collections.Counter(); ex=collections.Counter(); byopr=collections.defaultdict(collections.Counter)
    for r in rows:
        op=r['Source'].split()[0] if r['Source'].split() else '?'
        if op.startswith('@'): op=r['Source'].split()[1]
        op=op.split('.')[0]
        n=int(r['Warp Stall Sampling (All Samples)'] or 0); byop[op]+=n
        ex[op]+=int(r['Instructions Executed'] or 0)
        for k in reasons:
            v=int(r[k] or 0); tot[k]+=v; byopr[op][k]+=v
    S=sum(tot.values()); E=sum(ex.values())
    print(f"== {'deep' if p==0 else 'pipelined'}: {S} stall samples, {E} warp instructions executed")
    for k,v in tot.most_common(8): print(f"  {k:28s} {100*v/S:5.1f} %")
    print("  by opcode (samples %, executed %, top reasons):")
    for op,v in byop.most_common(14):
        top=", ".join(f"{k[6:]} {100*c/max(v,1):.0f}%" for k,c in byopr[op].most_common(3))
        print(f"  {op:10s} {100*v/S:5.1f} %  {100*ex[op]/E:5.1f} %  {top}")
PY
cat $R/summary.txt
for p in 0 1; do gzip $R/sass-p$p.csv; done; ls -la $R
