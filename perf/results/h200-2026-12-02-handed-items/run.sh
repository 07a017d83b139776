#!/bin/bash
# Stop 64 (2026-12-02), H200: a claiming team's item start without its sequence's search in global
# memory, two ways, both measured and not kept (not-kept/ has the patches against 2ecdee3). Probe
# builds here (nvcc 13.0, Kokkos 4.6.01, sm_90a), carried as .device/<name>/kattn_prefill_probe.xz
# with `carry: [".device"]`:
#   mended2      2ecdee3 (the base: each item's warps vote over cu_seqlens_q, then read its offsets and length)
#   handed       the team's first warp finds the next claim's work item under the item's first copies
#                (claims two ahead), handed round in scratch beside the claim (not-kept/handed-vote.patch
#                less its qblock_slots.hpp part)
#   handed-vote  handed with the owner's offsets and length read in the vote's last round, by shuffles
#                (not-kept/handed-vote.patch)
#   lineinfo     2ecdee3 with its fp16 kernels compiled with -lineinfo (the ninja commands of
#                attention_fp16_fp16_fp16.cpp.o and the probe's link, -lineinfo added)
#   blocks       2ecdee3 + a tile's block ids by unsigned offsets (TeamTileCopy::tile_blocks) + PublishedMaps'
#                fixed record (host only): shipped
#   staged       a claiming team copies its part's cu_seqlens_q and seq_lens (up to 255 sequences) into
#                scratch once; its items search and read them there (not-kept/staged-sequences.patch)
# Each call: its line below on the device (callN/ holds what came back); A/B rows are the lower of
# three rounds' medians (40 runs after 10); ../h200-2026-12-01-slots/ncu_launches.py reads the
# ncu-launches-*.csv.gz.
bash perf/results/h200-2026-12-02-handed-items/call1.sh   # base against handed and handed-vote, memcheck of both
bash perf/results/h200-2026-12-02-handed-items/call2.sh   # base against staged, memcheck, staged's source counters
bash perf/results/h200-2026-12-02-handed-items/call3.sh   # lineinfo's source counters by CUDA line (call3/by_line.txt:
#   python3 perf/ncu_lines.py call3/cuda-sass.csv.gz 16384,16896,14336,12288,4224,4096,20480 57344,43008,30720 16384)
bash perf/results/h200-2026-12-02-handed-items/call4.sh   # base against blocks (shipped), memcheck of blocks
bash perf/results/h200-2026-12-02-handed-items/call6.sh   # base against blocks again, five rounds
