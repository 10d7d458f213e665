// The JS class Network: a wrapped, releasable pore network whose arrays are
// handed to JS as zero-copy typed arrays, and the extract functions.
#pragma once

#include <atomic>
#include <memory>
#include <peclet/peclet.hpp>
#include <vector>

#include "../extract.hpp"
#include "../network.hpp"

namespace peclet_pnm {

/// Native state shared by the object, its exported arrays and async work.
struct NetworkState {
  explicit NetworkState(std::uint64_t env) : ledger("Network", env, 0) {}
  peclet::pnm::Network kernel;
  peclet::pnm::ExtractReport report;
  std::vector<double> conduitLengths;  // 3 per throat
  peclet::LedgerEntry ledger;
  void account() { ledger.resize(kernel.bytes() + conduitLengths.capacity() * sizeof(double)); }
};

class Network : public peclet::Object<Network> {
 public:
  static constexpr const char* ClassName = "Network";
  static Napi::Function Init(Napi::Env env);
  explicit Network(const Napi::CallbackInfo& info);

  /// A new JS Network over `state`.
  static Napi::Value Wrap(Napi::Env env, std::shared_ptr<NetworkState> state);

 protected:
  void dropNative() noexcept override { state_.reset(); }

 private:
  Napi::Value Counts(const Napi::CallbackInfo& info);
  Napi::Value Arrays(const Napi::CallbackInfo& info);
  Napi::Value Regions(const Napi::CallbackInfo& info);
  Napi::Value Info(const Napi::CallbackInfo& info);
  Napi::Value SizeFactors(const Napi::CallbackInfo& info);
  Napi::Value StokesFlow(const Napi::CallbackInfo& info);
  Napi::Value Diffusion(const Napi::CallbackInfo& info);
  Napi::Value Drainage(const Napi::CallbackInfo& info);
  Napi::Value InvasionPercolation(const Napi::CallbackInfo& info);

  std::shared_ptr<NetworkState> state_;
};

/// extract(solid: Uint8Array, options) → Network
Napi::Value Extract(const Napi::CallbackInfo& info);
/// extractAsync(solid, options) → { promise, cancel, stage() }
Napi::Value ExtractAsync(const Napi::CallbackInfo& info);

/// formationFactor(solid, { shape, axis, tolerance, maxIterations, threads }): diffusion on the
/// image's pore voxels (voxel_diffusion.hpp), on the module's pool.
Napi::Value FormationFactor(const Napi::CallbackInfo& info);

}  // namespace peclet_pnm
