#include "kattn/c_api/runtime.hpp"

#include "kattn/core/compat.hpp"
#include "kattn/core/stream_instance.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>

namespace kattn::c_api {
namespace {

thread_local std::string last_error;

struct DeviceState {
  std::mutex mutex;
  std::map<void*, Stream> by_stream;
  std::set<Workspace*> plan_workspaces;
};

// Never destroyed: the instances and buffers must go before Kokkos::finalize, whoever calls it,
// so a finalize hook releases them rather than static destruction at exit.
DeviceState& device_state() {
  static DeviceState* created = [] {
    auto* all = new DeviceState();
    Kokkos::push_finalize_hook([all] {
      const std::lock_guard<std::mutex> lock(all->mutex);
      all->by_stream.clear();
      for (Workspace* workspace : all->plan_workspaces) workspace->release();
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
  require_launching_thread();
  require_kokkos_device();
}

Stream& stream_for(void* stream) {
  DeviceState& all = device_state();
  const std::lock_guard<std::mutex> lock(all.mutex);
  const auto found = all.by_stream.find(stream);
  if (found != all.by_stream.end()) return found->second;
  return all.by_stream.try_emplace(stream, instance_for_stream(stream)).first->second;
}

void keep_until_finalize(Workspace& workspace) {
  DeviceState& all = device_state();
  const std::lock_guard<std::mutex> lock(all.mutex);
  all.plan_workspaces.insert(&workspace);
}

void forget(Workspace& workspace) {
  DeviceState& all = device_state();
  const std::lock_guard<std::mutex> lock(all.mutex);
  all.plan_workspaces.erase(&workspace);
}

void set_last_error(const std::string& message) { last_error = message; }

}  // namespace kattn::c_api

extern "C" {

kattn_status kattn_initialize(void) {
  return kattn::c_api::report_errors([] { kattn::c_api::ensure_initialized(); });
}

const char* kattn_last_error(void) { return kattn::c_api::last_error.c_str(); }
}
