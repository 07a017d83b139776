#include "kattn/problem/attention_params.hpp"

namespace kattn {

std::string AttentionParams::unsupported_features() const {
  std::string names;
  auto add = [&names](const char* name) { names += names.empty() ? name : std::string(", ") + name; };
  if (fp8) add("fp8 scales");
  return names;
}

}  // namespace kattn
