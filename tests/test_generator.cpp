// The seeded workload generator: valid, reproducible problems shaped as the spec says.
#include "kattn/problem/validate.hpp"
#include "kattn/workload/generator.hpp"
#include "temp_files.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

namespace kattn {
namespace {

WorkloadSpec mixed_spec() {
  WorkloadSpec spec;
  spec.name = "mixed";
  spec.model = model_by_name("llama-3-8b");
  spec.dtype = DType::bf16;
  spec.batch_size = 8;
  spec.min_seq_len = 10;
  spec.max_seq_len = 100;
  spec.decode_share = 0.5;
  spec.chunked_prefill = true;
  spec.seed = 3;
  return spec;
}

TEST(Generator, ProducesValidReproducibleProblems) {
  const HostProblem a = generate_problem(mixed_spec());
  const HostProblem b = generate_problem(mixed_spec());
  EXPECT_NO_THROW(validate(a));
  EXPECT_EQ(a.q, b.q);
  EXPECT_EQ(a.block_table, b.block_table);
  WorkloadSpec other = mixed_spec();
  other.seed = 4;
  EXPECT_NE(generate_problem(other).q, a.q);
}

TEST(Generator, HonoursDecodeShareAndLengths) {
  const HostProblem p = generate_problem(mixed_spec());
  int decodes = 0, with_context = 0;
  for (int s = 0; s < p.geometry.num_seqs; ++s) {
    const int query_len = p.cu_seqlens_q[std::size_t(s) + 1] - p.cu_seqlens_q[std::size_t(s)];
    decodes += query_len == 1 ? 1 : 0;
    with_context += (query_len > 1 && query_len < p.seq_lens[std::size_t(s)]) ? 1 : 0;
    EXPECT_GE(p.seq_lens[std::size_t(s)], 10);
    EXPECT_LE(p.seq_lens[std::size_t(s)], 100);
  }
  EXPECT_GE(decodes, 4);
  EXPECT_GT(with_context, 0);  // chunked prefill puts context before some chunks
  for (float x : p.q) ASSERT_EQ(round_to_dtype(x, DType::bf16), x);
}

TEST(Generator, PermutesBlocksWithoutSharing) {
  const HostProblem p = generate_problem(mixed_spec());
  std::set<int> used;
  bool in_order = true;
  int previous = -1;
  for (int s = 0; s < p.geometry.num_seqs; ++s) {
    const int blocks = (p.seq_lens[std::size_t(s)] + p.geometry.block_size - 1) / p.geometry.block_size;
    for (int b = 0; b < blocks; ++b) {
      const int id = p.block_table[std::size_t(s * p.geometry.max_blocks_per_seq + b)];
      EXPECT_TRUE(used.insert(id).second) << "block " << id << " used twice";
      in_order = in_order && id == previous + 1;
      previous = id;
    }
  }
  EXPECT_FALSE(in_order);
}

TEST(Scenario, LoadsAndExpandsDtypes) {
  const std::string path = test::temp_path("kattn_scenario.json");
  std::ofstream(path) << R"({"name": "t", "cases": [
      {"name": "a", "model": "tiny", "dtypes": ["fp16", "bf16"], "max_seq_len": 8},
      {"name": "b", "num_q_heads": 8, "num_kv_heads": 1, "head_size": 80, "max_seq_len": 8, "decode_share": 1.0}]})";
  const std::vector<WorkloadSpec> specs = load_scenario(path);
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[0].name, "a-fp16");
  EXPECT_EQ(specs[1].dtype, DType::bf16);
  EXPECT_EQ(specs[2].model.head_size, 80);
}

TEST(Scenario, NamesTheBadCase) {
  const std::string path = test::temp_path("kattn_bad_scenario.json");
  std::ofstream(path) << R"({"cases": [{"name": "ok", "model": "tiny", "max_seq_len": 4},
                                       {"name": "bad", "model": "gpt-9", "max_seq_len": 4}]})";
  try {
    load_scenario(path);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cases[1]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("gpt-9"), std::string::npos) << e.what();
  }
}

TEST(Scenario, NeedsCases) {
  const std::string path = test::temp_path("kattn_caseless_scenario.json");
  for (const char* text : {R"({"name": "t"})", R"({"cases": {}})", "[1, 2]"}) {
    std::ofstream(path) << text;
    EXPECT_THROW(load_scenario(path), std::runtime_error) << text;
  }
}

}  // namespace
}  // namespace kattn
