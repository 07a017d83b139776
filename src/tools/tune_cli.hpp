// The options of `kattn tune` and its `sweep` and `fit` subcommands (docs/cli.md).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace kattn::cli {

// Adds `tune` to `app`; once parsed, `run` runs whichever of tune, tune sweep, tune fit was given.
// `command` (the whole command line) is recorded in what they write.
CLI::App* add_tune_command(CLI::App& app, const std::string& command, std::function<int()>& run);

}  // namespace kattn::cli
