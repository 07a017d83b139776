// The process-wide state behind the C API: Kokkos initialised once on the caller's device, one
// execution-space instance per stream, and each thread's last error message.
#pragma once

#include "kattn/c_api/kattn.h"
#include "kattn/core/error.hpp"
#include "kattn/core/execution_space.hpp"

#include <exception>
#include <string>

namespace kattn::c_api {

// Initialises Kokkos on the current device unless it already is (then it is the caller's Kokkos,
// left to the caller to finalise). Throws when Kokkos has been finalised.
void ensure_initialized();

// The instance for a stream, created on first use and kept until Kokkos is finalised (a GPU
// instance owns device buffers, too costly to make per call).
ExecutionSpace instance_for(void* stream);

void set_last_error(const std::string& message);

// Runs f, turning kattn's exceptions into status codes and the thread's last error message.
template <class F>
kattn_status report_errors(F&& f) noexcept {
  try {
    set_last_error("");
    f();
    return KATTN_SUCCESS;
  } catch (const InvalidProblem& e) {
    set_last_error(e.what());
    return KATTN_ERROR_INVALID_ARGUMENT;
  } catch (const NotSupported& e) {
    set_last_error(e.what());
    return KATTN_ERROR_NOT_SUPPORTED;
  } catch (const std::exception& e) {
    set_last_error(e.what());
    return KATTN_ERROR_RUNTIME;
  } catch (...) {
    set_last_error("unknown exception");
    return KATTN_ERROR_RUNTIME;
  }
}

}  // namespace kattn::c_api
