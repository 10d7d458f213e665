// Tracked async work: native work that runs off the JS thread and is known
// to the kernel, so finalize can cancel it and wait (bounded) for it before
// freeing anything it touches. Settles a Promise on the JS thread.
#pragma once

#include <napi.h>

#include <functional>
#include <memory>
#include <string>

#include "env.hpp"
#include "errors.hpp"

namespace peclet {

/// Base for async operations that resolve a Promise.
///
/// ```cpp
/// class Sum : public peclet::TrackedWork {
///  public:
///   Sum(Napi::Env env, std::shared_ptr<Data> d) : TrackedWork(env, "Sum"), d_(std::move(d)) {}
///   void Run() override { parallelFor(d_->n, 4096, [&](size_t b, size_t e, unsigned) { ... }); }
///   Napi::Value Result(Napi::Env env) override { return Napi::Number::New(env, d_->sum); }
///   void releaseState() noexcept override { d_.reset(); }
/// };
/// return (new Sum(env, data))->Start();  // { promise, cancel }
/// ```
///
/// Keep what Run() touches alive through shared ownership (a shared_ptr to
/// the object's native state): release() then only drops the object's own
/// reference, and a work that outlives the finalize wait never sees freed memory.
///
/// Run() executes on the module's executor thread, not on libuv's pool: Node
/// waits for libuv requests of a terminated worker before its cleanup hooks,
/// so work there could not be cancelled by them.
class TrackedWork {
 public:
  TrackedWork(Napi::Env env, const char* name)
      : env_(env),
        state_(envState(env)),
        work_(std::make_shared<EnvState::Work>()),
        deferred_(Napi::Promise::Deferred::New(env)),
        name_(name) {
    if (state_->exiting()) throw state_->finalizedError(name);
    work_->dropState = [this] { releaseState(); };
  }
  TrackedWork(const TrackedWork&) = delete;
  TrackedWork& operator=(const TrackedWork&) = delete;
  virtual ~TrackedWork() { work_->dropState = nullptr; }

  /// Queues the work and hands its ownership to the kernel; returns
  /// `{ promise, cancel }` where `cancel()` asks the work to stop (its
  /// promise then rejects with code PECLET_CANCELLED).
  Napi::Object Start() {
    std::unique_ptr<TrackedWork> self(this);
    Napi::Env env = env_;
    state_->completions(env, &TrackedWork::completeOnJsThread);
    std::shared_ptr<EnvState::Work> work = work_;
    Napi::Object handle = Napi::Object::New(env);
    handle.Set("promise", deferred_.Promise());
    handle.Set("cancel", Napi::Function::New(env, [work](const Napi::CallbackInfo& info) {
                 work->cancel = true;
                 return info.Env().Undefined();
               }));
    state_->addWork(work_);
    state_->workPending(env, +1);
    runtime().workStarted();
    TrackedWork* raw = self.release();
    runtime().executor().post([raw] { raw->execute(); });
    return handle;
  }

  /// True once the work should stop: cancelled, or its env/module is exiting.
  bool cancelled() const noexcept { return work_->cancel || state_->exiting(); }

 protected:
  /// The native part, off the JS thread. Check cancelled() between chunks;
  /// throw std::exception to reject with its message.
  virtual void Run() = 0;
  /// The resolved value, on the JS thread.
  virtual Napi::Value Result(Napi::Env env) { return env.Undefined(); }
  /// Drops the native state the work holds (its shared_ptrs). Called by
  /// finalize after Run() returned, when the completion may never run.
  virtual void releaseState() noexcept {}

  /// Parallel loop on the module's thread pool that stops on cancellation.
  bool parallelFor(std::size_t count, std::size_t grain, const ParallelBody& body, unsigned threads = 0) {
    return runtime().pool().parallelFor(count, grain, body, threads, [this] { return cancelled(); });
  }

