// advanceAsync(): steps a Simulation on the module's executor thread and
// thread pool as one tracked async work.
#pragma once

#include <memory>
#include <peclet/peclet.hpp>

#include "simulation_object.hpp"

namespace peclet_dem {

/// One slice of stepping off the JS thread. The simulation is marked busy
/// from Start() until the completion runs (or the work is dropped), so no
/// other call touches the kernel meanwhile. Cancellation (cancel(), release,
/// finalize, exit) reaches the kernel through its flag: it stops at the next
/// whole step.
class StepWork : public peclet::TrackedWork {
 public:
  StepWork(Napi::Env env, std::shared_ptr<SimulationState> state, AdvanceRequest request);
  ~StepWork() override;

 protected:
  void Run() override;
  Napi::Value Result(Napi::Env env) override;
  void releaseState() noexcept override;

 private:
  std::shared_ptr<SimulationState> state_;
  AdvanceRequest request_;
  AdvanceOutcome outcome_;
};

}  // namespace peclet_dem
