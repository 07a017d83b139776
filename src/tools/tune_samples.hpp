// What `kattn tune sweep` times per scenario case: the batches the tuning table is asked about.
// plan_call runs a mixed batch's leading decodes apart from the rest, each planned as the batch it
// would be alone, where the whole batch's leaf says so (split_decodes): such a case gives three
// samples, the whole batch (split or fused) and the two parts; any other case is one.
#pragma once

#include "kattn/batch/batch_metadata.hpp"
#include "kattn/problem/host_problem.hpp"

#include <string>
#include <vector>

namespace kattn::cli {

struct TuneSample {
  std::string name;  // "<case>", and for a mixed case "<case>[decodes]" and "<case>[rest]"
  std::string part;  // "whole", "decodes", "rest"
  HostProblem problem;
  BatchMetadata batch;  // what the table is asked about this sample (the call's metadata of `problem`)
};

// Sequences [first, first + count) as a batch of their own: q rows, cu_seqlens_q (rebased),
// seq_lens, prefix_lens and block-table rows sliced; the KV cache and per-head tensors shared.
HostProblem slice_sequences(const HostProblem& p, int first, int count);

// The scenario's case a sample came from: its name without the "-<dtype>" a "dtypes" list appends,
// so that both dtypes of a case go together (the fit's cross-validation folds).
std::string scenario_case(const std::string& case_name, const std::string& dtype);

std::vector<TuneSample> tune_samples(const std::string& case_name, const HostProblem& problem);

}  // namespace kattn::cli
