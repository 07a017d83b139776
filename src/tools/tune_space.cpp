#include "tools/tune_space.hpp"

#include "kattn/core/execution_space.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace kattn::cli {
namespace {

[[noreturn]] void fail(const std::string& origin, const std::string& where, const std::string& what) {
  throw std::runtime_error(origin + ": " + where + ": " + what);
}

// The table parser checks plan fields and values.
void check_plan(const nlohmann::json& plan, const std::string& origin, const std::string& where) {
  try {
    plan_table(plan, nlohmann::json::object(), where);
  } catch (const std::runtime_error& e) {
    fail(origin, where, e.what());
  }
}

FeatureBound parse_bound(const nlohmann::json& test, const std::string& origin, const std::string& where) {
  if (!test.is_object() || !test.contains("feature") || !test["feature"].is_string() ||
      !(test.contains("at_most") || test.contains("at_least")))
    fail(origin, where, "needs {\"feature\": name, \"at_most\" and/or \"at_least\": number}");
  FeatureBound bound;
  bound.feature = test["feature"].get<std::string>();
  try {
    batch_feature(bound.feature, BatchMetadata{}, Geometry{});
  } catch (const std::invalid_argument& e) {
    fail(origin, where, e.what());
  }
  for (const char* key : {"at_most", "at_least"})
    if (test.contains(key) && !test[key].is_number()) fail(origin, where, std::string(key) + " must be a number");
  if (test.contains("at_most")) bound.at_most = test["at_most"].get<double>();
  if (test.contains("at_least")) bound.at_least = test["at_least"].get<double>();
  return bound;
}

// A group's plans: each variant × each value list (null = the defaults' value, not overridden).
std::vector<nlohmann::json> expand_group(const nlohmann::json& group, const std::string& origin,
                                         const std::string& where) {
  if (!group.contains("variants") || !group["variants"].is_array() || group["variants"].empty())
    fail(origin, where, "needs a non-empty list \"variants\"");
  std::vector<nlohmann::json> plans;
  for (const auto& variant : group["variants"]) plans.push_back({{"variant", variant}});
  for (const std::string& field : plan_field_names()) {
    if (field == "variant" || !group.contains(field)) continue;
    const nlohmann::json& values = group[field];
    if (!values.is_array() || values.empty()) fail(origin, where, field + " must be a non-empty list");
    std::vector<nlohmann::json> next;
    for (const nlohmann::json& plan : plans)
      for (const auto& value : values) {
        nlohmann::json extended = plan;
        if (!value.is_null()) extended[field] = value;
        next.push_back(extended);
      }
    plans = std::move(next);
  }
  for (const auto& [key, value] : group.items()) {
    const std::vector<std::string>& fields = plan_field_names();
    if (key != "name" && key != "when" && key != "variants" &&
        std::find(fields.begin(), fields.end(), key) == fields.end())
      fail(origin, where, "unknown key '" + key + "'");
  }
  for (const nlohmann::json& plan : plans) check_plan(plan, origin, where + " plan " + plan.dump());
  return plans;
}

}  // namespace

std::vector<nlohmann::json> SearchSpace::plans_for(const BatchMetadata& batch, const Geometry& g) const {
  std::vector<nlohmann::json> plans;
  for (const PlanGroup& group : groups) {
    bool admitted = true;
    for (const FeatureBound& b : group.when) {
      const double value = batch_feature(b.feature, batch, g);
      admitted = admitted && value >= b.at_least && value <= b.at_most;
    }
    if (!admitted) continue;
    for (const nlohmann::json& plan : group.overrides)
      if (std::find(plans.begin(), plans.end(), plan) == plans.end()) plans.push_back(plan);
  }
  return plans;
}

SearchSpace parse_search_space(const std::string& json_text, const std::string& origin) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(origin + ": not valid JSON: " + e.what());
  }
  if (!doc.is_object() || !doc.contains("defaults") || !doc.contains("groups") || !doc["groups"].is_array())
    fail(origin, "space", "needs \"defaults\" and a list \"groups\"");
  SearchSpace space;
  space.defaults = doc["defaults"];
  if (space.defaults.is_object() && !space.defaults.contains("split_decodes"))
    space.defaults["split_decodes"] = true;  // mixed batches' decodes apart unless a plan says not
  check_plan(space.defaults, origin, "defaults");
  for (const std::string& field : plan_field_names())
    if (!space.defaults.contains(field)) fail(origin, "defaults", "needs every plan field; '" + field + "' is missing");
  for (std::size_t i = 0; i < doc["groups"].size(); ++i) {
    const nlohmann::json& group = doc["groups"][i];
    const std::string where = "groups[" + std::to_string(i) + "]";
    if (!group.is_object()) fail(origin, where, "a group must be an object");
    PlanGroup parsed;
    parsed.name = group.value("name", where);
    if (group.contains("when")) {
      if (!group["when"].is_array()) fail(origin, where + ".when", "must be a list of feature bounds");
      for (const nlohmann::json& test : group["when"])
        parsed.when.push_back(parse_bound(test, origin, where + ".when"));
    }
    parsed.overrides = expand_group(group, origin, where);
    space.groups.push_back(std::move(parsed));
  }
  return space;
}

SearchSpace load_search_space(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the search space");
  std::stringstream text;
  text << in.rdbuf();
  return parse_search_space(text.str(), path);
}

std::string default_search_space() {
  return host_backend() ? "data/tuning/spaces/host.json" : "data/tuning/spaces/gpu.json";
}

nlohmann::json full_plan(const nlohmann::json& defaults, const nlohmann::json& overrides) {
  nlohmann::json plan = nlohmann::json::object();
  for (const std::string& field : plan_field_names())
    plan[field] = overrides.contains(field) ? overrides[field] : defaults.at(field);
  return plan;
}

TuningTable plan_table(const nlohmann::json& defaults, const nlohmann::json& overrides, const std::string& origin) {
  return TuningTable::parse(nlohmann::json{{"arch", "search space"},
                                           {"defaults", defaults},
                                           {"tree", {{"name", describe_plan(overrides)}, {"plan", overrides}}}}
                                .dump(),
                            origin);
}

std::string describe_plan(const nlohmann::json& plan) {
  static const std::map<std::string, std::string> words{{"tile_size", "tile"},    {"block_m", "bm"},
                                                        {"num_segments", "segs"}, {"team_size", "team"},
                                                        {"vector_length", "vl"},  {"grid_teams", "grid"}};
  const bool apart = plan.value("split_decodes", false);  // a mixed batch's decodes apart, each part planned
  std::string text = plan.value("variant", apart ? "decodes apart" : "plan");
  for (const std::string& field : plan_field_names())
    if (field == "split_decodes") {
      if (plan.contains(field) && !apart) text += " fused";
    } else if (field != "variant" && plan.contains(field)) {
      text += " " + words.at(field) + " " + plan[field].dump();
    }
  return text;
}

}  // namespace kattn::cli
