// Reading the fields of kattn's JSON inputs (scenarios, traces, model configs) with errors that
// name the field as a path in the file, in kattn's words rather than nlohmann's:
// "cases[0].batch_size: must be positive (got -3)", "cases[0]: missing field 'max_seq_len'".
// They throw std::invalid_argument; the loader prefixes the file's path.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace kattn::json_fields {

using nlohmann::json;

// Errors name the field as a path in the file: "cases[0].batch_size: must be positive (got -3)".
// `where` is the path of the object ("" for the file's root object).
[[noreturn]] inline void fail(const std::string& where, const std::string& what) {
  throw std::invalid_argument(where.empty() ? what : where + ": " + what);
}

inline std::string member(const std::string& where, const char* name) {
  return where.empty() ? std::string(name) : where + "." + name;
}

template <class T>
T convert(const json& v, const std::string& where) {
  const auto wrong = [&](const char* expected) {
    fail(where, std::string("must be ") + expected + " (got " + v.dump() + ")");
  };
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) wrong("true or false");
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) wrong("a string");
  } else if constexpr (std::is_same_v<T, std::uint64_t>) {
    if (!v.is_number_unsigned()) wrong("a non-negative integer");
  } else if constexpr (std::is_integral_v<T>) {
    if (!v.is_number_integer()) wrong("an integer");
    const std::int64_t x = v.get<std::int64_t>();
    if (x < std::numeric_limits<T>::min() || x > std::numeric_limits<T>::max()) wrong("an integer in the range of int");
  } else {
    if (!v.is_number()) wrong("a number");
  }
  return v.get<T>();
}

// A required field.
template <class T>
T field(const json& j, const std::string& where, const char* name) {
  if (!j.contains(name)) fail(where, std::string("missing field '") + name + "'");
  return convert<T>(j.at(name), member(where, name));
}

// An optional field.
template <class T>
T field(const json& j, const std::string& where, const char* name, T fallback) {
  return j.contains(name) ? convert<T>(j.at(name), member(where, name)) : fallback;
}

template <class T>
void require(bool ok, const std::string& where, const char* name, const std::string& rule, T got) {
  if (!ok) fail(member(where, name), rule + " (got " + json(got).dump() + ")");
}

}  // namespace kattn::json_fields
