// The `kattn` command line (docs/cli.md). Each command returns the process exit code.
#pragma once

namespace kattn::cli {

enum ExitCode : int {
  kSuccess = 0,
  kValidationFailed = 1,  // a kernel output differs from the reference beyond tolerance
  kBadInput = 2,          // bad usage, malformed file or invalid problem; nothing was written
  kNotSupported = 3,      // a valid request this build cannot serve yet
};

int main(int argc, char** argv);

}  // namespace kattn::cli
