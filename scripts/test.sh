#!/usr/bin/env bash
# The test suite on a fresh Debian 12 machine: set-up, then configure, build and test the
# OpenMP preset (CMake workflow preset `openmp`).
set -euo pipefail
cd "$(dirname "$0")/.."
Kokkos_ROOT="$(bash scripts/bootstrap.sh)"
export Kokkos_ROOT
cmake --workflow --preset openmp
