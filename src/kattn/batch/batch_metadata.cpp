#include "kattn/batch/batch_metadata.hpp"

#include "kattn/core/backends.hpp"
#include "kattn/core/compat.hpp"

#include <algorithm>

namespace kattn {
namespace {

// The decode sequences' totals, the others', and the first sequence that is not a decode.
struct SequenceFeatures {
  SequenceTotals decodes, others;
  int first_other;
};

KOKKOS_INLINE_FUNCTION void add_sequence(SequenceFeatures& v, int s, int query_len, int seq_len) {
  SequenceTotals one;
  one.num_seqs = 1;
  one.num_tokens = one.max_query_len = query_len;
  one.total_seq_len = one.max_seq_len = seq_len;
  if (one.num_tokens == 1) {
    v.decodes.add(one);
  } else {
    v.others.add(one);
    if (s < v.first_other) v.first_other = s;
  }
}

BatchMetadata from_features(SequenceFeatures features, int num_seqs) {
  if (num_seqs == 0) features.first_other = 0;
  const int leading =
      features.first_other < features.decodes.num_seqs ? features.first_other : features.decodes.num_seqs;
  return BatchMetadata(features.decodes, features.others, leading);
}

template <class Memory>
struct FeatureReduction {
  using value_type = SequenceFeatures;
  IndexVector<Memory> cu_seqlens_q;
  IndexVector<Memory> seq_lens;
  int num_seqs;

  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = {SequenceTotals{}, SequenceTotals{}, num_seqs}; }
  KOKKOS_INLINE_FUNCTION void join(KATTN_JOIN_VOLATILE value_type& into,
                                   const KATTN_JOIN_VOLATILE value_type& from) const {
    SequenceFeatures sum = const_cast<const value_type&>(into);
    sum.decodes.add(const_cast<const value_type&>(from).decodes);
    sum.others.add(const_cast<const value_type&>(from).others);
    if (from.first_other < sum.first_other) sum.first_other = from.first_other;
    const_cast<value_type&>(into) = sum;
  }
  KOKKOS_INLINE_FUNCTION void operator()(int s, value_type& v) const {
    add_sequence(v, s, cu_seqlens_q(s + 1) - cu_seqlens_q(s), seq_lens(s));
  }
};

}  // namespace

BatchMetadata::BatchMetadata(const SequenceTotals& decode_totals, const SequenceTotals& other_totals, int leading)
    : decodes(decode_totals), others(other_totals) {
  SequenceTotals all = decodes;
  all.add(others);
  num_seqs = all.num_seqs;
  num_tokens = all.num_tokens;
  num_decodes = decodes.num_seqs;
  max_query_len = all.max_query_len;
  max_seq_len = all.max_seq_len;
  leading_decodes = leading;
  if (num_seqs > 0) {
    avg_query_len = double(num_tokens) / num_seqs;
    avg_seq_len = double(all.total_seq_len) / num_seqs;
  }
}

// The parts are exact when every decode leads (leading_decodes == num_decodes), the only case
// the planner splits.
BatchMetadata BatchMetadata::leading_decode_part() const {
  BatchMetadata part(decodes, SequenceTotals{}, decodes.num_seqs);
  part.window_left = window_left;
  return part;
}
BatchMetadata BatchMetadata::after_leading_decodes() const {
  BatchMetadata part(SequenceTotals{}, others, 0);
  part.window_left = window_left;
  return part;
}

template <class Space>
BatchMetadata compute_batch_metadata(const Space& space, const IndexVector<typename Space::memory_space>& cu_seqlens_q,
                                     const IndexVector<typename Space::memory_space>& seq_lens) {
  const int num_seqs = int(seq_lens.extent(0));
  SequenceFeatures features{};  // one reduction, one round trip
  Kokkos::parallel_reduce("kattn::batch_features", Kokkos::RangePolicy<Space>(space, 0, num_seqs),
                          FeatureReduction<typename Space::memory_space>{cu_seqlens_q, seq_lens, num_seqs}, features);
  return from_features(features, num_seqs);
}

BatchMetadata host_batch_metadata(const std::int32_t* cu_seqlens_q, const std::int32_t* seq_lens, int num_seqs) {
  SequenceFeatures features{SequenceTotals{}, SequenceTotals{}, num_seqs};
  for (int s = 0; s < num_seqs; ++s) add_sequence(features, s, cu_seqlens_q[s + 1] - cu_seqlens_q[s], seq_lens[s]);
  return from_features(features, num_seqs);
}

BatchMetadata bounded_batch_metadata(int num_seqs, int num_tokens, int max_query_len, int max_seq_len) {
  const SequenceTotals all = SequenceTotals::at_bounds(num_seqs, num_tokens, max_query_len, max_seq_len);
  return max_query_len <= 1 ? BatchMetadata(all, SequenceTotals{}, num_seqs) : BatchMetadata(SequenceTotals{}, all, 0);
}

template <class Space>
BatchMetadata call_batch_metadata(const Space& space, const IndexVector<typename Space::memory_space>& cu_seqlens_q,
                                  const IndexVector<typename Space::memory_space>& seq_lens,
                                  const AttentionParams& params, bool prefix_lm) {
  BatchMetadata batch = compute_batch_metadata(space, cu_seqlens_q, seq_lens);
  batch.apply_call_window(params, prefix_lm);
  return batch;
}

#define KATTN_INSTANTIATE(Space)                                                                                     \
  template BatchMetadata compute_batch_metadata<Space>(const Space&, const IndexVector<Space::memory_space>&,        \
                                                       const IndexVector<Space::memory_space>&);                     \
  template BatchMetadata call_batch_metadata<Space>(const Space&, const IndexVector<Space::memory_space>&,           \
                                                    const IndexVector<Space::memory_space>&, const AttentionParams&, \
                                                    bool);
KATTN_FOR_EACH_BACKEND(KATTN_INSTANTIATE)
#undef KATTN_INSTANTIATE

int max_q_slots(const BatchMetadata& batch, int block_q) {
  const std::int64_t by_tokens = (std::int64_t(batch.num_tokens) + block_q - 1) / block_q + batch.num_seqs;
  const std::int64_t by_longest = std::int64_t(batch.num_seqs) * ((batch.max_query_len + block_q - 1) / block_q + 1);
  return int(std::min(by_tokens, by_longest));
}

}  // namespace kattn
