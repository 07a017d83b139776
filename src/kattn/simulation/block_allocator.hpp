// The paged KV cache's block allocator: a fixed pool of block ids, handed out and taken back.
#pragma once

#include <cstdint>
#include <vector>

namespace kattn::sim {

class BlockAllocator {
 public:
  explicit BlockAllocator(int num_blocks);

  int num_free() const { return int(free_.size()); }
  int num_used() const { return num_blocks_ - num_free(); }
  bool can_allocate(int count) const { return count >= 0 && count <= num_free(); }

  // `count` distinct free ids; throws std::logic_error when fewer are free (check can_allocate).
  std::vector<std::int32_t> allocate(int count);
  // Gives the ids back; throws std::logic_error for an id that is not allocated.
  void free(const std::vector<std::int32_t>& ids);

 private:
  int num_blocks_;
  std::vector<std::int32_t> free_;  // a stack: the last freed block is reused first, as vLLM's free list does
  std::vector<bool> in_use_;
};

}  // namespace kattn::sim
