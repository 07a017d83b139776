# The plain-CUDA probe (perf/probes/paged_stream_probe.cu), built on the VM with
#   nvcc -O3 -arch=sm_90 -std=c++17 -o .device/probe perf/probes/paged_stream_probe.cu
# and run in three device calls on 2026-11-27 (NVIDIA H100 80GB HBM3, driver 580.159.04):
.device/probe 131072                                  # sweep-128k-first.txt (an earlier form of the sweep)
P=.device/probe; ($P 131072 1 4096; $P 4096 8 512; $P 4096 8 1024; $P 1024 1 128; $P 1024 1 256)  # sweep.txt
for a in "4096 2 2 0 0" "4096 2 2 0 256" "4096 2 2 0 512" "2048 2 2 0 512" "2048 1 4 0 512" "4096 4 2 0 512"; do
  .device/probe 131072 1 $a | tail -n 1; done     # spin512-shapes.txt
for o in 0 128 64 16; do                          # offset.txt: the caches' data that many bytes past alignment
  KATTN_PROBE_OFFSET=$o $P 131072 1 4096 2 2 0 0 | tail -n 2; KATTN_PROBE_OFFSET=$o $P 131072 1 4096 2 2 0 256 | tail -n 1; done
for c in "131072 1 4096" "4096 8 512"; do for s in 0 256 512; do for f in 128 256; do  # prefetch.txt: L2::256B on the first line of each row
  KATTN_PROBE_PREFETCH=$f $P $c 2 2 0 $s | tail -n 1; done; done; done
