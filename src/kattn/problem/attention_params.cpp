#include "kattn/problem/attention_params.hpp"

namespace kattn {

std::string AttentionParams::unsupported_features() const {
  std::string names;
  auto add = [&names](const char* name) { names += names.empty() ? name : std::string(", ") + name; };
  if (window_left >= 0) add("sliding window");
  if (softcap != 0.0f) add("softcap");
  if (!alibi_slopes.empty()) add("ALiBi slopes");
  if (!sinks.empty()) add("attention sinks");
  if (fp8) add("fp8 scales");
  return names;
}

}  // namespace kattn
