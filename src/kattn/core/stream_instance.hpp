// The one place that knows a backend's native handles: the execution-space instance for a
// caller's stream (cudaStream_t, hipStream_t: PyTorch's current stream, say), the device the
// calling thread has made current, on which Kokkos must run to share the caller's context, the
// threads Kokkos can launch from, and the events that time a stream's work.
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

// Whether Kokkos launches kernels from any host thread. Kokkos 4 does (a host instance runs one
// kernel at a time under its lock; GPU instances of different streams run independently). Kokkos
// 3's OpenMP backend launches, and initialises Views, only from a master thread: the one that
// initialised Kokkos, or the master of a partition of Kokkos::OpenMP::partition_master.
constexpr bool launches_from_any_thread() {
#if KOKKOS_VERSION < 40000 && defined(KOKKOS_ENABLE_OPENMP)
  return false;
#else
  return true;
#endif
}

// Throws NotSupported on a thread Kokkos cannot launch from (see launches_from_any_thread), before
// anything is allocated or written.
inline void require_launching_thread() {
#if KOKKOS_VERSION < 40000 && defined(KOKKOS_ENABLE_OPENMP)
  if (!Kokkos::OpenMP::impl_is_initialized())
    throw NotSupported(
        "thread: Kokkos 3's OpenMP backend launches kernels only from the thread that initialised Kokkos or from "
        "the master of a Kokkos::OpenMP::partition_master partition");
#endif
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

// The GPU runtime's spelling of a call (cudaEventRecord, hipEventRecord) and the instance's stream.
#if defined(KOKKOS_ENABLE_CUDA)
#define KATTN_GPU_RUNTIME(name) cuda##name
#define KATTN_GPU_STREAM(space) (space).cuda_stream()
#elif defined(KOKKOS_ENABLE_HIP)
#define KATTN_GPU_RUNTIME(name) hip##name
#define KATTN_GPU_STREAM(space) (space).hip_stream()
#endif

// Relaxes the calling thread's stream-capture mode while it lives (host spaces: nothing). Kokkos'
// GPU team launches size their level-1 scratch pool on every launch (resize_team_scratch_space),
// which allocates again, 0 bytes, while the pool is empty, as it stays for kattn's kernels; a
// stream capture in global mode, PyTorch's default, fails on that cudaMalloc / hipMalloc, while a
// relaxed one lets it return null, which nothing reads.
class RelaxedCaptureMode {
 public:
  RelaxedCaptureMode() {
#ifdef KATTN_GPU_RUNTIME
    KATTN_GPU_RUNTIME(ThreadExchangeStreamCaptureMode)(&mode_);
#endif
  }
  ~RelaxedCaptureMode() {
#ifdef KATTN_GPU_RUNTIME
    KATTN_GPU_RUNTIME(ThreadExchangeStreamCaptureMode)(&mode_);  // back to the caller's mode
#endif
  }
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

#ifdef KATTN_GPU_RUNTIME
 private:
  KATTN_GPU_RUNTIME(StreamCaptureMode) mode_ = KATTN_GPU_RUNTIME(StreamCaptureModeRelaxed);
#endif
};

// A second instance beside a caller's, for the parts of a call that may run at once (a mixed
// batch's leading decodes, memory-bound, beside its prefills, compute-bound): fork(main) returns
// the instance to launch on, which first waits for the work enqueued on `main` so far; join(main)
// makes `main` wait for what was launched on it since. Waits are events on the device: no host
// fence, and a stream capture records them as its fork and join. Host spaces (Serial beside CUDA
// too) run both parts on `main`, in order. One per workspace: calls that share it are ordered anyway.
template <class Space, bool OnDevice = device_backend<Space>()>
class SideInstance {
 public:
  explicit SideInstance(const Space&) {}
  Space fork(const Space& main) const { return main; }
  void join(const Space&) const {}
};

#ifdef KATTN_GPU_RUNTIME
template <class Space>
class SideInstance<Space, true> {
 public:
  explicit SideInstance(const Space& main) {
    space_ = Kokkos::Experimental::partition_space(main, 1).front();
    KATTN_GPU_RUNTIME(EventCreateWithFlags)(&forked_, KATTN_GPU_RUNTIME(EventDisableTiming));
    KATTN_GPU_RUNTIME(EventCreateWithFlags)(&joined_, KATTN_GPU_RUNTIME(EventDisableTiming));
  }
  ~SideInstance() {
    KATTN_GPU_RUNTIME(EventDestroy)(forked_);
    KATTN_GPU_RUNTIME(EventDestroy)(joined_);
  }
  SideInstance(const SideInstance&) = delete;
  SideInstance& operator=(const SideInstance&) = delete;

  Space fork(const Space& main) const {
    KATTN_GPU_RUNTIME(EventRecord)(forked_, KATTN_GPU_STREAM(main));
    KATTN_GPU_RUNTIME(StreamWaitEvent)(KATTN_GPU_STREAM(space_), forked_, 0);
    return space_;
  }
  void join(const Space& main) const {
    KATTN_GPU_RUNTIME(EventRecord)(joined_, KATTN_GPU_STREAM(space_));
    KATTN_GPU_RUNTIME(StreamWaitEvent)(KATTN_GPU_STREAM(main), joined_, 0);
  }

 private:
  Space space_;
  KATTN_GPU_RUNTIME(Event_t) forked_{}, joined_{};
};
#endif

// Device time between two points of an instance's stream, from events (CUDA, HIP): what the
// kernels enqueued between start() and stop_us() took on the device, without the host's part. Host
// spaces have no events: there it is the host time from start() to a fence at stop_us().
class DeviceEvents {
 public:
  explicit DeviceEvents(const ExecutionSpace& space) : space_(space) {
#ifdef KATTN_GPU_RUNTIME
    KATTN_GPU_RUNTIME(EventCreate)(&start_);
    KATTN_GPU_RUNTIME(EventCreate)(&stop_);
#endif
  }
  ~DeviceEvents() {
#ifdef KATTN_GPU_RUNTIME
    KATTN_GPU_RUNTIME(EventDestroy)(start_);
    KATTN_GPU_RUNTIME(EventDestroy)(stop_);
#endif
  }
  DeviceEvents(const DeviceEvents&) = delete;
  DeviceEvents& operator=(const DeviceEvents&) = delete;

  void start() {
#ifdef KATTN_GPU_RUNTIME
    KATTN_GPU_RUNTIME(EventRecord)(start_, KATTN_GPU_STREAM(space_));
#else
    timer_.reset();
#endif
  }
  // Waits for the work enqueued since start(); returns its device time in µs.
  double stop_us() {
#ifdef KATTN_GPU_RUNTIME
    KATTN_GPU_RUNTIME(EventRecord)(stop_, KATTN_GPU_STREAM(space_));
    KATTN_GPU_RUNTIME(EventSynchronize)(stop_);
    float ms = 0.0f;
    KATTN_GPU_RUNTIME(EventElapsedTime)(&ms, start_, stop_);
    return 1e3 * ms;
#else
    space_.fence();
    return timer_.seconds() * 1e6;
#endif
  }

 private:
  ExecutionSpace space_;
#ifdef KATTN_GPU_RUNTIME
  KATTN_GPU_RUNTIME(Event_t) start_{}, stop_{};
#else
  Kokkos::Timer timer_;
#endif
};

}  // namespace kattn
