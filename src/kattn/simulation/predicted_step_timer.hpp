// The step timer that predicts a step's attention time with the hardware model
// (hardware_model.hpp) instead of running kernels: no device work, any architecture's
// parameter file, on any build.
#pragma once

#include "kattn/simulation/hardware_model.hpp"
#include "kattn/simulation/model_config.hpp"
#include "kattn/simulation/step_timer.hpp"

#include <memory>

namespace kattn::sim {

// The step's batch as the model sees it (kattn's order: decodes first).
model::BatchShape batch_shape(const StepBatch& batch, const ModelConfig& config);

std::unique_ptr<StepTimer> make_predicted_step_timer(const ModelConfig& config, const model::HardwareModel& hw);

}  // namespace kattn::sim
