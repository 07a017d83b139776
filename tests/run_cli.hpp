// Runs this build's `kattn` command (KATTN_CLI_PATH) for the tests of the command line.
#pragma once

#include "temp_files.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace kattn::test {

struct CliResult {
  int exit_code;
  std::string output;  // stdout and stderr
};

// `directory`: the working directory to run it in (empty: this process's).
inline CliResult run_cli_in(const std::string& directory, const std::string& arguments) {
  // The command's output goes through a file of this process's own (temp_files.hpp), one a test.
  const std::string log =
      temp_path("kattn_cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".log");
  const std::string command = (directory.empty() ? "" : "cd '" + directory + "' && ") + std::string(KATTN_CLI_PATH) +
                              " " + arguments + " > " + log + " 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
}

inline CliResult run_cli(const std::string& arguments) { return run_cli_in("", arguments); }

}  // namespace kattn::test
