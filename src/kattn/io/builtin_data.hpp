// The small data files the tools need (data/hardware/*.json, data/hardware/models/*.json,
// data/tuning/spaces/*.json, data/models/*.json), compiled in by CMake so that the binary finds
// them from any working directory, installed or not (as the tuning tables are).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kattn {

// The text of the repository file `path` ("data/hardware/h100.json"), or nullptr if not built in.
const char* builtin_data(std::string_view path);

// The built-in files directly in `directory` ("data/hardware/models"), by name without ".json".
std::vector<std::string> builtin_data_names(std::string_view directory);

}  // namespace kattn
