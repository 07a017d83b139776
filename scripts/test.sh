#!/usr/bin/env bash
# The test suite on a fresh Debian 12 machine: set-up, then configure, build and test the
# OpenMP preset, install it and build and run examples/c_api against the installed package,
# then the suite again built by clang (the compiler family of the HIP build) under ASan + UBSan
# at -O1, less three combinatorial sweeps that the first build runs, and each libFuzzer target
# for a minute (workflow presets `openmp`, `debug`, `fuzz`).
set -euo pipefail
cd "$(dirname "$0")/.."
Kokkos_ROOT="$(bash scripts/bootstrap.sh)"
export Kokkos_ROOT
cmake --workflow --preset openmp
bash scripts/check_install.sh build/openmp
cmake --workflow --preset debug
cmake --workflow --preset fuzz
