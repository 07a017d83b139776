#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for kattn: system packages, and Kokkos 3.4.1 (OpenMP +
# Serial) with Kokkos Kernels 3.4.1, both built from Debian's trilinos source package into one
# prefix in a cache outside the repository. Prints that prefix on its last line.
#   KATTN_KOKKOS_ROOT=/path  use that prefix (Kokkos, and Kokkos Kernels for the host presets) instead of building them
#   KATTN_CACHE=/path        where the Kokkos build is cached (default ~/.cache/kattn)
set -euo pipefail

packages=(build-essential cmake ninja-build pkg-config dpkg-dev libhdf5-dev hdf5-tools
          libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev libfmt-dev
          python3-h5py python3-numpy
          clang libclang-rt-14-dev libomp-14-dev  # preset fuzz: libFuzzer, sanitizers, OpenMP for clang
          clang-format)                           # ctest ClangFormat: the tree as .clang-format writes it

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}" >&2
  as_root apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

if [ -n "${KATTN_KOKKOS_ROOT:-}" ]; then
  echo "$KATTN_KOKKOS_ROOT"
  exit 0
fi

cache="${KATTN_CACHE:-$HOME/.cache/kattn}"
prefix="$cache/kokkos-3.4.1-openmp"  # Kokkos and Kokkos Kernels, one prefix
has_config() { [ -f "$prefix/lib/cmake/$1/$1Config.cmake" ] || [ -f "$prefix/lib64/cmake/$1/$1Config.cmake" ]; }
if has_config Kokkos && has_config KokkosKernels; then
  echo "$prefix"
  exit 0
fi

# apt-get source needs a deb-src entry for bookworm main.
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
  echo "bootstrap: adding a deb-src entry for bookworm main" >&2
  as_root tee /etc/apt/sources.list.d/kattn-deb-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  as_root apt-get update -qq >&2
fi

work="$cache/src"
rm -rf "$work" && mkdir -p "$work"
echo "bootstrap: fetching the trilinos source package for its Kokkos and Kokkos Kernels" >&2
(cd "$work" && apt-get source --download-only -qq trilinos >&2)
orig=$(ls "$work"/trilinos_*.orig.tar.* | head -n1)
tar -xf "$orig" -C "$work" --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
sources=$(find "$work" -maxdepth 2 -type d -name packages | head -n1)

if ! has_config Kokkos; then
  echo "bootstrap: building Kokkos (OpenMP + Serial) into $prefix" >&2
  cmake -S "$sources/kokkos" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_STANDARD=17 \
    -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_TESTS=OFF \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON >&2
  cmake --build "$work/build" >&2
  cmake --install "$work/build" >&2
fi

# Kokkos Kernels for its batched team products (header templates): no explicit instantiations,
# no BLAS, no tests, so its library is a handful of objects.
echo "bootstrap: building Kokkos Kernels into $prefix" >&2
eti_off=()
for t in DOUBLE FLOAT COMPLEX_DOUBLE COMPLEX_FLOAT ORDINAL_INT OFFSET_INT OFFSET_SIZE_T LAYOUTLEFT; do
  eti_off+=("-DKokkosKernels_INST_$t=OFF")
done
cmake -S "$sources/kokkos-kernels" -B "$work/build-kernels" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_STANDARD=17 -DKokkos_ROOT="$prefix" "${eti_off[@]}" \
  -DKokkosKernels_ENABLE_TPL_BLAS=OFF -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON >&2
cmake --build "$work/build-kernels" >&2
cmake --install "$work/build-kernels" >&2
rm -rf "$work"
echo "$prefix"
