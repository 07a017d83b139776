// The errors kattn's API reports. Every check happens before anything is written to `out`.
#pragma once

#include <stdexcept>
#include <string>

namespace kattn {

// Bad input: names the offending field and value ("seq_lens[3] = 40 ...").
class InvalidProblem : public std::invalid_argument {
 public:
  InvalidProblem(std::string field, const std::string& message)
      : std::invalid_argument("invalid problem: " + field + ": " + message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// A valid request that this build or kernel cannot serve yet.
class NotSupported : public std::runtime_error {
 public:
  explicit NotSupported(const std::string& what) : std::runtime_error("not supported yet: " + what) {}
};

// A malformed or inconsistent input file.
class FileFormatError : public std::runtime_error {
 public:
  FileFormatError(const std::string& path, const std::string& what) : std::runtime_error(path + ": " + what) {}
};

}  // namespace kattn
