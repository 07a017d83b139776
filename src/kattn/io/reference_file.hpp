// kattn's HDF5 files (schema in docs/hdf5-schema.md): a reference file holds many cases, each
// with inputs, parameters and (for references) the oracle output; an output file holds `out`.
#pragma once

#include "kattn/problem/host_problem.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kattn {

inline constexpr std::int64_t kSchemaVersion = 1;

struct ProblemCase {
  std::string name;
  std::string description;
  std::uint64_t seed = 0;  // generator seed; 0 for hand-made problems
  HostProblem problem;
  std::vector<double> expected;  // oracle out, or empty for an inputs-only problem
};

// Writes all cases to `path` atomically: a temporary file is renamed into place only once
// complete, so a failure leaves no file behind.
void write_problem_file(const std::string& path, const std::vector<ProblemCase>& cases);

// Reads and validates every case; throws FileFormatError naming file, case and field.
std::vector<ProblemCase> read_problem_file(const std::string& path);

// Reads and validates only the cases named in `only` (all cases when empty), in that order; the
// other cases are not read, so an invalid one does not stop them. Throws FileFormatError for a
// name the file does not hold, before reading any case.
std::vector<ProblemCase> read_problem_file(const std::string& path, const std::vector<std::string>& only);

// The names of the file's cases, without reading them (checks the schema attributes).
std::vector<std::string> problem_case_names(const std::string& path);

// Writes out [num_tokens, num_q_heads, head_size] (float32) with its case name and dtype, atomically.
void write_output_file(const std::string& path, const ProblemCase& source, const std::vector<float>& out,
                       const std::string& variant);

}  // namespace kattn
