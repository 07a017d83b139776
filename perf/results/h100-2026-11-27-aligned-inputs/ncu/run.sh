# Nsight Compute of 068c9ff's split-KV kernel (kattn-*.txt, the SASS source page of b1 128k) and of the
# probe at 512 FMAs a tile (probe-b128k-spin512.txt); kattn-b1-128k-plans.txt: forced plans at 128k.
K=.device/pkg/base/kattn; S=perf/scenarios/targets.json
M=gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second
for c in decode-b1-128k decode-b1-1k; do
  ncu --clock-control none --kernel-name-base demangled -k regex:SplitKvMma --launch-skip 2 --launch-count 1 --section SourceCounters \
      --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
      --metrics $M -o ncu-$c $K bench --scenario $S --case $c --warmup 1 --runs 2 --no-check-values
  ncu -i ncu-$c.ncu-rep --page details > kattn-${c#decode-}.txt
done
ncu -i ncu-decode-b1-128k.ncu-rep --page source --csv --print-source sass | gzip > kattn-b1-128k-sass.csv.gz
ncu --clock-control none -k regex:stream --launch-skip 3 --launch-count 1 --section WarpStateStats --section SchedulerStats --metrics $M \
    .device/probe 131072 1 4096 2 2 0 512 > probe-b128k-spin512.txt
$K bench --scenario $S --case decode-b1-128k --variant split_kv --tile-size 4096,2048,1024 --team-size 1,2 --warmup 10 --runs 50 --no-check-values > kattn-b1-128k-plans.txt
