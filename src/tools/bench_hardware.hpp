// What the device can do at best, to judge a benchmark time against: its copy bandwidth, measured
// in the same run, and its peak FLOP/s per dtype from data/hardware/<arch>.json
// (docs/performance.md).
#pragma once

#include "kattn/core/dtype.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace kattn::cli {

struct HardwareLimits {
  std::string device;          // "NVIDIA H100 80GB HBM3", or the host CPU's model name
  std::size_t copy_bytes = 0;  // size of each of the two views copied
  double copy_gb_per_s = 0.0;  // best Kokkos::deep_copy between them, bytes read + written
  std::map<std::string, std::optional<double>> peak_tflop_per_s;  // by dtype name; nullopt = unknown
  std::string peak_source;                                        // the file the peaks came from, or why there are none
};

// Measures the copy bandwidth and reads the peaks from `peak_file` (empty: data/hardware/<arch>.json
// relative to the working directory, where a missing file means unknown peaks; a named file must exist).
HardwareLimits measure_hardware_limits(const std::string& peak_file);

// "NVIDIA H100 80GB HBM3", or the host CPU's model name and thread count.
std::string device_name();

std::optional<double> peak_tflop_per_s(const HardwareLimits& limits, DType dtype);

nlohmann::json to_json(const HardwareLimits& limits);

}  // namespace kattn::cli
