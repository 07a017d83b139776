// Batch features computed once per call (paper 6.1): they drive the launch plan.
#pragma once

#include "kattn/problem/geometry.hpp"
#include "kattn/problem/validate.hpp"

namespace kattn {

struct BatchMetadata {
  int num_seqs = 0;
  int num_tokens = 0;
  int num_decodes = 0;  // sequences with query length 1
  int max_query_len = 0;
  int max_seq_len = 0;
  double avg_query_len = 0.0;
  double avg_seq_len = 0.0;

  double decode_share() const { return num_seqs > 0 ? double(num_decodes) / num_seqs : 0.0; }
};

BatchMetadata compute_batch_metadata(const Geometry& g, const BatchIndexHost& index);

}  // namespace kattn
