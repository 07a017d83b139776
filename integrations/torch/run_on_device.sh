#!/usr/bin/env bash
# On the GPU machine: builds the PyTorch op against a prebuilt libkattn_c.so, runs test_op.py and
# test_concurrent.py, then bench_op.py (default: perf/scenarios/default.json and targets.json); logs
# and the benchmark's JSON go to OUTPUT_DIR (docs/torch.md).
#
#   bash integrations/torch/run_on_device.sh LIBRARY_DIR OUTPUT_DIR [bench_op.py arguments]
#
# The benchmark runs even after a failed test, so one device command gives all; the exit status
# is nonzero when any failed.
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 LIBRARY_DIR OUTPUT_DIR [bench_op.py arguments]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
export KATTN_C_LIBRARY_DIR=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
shift 2
# Outside OUTPUT_DIR: the extension's objects are not results.
export KATTN_TORCH_BUILD_DIR=${KATTN_TORCH_BUILD_DIR:-/tmp/kattn-torch-build}

PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" python3 -c "import kattn_torch; print('built', kattn_torch.load(verbose=True))" 2>&1 | tee "$out/build_op.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
python3 "$here/test_op.py" 2>&1 | tee "$out/test_op.txt"
test_status=${PIPESTATUS[0]}
python3 "$here/test_concurrent.py" 2>&1 | tee "$out/test_concurrent.txt"
concurrent_status=${PIPESTATUS[0]}
python3 "$here/bench_op.py" "$out/bench_op.json" "$@" 2>&1 | tee "$out/bench_op.txt"
bench_status=${PIPESTATUS[0]}
echo "test_op.py exit $test_status, test_concurrent.py exit $concurrent_status, bench_op.py exit $bench_status"
[ "$test_status" -eq 0 ] && [ "$concurrent_status" -eq 0 ] && [ "$bench_status" -eq 0 ]
