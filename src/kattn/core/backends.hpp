// The Kokkos backends kattn's launch path is built for: KATTN_FOR_EACH_BACKEND(F) expands F(Space)
// once for each of Serial, OpenMP, Cuda and HIP that this Kokkos enables, for the explicit
// instantiations in the library's .cpp files (the templates stay out of the headers). A host
// build holds Serial and OpenMP, the H100 build Serial and Cuda; the default ExecutionSpace is
// one of them (checked below).
#pragma once

#include "kattn/core/execution_space.hpp"

#include <type_traits>

#if defined(KOKKOS_ENABLE_SERIAL)
#define KATTN_ON_SERIAL(F) F(Kokkos::Serial)
#else
#define KATTN_ON_SERIAL(F)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
#define KATTN_ON_OPENMP(F) F(Kokkos::OpenMP)
#else
#define KATTN_ON_OPENMP(F)
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#define KATTN_ON_CUDA(F) F(Kokkos::Cuda)
#else
#define KATTN_ON_CUDA(F)
#endif
#if defined(KOKKOS_ENABLE_HIP)
#define KATTN_ON_HIP(F) F(Kokkos::HIP)
#else
#define KATTN_ON_HIP(F)
#endif

#define KATTN_FOR_EACH_BACKEND(F) KATTN_ON_SERIAL(F) KATTN_ON_OPENMP(F) KATTN_ON_CUDA(F) KATTN_ON_HIP(F)

// KATTN_FOR_EACH_STORAGE_ON(F, Space) expands F(Space, Q, Cache, Out) for each storage combination
// kattn is built for (see dispatch_storage): q fp32, fp16 or bf16; the cache and out each q's type
// or fp8.
#define KATTN_STORAGE_OF_Q_ON(F, Space, Q) \
  F(Space, Q, Q, Q) F(Space, Q, Q, fp8_e4m3_t) F(Space, Q, fp8_e4m3_t, Q) F(Space, Q, fp8_e4m3_t, fp8_e4m3_t)
#define KATTN_FOR_EACH_STORAGE_ON(F, Space) \
  KATTN_STORAGE_OF_Q_ON(F, Space, float) KATTN_STORAGE_OF_Q_ON(F, Space, fp16_t) KATTN_STORAGE_OF_Q_ON(F, Space, bf16_t)

namespace kattn::backends_detail {
template <class Space>
constexpr bool built_for() {
  bool found = false;
#define KATTN_MATCHES(S) found = found || std::is_same<Space, S>::value;
  KATTN_FOR_EACH_BACKEND(KATTN_MATCHES)
#undef KATTN_MATCHES
  return found;
}
static_assert(built_for<ExecutionSpace>(), "KATTN_EXECUTION_SPACE must be Serial, OpenMP, Cuda or HIP");
}  // namespace kattn::backends_detail
