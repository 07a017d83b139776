// Team-scope tile products through Kokkos Kernels' batched team GEMM (KokkosBatched::TeamGemm,
// Algo::Gemm::Blocked: register-blocked inner products), the portable Q-block kernel's products
// on host backends (team_gemm_available()): the scores of a Q block against a K tile, S = Q·Kᵀ,
// and the accumulation acc = diag(alpha)·acc + W·V. Operands are fp32 rows in team scratch:
// Q [block_m][head_size], K and V [count][head_size] (staged in fp32: TeamGemm takes one scalar
// type), S and W [block_m][count], acc [block_m][head_size], alpha [block_m].
//
// Contract: every thread of the team calls, with the operands' writes complete and visible (a
// team barrier before); the caller puts a team barrier between the call and any read of its
// result. Each output is a sum in an order fixed by the shapes: calls are deterministic.
#pragma once

#include "kattn/core/arch.hpp"

#if defined(KATTN_KOKKOS_KERNELS)
#include <KokkosBatched_Gemm_Decl.hpp>
#include <KokkosBatched_Gemm_Team_Impl.hpp>
#endif

namespace kattn {

#if defined(KATTN_KOKKOS_KERNELS)
namespace team_gemm_detail {

// A matrix in the team scratch of Member's space.
template <class Member>
using Matrix = Kokkos::View<float**, Kokkos::LayoutRight, typename Member::execution_space::scratch_memory_space,
                            Kokkos::MemoryUnmanaged>;

template <class Member, class TransB, class A, class B, class C>
KOKKOS_INLINE_FUNCTION void gemm(const Member& team, float beta, const A& a, const B& b, const C& c) {
  KokkosBatched::TeamGemm<Member, KokkosBatched::Trans::NoTranspose, TransB,
                          KokkosBatched::Algo::Gemm::Blocked>::invoke(team, 1.0f, a, b, beta, c);
}

}  // namespace team_gemm_detail

// scores[r][j] = sum over d of q[r][d] · k[j][d], for r < block_m and j < count.
template <class Member>
KOKKOS_INLINE_FUNCTION void team_gemm_scores(const Member& team, int block_m, int count, int head_size, float* q,
                                             float* k, float* scores) {
  using Matrix = team_gemm_detail::Matrix<Member>;
  team_gemm_detail::gemm<Member, KokkosBatched::Trans::Transpose>(
      team, 0.0f, Matrix(q, block_m, head_size), Matrix(k, count, head_size), Matrix(scores, block_m, count));
}

// acc[r][d] = alpha[r] · acc[r][d] + sum over j of weights[r][j] · v[j][d].
template <class Member>
KOKKOS_INLINE_FUNCTION void team_gemm_accumulate(const Member& team, int block_m, int count, int head_size, float* acc,
                                                 const float* alpha, float* weights, float* v) {
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, block_m * head_size),
                       [&](int i) { acc[i] *= alpha[i / head_size]; });
  team.team_barrier();
  using Matrix = team_gemm_detail::Matrix<Member>;
  team_gemm_detail::gemm<Member, KokkosBatched::Trans::NoTranspose>(
      team, 1.0f, Matrix(weights, block_m, count), Matrix(v, count, head_size), Matrix(acc, block_m, head_size));
}
#endif

}  // namespace kattn
