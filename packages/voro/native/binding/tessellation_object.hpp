// The JS class Tessellation: a wrapped, releasable voro::Tessellation whose
// results are handed to JS as zero-copy typed arrays.
#pragma once

#include <memory>
#include <peclet/peclet.hpp>
#include <vector>

#include "../tessellation.hpp"

namespace peclet_voro {

/// Inputs of one tessellation, checked and copied from JS.
struct Request {
  std::vector<double> points;
  std::vector<double> radii;
  bool hasRadii = false;
  peclet::voro::Box box;
  unsigned threads = 0;  // 0: the whole pool
};

/// Native state shared by the object, its exported arrays and async work.
struct TessellationState {
  explicit TessellationState(std::uint64_t env) : ledger("Tessellation", env, 0) {}
  peclet::voro::Tessellation kernel;
  std::vector<std::int32_t> offsets32;  // neighborOffsets as Int32 for JS
  peclet::LedgerEntry ledger;
  peclet::voro::Box box;
  unsigned threads = 0;

  /// Runs the kernel; throws a JS-ready description on invalid input.
  peclet::voro::Outcome run(const Request& request, std::atomic<bool>& cancel, std::function<bool()> shouldStop);
  peclet::voro::Outcome update(const double* points, std::atomic<bool>& cancel, std::function<bool()> shouldStop);
  void account();
};

class Tessellation : public peclet::Object<Tessellation> {
 public:
  static constexpr const char* ClassName = "Tessellation";
  static Napi::Function Init(Napi::Env env);
  explicit Tessellation(const Napi::CallbackInfo& info);

  /// A new JS Tessellation over `state`.
  static Napi::Value Wrap(Napi::Env env, std::shared_ptr<TessellationState> state);

 protected:
  void dropNative() noexcept override { state_.reset(); }

 private:
  Napi::Value Size(const Napi::CallbackInfo& info);
  Napi::Value Volumes(const Napi::CallbackInfo& info);
  Napi::Value Centroids(const Napi::CallbackInfo& info);
  Napi::Value NeighborOffsets(const Napi::CallbackInfo& info);
  Napi::Value Neighbors(const Napi::CallbackInfo& info);
  Napi::Value FaceAreas(const Napi::CallbackInfo& info);
  Napi::Value Cell(const Napi::CallbackInfo& info);
  Napi::Value Update(const Napi::CallbackInfo& info);
  Napi::Value Stats(const Napi::CallbackInfo& info);

  std::shared_ptr<TessellationState> state_;
};

/// Reads and checks (points, box, periodic, radii, threads) from JS.
Request readRequest(const Napi::CallbackInfo& info);
/// Throws the JS error for an invalid-input outcome.
[[noreturn]] void throwInvalid(Napi::Env env, const peclet::voro::ValidationError& error);

}  // namespace peclet_voro
