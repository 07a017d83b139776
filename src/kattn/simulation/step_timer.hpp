// How long a step's attention takes. One implementation runs the real kernels
// (kernel_step_timer.hpp); a hardware model that predicts the time can implement the same
// interface.
#pragma once

#include "kattn/simulation/scheduler.hpp"

#include <optional>
#include <string>

namespace kattn::sim {

class StepTimer {
 public:
  virtual ~StepTimer() = default;
  // What the times are ("kernels on OpenMP", ...), for the report.
  virtual std::string description() const = 0;
  // Microseconds of one layer's attention call over the step's batch (non-empty).
  virtual double attention_us(const StepBatch& batch) = 0;
  // When the last step was a graph replay (KernelTimerOptions::graph_replay): the same step's
  // eager call, timed alongside, so the report shows what the replay saved. Empty otherwise.
  virtual std::optional<double> last_eager_us() const { return std::nullopt; }
};

}  // namespace kattn::sim
