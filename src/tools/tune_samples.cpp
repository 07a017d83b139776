#include "tools/tune_samples.hpp"

#include "kattn/harness/device_problem.hpp"

#include <stdexcept>

namespace kattn::cli {
namespace {

template <class T>
std::vector<T> slice(const std::vector<T>& v, std::size_t from, std::size_t to) {
  return v.empty() ? v : std::vector<T>(v.begin() + std::ptrdiff_t(from), v.begin() + std::ptrdiff_t(to));
}

}  // namespace

HostProblem slice_sequences(const HostProblem& p, int first, int count) {
  const Geometry& g = p.geometry;
  if (first < 0 || count < 1 || first + count > g.num_seqs)
    throw std::invalid_argument("sequences " + std::to_string(first) + " + " + std::to_string(count) +
                                " are not within the batch's " + std::to_string(g.num_seqs));
  HostProblem part = p;
  const std::size_t s0 = std::size_t(first), s1 = std::size_t(first + count);
  const int token0 = p.cu_seqlens_q[s0], token1 = p.cu_seqlens_q[s1];
  part.geometry.num_seqs = count;
  part.geometry.num_tokens = token1 - token0;
  part.cu_seqlens_q.clear();
  for (std::size_t s = s0; s <= s1; ++s) part.cu_seqlens_q.push_back(p.cu_seqlens_q[s] - token0);
  part.seq_lens = slice(p.seq_lens, s0, s1);
  part.prefix_lens = slice(p.prefix_lens, s0, s1);
  const std::size_t row = std::size_t(g.max_blocks_per_seq);
  part.block_table = slice(p.block_table, s0 * row, s1 * row);
  const std::size_t token_elements = std::size_t(g.num_q_heads) * std::size_t(g.head_size);
  part.q = slice(p.q, std::size_t(token0) * token_elements, std::size_t(token1) * token_elements);
  return part;
}

std::string scenario_case(const std::string& name, const std::string& dtype) {
  const std::string suffix = "-" + dtype;
  const bool suffixed =
      name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  return suffixed ? name.substr(0, name.size() - suffix.size()) : name;
}

std::vector<TuneSample> tune_samples(const std::string& case_name, const HostProblem& problem) {
  const BatchMetadata batch = problem_batch_metadata(problem);
  if (!batch.decodes_lead()) return {{case_name, "whole", problem, batch}};
  const int decodes = batch.leading_decodes;  // the parts' metadata are exact when the decodes lead
  return {{case_name, "whole", problem, batch},
          {case_name + "[decodes]", "decodes", slice_sequences(problem, 0, decodes), batch.leading_decode_part()},
          {case_name + "[rest]", "rest", slice_sequences(problem, decodes, problem.geometry.num_seqs - decodes),
           batch.after_leading_decodes()}};
}

}  // namespace kattn::cli
