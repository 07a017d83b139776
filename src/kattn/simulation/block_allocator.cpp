#include "kattn/simulation/block_allocator.hpp"

#include <stdexcept>
#include <string>

namespace kattn::sim {

BlockAllocator::BlockAllocator(int num_blocks) : num_blocks_(num_blocks), in_use_(std::size_t(num_blocks), false) {
  if (num_blocks < 1) throw std::invalid_argument("a block allocator needs at least one block");
  for (int id = num_blocks - 1; id >= 0; --id) free_.push_back(id);  // block 0 is handed out first
}

std::vector<std::int32_t> BlockAllocator::allocate(int count) {
  if (!can_allocate(count))
    throw std::logic_error("allocate " + std::to_string(count) + " blocks with " + std::to_string(num_free()) +
                           " free");
  std::vector<std::int32_t> ids;
  for (int i = 0; i < count; ++i) {
    ids.push_back(free_.back());
    free_.pop_back();
    in_use_[std::size_t(ids.back())] = true;
  }
  return ids;
}

void BlockAllocator::free(const std::vector<std::int32_t>& ids) {
  for (std::int32_t id : ids) {
    if (id < 0 || id >= num_blocks_ || !in_use_[std::size_t(id)])
      throw std::logic_error("free of block " + std::to_string(id) + ", which is not allocated");
    in_use_[std::size_t(id)] = false;
    free_.push_back(id);
  }
}

}  // namespace kattn::sim
