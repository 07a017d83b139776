#include "tools/build_info.hpp"

#include "kattn/core/execution_space.hpp"
#include "kattn/tuning/launch_plan.hpp"

#include <fmt/core.h>

#include <Kokkos_Core.hpp>

namespace kattn::cli {

namespace build_values {  // defined in sources generated in the build folder (src/CMakeLists.txt)
extern const char version[], git_describe[], kokkos_devices[], kokkos_arch[], compiler[], build_type[];
}

BuildInfo build_info() {
  BuildInfo b;
  b.version = build_values::version;
  b.git_describe = build_values::git_describe;
  // KOKKOS_VERSION is major * 10000 + minor * 100 + patch in Kokkos 3 and 4 alike.
  b.kokkos_version = fmt::format("{}.{}.{}", KOKKOS_VERSION / 10000, KOKKOS_VERSION / 100 % 100, KOKKOS_VERSION % 100);
  b.kokkos_devices = build_values::kokkos_devices;
  b.kokkos_arch = std::string(build_values::kokkos_arch).empty() ? "none" : build_values::kokkos_arch;
  b.execution_space = ExecutionSpace::name();
  b.tuning_arch = std::string(build_arch());
  b.compiler = build_values::compiler;
  b.build_type = std::string(build_values::build_type).empty() ? "none" : build_values::build_type;
  return b;
}

std::string version_text() {
  const BuildInfo b = build_info();
  return fmt::format(
      "kattn {} (git {})\nKokkos {}: devices {}, arch {}; kernels on {}, tuning arch {}\n"
      "compiler {}, build type {}",
      b.version, b.git_describe, b.kokkos_version, b.kokkos_devices, b.kokkos_arch, b.execution_space, b.tuning_arch,
      b.compiler, b.build_type);
}

nlohmann::json build_info_json() {
  const BuildInfo b = build_info();
  return {
      {"kattn_version", b.version},         {"git_describe", b.git_describe}, {"kokkos_version", b.kokkos_version},
      {"kokkos_devices", b.kokkos_devices}, {"kokkos_arch", b.kokkos_arch},   {"execution_space", b.execution_space},
      {"tuning_arch", b.tuning_arch},       {"compiler", b.compiler},         {"build_type", b.build_type}};
}

std::string command_line(int argc, char** argv) {
  std::string line = "kattn";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789_-+=.,:/@%") == std::string::npos;
    if (plain) {
      line += " " + arg;
    } else {
      std::string quoted = "'";
      for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      line += " " + quoted + "'";
    }
  }
  return line;
}

}  // namespace kattn::cli
