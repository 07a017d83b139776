// Runtime element type of q, the KV cache and out, and the dispatch to the storage types.
#pragma once

#include "kattn/core/storage_types.hpp"

#include <stdexcept>
#include <string>
#include <string_view>

namespace kattn {

enum class DType { fp32, fp16, bf16 };

std::string_view to_string(DType dtype);
DType parse_dtype(std::string_view name);  // throws std::invalid_argument naming the value

// Rounds a float to the nearest value representable in `dtype` (exactly what storing it does).
float round_to_dtype(float value, DType dtype);

// Calls f with a value of the storage type as a tag (C++17 generic lambdas):
// f(float{}), f(fp16_t{}) or f(bf16_t{}).
template <class F>
decltype(auto) dispatch_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::fp32: return f(float{});
    case DType::fp16: return f(fp16_t{});
    case DType::bf16: return f(bf16_t{});
  }
  throw std::logic_error("dispatch_dtype: unknown dtype");
}

}  // namespace kattn
