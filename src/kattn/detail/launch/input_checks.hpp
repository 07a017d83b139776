// Shape (and optionally value) checks of an attention call's inputs and output, before anything
// launches: shared by kattn::attention and a plan's run / capture_run.
#pragma once

#include "kattn/core/error.hpp"
#include "kattn/problem/attention_inputs.hpp"
#include "kattn/problem/validate.hpp"

#include <string>

namespace kattn {

template <class View>
void require_extent(const View& view, int dim, std::int64_t expected, const char* name, const char* what) {
  if (std::int64_t(view.extent(dim)) != expected)
    throw InvalidProblem(name, "extent(" + std::to_string(dim) + ") is " + std::to_string(view.extent(dim)) +
                                   ", expected " + what + " = " + std::to_string(expected));
}

template <class Q, class Cache, class Out, class Memory>
void validate_inputs(const AttentionInputs<Q, Cache, Memory>& in, const AttentionOutput<Out, Memory>& out,
                     const Geometry& g, bool check_values) {
  validate_geometry(g);
  for (int dim = 0; dim < 3; ++dim) require_extent(out, dim, std::int64_t(in.q.extent(dim)), "out", "the extent of q");
  require_extent(in.k_cache, 3, g.head_size, "k_cache", "head_size of q");
  for (int dim = 0; dim < 4; ++dim)
    require_extent(in.v_cache, dim, std::int64_t(in.k_cache.extent(dim)), "v_cache", "the extent of k_cache");
  require_extent(in.block_table, 0, g.num_seqs, "block_table", "num_seqs");
  require_extent(in.cu_seqlens_q, 0, std::int64_t(g.num_seqs) + 1, "cu_seqlens_q", "num_seqs + 1");
  const auto check_cache = [&g](const auto& cache, const char* name) {
    if (cache.stride_3() != 1)
      throw InvalidProblem(std::string(name) + ".stride_head_dim",
                           "must be 1 (contiguous head dimension), got " + std::to_string(cache.stride_3()));
    validate_kv_cache(g,
                      {std::int64_t(cache.stride_0()), std::int64_t(cache.stride_1()), std::int64_t(cache.stride_2())},
                      std::int64_t(cache.span()), name);
  };
  check_cache(in.k_cache, "k_cache");
  check_cache(in.v_cache, "v_cache");
  if (in.prefix_lens.extent(0)) require_extent(in.prefix_lens, 0, g.num_seqs, "prefix_lens", "num_seqs");
  if (in.qq_bias.extent(0) != in.qq_bias.extent(1))
    throw InvalidProblem("qq_bias", "must be square, got " + std::to_string(in.qq_bias.extent(0)) + " × " +
                                        std::to_string(in.qq_bias.extent(1)));
  for (const auto* values : {&in.alibi_slopes, &in.sinks}) {
    const char* name = values == &in.sinks ? "sinks" : "alibi_slopes";
    if (!check_values) {
      validate_head_values(g, nullptr, values->extent(0), name);
      continue;
    }
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), *values);
    validate_head_values(g, host.data(), host.extent(0), name);
  }
  if (check_values && in.qq_bias.span() > 0) {
    const auto qq_bias = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.qq_bias);
    validate_qq_bias_values(qq_bias.data(), qq_bias.span());
  }
}

}  // namespace kattn
