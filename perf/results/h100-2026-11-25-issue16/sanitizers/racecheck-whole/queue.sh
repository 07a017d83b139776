#!/bin/bash
# Racecheck over the whole GPU test binary as a work queue of test groups.
# env: LIMIT (s, whole run), P (processes at once), G (tests per group); .device/done.txt: tests already checked
set -u
T0=$(date +%s); LIMIT=${LIMIT:-530}; P=${P:-14}; G=${G:-12}
mkdir -p /tmp/x && tar -xJf .device/bundle.tar.xz -C /tmp/x
export LD_LIBRARY_PATH=/tmp/x/devlib KATTN_TEST_WATCHDOG_SECONDS=3000
[ "$PWD" = /work/main ] || { mkdir -p /work; ln -sfn "$PWD" /work/main; }
mkdir -p build/h100/src build/h100/tests
printf '#!/bin/bash\nexport LD_LIBRARY_PATH=/tmp/x/devlib\nexec /tmp/x/k1 "$@"\n' > build/h100/src/kattn; chmod +x build/h100/src/kattn
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; compute-sanitizer --version | tail -1
/tmp/x/t1 --gtest_list_tests | awk '/^[^ ]/{s=$1; next} {print s $1}' > /tmp/all.txt
touch .device/done.txt
grep -vxF -f .device/done.txt /tmp/all.txt > /tmp/todo.txt || true
[ -f .device/skip.txt ] && { grep -vxF -f .device/skip.txt /tmp/todo.txt > /tmp/todo2.txt; mv /tmp/todo2.txt /tmp/todo.txt; }
echo "tests $(wc -l < /tmp/all.txt), done before $(wc -l < .device/done.txt), to do $(wc -l < /tmp/todo.txt)"
rm -rf /tmp/g && mkdir -p /tmp/g $OUT/race
# big-memory and slow suites first, each alone or in small groups
grep -E '(LargeBatch|LargeCache)' /tmp/todo.txt | awk '{print > sprintf("/tmp/g/a%03d", NR)}'
grep -E 'ConcurrentCallers' /tmp/todo.txt | awk '{print > "/tmp/g/b000"}'
grep -vE '(LargeBatch|LargeCache|ConcurrentCallers)' /tmp/todo.txt | awk -v G=$G '{print > sprintf("/tmp/g/c%04d", int((NR-1)/G))}'
run_group() {
  f=$1; left=$(( T0 + LIMIT - $(date +%s) )); n=$(basename $f)
  [ $left -gt 20 ] || { echo "$n not started" > $OUT/race/$n.txt; return 0; }
  s=$(date +%s)
  case $n in b*) export CUDA_LAUNCH_BLOCKING=1;; esac  # concurrent callers: one kernel at a time for the tool
  timeout $left compute-sanitizer --tool racecheck --target-processes application-only --error-exitcode 9 /tmp/x/t1 --gtest_filter=$(paste -sd: $f) > $OUT/race/$n.txt 2>&1
  echo "group $n rc=$? $(( $(date +%s) - s )) s tests $(wc -l < $f)" >> $OUT/race/$n.txt
}
export -f run_group; export T0 LIMIT OUT
ls /tmp/g/* | xargs -P $P -I{} bash -c 'run_group {}'
cd $OUT && grep -h '^group ' race/*.txt | sort > summary.txt
grep -h 'RACECHECK SUMMARY' race/*.txt | sort | uniq -c >> summary.txt
grep -hE '^\[       OK \]|^\[  SKIPPED \]' race/*.txt | awk '$4 ~ /\./ {print $4}' | sort -u > passed.txt
grep -hE '^\[  FAILED  \]' race/*.txt | sort -u >> summary.txt
grep -lE 'Race reported|Internal Sanitizer|Error:' race/*.txt >> summary.txt
echo "passed or skipped under racecheck this run: $(wc -l < passed.txt)" >> summary.txt
tar -cJf race.tar.xz race && rm -rf race
cat summary.txt | tail -40
