#include "kattn/simulation/predicted_step_timer.hpp"

#include <stdexcept>

namespace kattn::sim {

model::BatchShape batch_shape(const StepBatch& batch, const ModelConfig& config) {
  if (batch.empty()) throw std::invalid_argument("an empty step has no attention batch");
  model::BatchShape b;
  b.num_q_heads = config.geometry.num_q_heads;
  b.num_kv_heads = config.geometry.num_kv_heads;
  b.head_size = config.geometry.head_size;
  b.block_size = config.block_size;
  b.dtype = config.dtype;
  for (const ScheduledSequence& s : batch.sequences) {
    b.query_lens.push_back(s.new_tokens);
    b.seq_lens.push_back(s.seq_len());
  }
  return b;
}

namespace {

class PredictedStepTimer : public StepTimer {
 public:
  PredictedStepTimer(const ModelConfig& config, const model::HardwareModel& hw) : config_(config), hw_(hw) {}

  std::string description() const override {
    return "PREDICTED by the hardware model for " + hw_.arch + " (" + hw_.device + "; free parameters " +
           hw_.provenance + "), no kernels run";
  }

  double attention_us(const StepBatch& batch) override { return model::predict_us(batch_shape(batch, config_), hw_); }

 private:
  ModelConfig config_;
  model::HardwareModel hw_;
};

}  // namespace

std::unique_ptr<StepTimer> make_predicted_step_timer(const ModelConfig& config, const model::HardwareModel& hw) {
  check_model_config(config);
  return std::make_unique<PredictedStepTimer>(config, hw);
}

}  // namespace kattn::sim