 private:
  void execute() noexcept {
    // Finalize may have claimed the work while it was queued: then its state
    // is already dropped and Run() must not start.
    int queued = EnvState::Work::kQueued;
    const bool claimed = work_->phase.compare_exchange_strong(queued, EnvState::Work::kRunning);
    try {
      if (claimed && !cancelled()) Run();
    } catch (...) {
      // Nothing escapes the executor thread: the failure settles the promise.
      error_.capture(name_);
    }
    wasCancelled_ = !claimed || cancelled();
    std::shared_ptr<EnvState> state = state_;  // this may be deleted once posted
    work_->done = true;
    bool posted = state->complete(this);
    runtime().workFinished();
    // Not posted: the env is being torn down and this object is abandoned;
    // its memory is reclaimed with the process (or the thread's heap).
    (void)posted;
  }

  // On the JS thread; env is null while the env is torn down (then no JS).
  static void completeOnJsThread(napi_env env, napi_value, void*, void* data) {
    std::unique_ptr<TrackedWork> self(static_cast<TrackedWork*>(data));
    if (env == nullptr || self->state_->inCleanup()) return;
    // Every Node-API call may fail in an env that is stopping (and
    // node-addon-api then throws): nothing may escape into Node.
    try {
      Napi::HandleScope scope(env);
      self->state_->workPending(env, -1);
      self->settle(Napi::Env(env));
      self->state_->syncExternalMemory();
    } catch (...) {
    }
  }

  void settle(Napi::Env env) {
    if (wasCancelled_ || state_->finalized()) {
      std::string why = state_->finalized() ? "cancelled: module " + state_->module() + " was finalized by finalize()"
                                            : std::string("cancelled");
      Napi::Error err = Napi::Error::New(env, std::string(name_) + " " + why);
      err.Set("code", Napi::String::New(env, "PECLET_CANCELLED"));
      deferred_.Reject(err.Value());
    } else if (error_) {
      deferred_.Reject(error_.toJs(env).Value());
    } else {
      Napi::Value result;
      try {
        try {
          result = Result(env);
        } catch (...) {
          throwAsJs(env, name_);
        }
      } catch (const Napi::Error& e) {
        deferred_.Reject(e.Value());
        return;
      }
      deferred_.Resolve(result);
    }
  }

  Napi::Env env_;
  std::shared_ptr<EnvState> state_;
  std::shared_ptr<EnvState::Work> work_;
  Napi::Promise::Deferred deferred_;
  const char* name_;
  NativeFailure error_;
  bool wasCancelled_ = false;
};

/// Tracked work over an object's shared native state that has a `busy` flag
/// (std::atomic<bool>): the state is busy from construction until the work
/// has settled or been dropped, so the object's other methods can refuse to
/// touch it meanwhile. `compute(state, cancelled)` runs off the JS thread and
/// polls `cancelled` (cancel(), release, finalize, exit); `convert` turns its
/// outcome into the value the promise resolves with.
///
/// ```cpp
/// auto compute = [steps](LatticeState& s, const std::function<bool()>& stop) { return s.advance(steps, stop); };
/// return (new peclet::StateWork<LatticeState, StepOutcome>(env, "run", state_, compute, stepResult))->Start();
/// ```
template <typename State, typename Outcome>
class StateWork : public TrackedWork {
 public:
  using Compute = std::function<Outcome(State&, const std::function<bool()>& cancelled)>;
  using Convert = std::function<Napi::Value(Napi::Env, const Outcome&)>;

  StateWork(Napi::Env env, const char* name, std::shared_ptr<State> state, Compute compute, Convert convert)
      : TrackedWork(env, name), state_(std::move(state)), compute_(std::move(compute)), convert_(std::move(convert)) {
    state_->busy = true;
  }
  // After the promise settled, resolved or rejected (cancel(), finalize()).
  ~StateWork() override {
    if (state_) state_->busy = false;
  }

 protected:
  void Run() override {
    outcome_ = compute_(*state_, [this] { return cancelled(); });
  }
  Napi::Value Result(Napi::Env env) override { return convert_(env, outcome_); }
  void releaseState() noexcept override {
    if (state_) state_->busy = false;
    state_.reset();
  }

 private:
  std::shared_ptr<State> state_;
  Compute compute_;
  Convert convert_;
  Outcome outcome_{};
};

}  // namespace peclet
