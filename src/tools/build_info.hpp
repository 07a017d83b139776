// What this build of kattn is: `kattn --version` prints it, bench JSON records it (docs/cli.md).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kattn::cli {

struct BuildInfo {
  std::string version;          // kattn's project version
  std::string git_describe;     // `git describe --always --dirty` at configure time, or "unknown"
  std::string kokkos_version;   // e.g. 3.4.1
  std::string kokkos_devices;   // Kokkos_DEVICES, e.g. OPENMP,SERIAL
  std::string kokkos_arch;      // Kokkos_ARCH, e.g. HOPPER90; "none" when Kokkos was built for no named one
  std::string execution_space;  // where kattn's kernels run, e.g. OpenMP
  std::string tuning_arch;      // the tuning table's architecture, build_arch()
  std::string compiler;         // CMake's compiler id and version, e.g. GNU 12.2.0
  std::string build_type;       // CMAKE_BUILD_TYPE
};

BuildInfo build_info();

// The few lines of `kattn --version`.
std::string version_text();

nlohmann::json build_info_json();

// argv joined by spaces as a shell reads it back (arguments with spaces or shell characters quoted).
std::string command_line(int argc, char** argv);

}  // namespace kattn::cli
