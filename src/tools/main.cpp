#include "tools/commands.hpp"

#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);  // takes the --kokkos-* flags out of argv
  return kattn::cli::main(argc, argv);
}
