# Device call 12 (2026-11-27, 14:13 UTC): b3e7f93 with four-warps.patch (KATTN_EXP_SPLIT_LIFT: split-KV rings
# of 2 tiles a warp fitted to the lifted scratch limit), built on the VM; probe-rerun.txt: the probe after 9ec366b.
# Experiment (not committed): split-KV teams of 4 warps x 2 tiles past Kokkos' scratch cap
# (KATTN_EXP_SPLIT_LIFT) against the shipped plans (2 warps x 2 tiles), same binary, one call.
mkdir -p .device/pkg && tar xJf .device/exp.tar.xz -C .device/pkg
E=.device/pkg/exp/kattn; R="--warmup 10 --runs 50 --no-check-values"
for i in 1 2; do
  $E bench --scenario perf/scenarios/decode.json $R > $OUT/cap2-$i.txt 2>&1
  KATTN_EXP_SPLIT_LIFT=1 $E bench --scenario perf/scenarios/decode.json $R --team-size 4 > $OUT/lift4-$i.txt 2>&1
done
.device/probe 131072 1 4096 2 2 0 0 | tail -n 2 > $OUT/probe-rerun.txt
for f in cap2 lift4; do cat $OUT/$f-*.txt | grep split_kv | awk '{print $1, $6, $12}' | sort -k1,1 -k3,3n | awk '!s[$1]++' > $OUT/$f.min; done
join $OUT/cap2.min $OUT/lift4.min | awk '{printf "%-30s %s %8.1f  %s %8.1f  %.3fx\n", $1, $2, $3, $4, $5, $5/$3}' | tee $OUT/ab.txt; cat $OUT/probe-rerun.txt
