// The table and the JSON file of `kattn bench` (docs/cli.md; schema in docs/performance.md).
#pragma once

#include "kattn/problem/host_problem.hpp"
#include "kattn/tuning/launch_plan.hpp"
#include "kattn/workload/scenario.hpp"
#include "tools/bench.hpp"
#include "tools/bench_hardware.hpp"
#include "tools/timing.hpp"

#include <nlohmann/json.hpp>

namespace kattn::cli {

// The fields of a plan that ran, as the planner fitted it (bench results and tune's raw results).
nlohmann::json launch_plan_json(const LaunchPlan& plan);

// Prints the header on construction and one table row per result; keeps both for the JSON.
class BenchReport {
 public:
  BenchReport(const BenchOptions& options, HardwareLimits limits);
  // stream: time_stream_read of the case's bytes, the floor of its run() timings.
  void add_case(const WorkloadSpec& spec, const HostProblem& layout, const Work& work, const RunTimings& stream);
  // t: attention() host call to completion; timings: the plan's run() and its graph replays.
  void add_result(const WorkloadSpec& spec, const Geometry& g, const LaunchPlan& plan, bool forced, const Timing& t,
                  const PlanTimings& timings, const Work& work);
  void write_json(const std::string& path) const;

 private:
  BenchOptions options_;
  HardwareLimits limits_;
  nlohmann::json cases_ = nlohmann::json::array();
  nlohmann::json results_ = nlohmann::json::array();
};

}  // namespace kattn::cli
