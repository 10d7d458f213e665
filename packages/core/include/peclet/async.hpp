// Tracked async work: a Napi::AsyncWorker whose native part runs off the JS
// thread and is known to the kernel, so finalize can cancel it and wait
// (bounded) for it before freeing anything it touches.
#pragma once

#include <napi.h>

#include <memory>
#include <string>

#include "env.hpp"

namespace peclet {

/// Base for async operations that resolve a Promise.
///
/// ```cpp
/// class Sum : public peclet::TrackedWork {
///  public:
///   Sum(Napi::Env env, std::shared_ptr<Data> d) : TrackedWork(env, "Sum"), d_(std::move(d)) {}
///   void Run() override { parallelFor(d_->n, 4096, [&](size_t b, size_t e, unsigned) { ... }); }
///   Napi::Value Result(Napi::Env env) override { return Napi::Number::New(env, d_->sum); }
/// };
/// return (new Sum(env, data))->Start();  // { promise, cancel }
/// ```
///
/// Keep what Run() touches alive through shared ownership (a shared_ptr to
/// the object's native state): release() then only drops the object's own
/// reference, and a work that outlives the finalize wait never sees freed memory.
class TrackedWork : public Napi::AsyncWorker {
 public:
  TrackedWork(Napi::Env env, const char* name)
      : Napi::AsyncWorker(env, name),
        state_(envState(env)),
        work_(std::make_shared<EnvState::Work>()),
        deferred_(Napi::Promise::Deferred::New(env)),
        name_(name) {
    if (state_->exiting()) throw state_->finalizedError(name);
  }

  /// Queues the work; returns `{ promise, cancel }` where `cancel()` asks
  /// the work to stop (its promise then rejects with a cancellation error).
  Napi::Object Start() {
    Napi::Env env = Env();
    state_->addWork(work_);
    runtime().workStarted();
    std::shared_ptr<EnvState::Work> work = work_;
    Napi::Object handle = Napi::Object::New(env);
    handle.Set("promise", deferred_.Promise());
    handle.Set("cancel", Napi::Function::New(env, [work](const Napi::CallbackInfo& info) {
                 work->cancel = true;
                 return info.Env().Undefined();
               }));
    Queue();
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

  /// Parallel loop on the module's thread pool that stops on cancellation.
  bool parallelFor(std::size_t count, std::size_t grain, const ParallelBody& body, unsigned threads = 0) {
    return runtime().pool().parallelFor(count, grain, body, threads, [this] { return cancelled(); });
  }

 private:
  void Execute() final {
    try {
      if (!cancelled()) Run();
    } catch (const std::bad_alloc&) {
      SetError(std::string(name_) + ": out of memory");
    } catch (const std::exception& e) {
      SetError(e.what());
    } catch (...) {
      SetError(std::string(name_) + ": unknown native error");
    }
    wasCancelled_ = cancelled();
    work_->done = true;
    runtime().workFinished();
  }

  // Completion runs on the JS thread, except while an env is torn down:
  // then no JS may run, so the promise is left alone.
  void OnWorkComplete(Napi::Env env, napi_status status) override {
    if (state_->inCleanup() || status == napi_cancelled) {
      work_->done = true;
      return;  // leaked on purpose: deleting handles during teardown is unsafe
    }
    try {
      Napi::HandleScope scope(env);
      if (wasCancelled_) {
        std::string why = state_->finalized() ? "cancelled: module " + state_->module() + " was finalized by finalize()"
                                              : std::string("cancelled");
        Napi::Error err = Napi::Error::New(env, std::string(name_) + " " + why);
        err.Set("code", Napi::String::New(env, "PECLET_CANCELLED"));
        deferred_.Reject(err.Value());
      } else if (!error_.empty()) {
        deferred_.Reject(Napi::Error::New(env, error_).Value());
      } else {
        deferred_.Resolve(Result(env));
      }
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    } catch (...) {
    }
    Destroy();
  }

  void OnError(const Napi::Error&) final {}
  void OnOK() final {}
  void SetError(const std::string& error) { error_ = error; }

  std::shared_ptr<EnvState> state_;
  std::shared_ptr<EnvState::Work> work_;
  Napi::Promise::Deferred deferred_;
  const char* name_;
  std::string error_;
  bool wasCancelled_ = false;
};

}  // namespace peclet
