// Per-architecture tuning tables (paper 5.2): a small decision tree over batch features whose
// leaves are launch plans. Format: docs/tuning-tables.md; tables: data/tuning/<arch>.json,
// compiled into the library.
#pragma once

#include "kattn/batch/batch_metadata.hpp"
#include "kattn/problem/geometry.hpp"
#include "kattn/tuning/launch_plan.hpp"

#include <memory>
#include <string>
#include <vector>

namespace kattn {

class TuningTable {
 public:
  // Parses and checks a table; throws std::runtime_error naming `origin` and the bad node.
  static TuningTable parse(const std::string& json_text, const std::string& origin);
  static TuningTable load(const std::string& path);
  // The table compiled in for `arch`, or nullptr if none ships.
  static const TuningTable* builtin(std::string_view arch);

  // Walks the tree for this batch; the leaf's fields over the table's defaults.
  LaunchPlan evaluate(const BatchMetadata& batch, const Geometry& g) const;
  const std::string& arch() const { return arch_; }

  TuningTable(TuningTable&&) noexcept;
  TuningTable& operator=(TuningTable&&) noexcept;
  ~TuningTable();

 private:
  struct Node;
  TuningTable();
  std::string arch_;
  std::unique_ptr<Node> root_;
  std::unique_ptr<Node> defaults_;
};

// Value of a named batch feature (the names the tables may test); throws for unknown names.
double batch_feature(const std::string& name, const BatchMetadata& batch, const Geometry& g);
// The fields a plan of a table may set, in the order tables write them.
const std::vector<std::string>& plan_field_names();
// Every name batch_feature accepts.
const std::vector<std::string>& batch_feature_names();

}  // namespace kattn
