#include "step_work.hpp"

namespace peclet_dem {

StepWork::StepWork(Napi::Env env, std::shared_ptr<SimulationState> state, AdvanceRequest request)
    : TrackedWork(env, "run"), state_(std::move(state)), request_(request) {
  state_->busy = true;
}

// After the promise settled, resolved or rejected (cancel(), finalize()).
StepWork::~StepWork() {
  if (state_) state_->busy = false;
}

void StepWork::Run() {
  outcome_ = state_->advance(request_, [this] { return cancelled(); });
}

Napi::Value StepWork::Result(Napi::Env env) { return advanceResult(env, outcome_); }

void StepWork::releaseState() noexcept {
  if (state_) state_->busy = false;
  state_.reset();
}

}  // namespace peclet_dem
