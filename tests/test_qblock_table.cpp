// The table of Q blocks that QBlockOffsetsKernel writes before every Q-block launch
// (qblock_offsets.hpp): the cumulative counts of the part's sequences and, per Q block, its
// sequence and rows, never past the table's capacity, with the sequences' arrays staged in team
// scratch or read from global memory; and the static grid's claim counter zeroed. Checked against a count on the host, on each backend of the
// build (test_space.hpp).
#include "kattn/core/execution_space.hpp"
#include "kattn/detail/kernels/qblock_offsets.hpp"
#include "test_space.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace kattn {
namespace {

struct Batch {
  std::vector<int> query_lens, context_lens;
};

struct TableRead {
  std::vector<std::int32_t> cu_q_blocks;
  std::vector<QBlockEntry> entries;  // the capacity's, then the guard's
  std::int32_t claimed = 0;
};

constexpr std::int32_t kGuard = -7;

// Runs the kernel over a table of `capacity` entries followed by guard entries it must not touch.
TableRead write_table(const Batch& batch, int block_q, int first_seq, int end_seq, int capacity, bool staged) {
  const int num_seqs = int(batch.query_lens.size()), guards = 3;
  Kokkos::View<std::int32_t*, Kokkos::LayoutRight, Kokkos::HostSpace> cu_host("cu_host", num_seqs + 1),
      lens_host("lens_host", num_seqs);
  for (int s = 0; s < num_seqs; ++s) {
    cu_host(s + 1) = cu_host(s) + batch.query_lens[std::size_t(s)];
    lens_host(s) = batch.context_lens[std::size_t(s)] + batch.query_lens[std::size_t(s)];
  }
  Kokkos::View<std::int32_t*, Kokkos::LayoutRight, test::Memory> cu("cu", num_seqs + 1), lens("lens", num_seqs),
      cu_q_blocks("cu_q_blocks", num_seqs + 1);
  Kokkos::deep_copy(cu, cu_host);
  Kokkos::deep_copy(lens, lens_host);
  Kokkos::deep_copy(cu_q_blocks, kGuard);  // the workspace holds anything before a call
  Kokkos::View<QBlockEntry*, Kokkos::LayoutRight, test::Memory> entries("entries", capacity + guards);
  const auto entries_host = Kokkos::create_mirror_view(entries);
  for (int i = 0; i < capacity + guards; ++i)
    entries_host(i) = QBlockEntry{kGuard, kGuard, kGuard, kGuard, kGuard, kGuard};
  Kokkos::deep_copy(entries, entries_host);

  Kokkos::View<std::int32_t*, Kokkos::LayoutRight, test::Memory> claimed("claimed", 1);
  Kokkos::deep_copy(claimed, kGuard);  // the last call's count

  QBlockTable<test::Memory> table;
  table.cu_q_blocks = cu_q_blocks;
  table.claimed = claimed;
  table.entries = Kokkos::subview(entries, Kokkos::make_pair(0, capacity));
  using Offsets = QBlockOffsetsKernel<test::Space>;
  // Host backends launch it with one thread; more here, so that the scan crosses threads there too.
  test::Policy policy(1, host_backend<test::Space>() ? std::min(4, test::Space().concurrency()) : 256);
  policy.set_scratch_size(0, Kokkos::PerTeam(staged ? Offsets::scratch_bytes(num_seqs) : 0));
  Kokkos::parallel_for(policy, Offsets{cu, lens, table, block_q, first_seq, end_seq, staged});
  TableRead read;
  const auto cu_q_blocks_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cu_q_blocks);
  Kokkos::deep_copy(entries_host, entries);
  read.cu_q_blocks.assign(cu_q_blocks_host.data(), cu_q_blocks_host.data() + num_seqs + 1);
  read.entries.assign(entries_host.data(), entries_host.data() + capacity + guards);
  Kokkos::deep_copy(read.claimed, Kokkos::subview(claimed, 0));
  return read;
}

