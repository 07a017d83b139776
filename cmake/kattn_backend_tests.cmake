# Tests that run once for each Kokkos backend of the build, as Cabana_add_tests and Kokkos
# Kernels' backends/Test_<Backend>_*.cpp do. KATTN_BACKENDS lists the backends among Serial,
# OpenMP, Cuda and HIP that Kokkos enables (Kokkos_DEVICES): the ones core/backends.hpp builds
# the launch path for.
#
# kattn_add_backend_tests(<name> <sources>...) compiles the sources (with tests/test_main.cpp)
# once per backend into <name>_<backend>, with KATTN_TEST_SPACE=Kokkos::<backend>
# (tests/test_space.hpp), and ctest lists each test as <backend>/<suite>.<test>, labelled
# <backend>: `ctest -L Serial` runs one backend's.
set(KATTN_BACKENDS "")
foreach(backend Serial OpenMP Cuda HIP)
  string(TOUPPER ${backend} device)
  if(device IN_LIST Kokkos_DEVICES)
    list(APPEND KATTN_BACKENDS ${backend})
  endif()
endforeach()

function(kattn_add_backend_tests name)
  foreach(backend ${KATTN_BACKENDS})
    set(target ${name}_${backend})
    add_executable(${target} ${CMAKE_CURRENT_SOURCE_DIR}/test_main.cpp ${ARGN})
    target_link_libraries(${target} PRIVATE kattn_tools GTest::gtest)
    target_compile_definitions(${target} PRIVATE KATTN_TEST_SPACE=Kokkos::${backend})
    gtest_discover_tests(${target} TEST_PREFIX ${backend}/ DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
      PROPERTIES ENVIRONMENT "OMP_PROC_BIND=false" LABELS ${backend})
  endforeach()
endfunction()
