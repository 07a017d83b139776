#include "tools/tune_tree.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kattn::cli {
namespace {

// Least of `sums` over the plans with no rejection (over all plans where none is free of them).
std::pair<int, double> least(const std::vector<double>& sums, const std::vector<int>& rejections) {
  int best = -1;
  for (int pass = 0; pass < 2 && best < 0; ++pass)
    for (std::size_t p = 0; p < sums.size(); ++p)
      if ((pass == 1 || rejections[p] == 0) && (best < 0 || sums[p] < sums[std::size_t(best)])) best = int(p);
  return {best, best < 0 ? 0.0 : sums[std::size_t(best)]};
}

struct Totals {
  std::vector<double> cost;
  std::vector<int> rejections;
  explicit Totals(std::size_t plans) : cost(plans, 0.0), rejections(plans, 0) {}
  void add(const CostMatrix& m, int sample, int sign) {
    for (std::size_t p = 0; p < cost.size(); ++p) {
      cost[p] += sign * m.cost[std::size_t(sample)][p];
      rejections[p] += sign * int(m.rejected[std::size_t(sample)][p]);
    }
  }
};

Totals totals_of(const CostMatrix& m, const std::vector<int>& samples) {
  Totals t(m.cost.empty() ? 0 : m.cost.front().size());
  for (int s : samples) t.add(m, s, +1);
  return t;
}

struct Split {
  int feature = -1;
  double at_most = 0.0;
  double gain = 0.0;
};

Split best_split(const CostMatrix& m, const std::vector<int>& samples, const TreeLimits& limits) {
  const Totals all = totals_of(m, samples);
  const double parent = least(all.cost, all.rejections).second;
  Split best;
  best.gain = limits.min_gain;
  const std::size_t n = samples.size();
  for (std::size_t f = 0; f < m.features.size(); ++f) {
    std::vector<int> order = samples;
    auto value = [&](int s) { return m.values[std::size_t(s)][f]; };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return value(a) < value(b); });
    Totals left(all.cost.size()), right = all;
    for (std::size_t i = 1; i < n; ++i) {
      left.add(m, order[i - 1], +1);
      right.add(m, order[i - 1], -1);
      if (value(order[i - 1]) == value(order[i]) || i < std::size_t(limits.min_leaf) ||
          n - i < std::size_t(limits.min_leaf))
        continue;
      const double gain =
          parent - least(left.cost, left.rejections).second - least(right.cost, right.rejections).second;
      if (gain > best.gain) best = {int(f), value(order[i - 1]), gain};
    }
  }
  return best;
}

std::string bound_text(const std::string& feature, const char* op, double value) {
  return value == std::floor(value) ? fmt::format("{}{}{:.0f}", feature, op, value)
                                    : fmt::format("{}{}{:g}", feature, op, value);
}

void grow(const CostMatrix& m, FittedTree& tree, int index, int depth, const std::string& path,
          const TreeLimits& limits) {
  const Split split =
      depth < limits.max_depth ? best_split(m, tree.nodes[std::size_t(index)].samples, limits) : Split{};
  if (split.feature < 0) {
    tree.nodes[std::size_t(index)].plan = best_plan(m, tree.nodes[std::size_t(index)].samples);
    tree.nodes[std::size_t(index)].name = path.empty() ? "all" : path;
    return;
  }
  TreeNode then_node, else_node;
  for (int s : tree.nodes[std::size_t(index)].samples)
    (m.values[std::size_t(s)][std::size_t(split.feature)] <= split.at_most ? then_node : else_node)
        .samples.push_back(s);
  const std::string& feature = m.features[std::size_t(split.feature)];
  const std::string prefix = path.empty() ? "" : path + ",";
  tree.nodes.push_back(std::move(then_node));
  tree.nodes.push_back(std::move(else_node));
  TreeNode& node = tree.nodes[std::size_t(index)];
  node.feature = split.feature;
  node.at_most = split.at_most;
  node.then_node = int(tree.nodes.size()) - 2;
  node.else_node = int(tree.nodes.size()) - 1;
  node.name = path.empty() ? "all" : path;
  const int then_index = node.then_node, else_index = node.else_node;
  grow(m, tree, then_index, depth + 1, prefix + bound_text(feature, "<=", split.at_most), limits);
  grow(m, tree, else_index, depth + 1, prefix + bound_text(feature, ">", split.at_most), limits);
}

}  // namespace

double summed_cost(const CostMatrix& m, const std::vector<int>& samples, int plan) {
  double sum = 0.0;
  for (int s : samples) sum += m.cost[std::size_t(s)][std::size_t(plan)];
  return sum;
}

int best_plan(const CostMatrix& m, const std::vector<int>& samples) {
  const Totals t = totals_of(m, samples);
  return least(t.cost, t.rejections).first;
}

int FittedTree::plan_for(const std::vector<double>& feature_values) const {
  const TreeNode* node = &nodes.front();
  while (node->feature >= 0)
    node = &nodes[std::size_t(feature_values[std::size_t(node->feature)] <= node->at_most ? node->then_node
                                                                                          : node->else_node)];
  return node->plan;
}

FittedTree fit_tree(const CostMatrix& m, const std::vector<int>& samples, const TreeLimits& limits) {
  FittedTree tree;
  tree.nodes.push_back(TreeNode{});
  tree.nodes.front().samples = samples;
  tree.root_plan = best_plan(m, samples);
  grow(m, tree, 0, 0, "", limits);
  return tree;
}

}  // namespace kattn::cli
