// Runs this build's `kattn` command (KATTN_CLI_PATH) for the tests of the command line.
#pragma once

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

inline CliResult run_cli(const std::string& arguments) {
  // ctest runs tests in parallel processes: one log per test.
  const std::string log = ::testing::TempDir() + "kattn_cli_" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".log";
  const std::string command = std::string(KATTN_CLI_PATH) + " " + arguments + " > " + log + " 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
}

}  // namespace kattn::test
