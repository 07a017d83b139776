#!/bin/bash
# racecheck of the LargeBatch tests (38 GiB a process), each in its own process session (setsid) so that it
# outlives the 10-minute device command; later commands keep two running (the loop below) and collect /tmp/rc.
# Run 6 (2026-11-25, 14:46-15:15 UTC, build/h100 of 9b04af1, kernel sources as 157a129): split_kv and qblock from the first command,
# baseline from 15:05 until stopped at 15:07 to leave qblock the GPU; the machine went back at 30 minutes held.
[ -x /tmp/x/t1 ] || { mkdir -p /tmp/x && tar -xJf .device/bundle.tar.xz -C /tmp/x; }
mkdir -p /tmp/rc
start_race() {
  local v=$1 t=AllVariants/LargeBatch.RowsPastInt32ElementsGetTheirBitsAlone/$1
  grep -qs "^start $v " /tmp/rc/starts.txt && return 0
  echo "start $v $(date +%T)" >> /tmp/rc/starts.txt; touch /tmp/rc/$v.running
  setsid bash -c "export LD_LIBRARY_PATH=/tmp/x/devlib KATTN_TEST_WATCHDOG_SECONDS=6000; s=\$(date +%s); timeout ${RACE_LIMIT:-1700} compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/x/t1 --gtest_filter=$t > /tmp/rc/$v.txt 2>&1; echo \"racecheck $t rc=\$? \$(( \$(date +%s) - s )) s\" >> /tmp/rc/$v.txt; rm -f /tmp/rc/$v.running" < /dev/null > /dev/null 2>&1 &
}
running() { ls /tmp/rc/*.running 2>/dev/null | wc -l; }
report() { date +%T; cat /tmp/rc/starts.txt; grep -h "racecheck All\|SUMMARY" /tmp/rc/*.txt; nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv,noheader; }

# the loop of each later command (LIMIT seconds)
set -u
source .device/common.sh
T0=$(date +%s)
while [ $(( $(date +%s) - T0 )) -lt ${LIMIT:-540} ]; do
  for v in split_kv qblock baseline qblock_static segmented segmented_static; do
    [ "$(running)" -lt 2 ] && start_race $v
  done
  [ "$(running)" -eq 0 ] && break
  sleep 10
done
report
mkdir -p $OUT/rc && cp /tmp/rc/*.txt $OUT/rc/ && cd $OUT && tar -cJf rc.tar.xz rc && rm -rf rc
