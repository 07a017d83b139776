// The execution space of a per-backend test file: kattn_add_backend_tests
// (cmake/kattn_backend_tests.cmake) compiles it once for each enabled Kokkos backend, naming the
// backend in KATTN_TEST_SPACE, and ctest lists its tests as <backend>/<suite>.<test>. Compiled
// without it (an editor's or a tool's parse of the file alone), it takes the build's default space.
#pragma once

#include "kattn/core/execution_space.hpp"

namespace kattn::test {

#ifdef KATTN_TEST_SPACE
using Space = KATTN_TEST_SPACE;
#else
using Space = ExecutionSpace;
#endif
using Memory = Space::memory_space;
using Policy = Kokkos::TeamPolicy<Space>;

}  // namespace kattn::test
