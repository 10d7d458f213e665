#include "step_work.hpp"

namespace peclet_flow {

StepWork::StepWork(Napi::Env env, std::shared_ptr<LatticeState> state, std::size_t steps)
    : TrackedWork(env, "run"), state_(std::move(state)), steps_(steps) {
  state_->busy = true;
}

// After the promise settled, resolved or rejected (cancel(), finalize()).
StepWork::~StepWork() {
  if (state_) state_->busy = false;
}

void StepWork::Run() {
  outcome_ = state_->advance(steps_, [this] { return cancelled(); });
}

Napi::Value StepWork::Result(Napi::Env env) { return stepResult(env, outcome_); }

void StepWork::releaseState() noexcept {
  if (state_) state_->busy = false;
  state_.reset();
}

}  // namespace peclet_flow
