#!/usr/bin/env bash
# The test suite on a fresh Debian 12 machine: set-up, then configure, build and test the
# OpenMP preset, then the whole suite again under ASan + UBSan (workflow presets `openmp`, `debug`).
set -euo pipefail
cd "$(dirname "$0")/.."
Kokkos_ROOT="$(bash scripts/bootstrap.sh)"
export Kokkos_ROOT
cmake --workflow --preset openmp
cmake --workflow --preset debug
