// The Q blocks of a Q-block launch as its work items find them (QBlockSlots, qblock_slots.hpp):
// over every slot of a part, the real Q blocks in order, each once, with their sequence and rows
// as a count on the host gives them, at most one spare slot a sequence, which has no rows, and
// never more slots than max_q_slots allows the part's bounds; up to 32 sequences and past them
// (one round of the warps' vote on CUDA, and two or three). On each backend of the build
// (test_space.hpp).
#include "kattn/batch/batch_metadata.hpp"
#include "kattn/detail/kernels/qblock_slots.hpp"
#include "test_space.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <random>
#include <vector>

namespace kattn {
namespace {

struct Batch {
  std::vector<int> query_lens, context_lens;
};

struct Rows {
  int seq, seq_len, context_len, first_token, valid_tokens, first_position;
};

bool operator==(const Rows& a, const Rows& b) {
  return a.seq == b.seq && a.seq_len == b.seq_len && a.context_len == b.context_len && a.first_token == b.first_token &&
         a.valid_tokens == b.valid_tokens && a.first_position == b.first_position;
}

std::ostream& operator<<(std::ostream& os, const Rows& r) {
  return os << "{seq " << r.seq << ", seq_len " << r.seq_len << ", context " << r.context_len << ", first token "
            << r.first_token << ", valid " << r.valid_tokens << ", first position " << r.first_position << "}";
}

// What QBlockSlots::rows reads of a kernel's arguments.
struct SlotArgs {
  Kokkos::View<const std::int32_t*, test::Memory> cu_seqlens_q, seq_lens;
  FastDivisor queries_per_kv;
};

// The rows of every slot of the part, as a launch's items find them on the device.
std::vector<Rows> slot_rows(const Batch& batch, int block_q, int first_seq, int end_seq) {
  const int num_seqs = int(batch.query_lens.size());
  Kokkos::View<std::int32_t*, test::Memory> cu("cu", num_seqs + 1), lens("lens", num_seqs);
  const auto cu_host = Kokkos::create_mirror_view(cu);
  const auto lens_host = Kokkos::create_mirror_view(lens);
  for (int s = 0; s < num_seqs; ++s) {
    cu_host(s + 1) = cu_host(s) + batch.query_lens[std::size_t(s)];
    lens_host(s) = batch.context_lens[std::size_t(s)] + batch.query_lens[std::size_t(s)];
  }
  Kokkos::deep_copy(cu, cu_host);
  Kokkos::deep_copy(lens, lens_host);
  const SlotArgs args{cu, lens, FastDivisor(1)};
  const QBlockSlots slots(block_q, first_seq, end_seq, cu_host(first_seq), nullptr);
  Kokkos::View<int, test::Memory> count("count");
  Kokkos::parallel_for(
      Kokkos::RangePolicy<test::Space>(0, 1), KOKKOS_LAMBDA(int) { count() = slots.count(args.cu_seqlens_q); });
  int num_slots = 0;
  Kokkos::deep_copy(num_slots, count);
  Kokkos::View<Rows*, test::Memory> rows("rows", num_slots);
  // A team a slot, every thread finding it (owner_of's contract: a warp's lanes find one slot together).
  Kokkos::parallel_for(
      test::Policy(num_slots, Kokkos::AUTO), KOKKOS_LAMBDA(const test::Policy::member_type& team) {
        const QBlockRows r = slots.rows(args, team.league_rank());
        if (team.team_rank() == 0)
          rows(team.league_rank()) =
              Rows{r.seq, r.seq_len, r.context_len, r.first_token, r.valid_tokens, r.first_position};
      });
  const auto rows_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows);
  return std::vector<Rows>(rows_host.data(), rows_host.data() + num_slots);
}

void expect_slots(const Batch& batch, int block_q, int first_seq, int end_seq) {
  std::vector<Rows> expected;  // the part's Q blocks, sequence by sequence
  std::vector<std::int32_t> cu(1, 0), lens;
  for (int s = 0; s < int(batch.query_lens.size()); ++s) {
    const int query_len = batch.query_lens[std::size_t(s)], context = batch.context_lens[std::size_t(s)];
    for (int first = 0; s >= first_seq && s < end_seq && first < query_len; first += block_q)
      expected.push_back(Rows{s, context + query_len, context, cu.back() + first, std::min(block_q, query_len - first),
                              context + first});
    cu.push_back(cu.back() + query_len);
    lens.push_back(context + query_len);
  }
  const std::vector<Rows> slots = slot_rows(batch, block_q, first_seq, end_seq);
  std::vector<Rows> found;
  for (const Rows& r : slots) {
    if (r.valid_tokens > 0)
      found.push_back(r);
    else
      EXPECT_TRUE(r.seq >= first_seq && r.seq < end_seq) << "a spare slot of another part's sequence: " << r;
  }
  EXPECT_EQ(found, expected);
  EXPECT_LE(slots.size(), expected.size() + std::size_t(end_seq - first_seq)) << "more than one spare a sequence";
  const BatchMetadata part = host_batch_metadata(cu.data() + first_seq, lens.data() + first_seq, end_seq - first_seq);
  EXPECT_LE(int(slots.size()), max_q_slots(part, block_q));
}

// Sequences of no query, one query (decodes), exactly a block, a block and one, several blocks.
const Batch kMixed{{0, 1, 16, 17, 64, 3, 0, 130}, {5, 0, 100, 0, 7, 2, 9, 0}};

TEST(QBlockSlots, EveryQBlockOfTheBatchOnce) { expect_slots(kMixed, 16, 0, 8); }

TEST(QBlockSlots, OnlyThePartsSequences) { expect_slots(kMixed, 16, 2, 6); }

TEST(QBlockSlots, BlocksOfOneToken) { expect_slots(kMixed, 1, 0, 8); }

TEST(QBlockSlots, BlocksNotAPowerOfTwo) { expect_slots(kMixed, 6, 1, 8); }

TEST(QBlockSlots, ManySequences) {  // one round of 32 lanes' vote on CUDA, two and three
  Batch batch;
  std::mt19937 random(7);
  for (int s = 0; s < 2000; ++s) {
    batch.query_lens.push_back(int(random() % 40));
    batch.context_lens.push_back(int(random() % 300));
  }
  expect_slots(batch, 8, 0, 32);
  expect_slots(batch, 8, 3, 36);
  expect_slots(batch, 8, 100, 650);
  expect_slots(batch, 16, 0, 2000);
}

}  // namespace
}  // namespace kattn
