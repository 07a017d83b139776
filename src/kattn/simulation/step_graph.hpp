// Graph replay of simulated steps (paper 6.2): a step's bounded shape, and the buffers of one
// shape with capture_run's graph over them. Any step replays, decode-only and mixed alike, on
// every variant: it is written into the buffers of its shape, padded, and the graph is replayed.
#pragma once

#include "kattn/attention.hpp"
#include "kattn/problem/host_problem.hpp"

#include <optional>
#include <tuple>

namespace kattn::sim {

// The shape a step is replayed at; steps of one shape share a graph. The decodes run apart when
// they all lead (as the eager call's plan splits them), padded to 1, 2, 4 or a multiple of 8 slots
// (vLLM's capture sizes); the other sequences get a power of two of slots above their count (the
// spare holds the padding tokens) and a power of two of token rows; each part's longest seq_len
// is rounded up to a power of two.
struct GraphShape {
  int decodes = 0;       // decode slots, first; 0 when the step has no decodes or they do not all lead
  int decode_keys = 0;   // bound on the decodes' seq_len
  int other_seqs = 0;    // slots of the other sequences, after the decodes
  int other_tokens = 0;  // their token rows
  int other_keys = 0;    // bound on their seq_len

  static GraphShape of(const HostProblem& step);
  int num_seqs() const { return decodes + other_seqs; }
  int num_tokens() const { return decodes + other_tokens; }
  // What the plan is made for: every sequence of a part at the part's bounds, the decodes leading.
  BatchMetadata bounds() const;

  auto key() const { return std::tie(decodes, decode_keys, other_seqs, other_tokens, other_keys); }
  bool operator<(const GraphShape& o) const { return key() < o.key(); }
  bool operator==(const GraphShape& o) const { return key() == o.key(); }
};

// The buffers of one shape and the graph captured over them, once. Padding sees no key: a padding
// sequence has seq_len 0, so its queries sit before its start (negative positions), where the
// causal mask (or, without it, seq_len) leaves nothing visible and the kernels write zero rows.
// Padding decodes are one-token sequences (the decode part owns one token per slot); the padding
// tokens of the other part belong to the first spare slot after its sequences (a token past the
// last sequence's queries would be the last sequence's, which would then see its whole context);
// the remaining slots are empty. T: float, fp16_t or bf16_t (q, cache and out).
template <class T>
class StepGraph {
 public:
  // pool: the KV cache (and per-head features) every step reads; its q gives the head counts.
  // options: the caller's overrides (a forced variant). Throws as plan_attention does.
  StepGraph(const GraphShape& shape, const AttentionInputs<T, T>& pool, const AttentionParams& params,
            const AttentionOptions& options = {});

  // Writes a step of this shape into the buffers: its index tensors from `step`, its q from
  // step_inputs.q (on the device). Throws std::invalid_argument for a step of another shape.
  void load(const HostProblem& step, const AttentionInputs<T, T>& step_inputs);
  // Asynchronous like kattn::run.
  void replay() const { graph_->replay(); }

  const GraphShape& shape() const { return shape_; }
  const AttentionPlan& plan() const { return graph_->plan(); }
  // Rows: the step's decodes from 0, its other tokens from shape().decodes; the rest is padding.
  const AttentionOutput<T>& out() const { return out_; }

 private:
  using Index1 = Kokkos::View<std::int32_t*, Kokkos::LayoutRight, MemorySpace>;
  using Index2 = Kokkos::View<std::int32_t**, Kokkos::LayoutRight, MemorySpace>;

  GraphShape shape_;
  Kokkos::View<T***, Kokkos::LayoutRight, MemorySpace> q_;
  AttentionOutput<T> out_;
  Index2 block_table_;
  Index1 cu_seqlens_q_, seq_lens_;
  // Host staging, made once (load runs every step).
  typename Index2::HostMirror table_host_;
  typename Index1::HostMirror cu_host_, seq_lens_host_;
  Workspace workspace_;  // its own: a shared one may grow and move under the graph
  std::optional<AttentionGraph> graph_;
};

}  // namespace kattn::sim
