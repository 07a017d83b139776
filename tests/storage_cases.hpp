// Storage combinations and forced launches, shared by the tests that run every variant on every
// storage type (poisoned caches, extreme logits, guard regions).
#pragma once

#include "kattn/core/dtype.hpp"
#include "kattn/problem/attention_inputs.hpp"
#include "kattn/tuning/launch_plan.hpp"
#include "kattn/workload/generator.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <tuple>
#include <vector>

namespace kattn::test {

// q's type, and whether the cache and the output are fp8 e4m3 instead of q's type.
struct StorageCase {
  DType q = DType::fp32;
  bool fp8_cache = false;
  bool fp8_out = false;

  DType cache() const { return fp8_cache ? DType::fp8_e4m3 : q; }
  DType out() const { return fp8_out ? DType::fp8_e4m3 : q; }
  std::string name() const {
    std::string name(to_string(q));
    if (fp8_cache) name += "_fp8cache";
    if (fp8_out) name += "_fp8out";
    return name;
  }
  void apply_to(BatchSpec& spec) const {
    spec.dtype = q;
    spec.features.fp8_kv_cache = fp8_cache;
    spec.features.fp8_out = fp8_out;
  }
};

inline void PrintTo(const StorageCase& storage, std::ostream* os) { *os << storage.name(); }

// fp32, fp16 and bf16 alone, and fp8 caches under fp16 and bf16 q (the latter with an fp8 output).
inline std::vector<StorageCase> every_storage() {
  return {{DType::fp32}, {DType::fp16}, {DType::bf16}, {DType::fp16, true}, {DType::bf16, true, true}};
}

// The forced launch of a test: tiles of 7 keys, decoupled from every block size, and 3 segments or
// partitions (ignored by the unsegmented variants).
inline AttentionOptions forced_launch(Variant variant) {
  AttentionOptions options;
  options.variant = variant;
  options.tile_size = 7;
  options.num_segments = 3;
  return options;
}

using VariantStorage = std::tuple<Variant, StorageCase>;

inline std::string variant_storage_name(const ::testing::TestParamInfo<VariantStorage>& info) {
  return std::string(to_string(std::get<0>(info.param))) + "_" + std::get<1>(info.param).name();
}

}  // namespace kattn::test
