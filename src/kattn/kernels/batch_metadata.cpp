#include "kattn/kernels/batch_metadata.hpp"

#include "kattn/core/compat.hpp"

namespace kattn {
namespace {

struct SequenceFeatures {
  std::int64_t total_seq_len;
  int num_tokens;
  int num_decodes;
  int max_query_len;
  int max_seq_len;
};

struct FeatureReduction {
  using value_type = SequenceFeatures;
  IndexVector cu_seqlens_q;
  IndexVector seq_lens;

  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = {0, 0, 0, 0, 0}; }
  KOKKOS_INLINE_FUNCTION void join(KATTN_JOIN_VOLATILE value_type& into,
                                   const KATTN_JOIN_VOLATILE value_type& from) const {
    into.total_seq_len += from.total_seq_len;
    into.num_tokens += from.num_tokens;
    into.num_decodes += from.num_decodes;
    if (from.max_query_len > into.max_query_len) into.max_query_len = from.max_query_len;
    if (from.max_seq_len > into.max_seq_len) into.max_seq_len = from.max_seq_len;
  }
  KOKKOS_INLINE_FUNCTION void operator()(int s, value_type& v) const {
    const int query_len = cu_seqlens_q(s + 1) - cu_seqlens_q(s);
    v.total_seq_len += seq_lens(s);
    v.num_tokens += query_len;
    v.num_decodes += query_len == 1 ? 1 : 0;
    if (query_len > v.max_query_len) v.max_query_len = query_len;
    if (seq_lens(s) > v.max_seq_len) v.max_seq_len = seq_lens(s);
  }
};

struct QBlockScan {
  IndexVector cu_seqlens_q;
  Kokkos::View<std::int32_t*, Kokkos::LayoutRight, MemorySpace> cu_q_blocks;
  int block_q;

  KOKKOS_INLINE_FUNCTION void operator()(int s, std::int32_t& running, bool final) const {
    if (final && s == 0) cu_q_blocks(0) = 0;
    running += (cu_seqlens_q(s + 1) - cu_seqlens_q(s) + block_q - 1) / block_q;
    if (final) cu_q_blocks(s + 1) = running;
  }
};

}  // namespace

BatchMetadata compute_batch_metadata(const ExecutionSpace& space, const IndexVector& cu_seqlens_q, const IndexVector& seq_lens) {
  BatchMetadata m;
  m.num_seqs = int(seq_lens.extent(0));
  SequenceFeatures features{0, 0, 0, 0, 0};  // one reduction, one round trip
  Kokkos::parallel_reduce("kattn::batch_features", Kokkos::RangePolicy<ExecutionSpace>(space, 0, m.num_seqs),
                          FeatureReduction{cu_seqlens_q, seq_lens}, features);
  m.num_tokens = features.num_tokens;  // = cu_seqlens_q[num_seqs], as cu_seqlens_q[0] is 0
  m.num_decodes = features.num_decodes;
  m.max_query_len = features.max_query_len;
  m.max_seq_len = features.max_seq_len;
  if (m.num_seqs > 0) {
    m.avg_query_len = double(m.num_tokens) / m.num_seqs;
    m.avg_seq_len = double(features.total_seq_len) / m.num_seqs;
  }
  return m;
}

int build_q_block_offsets(const ExecutionSpace& space, const IndexVector& cu_seqlens_q, int block_q,
                          const Kokkos::View<std::int32_t*, Kokkos::LayoutRight, MemorySpace>& cu_q_blocks) {
  std::int32_t total = 0;
  const int num_seqs = int(cu_seqlens_q.extent(0)) - 1;
  Kokkos::parallel_scan("kattn::q_block_offsets", Kokkos::RangePolicy<ExecutionSpace>(space, 0, num_seqs),
                        QBlockScan{cu_seqlens_q, cu_q_blocks, block_q}, total);
  if (num_seqs == 0) Kokkos::deep_copy(space, cu_q_blocks, 0);
  return total;
}

}  // namespace kattn
