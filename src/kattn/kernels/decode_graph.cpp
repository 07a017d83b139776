#include "kattn/kernels/decode_graph.hpp"

#include "kattn/kernels/batch_metadata.hpp"
#include "kattn/kernels/input_checks.hpp"
#include "kattn/kernels/part_launch.hpp"
#include "kattn/tiles/tile_mma.hpp"

#include <string>

namespace kattn {

template <class T>
DecodeGraph<T>::DecodeGraph(const AttentionInputs<T, T>& buffers, const AttentionParams& params,
                            const AttentionOutput<T>& out, int max_seq_len, const AttentionOptions& options) {
  const Geometry g = buffers.geometry();
  validate_inputs(buffers, out, g, false);
  validate_params(params);
  if (g.num_tokens != g.num_seqs)
    throw InvalidProblem("q", "a decode graph takes one query token per sequence: extent(0) is " +
                                  std::to_string(g.num_tokens) + ", num_seqs is " + std::to_string(g.num_seqs));
  const std::int64_t table_keys = std::int64_t(g.max_blocks_per_seq) * g.block_size;
  if (max_seq_len < 1 || max_seq_len > table_keys)
    throw InvalidProblem("max_seq_len", std::to_string(max_seq_len) + " is outside [1, block_table columns × block_size = " +
                                            std::to_string(table_keys) + "]");

  SequenceTotals decodes;
  decodes.num_seqs = decodes.num_tokens = g.num_seqs;
  decodes.max_query_len = 1;
  decodes.max_seq_len = max_seq_len;
  decodes.total_seq_len = std::int64_t(g.num_seqs) * max_seq_len;
  BatchMetadata batch(decodes, SequenceTotals{}, g.num_seqs);
  batch.apply_call_window(params, buffers.prefix_lens.extent(0) > 0);
  AttentionOptions planned = options;
  if (!planned.variant) planned.variant = Variant::split_kv;
  if (*planned.variant != Variant::split_kv)
    throw NotSupported("decode graphs capture the split_kv variant, not " + std::string(to_string(*planned.variant)) +
                       " (the Q-block launches size their grid from the batch on the host)");
  plan_ = plan_launch(batch, g, sizeof(T), tensor_core_operands<T, T>(), planned);

  Workspace::Layout layout;
  const PartLaunch part(plan_, batch, 0, g.num_seqs, 0, g.num_tokens, g, layout);
  const Workspace::Buffers workspace = workspace_.commit(layout);
  const auto args = make_kernel_args(buffers, params, out);
  const ExecutionSpace space = options.space.value_or(ExecutionSpace());
  graph_ = Kokkos::Experimental::create_graph(space, [&](const auto& root) {
    GraphLaunches launches{space, root};
    launch_split_kv(launches, args, g, part, workspace);
  });
}

template class DecodeGraph<float>;
template class DecodeGraph<fp16_t>;
template class DecodeGraph<bf16_t>;

}  // namespace kattn