// The entries a part's Q blocks should have, sequence by sequence, and the cumulative counts.
std::vector<QBlockEntry> expected_entries(const Batch& batch, int block_q, int first_seq, int end_seq,
                                          std::vector<std::int32_t>& cu_q_blocks) {
  std::vector<QBlockEntry> entries;
  cu_q_blocks.assign(1, 0);
  int query_start = 0;
  for (int s = 0; s < int(batch.query_lens.size()); ++s) {
    const int query_len = batch.query_lens[std::size_t(s)], context = batch.context_lens[std::size_t(s)];
    for (int first = 0; s >= first_seq && s < end_seq && first < query_len; first += block_q)
      entries.push_back(QBlockEntry{s, context + query_len, context, query_start + first,
                                    std::min(block_q, query_len - first), context + first});
    query_start += query_len;
    cu_q_blocks.push_back(std::int32_t(entries.size()));
  }
  return entries;
}

void expect_table(const Batch& batch, int block_q, int first_seq, int end_seq, int capacity, bool staged) {
  std::vector<std::int32_t> cu_q_blocks;
  const std::vector<QBlockEntry> expected = expected_entries(batch, block_q, first_seq, end_seq, cu_q_blocks);
  const TableRead read = write_table(batch, block_q, first_seq, end_seq, capacity, staged);
  EXPECT_EQ(read.cu_q_blocks, cu_q_blocks);
  EXPECT_EQ(read.claimed, 0);
  for (int i = 0; i < int(read.entries.size()); ++i) {
    const QBlockEntry& e = read.entries[std::size_t(i)];
    const QBlockEntry want = i < capacity && i < int(expected.size())
                                 ? expected[std::size_t(i)]
                                 : QBlockEntry{kGuard, kGuard, kGuard, kGuard, kGuard, kGuard};  // not written
    EXPECT_EQ(e.seq, want.seq) << "entry " << i;
    EXPECT_EQ(e.seq_len, want.seq_len) << "entry " << i;
    EXPECT_EQ(e.context_len, want.context_len) << "entry " << i;
    EXPECT_EQ(e.first_token, want.first_token) << "entry " << i;
    EXPECT_EQ(e.valid_tokens, want.valid_tokens) << "entry " << i;
    EXPECT_EQ(e.first_position, want.first_position) << "entry " << i;
  }
}

void expect_table(const Batch& batch, int block_q, int first_seq, int end_seq, int capacity) {
  for (const bool staged : {true, false}) {
    SCOPED_TRACE(staged ? "staged in team scratch" : "read from global memory");
    expect_table(batch, block_q, first_seq, end_seq, capacity, staged);
  }
}

// Sequences of no query, one query (decodes), exactly a block, a block and one, several blocks.
const Batch kMixed{{0, 1, 16, 17, 64, 3, 0, 130}, {5, 0, 100, 0, 7, 2, 9, 0}};

TEST(QBlockTable, EveryQBlockOfTheBatch) { expect_table(kMixed, 16, 0, 8, 19); }

TEST(QBlockTable, OnlyThePartsSequences) { expect_table(kMixed, 16, 2, 6, 19); }

TEST(QBlockTable, BlocksOfOneToken) { expect_table(kMixed, 1, 0, 8, 231); }

TEST(QBlockTable, NothingPastTheCapacity) { expect_table(kMixed, 16, 0, 8, 5); }

TEST(QBlockTable, StagedUpToTheLimitOfTeamScratch) {  // the largest staged request launches everywhere
  using Offsets = QBlockOffsetsKernel<test::Space>;
  int limit = 1;
  while (Offsets::stages(limit + 1)) ++limit;
  Batch batch{std::vector<int>(std::size_t(limit) + 1, 3), std::vector<int>(std::size_t(limit) + 1, 20)};
  expect_table(batch, 2, 0, limit + 1, 2 * (limit + 1), false);
  batch.query_lens.pop_back();
  batch.context_lens.pop_back();
  expect_table(batch, 2, 0, limit, 2 * limit, true);
}

TEST(QBlockTable, ManySequences) {  // more Q blocks than the team has threads
  Batch batch;
  std::mt19937 random(7);
  for (int s = 0; s < 700; ++s) {
    batch.query_lens.push_back(int(random() % 40));
    batch.context_lens.push_back(int(random() % 300));
  }
  expect_table(batch, 8, 0, 700, 8 * 700);
  expect_table(batch, 8, 100, 650, 8 * 700);
}

}  // namespace
}  // namespace kattn
