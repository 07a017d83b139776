// Where the tests write files: a directory of this process's own under GoogleTest's TempDir(), so
// that test processes running at once (ctest -j, gtest shards, sanitizer tools side by side) never
// read each other's half-written files. Made on first use, removed when the process exits.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace kattn::test {

inline std::string temp_path(const std::string& name) {
  struct Directory {
    std::string path = ::testing::TempDir() + "kattn_tests_" + std::to_string(::getpid()) + "/";
    Directory() { std::filesystem::create_directories(path); }
    ~Directory() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Directory directory;
  return directory.path + name;
}

}  // namespace kattn::test
