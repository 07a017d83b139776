#!/usr/bin/env bash
# Disassembles probe objects (one kernel instantiation each, built here) and summarizes each kernel's
# wgmma waits, barriers, exponentials and spills in program order.
for o in "$@"; do
  cuobjdump -sass $o > /tmp/$(basename $o).sass 2>&1
  python3 - /tmp/$(basename $o).sass <<'PY'
import sys,re
fn=None; seq=[]
def flush():
    if fn is None: return
    out=[]; 
    for tag in seq:
        if out and out[-1][0]==tag: out[-1][1]+=1
        else: out.append([tag,1])
    print('==', fn[-60:]); print(' '.join(f"{t}x{n}" if n>1 else t for t,n in out))
for line in open(sys.argv[1]):
    if 'Function :' in line:
        flush(); fn=line.split(':',1)[1].strip(); seq=[]; continue
    m=re.search(r'/\*[0-9a-f]+\*/\s+(.*?);',line)
    if not m: continue
    ins=m.group(1)
    for key,tag in [('HGMMA','G'),('DEPBAR.LE gsb0, 0x0','W0'),('DEPBAR.LE gsb0, 0x1','W1'),('BAR.SYNC','B'),('MUFU.EX2','E'),('LDGSTS','C'),('STL','SPILLST'),('LDL','SPILLLD'),('BRA','J'),('WARPGROUP.ARRIVE','A'),('F2FP','P'),('VOTE','V')]:
        if key in ins: seq.append(tag); break
flush()
PY
done
