#include "tools/bench_hardware.hpp"

#include "kattn/core/execution_space.hpp"
#include "kattn/io/builtin_data.hpp"
#include "kattn/io/json_file.hpp"
#include "kattn/tuning/launch_plan.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#elif defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime_api.h>
#endif

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <stdexcept>

namespace kattn::cli {
namespace {

std::string host_cpu_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string name = "host CPU";
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      name = line.substr(line.find(':') + 2);
      break;
    }
  return name + ", " + std::to_string(ExecutionSpace().concurrency()) + " threads";
}

// Best of five copies after a warm-up, counting bytes read and written.
double measure_copy_gb_per_s(std::size_t bytes) {
  using Bytes = Kokkos::View<unsigned char*, MemorySpace>;
  Bytes from(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kattn::copy_from"), bytes);
  Bytes to(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kattn::copy_to"), bytes);
  Kokkos::deep_copy(from, static_cast<unsigned char>(1));  // touch every page before timing
  Kokkos::deep_copy(to, static_cast<unsigned char>(0));
  double best = 0.0;
  for (int i = 0; i < 6; ++i) {
    Kokkos::fence();
    Kokkos::Timer timer;
    Kokkos::deep_copy(to, from);
    Kokkos::fence();
    if (i > 0) best = std::max(best, 2.0 * double(bytes) / timer.seconds() / 1e9);
  }
  return best;
}

// data/hardware/<arch>.json: {"peak_tflop_per_s": {"fp16": 989.4, ...}, ...}; null = unknown.
void read_peaks(const nlohmann::json& doc, const std::string& path, HardwareLimits& limits) {
  try {
    for (const auto& [dtype, value] : doc.at("peak_tflop_per_s").items())
      limits.peak_tflop_per_s[dtype] = value.is_null() ? std::nullopt : std::optional<double>(value.get<double>());
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  limits.peak_source = path;
}

}  // namespace

std::string device_name() {
  if (host_backend()) return host_cpu_name();
#if defined(KOKKOS_ENABLE_CUDA)
  int device = 0;
  cudaDeviceProp prop;
  if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess) return prop.name;
#elif defined(KOKKOS_ENABLE_HIP)
  int device = 0;
  hipDeviceProp_t prop;
  if (hipGetDevice(&device) == hipSuccess && hipGetDeviceProperties(&prop, device) == hipSuccess) return prop.name;
#endif
  return "unknown device";
}

HardwareLimits measure_hardware_limits(const std::string& peak_file) {
  HardwareLimits limits;
  const std::string default_file = "data/hardware/" + std::string(build_arch()) + ".json";
  // First: a bad file fails before the measurement. The default is compiled in (builtin_data.hpp),
  // so that it does not depend on the working directory.
  if (!peak_file.empty())
    read_peaks(read_json_file(peak_file, "the hardware file"), peak_file, limits);
  else if (const char* text = builtin_data(default_file))
    read_peaks(parse_json_text(text, default_file + " (built in)"), default_file + " (built in)", limits);
  else
    limits.peak_source = "unknown: no " + default_file + " built in";
  limits.device = device_name();
  // 1 GiB views on a GPU; 256 MiB on a host: past most last-level caches, small enough for a test machine.
  limits.copy_bytes = host_backend() ? std::size_t(256) << 20 : std::size_t(1) << 30;
  limits.copy_gb_per_s = measure_copy_gb_per_s(limits.copy_bytes);
  return limits;
}

std::optional<double> peak_tflop_per_s(const HardwareLimits& limits, DType dtype) {
  const auto found = limits.peak_tflop_per_s.find(std::string(to_string(dtype)));
  return found == limits.peak_tflop_per_s.end() ? std::nullopt : found->second;
}

nlohmann::json to_json(const HardwareLimits& limits) {
  nlohmann::json peaks = nlohmann::json::object();
  for (const auto& [dtype, value] : limits.peak_tflop_per_s) peaks[dtype] = value ? nlohmann::json(*value) : nullptr;
  return {{"copy_bytes", limits.copy_bytes},
          {"copy_gb_per_s", limits.copy_gb_per_s},
          {"copy_method", "Kokkos::deep_copy between two device views, bytes read + written, best of 5"},
          {"peak_tflop_per_s", peaks},
          {"peak_source", limits.peak_source}};
}

}  // namespace kattn::cli
