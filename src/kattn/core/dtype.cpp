#include "kattn/core/dtype.hpp"

namespace kattn {

std::string_view to_string(DType dtype) {
  switch (dtype) {
    case DType::fp32:
      return "fp32";
    case DType::fp16:
      return "fp16";
    case DType::bf16:
      return "bf16";
    case DType::fp8_e4m3:
      return "fp8_e4m3";
  }
  return "unknown";
}

DType parse_dtype(std::string_view name) {
  if (name == "fp32") return DType::fp32;
  if (name == "fp16") return DType::fp16;
  if (name == "bf16") return DType::bf16;
  if (name == "fp8_e4m3") return DType::fp8_e4m3;
  throw std::invalid_argument("unknown dtype '" + std::string(name) + "' (expected fp32, fp16, bf16 or fp8_e4m3)");
}

float round_to_dtype(float value, DType dtype) {
  return dispatch_dtype(dtype, [value](auto tag) {
    using Storage = decltype(tag);
    return to_float(from_float<Storage>(value));
  });
}

}  // namespace kattn
