#include "tessellate.hpp"

#include <peclet/peclet.hpp>

#include "tessellation_object.hpp"

namespace peclet_voro {

namespace voro = peclet::voro;

namespace {

// One async tessellation: inputs copied on the JS thread, a fresh state
// computed off it, wrapped as a Tessellation back on it.
class TessellateWork : public peclet::TrackedWork {
 public:
  TessellateWork(Napi::Env env, Request request)
      : TrackedWork(env, "tessellateAsync"),
        request_(std::move(request)),
        state_(std::make_shared<TessellationState>(peclet::envState(env)->id())) {}

 protected:
  void Run() override {
    outcome_ = state_->run(request_, flag_, [this] { return cancelled(); });
    request_ = Request();  // the copy of the input is not needed any more
  }
  Napi::Value Result(Napi::Env env) override {
    if (outcome_.status == voro::Status::kInvalid) throwInvalid(env, outcome_.error);
    if (outcome_.status == voro::Status::kCancelled) throw Napi::Error::New(env, "tessellateAsync: cancelled");
    return Tessellation::Wrap(env, std::move(state_));
  }
  void releaseState() noexcept override {
    state_.reset();
    request_ = Request();
  }

 private:
  Request request_;
  std::shared_ptr<TessellationState> state_;
  std::atomic<bool> flag_{false};
  voro::Outcome outcome_;
};

}  // namespace

Napi::Value Tessellate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto envState = peclet::envState(env);
  if (envState->exiting()) throw envState->finalizedError("Tessellation");
  Request request = readRequest(info);
  auto state = std::make_shared<TessellationState>(envState->id());
  std::atomic<bool> flag{false};
  // The exiting latch is polled inside each cell's search, not only between cells.
  const voro::Outcome outcome = state->run(request, flag, [&envState] { return envState->exiting(); });
  if (outcome.status == voro::Status::kInvalid) throwInvalid(env, outcome.error);
  if (outcome.status == voro::Status::kCancelled) throw Napi::Error::New(env, "tessellate: cancelled by finalize()");
  return Tessellation::Wrap(env, std::move(state));
}

Napi::Value TessellateAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Request request = readRequest(info);
  return (new TessellateWork(env, std::move(request)))->Start();
}

}  // namespace peclet_voro
