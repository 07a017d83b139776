#!/bin/bash
# Stop 65 (2026-12-02), H200: two changes to the deep Q-block kernels' instructions, measured against
# 4814def's probe. Probe builds here (nvcc 13.0, Kokkos 4.6.01, sm_90a), carried as
# .device/<name>/kattn_prefill_probe.xz with `carry: [".device"]`:
#   blocks  4814def (the base)
#   sums    the row sums of the weights by the tensor cores: beside each P·V's m64n128k16 products, an
#           m64n8k16 of the same weights against a tile of 1s in scratch, instead of a FADD a score in
#           the softmax (not-kept/row-sums-by-products.patch against 4814def)
#   cuts    a row's inverse sum by the hardware reciprocal on CUDA (SoftmaxState::inverse_sum) and a
#           warp's output rows into the Q tile by stmatrix (warp_write_tile_rows): shipped, 41552d0
#   rcp     4814def with the inverse sums by the hardware reciprocal alone
# (not-kept/rows-registers-kept.patch, against 41552d0: one set of the rows' registers a thread for
# all its items; compiled here, ptxas serialized every deep kernel's products, not run.)
# ab.sh is the A/B call of calls 1 and 2. Each call: its line below on the device (callN/ holds what
# came back); A/B rows are the lower of the rounds' medians (40 runs after 10; three rounds, five in
# call 3); ../h200-2026-12-01-slots/ncu_launches.py reads the ncu-launches-*.csv.gz.
bash perf/results/h200-2026-12-02-row-sums/call1.sh   # base against sums, memcheck, sums' source counters
bash perf/results/h200-2026-12-02-row-sums/call2.sh   # base against cuts, memcheck, cuts' source counters
bash perf/results/h200-2026-12-02-row-sums/call3.sh   # base against cuts and rcp (the reciprocal alone), five rounds
bash perf/results/h200-2026-12-02-row-sums/call4.sh   # kattn_tests and the Cuda backend tests of 41552d0, memcheck and racecheck
bash perf/results/h200-2026-12-02-row-sums/call5.sh   # 2c6c229's CLI: validate --variant all, the targets beside PyTorch SDPA
bash perf/results/h200-2026-12-02-row-sums/call6.sh   # final read's mend (store_matrices) against cuts: outputs bit-equal
