// libFuzzer target: a kattn problem file, mutated from real small ones by hdf5_mutator.cpp.
// Reading must return validated cases or throw FileFormatError, closing every HDF5 handle either
// way; `kattn run` on a readable file must exit 0 and write its output file, or exit 3
// (NotSupported) and write none. Anything else (a crash, another exception, a sanitizer report,
// a leak, a leaked handle, a wrong exit code, an output file after an error) aborts.
#include "kattn/core/error.hpp"
#include "kattn/io/reference_file.hpp"
#include "kattn/problem/validate.hpp"
#include "tools/commands.hpp"

#include <hdf5.h>
#include <Kokkos_Core.hpp>

#include <unistd.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

// One directory per process: ctest and -jobs=N run several fuzzers at once.
const std::string& scratch_dir() {
  static const std::string dir = [] {
    const std::string d = std::filesystem::temp_directory_path().string() + "/kattn-fuzz-" + std::to_string(::getpid());
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "fuzz_problem_file: %s\n", why.c_str());
  std::abort();
}

void require_no_open_handles(const char* after) {
  if (const ssize_t open = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL); open != 0)
    fail(std::to_string(open) + " HDF5 handles left open after " + after);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Kokkos::initialize();
  scratch_dir();  // constructed before the handler below is registered, so destroyed after it runs
  std::atexit([] {
    Kokkos::finalize();
    std::filesystem::remove_all(scratch_dir());
  });
  // `kattn run` reports each success on stdout; libFuzzer reports on stderr.
  if (!std::freopen("/dev/null", "w", stdout)) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input = scratch_dir() + "/input.h5";
  const std::string output = scratch_dir() + "/output.h5";
  std::ofstream(input, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), std::streamsize(size));

  std::string case_name;
  try {
    const std::vector<kattn::ProblemCase> cases = kattn::read_problem_file(input);
    for (const kattn::ProblemCase& c : cases) kattn::validate(c.problem);  // an InvalidProblem here escapes: a bug
    case_name = cases.back().name;
  } catch (const kattn::FileFormatError&) {
  }
  require_no_open_handles("reading");

  if (!case_name.empty()) {
    const char* argv[] = {"kattn",    "run",          "--input", input.c_str(),
                          "--output", output.c_str(), "--case",  case_name.c_str()};
    const int code = kattn::cli::main(8, const_cast<char**>(argv));
    const bool written = std::filesystem::exists(output);
    if (!(code == kattn::cli::kSuccess && written) && !(code == kattn::cli::kNotSupported && !written))
      fail("kattn run on a readable file exited " + std::to_string(code) + (written ? " with" : " without") +
           " an output file");
    require_no_open_handles("kattn run");
    std::filesystem::remove(output);
  }
  return 0;
}
