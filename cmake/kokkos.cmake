# Kokkos for kattn: find_package(Kokkos), or, with KATTN_FETCH_KOKKOS=ON, an installed Kokkos 4.x
# if one is found (Kokkos_ROOT, CMAKE_PREFIX_PATH) and otherwise the pinned release
# (cmake/kokkos_pin.cmake) built in the build tree with the preset's backend and architecture.
# Either way it leaves Kokkos_VERSION, Kokkos_DEVICES and Kokkos_ARCH set and the target
# Kokkos::kokkos defined.
if(NOT KATTN_FETCH_KOKKOS)
  find_package(Kokkos REQUIRED)
  return()
endif()

include(FetchContent)
FetchContent_Declare(Kokkos  # the name find_package(Kokkos) takes (FIND_PACKAGE_ARGS); variables: kokkos_*
  URL ${KATTN_KOKKOS_FETCH_URL}
  URL_HASH SHA256=${KATTN_KOKKOS_FETCH_SHA256}
  DOWNLOAD_EXTRACT_TIMESTAMP ON
  FIND_PACKAGE_ARGS 4 CONFIG)

# The backend and architecture of a fetched Kokkos come from the preset's requirements; a value
# given on the command line (-DKokkos_ENABLE_...=, -DKokkos_ARCH_...=) wins.
set(kattn_kokkos_devices ${KATTN_REQUIRE_KOKKOS_DEVICES})
if(NOT kattn_kokkos_devices)
  set(kattn_kokkos_devices OPENMP)
endif()
if(kattn_kokkos_devices MATCHES "CUDA|HIP" AND NOT kattn_kokkos_devices MATCHES "SERIAL|OPENMP")
  list(APPEND kattn_kokkos_devices SERIAL)  # a host backend beside the device one, as in the installed builds
endif()
foreach(device IN LISTS kattn_kokkos_devices)
  if(NOT DEFINED Kokkos_ENABLE_${device})
    set(Kokkos_ENABLE_${device} ON CACHE BOOL "kattn: backend of the fetched Kokkos")
  endif()
endforeach()
if(KATTN_REQUIRE_KOKKOS_ARCH AND NOT DEFINED Kokkos_ARCH_${KATTN_REQUIRE_KOKKOS_ARCH})
  set(Kokkos_ARCH_${KATTN_REQUIRE_KOKKOS_ARCH} ON CACHE BOOL "kattn: architecture of the fetched Kokkos")
endif()
if(KATTN_BUILD_C_SHARED)
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)  # Kokkos goes into libkattn_c.so
endif()

FetchContent_MakeAvailable(Kokkos)

if(Kokkos_FOUND)
  message(STATUS "kattn: KATTN_FETCH_KOKKOS: found an installed Kokkos ${Kokkos_VERSION} at ${Kokkos_DIR}, nothing fetched")
  return()
endif()

# Built in-tree: Kokkos' subproject leaves no Kokkos_VERSION, Kokkos_DEVICES, Kokkos_ARCH or
# kokkos_check() to this scope; they are rebuilt from its sources and cache.
file(STRINGS ${kokkos_SOURCE_DIR}/CMakeLists.txt version_lines REGEX "^set\\(Kokkos_VERSION_(MAJOR|MINOR|PATCH) [0-9]+\\)")
foreach(line IN LISTS version_lines)
  string(REGEX MATCH "(MAJOR|MINOR|PATCH) ([0-9]+)" _ "${line}")
  set(kokkos_version_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
endforeach()
set(Kokkos_VERSION ${kokkos_version_MAJOR}.${kokkos_version_MINOR}.${kokkos_version_PATCH})
set(Kokkos_DEVICES "")
foreach(device SERIAL OPENMP THREADS CUDA HIP SYCL)
  if(Kokkos_ENABLE_${device})
    list(APPEND Kokkos_DEVICES ${device})
  endif()
endforeach()
set(Kokkos_ARCH "")
get_cmake_property(cache_variables CACHE_VARIABLES)
foreach(variable IN LISTS cache_variables)
  if(variable MATCHES "^Kokkos_ARCH_(.+)$" AND ${variable})
    list(APPEND Kokkos_ARCH ${CMAKE_MATCH_1})
  endif()
endforeach()
function(kokkos_check)
  cmake_parse_arguments(check "" "" "DEVICES;ARCH" ${ARGN})
  foreach(kind DEVICES ARCH)
    foreach(wanted IN LISTS check_${kind})
      if(NOT wanted IN_LIST Kokkos_${kind})
        message(FATAL_ERROR "kattn: the fetched Kokkos lacks ${kind} ${wanted} (it has: ${Kokkos_${kind}})")
      endif()
    endforeach()
  endforeach()
endfunction()
# kattnConfig.cmake's hint: the fetched Kokkos installs beside kattn.
include(GNUInstallDirs)
set(Kokkos_DIR ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/cmake/Kokkos)
message(STATUS "kattn: KATTN_FETCH_KOKKOS: building Kokkos ${Kokkos_VERSION} from ${kokkos_SOURCE_DIR}")
