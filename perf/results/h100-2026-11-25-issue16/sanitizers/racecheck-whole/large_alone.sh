#!/bin/bash
# synccheck of LargeBatch/LargeCache one at a time, racecheck of the two ALiBi-128k Q-block tests alone
set -u
T0=$(date +%s); LIMIT=${LIMIT:-560}
mkdir -p /tmp/x && tar -xJf .device/bundle.tar.xz -C /tmp/x
export LD_LIBRARY_PATH=/tmp/x/devlib KATTN_TEST_WATCHDOG_SECONDS=3000
[ "$PWD" = /work/main ] || { mkdir -p /work; ln -sfn "$PWD" /work/main; }
mkdir -p $OUT/f
for v in qblock qblock_static; do
  ( s=$(date +%s); timeout $((LIMIT-5)) compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/x/t1 --gtest_filter=AllVariants/AlibiAt128k.MatchesTheOracle/$v > $OUT/f/race-alibi-$v.txt 2>&1; echo "racecheck alibi $v rc=$? $(( $(date +%s) - s )) s" >> $OUT/f/race-alibi-$v.txt ) &
done
for t in $(/tmp/x/t1 --gtest_list_tests | awk '/^[^ ]/{s=$1; next} {print s $1}' | grep -E 'LargeBatch|LargeCache'); do
  left=$(( T0 + LIMIT - $(date +%s) )); [ $left -gt 20 ] || break
  n=$(echo $t | tr '/.' '__'); s=$(date +%s)
  timeout $left compute-sanitizer --tool synccheck --error-exitcode 9 /tmp/x/t1 --gtest_filter=$t > $OUT/f/sync-$n.txt 2>&1
  echo "synccheck $t rc=$? $(( $(date +%s) - s )) s" | tee -a $OUT/f/sync-$n.txt
done
wait
cd $OUT && grep -h "SUMMARY\|rc=\|OK \]" f/*.txt; tar -cJf final.tar.xz f && rm -rf f
