// The JS class Lattice: a wrapped, releasable flow::Lattice whose fields are
// handed to JS as zero-copy typed arrays.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <peclet/peclet.hpp>

#include "../lattice.hpp"

namespace peclet_flow {

/// What one batch of steps reached.
struct StepOutcome {
  std::size_t steps = 0;
  bool cancelled = false;
  bool diverged = false;       // stopped before a step that would make the state non-finite
  std::size_t divergedAt = 0;  // that step's number
  peclet::flow::FlowMoments moments;
};

/// Native state shared by the object, its exported arrays and async work.
struct LatticeState {
  explicit LatticeState(std::uint64_t env) : ledger("Lattice", env, 0) {}

  std::unique_ptr<peclet::flow::Lattice> kernel;
  peclet::LedgerEntry ledger;
  unsigned threads = 0;  // 0: the whole pool
  std::atomic<bool> cancel{false};
  std::atomic<bool> dropped{false};  // released: work in flight stops
  std::atomic<bool> busy{false};     // async work owns the kernel
  std::function<bool()> shouldStop;  // polled between chunks (see peclet::lendPool)

  /// Steps; `stop` says when to give up (checked between steps). `atomic`:
  /// a step that would diverge sends the lattice back to where the call began.
  StepOutcome advance(std::size_t steps, std::function<bool()> stop, bool atomic, bool measure = true);
  void account() { ledger.resize(kernel ? kernel->bytes() : 0); }
};

class Lattice : public peclet::Object<Lattice> {
 public:
  static constexpr const char* ClassName = "Lattice";
  static Napi::Function Init(Napi::Env env);
  explicit Lattice(const Napi::CallbackInfo& info);

 protected:
  void dropNative() noexcept override;

 private:
  Napi::Value Step(const Napi::CallbackInfo& info);
  Napi::Value StepAsync(const Napi::CallbackInfo& info);
  Napi::Value Velocity(const Napi::CallbackInfo& info);
  Napi::Value Density(const Napi::CallbackInfo& info);
  Napi::Value Porosity(const Napi::CallbackInfo& info);
  Napi::Value Force(const Napi::CallbackInfo& info);
  Napi::Value SetBodyForce(const Napi::CallbackInfo& info);
  Napi::Value SetPressure(const Napi::CallbackInfo& info);
  Napi::Value Info(const Napi::CallbackInfo& info);
  Napi::Value Busy(const Napi::CallbackInfo& info);
  Napi::Value HaloSize(const Napi::CallbackInfo& info);
  Napi::Value PackHalo(const Napi::CallbackInfo& info);
  Napi::Value UnpackHalo(const Napi::CallbackInfo& info);
  Napi::Value RefreshFields(const Napi::CallbackInfo& info);
  Napi::Value SaveState(const Napi::CallbackInfo& info);
  Napi::Value RestoreState(const Napi::CallbackInfo& info);
  Napi::Value CheckStep(const Napi::CallbackInfo& info);
  /// copyHalo(plane, direction, array) with its arguments checked.
  void halo(const Napi::CallbackInfo& info, bool pack);

  /// Throws a TypeError when async work owns the kernel.
  void ensureIdle(Napi::Env env, const char* what) const;
  /// A field of the lattice's precision, zero-copy.
  Napi::Value field(Napi::Env env, void* data, std::size_t length);

  std::shared_ptr<LatticeState> state_;
};

/// JS object for a step outcome.
Napi::Object stepResult(Napi::Env env, const StepOutcome& outcome);
/// percolates(solid: Uint8Array, shape: number[3], axis: 0|1|2) → boolean
Napi::Value Percolates(const Napi::CallbackInfo& info);
/// labelPores(solid: Uint8Array, shape: number[3]) → Int32Array (-1 solid, else the component)
Napi::Value LabelPores(const Napi::CallbackInfo& info);
/// Throws the JS error for a kernel's FlowError.
[[noreturn]] void throwFlowError(Napi::Env env, const peclet::flow::FlowError& error);

}  // namespace peclet_flow
