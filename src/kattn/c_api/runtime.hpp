// The process-wide state behind the C API: Kokkos initialised once on the caller's device, one
// execution-space instance and workspace per stream, the plans' workspaces, and each thread's
// last error message.
#pragma once

#include "kattn/c_api/kattn.h"
#include "kattn/core/error.hpp"
#include "kattn/core/execution_space.hpp"
#include "kattn/workspace.hpp"

#include <exception>
#include <mutex>
#include <string>

namespace kattn::c_api {

// Initialises Kokkos on the current device unless it already is (then it is the caller's Kokkos,
// left to the caller to finalise). Throws when Kokkos has been finalised.
void ensure_initialized();

// A stream's instance, and the workspace of the one-shot calls on it, so that calls on different
// streams never share device arrays. Created on first use and kept until Kokkos is finalised (a
// GPU instance owns device buffers, too costly to make per call); the reference stays valid
// until then. One-shot calls on the stream from several threads take turns through `calls`, held
// from planning into the workspace to the last launch: the stream (or, on a host backend, the
// call's end) then orders their kernels, so no call's arrays are another's.
struct Stream {
  explicit Stream(const ExecutionSpace& instance) : space(instance) {}
  ExecutionSpace space;
  Workspace workspace;
  std::mutex calls;
};
Stream& stream_for(void* stream);

// A plan's workspace, released at Kokkos::finalize like the streams' (a plan may be destroyed
// after it) unless forgotten first.
void keep_until_finalize(Workspace& workspace);
void forget(Workspace& workspace);

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
