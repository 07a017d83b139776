#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: set-up, OpenMP build, then the perf suite's scenario
# for this host (perf/scenarios/cpu.json: decode, prefill and a mixed batch with the planned
# launch) and a check of every kernel variant against the shipped reference tensors. Each prints
# a table. On a GPU the full suite is perf/run_suite.sh (docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
Kokkos_ROOT="$(bash scripts/bootstrap.sh)"
export Kokkos_ROOT OMP_PROC_BIND="${OMP_PROC_BIND:-false}"
cmake --preset openmp >/dev/null
cmake --build --preset openmp
./build/openmp/src/kattn bench --scenario perf/scenarios/cpu.json --warmup 5 --runs 20
./build/openmp/src/kattn validate data/references.h5 --variant all
