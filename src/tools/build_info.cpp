#include "tools/build_info.hpp"

#include "kattn/core/execution_space.hpp"
#include "kattn/tuning/launch_plan.hpp"
#include "kattn_build_info_values.hpp"  // generated in the build folder
#include "kattn_git_describe.hpp"       // generated at every build

#include <fmt/core.h>

#include <Kokkos_Core.hpp>

namespace kattn::cli {

BuildInfo build_info() {
  BuildInfo b;
  b.version = KATTN_BUILD_VERSION;
  b.git_describe = KATTN_BUILD_GIT_DESCRIBE;
  // KOKKOS_VERSION is major * 10000 + minor * 100 + patch in Kokkos 3 and 4 alike.
  b.kokkos_version = fmt::format("{}.{}.{}", KOKKOS_VERSION / 10000, KOKKOS_VERSION / 100 % 100, KOKKOS_VERSION % 100);
  b.kokkos_devices = KATTN_BUILD_KOKKOS_DEVICES;
  b.kokkos_arch = std::string(KATTN_BUILD_KOKKOS_ARCH).empty() ? "none" : KATTN_BUILD_KOKKOS_ARCH;
  b.execution_space = ExecutionSpace::name();
  b.tuning_arch = std::string(build_arch());
  b.compiler = KATTN_BUILD_COMPILER;
  b.build_type = std::string(KATTN_BUILD_TYPE).empty() ? "none" : KATTN_BUILD_TYPE;
  return b;
}

std::string version_text() {
  const BuildInfo b = build_info();
  return fmt::format("kattn {} (git {})\nKokkos {}: devices {}, arch {}; kernels on {}, tuning arch {}\n"
                     "compiler {}, build type {}",
                     b.version, b.git_describe, b.kokkos_version, b.kokkos_devices, b.kokkos_arch,
                     b.execution_space, b.tuning_arch, b.compiler, b.build_type);
}

nlohmann::json build_info_json() {
  const BuildInfo b = build_info();
  return {{"kattn_version", b.version},   {"git_describe", b.git_describe},   {"kokkos_version", b.kokkos_version},
          {"kokkos_devices", b.kokkos_devices}, {"kokkos_arch", b.kokkos_arch}, {"execution_space", b.execution_space},
          {"tuning_arch", b.tuning_arch}, {"compiler", b.compiler},           {"build_type", b.build_type}};
}

std::string command_line(int argc, char** argv) {
  std::string line = "kattn";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool plain = !arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
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
