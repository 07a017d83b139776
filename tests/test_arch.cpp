// The architecture table (core/arch.hpp) agrees with the files that carry its names: each row's
// hardware model is built in under its name, each GPU row's preset asks Kokkos for its option, and
// this build's architecture is a row whose capabilities the planner's availability checks read.
#include "kattn/core/arch.hpp"
#include "kattn/io/builtin_data.hpp"
#include "kattn/tuning/tuning_table.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace kattn {
namespace {

TEST(ArchTable, EveryRowHasItsHardwareModelUnderItsName) {
  for (const ArchTraits& row : kArchTable) {
    const std::string path = "data/hardware/models/" + std::string(row.name) + ".json";
    const char* text = builtin_data(path);
    ASSERT_NE(text, nullptr) << path;
    EXPECT_EQ(nlohmann::json::parse(text).at("arch").get<std::string>(), row.name) << path;
  }
}

TEST(ArchTable, EveryGpuRowsPresetAsksKokkosForItsOption) {
  std::ifstream in(std::string(KATTN_DATA_DIR) + "/../presets/gpu.json");
  ASSERT_TRUE(in) << "presets/gpu.json";
  const nlohmann::json presets = nlohmann::json::parse(in).at("configurePresets");
  for (const ArchTraits& row : kArchTable) {
    if (row.kokkos_arch.empty()) continue;
    bool found = false;
    for (const nlohmann::json& p : presets) {
      if (p.at("name") != std::string(row.name)) continue;
      found = true;
      EXPECT_EQ(p.at("cacheVariables").at("KATTN_REQUIRE_KOKKOS_ARCH"), std::string(row.kokkos_arch)) << row.name;
    }
    EXPECT_TRUE(found) << "no preset named " << row.name;
  }
}

TEST(ArchTable, TheBuildsCapabilitiesComeFromItsRow) {
  const ArchTraits& row = build_arch_traits();
  EXPECT_EQ(build_arch(), row.name);
  if (!device_backend()) {
    EXPECT_FALSE(tensor_cores_available());
    EXPECT_FALSE(register_rows_available());
    EXPECT_FALSE(warpgroup_mma_available());
  }
  EXPECT_EQ(register_rows_available(), tensor_cores_available() && row.mma_sync && row.async_copy);
  if (warpgroup_mma_available()) EXPECT_TRUE(row.warpgroup_mma);
  // The shipped tables are the CPU's and the H100's; other rows plan from the untuned defaults.
  if (row.arch == Arch::cpu || row.arch == Arch::h100) EXPECT_NE(TuningTable::builtin(build_arch()), nullptr);
}

// The host space of a GPU build (Serial beside CUDA) plans and launches as a host build does.
TEST(ArchTable, HostSpacesTakeNoDeviceKernels) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  static_assert(!device_backend<Host>() && host_backend<Host>());
  static_assert(!tensor_cores_available<Host>() && !register_rows_available<Host>() &&
                !warpgroup_mma_available<Host>());
  EXPECT_EQ(kernels_arch<Host>(), "cpu");
  EXPECT_EQ(kernels_arch(), device_backend() ? build_arch() : "cpu");
}

}  // namespace
}  // namespace kattn
