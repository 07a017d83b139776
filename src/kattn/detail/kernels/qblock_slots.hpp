// The Q blocks of a Q-block launch, found by each work item itself: sequence s's Q blocks take the
// slots from block_q.div(cu_seqlens_q(s)) + s on (counted from the part's first sequence), so an
// item's slot gives its sequence by a search of cu_seqlens_q alone (owner_of), and its rows by that
// sequence's offsets and length. The paper (4.4, 6.1) searches a tensor of cumulative Q-block
// counts built before the launch; vLLM's kernel counts slots from cu_seqlens_q as here. No table is
// written before the launch: the one-team kernel that had written one cost b16 512 ~7 µs of 130 on
// the H200 (its launch, its run and the wait for it; 2026-12-01). A sequence of query_len tokens
// takes ceil(query_len / block_q) slots or one more (and a sequence of none one): the spare slots
// are empty items, at most one a sequence.
#pragma once

#include "kattn/detail/kernels/kernel_args.hpp"
#include "kattn/detail/tiles/qblock_tile_ops.hpp"

namespace kattn {

struct QBlockSlots {
  FastDivisor block_q;             // query tokens a Q block
  int first_seq = 0, end_seq = 0;  // the launch's sequences, [first_seq, end_seq)
  int first_slot = 0;              // slot_of(first_seq), from the part's first token (the host knows it)
  // A static grid's claiming teams (operator() of the claiming kernels): [0] the items claimed,
  // [1] the teams done; two of the workspace's counters, zero at rest: the last team done puts
  // both back. Null: the teams take their items by stride.
  std::int32_t* claims = nullptr;

  template <class CuSeqlens>
  KOKKOS_INLINE_FUNCTION int slot_of(const CuSeqlens& cu_seqlens_q, int seq) const {
    return block_q.div(cu_seqlens_q(seq)) + seq;
  }

  QBlockSlots() = default;
  QBlockSlots(int block_tokens, int first, int end, int first_token, std::int32_t* claim_counters)
      : block_q(block_tokens),
        first_seq(first),
        end_seq(end),
        first_slot(first_token / block_tokens + first),
        claims(claim_counters) {}

  // The launch's slots (read on the device, so that one static-grid launch shape serves any batch).
  template <class CuSeqlens>
  KOKKOS_INLINE_FUNCTION int count(const CuSeqlens& cu_seqlens_q) const {
    return slot_of(cu_seqlens_q, end_seq) - first_slot;
  }

  // The last sequence of [first_seq, end_seq) whose slots start at slot `at` or before (absolute:
  // slot_of's count). Contract: the lanes of a warp that call it together pass the same `at`. On
  // CUDA they vote: each reads the start of one of as many strides of the range as there are lanes,
  // a ballot keeps the stride that holds `at`, one load a round (one round up to 32 sequences, two
  // up to 1,024); a binary search took a dependent load a halving and cost b16 512 ~5 % of its
  // kernel time (2026-12-01). Elsewhere, or a lane alone, the binary search.
  template <class CuSeqlens>
  KOKKOS_INLINE_FUNCTION int owner_of(const CuSeqlens& cu_seqlens_q, int at) const {
    int low = first_seq, count = end_seq - first_seq;  // the owner lies in [low, low + count)
#if defined(__CUDA_ARCH__)
    // Read where used (volatile: hoisted out of an item loop they had held registers across it).
    const unsigned lanes_mask = __activemask();
    unsigned lanes_before;
    asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lanes_before));
    const int lanes = __popc(lanes_mask), rank = __popc(lanes_mask & lanes_before);
    while (lanes > 1 && count > 1) {
      const int step = lanes == 32 ? (count + 31) >> 5 : (count + lanes - 1) / lanes, first = rank * step;
      // The slots' starts rise with the sequence: the lanes whose stride starts at `at` or before
      // are a prefix of the ranks, the last of them holds it (rank 0's always starts there).
      const bool before = first < count && slot_of(cu_seqlens_q, low + first) <= at;
      const int votes = __popc(__ballot_sync(lanes_mask, before));
      const int last = votes > 0 ? votes - 1 : 0;  // none: `at` before the part (a run off its plan)
      low += last * step;
      count = count - last * step < step ? count - last * step : step;
    }
#endif
    while (count > 1) {
      const int half = count / 2;
      if (slot_of(cu_seqlens_q, low + half) <= at) {
        low += half;
        count -= half;
      } else {
        count = half;
      }
    }
    return low;
  }

  // The rows of slot `slot` (of count()); a spare slot's have no valid tokens. Contract: owner_of's.
  template <class Args>
  KOKKOS_INLINE_FUNCTION QBlockRows rows(const Args& args, int slot) const {
    const int at = slot + first_slot;
    const int low = owner_of(args.cu_seqlens_q, at);
    const int query_start = args.cu_seqlens_q(low), query_len = args.cu_seqlens_q(low + 1) - query_start;
    const int first_local = (at - block_q.div(query_start) - low) * block_q.divisor;
    // A slot before the part's first (a run whose leading sequences differ from its plan's) has no rows.
    const int valid = first_local < 0                             ? 0
                      : query_len - first_local < block_q.divisor ? query_len - first_local
                                                                  : block_q.divisor;
    QBlockRows rows;
    rows.seq = low;
    rows.seq_len = args.seq_lens(low);
    rows.context_len = rows.seq_len - query_len;
    rows.first_token = query_start + first_local;
    rows.valid_tokens = valid > 0 ? valid : 0;
    rows.first_position = rows.context_len + first_local;
    rows.queries_per_kv = args.queries_per_kv;
    return rows;
  }
};

}  // namespace kattn
