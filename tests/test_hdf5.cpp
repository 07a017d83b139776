// HDF5 problem files: exact round trip, and clear errors (no partial files) for bad input.
#include "kattn/core/error.hpp"
#include "kattn/io/hdf5_file.hpp"
#include "kattn/io/reference_file.hpp"
#include "kattn/oracle/oracle.hpp"
#include "temp_files.hpp"
#include "test_problems.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace kattn {
namespace {

std::string temp_path(const std::string& name) { return test::temp_path("kattn_" + name + ".h5"); }

ProblemCase sample_case() {
  ProblemCase c;
  c.name = "mixed";
  c.description = "small mixed batch";
  c.seed = 7;
  c.problem = test::small_mixed_problem(DType::bf16);
  c.problem.params.causal = false;
  c.expected = oracle_attention(c.problem);
  return c;
}

TEST(Hdf5, RoundTripIsExact) {
  const std::string path = temp_path("roundtrip");
  ProblemCase written = sample_case();
  written.problem.alibi_slopes.assign(std::size_t(written.problem.geometry.num_q_heads), 0.25f);
  written.problem.sinks.assign(std::size_t(written.problem.geometry.num_q_heads), -0.5f);
  written.problem.prefix_lens = {3, 4, 0};
  written.problem.qq_bias_size = 6;
  written.problem.qq_bias.assign(36, 0.125f);
  written.problem.params.window_left = 5;
  written.problem.params.softcap = 20.0f;
  written.problem.params.alibi_origin = AlibiOrigin::context_length;
  written.problem.params.k_scale = 0.5f;
  written.problem.params.v_scale = 2.0f;
  written.problem.params.out_scale = 4.0f;
  written.problem.fp8_out = true;
  write_problem_file(path, {written});
  const std::vector<ProblemCase> read = read_problem_file(path);
  ASSERT_EQ(read.size(), 1u);
  const ProblemCase& c = read[0];
  EXPECT_EQ(c.name, written.name);
  EXPECT_EQ(c.description, written.description);
  EXPECT_EQ(c.seed, written.seed);
  EXPECT_EQ(c.problem.dtype, DType::bf16);
  EXPECT_EQ(c.problem.params.causal, false);
  EXPECT_EQ(c.problem.params.softmax_scale, written.problem.params.softmax_scale);
  EXPECT_EQ(c.problem.alibi_slopes, written.problem.alibi_slopes);
  EXPECT_EQ(c.problem.sinks, written.problem.sinks);
  EXPECT_EQ(c.problem.prefix_lens, written.problem.prefix_lens);
  EXPECT_EQ(c.problem.qq_bias, written.problem.qq_bias);
  EXPECT_EQ(c.problem.qq_bias_size, 6);
  EXPECT_EQ(c.problem.params.window_left, 5);
  EXPECT_EQ(c.problem.params.softcap, 20.0f);
  EXPECT_EQ(c.problem.params.alibi_origin, AlibiOrigin::context_length);
  EXPECT_EQ(c.problem.params.v_scale, 2.0f);
  EXPECT_EQ(c.problem.params.out_scale, 4.0f);
  EXPECT_TRUE(c.problem.fp8_out);
  EXPECT_FALSE(c.problem.fp8_kv_cache);
  EXPECT_EQ(c.problem.q, written.problem.q);
  EXPECT_EQ(c.problem.k_cache, written.problem.k_cache);
  EXPECT_EQ(c.problem.v_cache, written.problem.v_cache);
  EXPECT_EQ(c.problem.block_table, written.problem.block_table);
  EXPECT_EQ(c.problem.cu_seqlens_q, written.problem.cu_seqlens_q);
  EXPECT_EQ(c.problem.seq_lens, written.problem.seq_lens);
  EXPECT_EQ(c.expected, written.expected);
  const Geometry& g = c.problem.geometry;
  const Geometry& w = written.problem.geometry;
  EXPECT_EQ(std::tie(g.num_tokens, g.num_q_heads, g.num_kv_heads, g.head_size, g.num_blocks, g.block_size, g.num_seqs,
                     g.max_blocks_per_seq),
            std::tie(w.num_tokens, w.num_q_heads, w.num_kv_heads, w.head_size, w.num_blocks, w.block_size, w.num_seqs,
                     w.max_blocks_per_seq));
}

void expect_read_error(const std::string& path, const std::string& needle) {
  try {
    read_problem_file(path);
    FAIL() << "read a malformed file";
  } catch (const FileFormatError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Hdf5, MissingFile) { expect_read_error(temp_path("does_not_exist"), "no such file"); }

TEST(Hdf5, NotAnHdf5File) {
  const std::string path = temp_path("text");
  std::ofstream(path) << "not hdf5";
  expect_read_error(path, "not an HDF5 file");
}

TEST(Hdf5, ForeignHdf5File) {
  const std::string path = temp_path("foreign");
  h5::File::create(path).write_attribute("schema", std::string("something-else"));
  expect_read_error(path, "not a kattn problem file");
}

// Writes a file whose single case is produced by `edit` from the sample case's datasets.
template <class Edit>
std::string file_with_case(const std::string& name, Edit edit) {
  const std::string path = temp_path(name);
  const ProblemCase c = sample_case();
  const Geometry& g = c.problem.geometry;
  h5::File file = h5::File::create(path);
  file.write_attribute("schema", std::string("kattn-problems"));
  file.write_attribute("schema_version", kSchemaVersion);
  const h5::Group group = file.create_group("cases").create_group("bad");
  group.write_attribute("dtype", std::string("bf16"));
  group.write_attribute("softmax_scale", 0.125);
  auto u = [](int x) { return std::uint64_t(x); };
  group.write("q", c.problem.q, {u(g.num_tokens), u(g.num_q_heads), u(g.head_size)});
  group.write("k_cache", c.problem.k_cache, {u(g.num_blocks), u(g.block_size), u(g.num_kv_heads), u(g.head_size)});
  std::vector<std::int32_t> table = c.problem.block_table;
  edit(group, c, table);
  group.write("block_table", table, {u(g.num_seqs), u(g.max_blocks_per_seq)});
  group.write("cu_seqlens_q", c.problem.cu_seqlens_q, {u(g.num_seqs + 1)});
  group.write("seq_lens", c.problem.seq_lens, {u(g.num_seqs)});
  file.close();
  return path;
}

TEST(Hdf5, MissingDataset) {
  expect_read_error(file_with_case("missing", [](const h5::Group&, const ProblemCase&, std::vector<std::int32_t>&) {}),
                    "no dataset 'v_cache'");
}

TEST(Hdf5, WrongRank) {
  const std::string path =
      file_with_case("rank", [](const h5::Group& g, const ProblemCase& c, std::vector<std::int32_t>&) {
        g.write("v_cache", c.problem.v_cache, {std::uint64_t(c.problem.v_cache.size())});
      });
  expect_read_error(path, "rank 1");
}

TEST(Hdf5, BlockIdOutOfRange) {
  const std::string path =
      file_with_case("block", [](const h5::Group& g, const ProblemCase& c, std::vector<std::int32_t>& t) {
        const Geometry& geo = c.problem.geometry;
        g.write("v_cache", c.problem.v_cache,
                {std::uint64_t(geo.num_blocks), std::uint64_t(geo.block_size), std::uint64_t(geo.num_kv_heads),
                 std::uint64_t(geo.head_size)});
        t[0] = 100000;
      });
  expect_read_error(path, "block_table[0][0]");
}

TEST(Hdf5, ValueNotInDtype) {
  const std::string path =
      file_with_case("dtype", [](const h5::Group& g, const ProblemCase& c, std::vector<std::int32_t>&) {
        std::vector<float> v = c.problem.v_cache;
        v[3] = 0.1f;  // not a bf16 value
        const Geometry& geo = c.problem.geometry;
        g.write("v_cache", v,
                {std::uint64_t(geo.num_blocks), std::uint64_t(geo.block_size), std::uint64_t(geo.num_kv_heads),
                 std::uint64_t(geo.head_size)});
      });
  expect_read_error(path, "v_cache holds");
}

TEST(Hdf5, UnknownAlibiOrigin) {
  const std::string path =
      file_with_case("origin", [](const h5::Group& g, const ProblemCase& c, std::vector<std::int32_t>&) {
        const Geometry& geo = c.problem.geometry;
        g.write("v_cache", c.problem.v_cache,
                {std::uint64_t(geo.num_blocks), std::uint64_t(geo.block_size), std::uint64_t(geo.num_kv_heads),
                 std::uint64_t(geo.head_size)});
        g.write_attribute("alibi_origin", std::string("key_position"));
      });
  expect_read_error(path, "alibi_origin 'key_position'");
}

TEST(Hdf5, FailedWriteLeavesNoFile) {
  const std::string path = temp_path("duplicate");
  std::filesystem::remove(path);
  const ProblemCase c = sample_case();
  EXPECT_THROW(write_problem_file(path, {c, c}), FileFormatError);  // the second group name clashes
  EXPECT_FALSE(std::filesystem::exists(path));
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
    EXPECT_EQ(entry.path().string().find(path + ".tmp"), std::string::npos) << entry.path();
}

}  // namespace
}  // namespace kattn
