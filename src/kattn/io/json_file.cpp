#include "kattn/io/json_file.hpp"

#include "kattn/core/error.hpp"

#include <cstdio>
#include <fstream>

namespace kattn {

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw FileFormatError(path, "cannot open " + what);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw FileFormatError(path, std::string("not valid JSON: ") + e.what());
  }
}

nlohmann::json parse_json_text(const std::string& text, const std::string& source) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw FileFormatError(source, std::string("not valid JSON: ") + e.what());
  }
}

void write_json_file(const std::string& path, const nlohmann::json& doc, int indent, const std::string& what) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    out << doc.dump(indent) << "\n";
    if (!out) {
      std::remove(temporary.c_str());
      throw FileFormatError(path, "cannot write " + what);
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw FileFormatError(path, "cannot move " + what + " into place");
  }
}

}  // namespace kattn
