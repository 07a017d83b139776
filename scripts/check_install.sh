#!/usr/bin/env bash
# Installs a configured kattn build into a temporary prefix, checks that the installed C++ headers
# stand alone (the API compiles from the prefix, without the source tree's detail/), then
# configures, builds and runs examples/c_api against the installed package, from a directory
# outside the source tree.
#   scripts/check_install.sh BUILD_DIR   (Kokkos_ROOT names the Kokkos install; default: the bootstrap's)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:?usage: scripts/check_install.sh BUILD_DIR}"
kokkos="${Kokkos_ROOT:-$HOME/.cache/kattn/kokkos-3.4.1-openmp}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix"
test ! -e "$work/prefix/include/kattn/detail"
printf '#include "kattn/%s"\n' attention.hpp workspace.hpp oracle/oracle.hpp tuning/tuning_table.hpp \
  c_api/kattn.h > "$work/api.cpp"
"${CXX:-c++}" -std=c++17 -fopenmp -fsyntax-only -I"$work/prefix/include" -I"$kokkos/include" "$work/api.cpp"
cmake -S examples/c_api -B "$work/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix;$kokkos"
cmake --build "$work/example"
(cd "$work" && OMP_PROC_BIND=false "$work/example/c_api_example")
