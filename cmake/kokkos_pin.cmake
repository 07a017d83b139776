# The Kokkos release that -DKATTN_FETCH_KOKKOS=ON fetches: the oldest release whose
# core/src/Cuda/Kokkos_Cuda_Instance.hpp takes CUDA 13's signatures of cudaGraphAddDependencies,
# cudaMemAdvise and cudaMemPrefetchAsync (kokkos#8298, cherry-picked into 4.7.01 as kokkos#8328;
# 4.6.01 needs patches). The tarball and its SHA256 are GitHub's release asset (the checksum is the
# one Spack's kokkos package records for 4.7.01).
set(KATTN_KOKKOS_FETCH_VERSION 4.7.01)
set(KATTN_KOKKOS_FETCH_URL
    "https://github.com/kokkos/kokkos/releases/download/${KATTN_KOKKOS_FETCH_VERSION}/kokkos-${KATTN_KOKKOS_FETCH_VERSION}.tar.gz")
set(KATTN_KOKKOS_FETCH_SHA256 404cf33e76159e83b8b4ad5d86f6899d442b5da4624820ab457412116cdcd201)
