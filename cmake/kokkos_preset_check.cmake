# Included by CMakeLists.txt before project(). A GPU preset takes Kokkos from
# $env{KATTN_KOKKOS_CUDA_ROOT} / $env{KATTN_KOKKOS_HIP_ROOT}, which CMake expands before reading any
# CMakeLists: an unset variable arrives as Kokkos_ROOT="" and, for CUDA, as the compiler
# /bin/nvcc_wrapper, which project() would fail on with an unrelated message. Here it is either a
# configure error that names the variable, or, with KATTN_FETCH_KOKKOS, the compiler becomes the
# nvcc_wrapper of the Kokkos source that cmake/kokkos.cmake builds.
include(${CMAKE_CURRENT_LIST_DIR}/kokkos_pin.cmake)

set(kattn_kokkos_env "")
if(KATTN_REQUIRE_KOKKOS_DEVICES MATCHES "CUDA")
  set(kattn_kokkos_env KATTN_KOKKOS_CUDA_ROOT)
elseif(KATTN_REQUIRE_KOKKOS_DEVICES MATCHES "HIP")
  set(kattn_kokkos_env KATTN_KOKKOS_HIP_ROOT)
endif()

set(kattn_kokkos_missing OFF)
if(CMAKE_CXX_COMPILER MATCHES "^/bin/nvcc_wrapper$")
  set(kattn_kokkos_missing ON)
  set(kattn_kokkos_env KATTN_KOKKOS_CUDA_ROOT)
elseif(kattn_kokkos_env AND DEFINED Kokkos_ROOT AND Kokkos_ROOT STREQUAL "")
  set(kattn_kokkos_missing ON)
endif()

if(kattn_kokkos_missing AND NOT KATTN_FETCH_KOKKOS)
  message(FATAL_ERROR
    "kattn: this preset takes Kokkos from the environment variable ${kattn_kokkos_env}, which is "
    "not set (Kokkos_ROOT is empty, CMAKE_CXX_COMPILER is '${CMAKE_CXX_COMPILER}'). Either\n"
    "  - set ${kattn_kokkos_env} to an installed Kokkos 4.x (its prefix) built for this preset's "
    "backend and architecture, or\n"
    "  - configure with -DKATTN_FETCH_KOKKOS=ON (or the environment variable KATTN_FETCH_KOKKOS=ON) to fetch and build Kokkos ${KATTN_KOKKOS_FETCH_VERSION} "
    "with them (docs/building.md).")
endif()

if(kattn_kokkos_missing AND KATTN_FETCH_KOKKOS AND kattn_kokkos_env STREQUAL "KATTN_KOKKOS_CUDA_ROOT")
  # The CUDA compiler is Kokkos' nvcc_wrapper, a script in the Kokkos source (bin/): the source is
  # populated here, before project() probes the compiler; FetchContent_MakeAvailable(kokkos) in
  # cmake/kokkos.cmake then builds this tree through FETCHCONTENT_SOURCE_DIR_KOKKOS.
  if(NOT FETCHCONTENT_SOURCE_DIR_KOKKOS)
    include(FetchContent)
    FetchContent_Populate(kokkos
      URL ${KATTN_KOKKOS_FETCH_URL}
      URL_HASH SHA256=${KATTN_KOKKOS_FETCH_SHA256}
      DOWNLOAD_EXTRACT_TIMESTAMP ON
      SOURCE_DIR ${CMAKE_BINARY_DIR}/_deps/kokkos-src
      SUBBUILD_DIR ${CMAKE_BINARY_DIR}/_deps/kokkos-prefetch-subbuild
      BINARY_DIR ${CMAKE_BINARY_DIR}/_deps/kokkos-prefetch-build)
    set(FETCHCONTENT_SOURCE_DIR_KOKKOS ${CMAKE_BINARY_DIR}/_deps/kokkos-src CACHE PATH
        "Kokkos source fetched before project() for its nvcc_wrapper" FORCE)
  endif()
  set(CMAKE_CXX_COMPILER ${FETCHCONTENT_SOURCE_DIR_KOKKOS}/bin/nvcc_wrapper CACHE FILEPATH
      "nvcc_wrapper of the fetched Kokkos (KATTN_FETCH_KOKKOS)" FORCE)
  message(STATUS "kattn: CXX compiler: ${CMAKE_CXX_COMPILER} (fetched Kokkos)")
endif()
