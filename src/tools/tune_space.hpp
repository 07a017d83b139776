// The launch-plan space `kattn tune sweep` times: groups of plans, each for the batches its test
// admits (format: docs/tuning-tables.md#search-space).
#pragma once

#include "kattn/batch/batch_metadata.hpp"
#include "kattn/problem/geometry.hpp"
#include "kattn/tuning/tuning_table.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kattn::cli {

struct FeatureBound {
  std::string feature;  // a batch_feature name
  double at_least = -1e300;
  double at_most = 1e300;
};

struct PlanGroup {
  std::string name;
  std::vector<FeatureBound> when;         // all must hold; empty = every batch
  std::vector<nlohmann::json> overrides;  // the Cartesian product of the group's lists
};

struct SearchSpace {
  nlohmann::json defaults;  // every plan field: what a plan's overrides go over
  std::vector<PlanGroup> groups;

  // The override sets of the groups that admit this batch, each once, in file order.
  std::vector<nlohmann::json> plans_for(const BatchMetadata& batch, const Geometry& g) const;
};

// Parses and checks a space; throws std::runtime_error naming `origin` and the bad group.
SearchSpace parse_search_space(const std::string& json_text, const std::string& origin);
SearchSpace load_search_space(const std::string& path);
// The shipped space for this build's backend: data/tuning/spaces/{gpu,host}.json.
std::string default_search_space();

// `overrides` over `defaults` (both plan objects of a tuning table): every plan field, in table order.
nlohmann::json full_plan(const nlohmann::json& defaults, const nlohmann::json& overrides);
// A table of one leaf, `overrides` over `defaults`: what a fitted leaf of these overrides plans, so
// the sweep times exactly what the table will say. Throws std::runtime_error naming `origin`.
TuningTable plan_table(const nlohmann::json& defaults, const nlohmann::json& overrides, const std::string& origin);
// "split_kv tile 256 team 8": a plan object in words.
std::string describe_plan(const nlohmann::json& plan);

}  // namespace kattn::cli
