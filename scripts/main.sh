#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: set-up, OpenMP build, then validate the shipped
# reference tensors with every kernel variant and print the table.
set -euo pipefail
cd "$(dirname "$0")/.."
Kokkos_ROOT="$(bash scripts/bootstrap.sh)"
export Kokkos_ROOT OMP_PROC_BIND="${OMP_PROC_BIND:-false}"
cmake --preset openmp >/dev/null
cmake --build --preset openmp
./build/openmp/src/kattn validate data/references.h5 --variant all
