// What kattn knows of each architecture it builds for, in one table: the one vocabulary of
// architecture names (the presets', the tuning tables' data/tuning/<name>.json, the hardware
// files' data/hardware/<name>.json and the hardware models' data/hardware/models/<name>.json) and
// which tile products, register-row kernels and asynchronous copies exist there. Device code
// still guards its instructions by __CUDA_ARCH__ (a fact of one compile pass); which kernels the
// planner may choose, and with how many lanes, is read from here.
#pragma once

#include "kattn/core/execution_space.hpp"

#include <string_view>

namespace kattn {

enum class Arch { cpu, a100, h100, mi250, mi300 };

struct ArchTraits {
  Arch arch;
  std::string_view name;         // presets, tuning tables, hardware files and models
  std::string_view kokkos_arch;  // the Kokkos option of its preset (Kokkos_ARCH_<this>)
  bool mma_sync;                 // CUDA mma.sync m16n8k16 tile products (tiles/tile_mma.hpp)
  bool mfma;                     // AMD MFMA 16x16x16 tile products (tiles/tile_mfma.hpp)
  bool async_copy;               // cp.async K/V staging (tiles/warp_stage.hpp, tiles/team_stage.hpp)
  bool warpgroup_mma;            // Hopper's wgmma (tiles/warpgroup_mma.hpp), in sm_90a code only
};

inline constexpr ArchTraits kArchTable[] = {
    // arch, name, Kokkos option, mma.sync, mfma, cp.async, wgmma
    {Arch::cpu, "cpu", "", false, false, false, false},
    {Arch::a100, "a100", "AMPERE80", true, false, true, false},
    {Arch::h100, "h100", "HOPPER90", true, false, true, true},
    {Arch::mi250, "mi250", "AMD_GFX90A", false, true, false, false},
    {Arch::mi300, "mi300", "AMD_GFX942", false, true, false, false},
};

constexpr bool arch_rows_in_order() {
  for (int i = 0; i < int(sizeof(kArchTable) / sizeof(kArchTable[0])); ++i)
    if (int(kArchTable[i].arch) != i) return false;
  return true;
}
static_assert(arch_rows_in_order(), "kArchTable's rows follow Arch's order");

constexpr const ArchTraits& arch_traits(Arch arch) { return kArchTable[int(arch)]; }

// This build's architecture, from Kokkos' architecture macros: the one list of them. Ampere and
// Hopper parts other than the A100 and H100 take their family's row; gfx940 stands in for gfx942
// where the compiler lacks it (the mi300-compile-check preset).
constexpr Arch build_arch_id() {
#if defined(KOKKOS_ARCH_HOPPER)
  return Arch::h100;
#elif defined(KOKKOS_ARCH_AMPERE)
  return Arch::a100;
#elif defined(KOKKOS_ARCH_AMD_GFX942) || defined(KOKKOS_ARCH_AMD_GFX940)
  return Arch::mi300;
#elif defined(KOKKOS_ARCH_AMD_GFX90A)
  return Arch::mi250;
#else
  return Arch::cpu;
#endif
}

constexpr const ArchTraits& build_arch_traits() { return arch_traits(build_arch_id()); }

// The name of this build's architecture: its tuning table, hardware file and model.
constexpr std::string_view build_arch() { return build_arch_traits().name; }

// The architecture Space's kernels run on, whose tuning table plans them: the build's for its GPU
// backend, the host's (cpu) for a host space.
template <class Space = ExecutionSpace>
constexpr std::string_view kernels_arch() {
  return device_backend<Space>() ? build_arch() : arch_traits(Arch::cpu).name;
}

// Whether Space's kernels run their tile products on tensor cores (NVIDIA) or matrix cores (AMD):
// only the build's GPU backend has a row of the table above; a Serial instance of a CUDA build
// takes none of its kernels.
template <class Space = ExecutionSpace>
constexpr bool tensor_cores_available() {
  return device_backend<Space>() && (build_arch_traits().mma_sync || build_arch_traits().mfma);
}

// Lanes of the thread that issues one product: a warp (32) or a wavefront (64), the backend's.
constexpr int tensor_core_lanes() {
#if defined(KOKKOS_ENABLE_HIP)
  return 64;
#else
  return 32;
#endif
}

// Whether the register-row kernels run here: their fragments follow mma.sync's layout and their
// K/V tiles come by cp.async.
template <class Space = ExecutionSpace>
constexpr bool register_rows_available() {
  return tensor_cores_available<Space>() && build_arch_traits().mma_sync && build_arch_traits().async_copy;
}

// Whether this build has the warpgroup products: the architecture has them and kattn's device code
// is sm_90a (KATTN_CUDA_ARCH defines KATTN_WARPGROUP_MMA).
template <class Space = ExecutionSpace>
constexpr bool warpgroup_mma_available() {
#if defined(KATTN_WARPGROUP_MMA)
  return register_rows_available<Space>() && build_arch_traits().warpgroup_mma;
#else
  return false;
#endif
}

// Whether the portable Q-block products run through Kokkos Kernels' batched team products
// (KokkosBatched::TeamGemm, tiles/team_gemm.hpp): the build found Kokkos Kernels
// (KATTN_KOKKOS_KERNELS) and the kernels run on a host backend, where they measured faster than
// the hand-written loops; on the H100 they measured 2.8–8× slower (docs/performance.md).
template <class Space = ExecutionSpace>
constexpr bool team_gemm_available() {
#if defined(KATTN_KOKKOS_KERNELS)
  return host_backend<Space>();
#else
  return false;
#endif
}

}  // namespace kattn
