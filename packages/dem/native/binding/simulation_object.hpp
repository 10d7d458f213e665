// The JS class Simulation: a wrapped, releasable dem::Simulation whose arrays
// are handed to JS as zero-copy typed arrays.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <peclet/peclet.hpp>

#include "../dem.hpp"

namespace peclet_dem {

/// What one call to `advance` asks for: up to `steps` steps, stopping early
/// once the mean translational kinetic energy per sphere, checked every
/// `checkInterval` steps, falls below `threshold` (never when threshold < 0).
struct AdvanceRequest {
  std::size_t steps = 0;
  double threshold = -1.0;
  std::size_t checkInterval = 0;
};

struct AdvanceOutcome {
  peclet::dem::StepReport report;
  bool settled = false;
  double kineticEnergyPerSphere = 0.0;
  peclet::dem::OverlapStatistics overlap;
  /// Set when the kernel refused the call (a non-finite external force):
  /// nothing changed.
  std::optional<peclet::dem::ValidationError> invalid;
};

/// Native state shared by the object, its exported arrays and async work.
struct SimulationState {
  explicit SimulationState(std::uint64_t env) : ledger("Simulation", env, 0) {}

  std::unique_ptr<peclet::dem::Simulation> kernel;
  peclet::LedgerEntry ledger;
  unsigned threads = 0;  // 0: the whole pool
  std::atomic<bool> cancel{false};
  std::atomic<bool> dropped{false};  // released: work in flight stops
  std::atomic<bool> busy{false};     // async work owns the kernel
  std::function<bool()> shouldStop;  // polled between chunks (see peclet::lendPool)

  /// Creates the kernel (throws DemError on invalid options).
  void create(peclet::dem::SimulationOptions options);
  /// Steps as asked; `stop` says when to give up (checked between chunks).
  AdvanceOutcome advance(const AdvanceRequest& request, std::function<bool()> stop);
  /// Updates the ledger with the kernel's approximate footprint.
  void account();
};

class Simulation : public peclet::Object<Simulation> {
 public:
  static constexpr const char* ClassName = "Simulation";
  static Napi::Function Init(Napi::Env env);
  explicit Simulation(const Napi::CallbackInfo& info);

 protected:
  void dropNative() noexcept override;

 private:
  Napi::Value AddSpheres(const Napi::CallbackInfo& info);
  Napi::Value Advance(const Napi::CallbackInfo& info);
  Napi::Value AdvanceAsync(const Napi::CallbackInfo& info);
  Napi::Value Deposit(const Napi::CallbackInfo& info);
  Napi::Value SphereCount(const Napi::CallbackInfo& info);
  Napi::Value Masses(const Napi::CallbackInfo& info);
  Napi::Value KineticEnergy(const Napi::CallbackInfo& info);
  Napi::Value TranslationalKineticEnergy(const Napi::CallbackInfo& info);
  Napi::Value ElasticEnergy(const Napi::CallbackInfo& info);
  Napi::Value Momentum(const Napi::CallbackInfo& info);
  Napi::Value Contacts(const Napi::CallbackInfo& info);
  Napi::Value CoordinationNumber(const Napi::CallbackInfo& info);
  Napi::Value PackingFraction(const Napi::CallbackInfo& info);
  Napi::Value Voxelize(const Napi::CallbackInfo& info);
  Napi::Value Timestep(const Napi::CallbackInfo& info);
  Napi::Value Time(const Napi::CallbackInfo& info);
  Napi::Value StepCount(const Napi::CallbackInfo& info);
  Napi::Value Busy(const Napi::CallbackInfo& info);
  Napi::Value ExternalForces(const Napi::CallbackInfo& info);
  Napi::Value Fixed(const Napi::CallbackInfo& info);
  Napi::Value OverlapStatistics(const Napi::CallbackInfo& info);

  /// Throws a TypeError when async work owns the kernel.
  void ensureIdle(Napi::Env env, const char* what) const;
  /// A per-sphere array of the kernel (PerSphere doubles each), exported zero-copy.
  using ArrayAccessor = const double* (peclet::dem::Simulation::*)() const;
  template <ArrayAccessor Accessor, std::size_t PerSphere>
  Napi::Value SphereArray(const Napi::CallbackInfo& info);

  std::shared_ptr<SimulationState> state_;
};

/// Throws the JS error (TypeError or RangeError with `argument` and `index`)
/// for an invalid input.
[[noreturn]] void throwInvalid(Napi::Env env, const peclet::dem::ValidationError& error);
/// JS object for a step outcome.
Napi::Object advanceResult(Napi::Env env, const AdvanceOutcome& outcome);

}  // namespace peclet_dem
