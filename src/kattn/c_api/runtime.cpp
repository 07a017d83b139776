#include "kattn/c_api/runtime.hpp"

#include "kattn/core/compat.hpp"
#include "kattn/core/stream_instance.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>

namespace kattn::c_api {
namespace {

thread_local std::string last_error;

struct Instances {
  std::mutex mutex;
  std::map<void*, ExecutionSpace> by_stream;
};

// Never destroyed: the instances must go before Kokkos::finalize, whoever calls it, so a
// finalize hook releases them rather than static destruction at exit.
Instances& instances() {
  static Instances* created = [] {
    auto* all = new Instances();
    Kokkos::push_finalize_hook([all] {
      const std::lock_guard<std::mutex> lock(all->mutex);
      all->by_stream.clear();
    });
    return all;
  }();
  return *created;
}

}  // namespace

void ensure_initialized() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (Kokkos::is_initialized()) return;
    compat::initialize(current_device());
    std::atexit([] {
      if (Kokkos::is_initialized()) Kokkos::finalize();
    });
  });
  if (!Kokkos::is_initialized()) throw std::runtime_error("Kokkos has been finalized");
  require_kokkos_device();
}

ExecutionSpace instance_for(void* stream) {
  Instances& all = instances();
  const std::lock_guard<std::mutex> lock(all.mutex);
  const auto found = all.by_stream.find(stream);
  if (found != all.by_stream.end()) return found->second;
  return all.by_stream.emplace(stream, instance_for_stream(stream)).first->second;
}

void set_last_error(const std::string& message) { last_error = message; }

}  // namespace kattn::c_api

extern "C" {

kattn_status kattn_initialize(void) {
  return kattn::c_api::report_errors([] { kattn::c_api::ensure_initialized(); });
}

const char* kattn_last_error(void) { return kattn::c_api::last_error.c_str(); }

}
