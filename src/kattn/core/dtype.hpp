// Runtime element types of q, the KV cache and out, and the dispatch to the storage types.
#pragma once

#include "kattn/core/storage_types.hpp"

#include <stdexcept>
#include <string>
#include <string_view>

namespace kattn {

// fp8_e4m3 is a storage type for the KV cache and the output only; q is fp32, fp16 or bf16.
enum class DType { fp32, fp16, bf16, fp8_e4m3 };

std::string_view to_string(DType dtype);
DType parse_dtype(std::string_view name);  // throws std::invalid_argument naming the value

// Rounds a float to the nearest value representable in `dtype` (exactly what storing it does).
float round_to_dtype(float value, DType dtype);

// Calls f with a value of the storage type as a tag (C++17 generic lambdas):
// f(float{}), f(fp16_t{}), f(bf16_t{}) or f(fp8_e4m3_t{}).
template <class F>
decltype(auto) dispatch_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::fp32:
      return f(float{});
    case DType::fp16:
      return f(fp16_t{});
    case DType::bf16:
      return f(bf16_t{});
    case DType::fp8_e4m3:
      return f(fp8_e4m3_t{});
  }
  throw std::logic_error("dispatch_dtype: unknown dtype");
}

// The (q, KV cache, out) storage types kattn is built for: q fp32, fp16 or bf16; the cache and
// the output each either q's type or fp8 e4m3. Calls f(QTag, CacheTag, OutTag).
template <class F>
decltype(auto) dispatch_storage(DType q, DType cache, DType out, F&& f) {
  auto with_q = [&](auto q_tag) -> decltype(auto) {
    using Q = decltype(q_tag);
    auto with_cache = [&](auto cache_tag) -> decltype(auto) {
      if (out == DType::fp8_e4m3) return f(q_tag, cache_tag, fp8_e4m3_t{});
      return f(q_tag, cache_tag, Q{});
    };
    if (cache == DType::fp8_e4m3) return with_cache(fp8_e4m3_t{});
    return with_cache(Q{});
  };
  switch (q) {
    case DType::fp32:
      return with_q(float{});
    case DType::fp16:
      return with_q(fp16_t{});
    case DType::bf16:
      return with_q(bf16_t{});
    case DType::fp8_e4m3:
      break;
  }
  throw std::invalid_argument("q cannot be fp8_e4m3");
}

}  // namespace kattn
