// stepAsync(): steps a Lattice on the module's executor thread and thread
// pool as one tracked async work.
#pragma once

#include <memory>
#include <peclet/peclet.hpp>

#include "lattice_object.hpp"

namespace peclet_flow {

/// One batch of steps off the JS thread. The lattice is marked busy from
/// Start() until the completion runs (or the work is dropped), so no other
/// call touches the kernel meanwhile. Cancellation (cancel(), release,
/// finalize, exit) stops it at the next whole step.
class StepWork : public peclet::TrackedWork {
 public:
  StepWork(Napi::Env env, std::shared_ptr<LatticeState> state, std::size_t steps);
  ~StepWork() override;

 protected:
  void Run() override;
  Napi::Value Result(Napi::Env env) override;
  void releaseState() noexcept override;

 private:
  std::shared_ptr<LatticeState> state_;
  std::size_t steps_;
  StepOutcome outcome_;
};

}  // namespace peclet_flow
