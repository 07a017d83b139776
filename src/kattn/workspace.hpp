// Device buffers kattn reuses across calls (segment partials, tensor maps, partition counters): once a workspace
// has grown to the largest batch seen, a call allocates nothing, which keeps the host overhead of
// a decode step to its launches. A plan's runs use the workspace it was given (one per stream);
// instance() is the one attention() calls share unless AttentionOptions::workspace names another,
// released at Kokkos::finalize, so those calls must come from one host thread, in order. A plan
// that grows a workspace frees the old buffer, which waits for running kernels; the plans made on
// it before are then stale, and so are their graphs. BasicWorkspace<Space> keeps its buffers in
// Space's memory (built for every backend: core/backends.hpp); Workspace is the default space's.
#pragma once

#include "kattn/core/execution_space.hpp"
#include "kattn/core/stream_instance.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace kattn {

// Carves consecutive arrays out of a workspace's buffer: reserve() all of them first, then
// commit() makes the buffer at least that large and gives its address. Counters (int32, zero
// before and after every call: the kernels that count put them back) come from a second buffer
// that only counters ever use.
class WorkspaceLayout {
 public:
  std::size_t reserve(std::size_t count, std::size_t element_bytes);  // returns the array's offset
  std::size_t reserve_counters(std::size_t count);                    // returns the first counter's index
  std::size_t bytes() const { return bytes_; }
  std::size_t counters() const { return counters_; }

 private:
  std::size_t bytes_ = 0;
  std::size_t counters_ = 0;
};

// The tensor maps (detail/tiles/team_bulk_copy.hpp) a workspace's buffer holds, as its calls wrote
// them: an eager call writes a map only where the call before it on the workspace did not leave the
// same bytes at the same place (the one-team launch that writes them, and the wait for it, took b16
// 512 ~7 µs of 130 on the H200). Whatever else may write the buffer forgets them: the next call
// (begin_call), a graph's replay and a buffer that grows (forget). The record has fixed room, so
// that a call allocates nothing: a map past it is not recorded, and the call after writes it again.
class PublishedMaps {
 public:
  static constexpr std::size_t kMapBytes = 256;  // a launch's maps (CacheTileMaps, RowTileMaps)
  static constexpr int kCallMaps = 8;            // a call's: two a Q-block part

  void begin_call() {
    current_ ^= 1;
    calls_[current_].count = 0;
  }
  // Whether the call before left `bytes` at `at`; either way this call's launches have them there.
  bool holds(const void* at, const void* bytes, std::size_t size);
  void forget() { calls_[0].count = calls_[1].count = 0; }

 private:
  struct Map {
    const void* at;
    std::size_t size;
    unsigned char bytes[kMapBytes];
  };
  struct Call {
    Map maps[kCallMaps];
    int count = 0;
  };
  Call calls_[2];  // this call's (current_) and the one before
  int current_ = 0;
};

struct WorkspaceBuffers {
  char* base = nullptr;
  std::int32_t* counters = nullptr;
  PublishedMaps* published = nullptr;  // the workspace's
};

template <class Space>
class BasicWorkspace {
 public:
  static BasicWorkspace& instance();

  WorkspaceBuffers commit(const WorkspaceLayout& layout);

  // The instance a plan's parts that may run at once use beside the caller's (made on first use).
  const SideInstance<Space>& side();

  // Frees the buffers: a workspace that may outlive Kokkos must be released before Kokkos::finalize.
  void release() {
    buffer_ = {};
    counters_ = {};
    side_.reset();
    published_.forget();
  }

 private:
  Kokkos::View<char*, typename Space::memory_space> buffer_;
  Kokkos::View<std::int32_t*, typename Space::memory_space> counters_;
  std::shared_ptr<const SideInstance<Space>> side_;
  PublishedMaps published_;
};

using Workspace = BasicWorkspace<ExecutionSpace>;

}  // namespace kattn
