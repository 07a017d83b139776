# Device run 24: the Q-block table's review mend (tests of the offsets kernel at 256 threads, the
# largest staged request); GPU tests, validate, compute-sanitizer on the table's tests and the references.
source .device/setup.sh
R=$OUT/r; mkdir -p $R
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date; } > $R/device.txt
timeout 120 $K validate data/references.h5 --variant all > $R/validate.txt 2>&1; echo "rc $?" >> $R/validate.txt; tail -1 $R/validate.txt
( time timeout 200 $T --gtest_brief=1 ) > $R/tests.txt 2>&1; echo "rc $?" >> $R/tests.txt; grep -E 'PASSED|SKIPPED|FAILED|rc ' $R/tests.txt
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter='QBlockTable*' > $R/$tool-qblock-table.txt 2>&1; echo "rc $?" >> $R/$tool-qblock-table.txt
  tail -n 3 $R/$tool-qblock-table.txt
done
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $K validate data/references.h5 --variant qblock_static > $R/memcheck-references.txt 2>&1; echo "rc $?" >> $R/memcheck-references.txt; tail -n 3 $R/memcheck-references.txt
tar -C $OUT -czf $OUT/run24.tgz r && rm -rf $R
