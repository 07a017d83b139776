// The one place that knows a backend's native handles: the execution-space instance for a
// caller's stream (cudaStream_t, hipStream_t: PyTorch's current stream, say) and the device the
// calling thread has made current, on which Kokkos must run to share the caller's context.
#pragma once

#include "kattn/core/error.hpp"
#include "kattn/core/execution_space.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>

namespace kattn {

// The device current on this thread (CUDA, HIP), or -1 where Kokkos has no GPU backend.
inline int current_device() {
  int device = -1;
#if defined(KOKKOS_ENABLE_CUDA)
  if (cudaGetDevice(&device) != cudaSuccess) throw std::runtime_error("cudaGetDevice failed");
#elif defined(KOKKOS_ENABLE_HIP)
  if (hipGetDevice(&device) != hipSuccess) throw std::runtime_error("hipGetDevice failed");
#endif
  return device;
}

// The device Kokkos runs on (-1 on the host); ExecutionSpace is the default instance.
inline int kokkos_device() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) return Kokkos::Cuda().cuda_device();
#elif defined(KOKKOS_ENABLE_HIP)
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::HIP>) return Kokkos::HIP().hip_device();
#endif
  return -1;
}

// Throws NotSupported unless the caller's current device is Kokkos' (data of another device
// cannot be read there).
inline void require_kokkos_device() {
  if (kokkos_device() >= 0 && current_device() != kokkos_device())
    throw NotSupported("the current device is " + std::to_string(current_device()) + ", Kokkos runs on device " +
                       std::to_string(kokkos_device()));
}

// A new instance that runs on `stream` (null: the default instance), a stream of Kokkos'
// device. Host spaces have no streams. A GPU instance owns reduction buffers: keep it.
inline ExecutionSpace instance_for_stream(void* stream) {
  if (stream == nullptr) return ExecutionSpace();
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
#if CUDART_VERSION >= 12080  // cudaStreamGetDevice; Kokkos' constructor would switch devices silently
    int stream_device = -1;
    if (cudaStreamGetDevice(static_cast<cudaStream_t>(stream), &stream_device) != cudaSuccess)
      throw InvalidProblem("stream", "not a CUDA stream");
    if (stream_device != kokkos_device())
      throw NotSupported("stream: belongs to device " + std::to_string(stream_device) + ", Kokkos runs on device " +
                         std::to_string(kokkos_device()));
#endif
    return Kokkos::Cuda(static_cast<cudaStream_t>(stream));
  }
#elif defined(KOKKOS_ENABLE_HIP)
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::HIP>) return Kokkos::HIP(static_cast<hipStream_t>(stream));
#endif
  throw NotSupported(std::string("stream: must be null on the ") + ExecutionSpace::name() + " execution space");
}

}  // namespace kattn
