#!/usr/bin/env bash
# On the GPU machine: installs kattn_torch with pip against a prebuilt libkattn_c.so, runs its tests
# (tests/: the ops, many callers, vLLM's unified_attention conformance, opcheck and torch.compile),
# then bench_op.py (default: perf/scenarios/default.json and targets.json); logs and the benchmark's
# JSON go to OUTPUT_DIR (docs/torch.md).
#
#   bash integrations/torch/run_on_device.sh LIBRARY_DIR OUTPUT_DIR [--tests-only | bench_op.py arguments]
#
# Every test and the benchmark run even after a failed one, so one device command gives all; the
# exit status is nonzero when any failed.
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

{ python3 -m pip --version; python3 -c "import setuptools, torch; print('setuptools', setuptools.__version__, 'torch', torch.__version__)"
  python3 -m pip install --no-build-isolation "$here"; } 2>&1 | tee "$out/pip_install.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
statuses=()
for test in test_op test_concurrent test_vllm_conformance test_opcheck; do
  python3 "$here/tests/$test.py" 2>&1 | tee "$out/$test.txt"
  statuses+=("$test.py exit ${PIPESTATUS[0]}")
done
if [ "${1:-}" != --tests-only ]; then
  python3 "$here/bench_op.py" "$out/bench_op.json" "$@" 2>&1 | tee "$out/bench_op.txt"
  statuses+=("bench_op.py exit ${PIPESTATUS[0]}")
fi
printf '%s\n' "${statuses[@]}" | tee "$out/summary.txt"
! grep -qv " exit 0$" "$out/summary.txt"
