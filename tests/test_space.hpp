// The execution space of a per-backend test file: kattn_add_backend_tests
// (cmake/kattn_backend_tests.cmake) compiles it once for each enabled Kokkos backend, naming the
// backend in KATTN_TEST_SPACE, and ctest lists its tests as <backend>/<suite>.<test>.
#pragma once

#include <Kokkos_Core.hpp>

namespace kattn::test {

using Space = KATTN_TEST_SPACE;
using Memory = Space::memory_space;
using Policy = Kokkos::TeamPolicy<Space>;

}  // namespace kattn::test
