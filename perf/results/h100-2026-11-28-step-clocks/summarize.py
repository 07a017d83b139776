"""Writes summary.txt from the raw stamps beside it: python3 summarize.py > summary.txt."""
import glob
import os
import re
import statistics

HEADER = """Step clocks (clock64 of one lane a warpgroup, team 0; step-clocks.patch; medians of up to 23 unmasked
steps from the item's 9th on; cycles of the SM clock). Phases of a step, in program order: land (wait for
P·V(t - 1), rescale, weights), next_tile (this thread's copies in, the team barrier, K/V(t + 1)'s copies
issued), qk_issue (Q·K(t)ᵀ issued, and the rescale under it for one warpgroup), pv_issue (P·V(t - 1)
issued), wait_qk (Q·K(t)ᵀ landed), softmax (tile t's), tail (to the next step's top). Item phases: meta
(qblock_item), copies_issue (Q rows and the first K/V pair issued), first_barrier (their wait and the team
barrier), first_qk, first_softmax, loop (every later step), end+store (the last P·V, sums, the rows out).
The diagnostic build takes 1.00-1.12x the shipped kernels' time (kernel us below, 3 + 5 runs; shipped,
planned: b1 8192 1192.1, b16 512 162.2, mixed-part-chunks 592.2)."""
STEP = re.compile(r"KATTN_CLOCK step wg (\d) n (\d+) d (.*)")
ITEM = re.compile(r"KATTN_CLOCK item wg (\d) slot (\d) item (\d+) tiles (\d+) d (.*)")

print(HEADER)
for path in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "clocks-*.txt"))):
    lines = open(path).read().splitlines()
    steps, items = {}, []
    for line in lines:
        if m := STEP.match(line):
            steps.setdefault(int(m[1]), []).append([int(x) for x in m[3].split()])
        if m := ITEM.match(line):
            items.append((int(m[1]), int(m[4]), [int(x) for x in m[5].split()]))
    case = next(line.split() for line in lines if re.match(r"^(prefill|mixed)\S*\s+qblock", line))
    print(f"\n== {os.path.basename(path)}: {case[0]} {case[1]} block_m {case[3]}, kernel {case[11]} us")
    for wg, rows in sorted(steps.items()):
        rows = [r for r in rows if r[6] >= 0]  # the last stamped step has no next one
        med = [int(statistics.median(r[k] for r in rows)) for k in range(7)]
        print(f"  steps wg{wg} ({len(rows)}): land {med[0]}, next_tile {med[1]}, qk_issue {med[2]}, pv_issue {med[3]}, "
              f"wait_qk {med[4]}, softmax {med[5]}, tail {med[6]}; total {sum(med)}")
    for wg, tiles, d in items:
        print(f"  item wg{wg}, {tiles} tiles: meta {d[0]}, copies_issue {d[1]}, first_barrier {d[2]}, first_qk {d[3]}, "
              f"first_softmax {d[4]}, loop {d[5]} ({d[5] / max(tiles - 1, 1):.0f} a step), end+store {d[6]}; total {sum(d)}")
