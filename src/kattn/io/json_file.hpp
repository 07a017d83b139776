// The JSON files of the tools (scenarios, traces, model configs, hardware files, bench, tune and
// simulate results). Writing goes into a temporary file beside the target, renamed into place, so
// that a failed or interrupted write never leaves a half file where a complete one is expected.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kattn {

// Throws FileFormatError naming `path` and `what` ("the trace file", ...) when it cannot open the
// file or the file is not JSON; checking its fields is the caller's.
nlohmann::json read_json_file(const std::string& path, const std::string& what);

// As read_json_file, for text already in memory (a built-in data file); `source` names it in errors.
nlohmann::json parse_json_text(const std::string& text, const std::string& source);

// Throws FileFormatError naming `path` and `what` ("the simulation report", ...) when it cannot.
void write_json_file(const std::string& path, const nlohmann::json& doc, int indent, const std::string& what);

}  // namespace kattn
