// The decision tree of `kattn tune fit`: CART-style greedy splits over batch features that
// minimise the summed log slowdown of each leaf's one plan (docs/tuning-tables.md#fitting).
#pragma once

#include <string>
#include <vector>

namespace kattn::cli {

// The fit's data: per sample, its feature values and its cost under each candidate plan.
struct CostMatrix {
  std::vector<std::string> features;        // feature names
  std::vector<std::vector<double>> values;  // [sample][feature]
  std::vector<std::vector<double>> cost;    // [sample][plan]: ln(time / the sample's best), penalties in
  std::vector<std::vector<bool>> rejected;  // [sample][plan]: the plan cannot run this sample
};

struct TreeLimits {
  int max_depth = 4;       // tests on a path at most
  int min_leaf = 2;        // samples in a leaf at least
  double min_gain = 0.01;  // a split must lower the summed cost by this much (1 % of one sample)
};

struct TreeNode {
  int feature = -1;  // -1: a leaf
  double at_most = 0.0;
  int then_node = -1, else_node = -1;  // indices into FittedTree::nodes
  int plan = -1;                       // a leaf's plan
  std::vector<int> samples;            // the training samples that reach the node
  std::string name;                    // the path: "max_query_len<=1,num_seqs>8" ("all" at the root)
};

struct FittedTree {
  std::vector<TreeNode> nodes;  // nodes[0] is the root
  int root_plan = -1;           // the best single plan over all training samples
  int plan_for(const std::vector<double>& feature_values) const;
};

// The plan of least summed cost over `samples`, among the plans no sample rejects (all plans
// where each is rejected somewhere).
int best_plan(const CostMatrix& m, const std::vector<int>& samples);
double summed_cost(const CostMatrix& m, const std::vector<int>& samples, int plan);

FittedTree fit_tree(const CostMatrix& m, const std::vector<int>& samples, const TreeLimits& limits);

}  // namespace kattn::cli
