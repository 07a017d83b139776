#include "tools/commands.hpp"

#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#include <unistd.h>
#endif

namespace {

// Kokkos' OpenMP backend warns on every start when OMP_PROC_BIND is unset (Kokkos 3 and 4 alike):
// kattn sets the binding Kokkos recommends, spread over OMP_PLACES=threads, unless the user has set
// OMP_PROC_BIND (a set OMP_PLACES is kept too). LLVM's OpenMP runtime reads the environment at its
// first use, so the values count at once; GNU's reads it when the program loads, so there kattn
// starts itself again with them (docs/cli.md). Should that fail it runs on, unbound and unwarned.
void bind_openmp_threads(char** argv) {
#if defined(KOKKOS_ENABLE_OPENMP)
  if (std::getenv("OMP_PROC_BIND")) return;
  setenv("OMP_PROC_BIND", "spread", 1);
  setenv("OMP_PLACES", "threads", 0);
  if (omp_get_proc_bind() != omp_proc_bind_spread) execv("/proc/self/exe", argv);
#else
  (void)argv;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  bind_openmp_threads(argv);
  // Kokkos sees only its --kokkos-* flags: it acts on the unprefixed ones too (--help, --threads=N),
  // and --help would print its option list before kattn's.
  std::vector<char*> kokkos_args{argv[0]}, kattn_args{argv[0]};
  bool kokkos_help = false;
  for (int i = 1; i < argc; ++i) {
    const bool for_kokkos = std::strncmp(argv[i], "--kokkos-", 9) == 0;
    kokkos_help = kokkos_help || std::strcmp(argv[i], "--kokkos-help") == 0;
    (for_kokkos ? kokkos_args : kattn_args).push_back(argv[i]);
  }
  int kokkos_argc = int(kokkos_args.size());
  const int kattn_argc = int(kattn_args.size());
  kokkos_args.push_back(nullptr);
  kattn_args.push_back(nullptr);
  Kokkos::ScopeGuard kokkos(kokkos_argc, kokkos_args.data());
  if (kokkos_help && kattn_argc == 1) return kattn::cli::kSuccess;  // Kokkos printed its options
  return kattn::cli::main(kattn_argc, kattn_args.data());
}
