// Device buffers kattn reuses across calls (segment partials, Q-block offsets): once a workspace
// has grown to the largest batch seen, a call allocates nothing, which keeps the host overhead of
// a decode step to its launches. A plan's runs use the workspace it was given (one per stream);
// instance() is the one attention() calls share, released at Kokkos::finalize, so those calls must
// come from one host thread, in order. A plan that grows a workspace frees the old buffer, which
// waits for running kernels; the plans made on it before are then stale, and so are their graphs.
#pragma once

#include "kattn/core/execution_space.hpp"

#include <cstddef>
#include <cstdint>

namespace kattn {

class Workspace {
 public:
  static Workspace& instance();

  // Carves consecutive arrays out of one buffer: reserve() all of them first, then commit()
  // makes the buffer at least that large and at() gives each array's address.
  class Layout {
   public:
    std::size_t reserve(std::size_t count, std::size_t element_bytes);  // returns the array's offset
    std::size_t bytes() const { return bytes_; }

   private:
    std::size_t bytes_ = 0;
  };
  char* commit(const Layout& layout);

 private:
  Kokkos::View<char*, MemorySpace> buffer_;
};

}  // namespace kattn
