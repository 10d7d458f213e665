// Per-env state of a module: the registry of live native objects, the
// zero-copy arrays handed to JS, tracked work, and the finalize sequence.
// Each env (the main thread, each worker) has its own.
#pragma once

#include <napi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "exit_gate.hpp"
#include "runtime.hpp"
#include "trace.hpp"

namespace peclet {

class EnvState;

/// Why a finalize runs; printed in the trace as `reason=<name>`.
enum class FinalizeReason { Explicit, Exit, Cleanup, Signal };

inline const char* reasonName(FinalizeReason r) noexcept {
  switch (r) {
    case FinalizeReason::Explicit:
      return "explicit";
    case FinalizeReason::Exit:
      return "exit";
    case FinalizeReason::Cleanup:
      return "cleanup";
    case FinalizeReason::Signal:
      return "signal";
  }
  return "explicit";
}

/// Anything that owns native state. Linked into its env's registry from
/// construction until it is released or collected; the registry never keeps
/// the JS object alive (it holds the native half only).
class Releasable {
 public:
  Releasable() = default;
  Releasable(const Releasable&) = delete;
  Releasable& operator=(const Releasable&) = delete;
  virtual ~Releasable() = default;

  /// Class name used in errors and the trace.
  virtual const char* className() const noexcept = 0;

  std::uint64_t id() const noexcept { return id_; }
  bool released() const noexcept { return released_; }
  /// Who released it: "release()" or "finalize()".
  const char* releasedBy() const noexcept { return releasedBy_; }

 protected:
  /// Drops the native state. Runs once; must not throw and must do no
  /// handle work (it also runs inside env cleanup hooks).
  virtual void dropNative() noexcept = 0;
  /// Detaches JS views of native memory. Runs only where JS handles may be
  /// used (release(), finalize() from JS), before dropNative().
  virtual void detachViews(napi_env) noexcept {}
  /// True once the JS object was garbage-collected (its finalizer may not
  /// have run yet: Node defers finalizers to the event loop).
  virtual bool wrapperCollected(napi_env) const noexcept { return false; }

 private:
  friend class Registry;
  friend class EnvState;
  template <typename T>
  friend class Object;
  Releasable* prev_ = nullptr;
  Releasable* next_ = nullptr;
  class Registry* registry_ = nullptr;
  std::uint64_t id_ = 0;
  bool released_ = false;
  const char* releasedBy_ = "";
};

/// Intrusive, newest-last list of an env's live releasables: O(1) add and
/// remove, no allocation per object, released newest first.
class Registry {
 public:
  void add(Releasable* r) noexcept {
    r->registry_ = this;
    r->prev_ = tail_;
    r->next_ = nullptr;
    if (tail_)
      tail_->next_ = r;
    else
      head_ = r;
    tail_ = r;
    size_++;
  }
  void remove(Releasable* r) noexcept {
    if (r->registry_ != this) return;
    if (r->prev_)
      r->prev_->next_ = r->next_;
    else
      head_ = r->next_;
    if (r->next_)
      r->next_->prev_ = r->prev_;
    else
      tail_ = r->prev_;
    r->prev_ = r->next_ = nullptr;
    r->registry_ = nullptr;
    size_--;
  }
  std::size_t size() const noexcept { return size_; }
  Releasable* newest() const noexcept { return tail_; }
  /// Calls `visit(r)` for every entry, oldest first; `visit` may remove `r`.
  template <typename Visit>
  void forEach(Visit visit) {
    for (Releasable* r = head_; r != nullptr;) {
      Releasable* next = r->next_;
      visit(r);
      r = next;
    }
  }

 private:
  Releasable* head_ = nullptr;
  Releasable* tail_ = nullptr;
  std::size_t size_ = 0;
};

/// A typed array handed to JS over native memory. The record co-owns that
/// memory (`owner`), because Node may free external buffers before cleanup
/// hooks run; finalize detaches the JS buffer, then drops the ownership.
struct ExportRecord {
  napi_ref buffer = nullptr;  // weak reference to the ArrayBuffer
  std::shared_ptr<const void> owner;
  bool collected = false;  // the ArrayBuffer's finalizer ran
};

/// Everything of one module in one env.
class EnvState : public std::enable_shared_from_this<EnvState> {
 public:
  EnvState(napi_env env, std::string module, std::string executionSpace)
      : env_(env), module_(std::move(module)), executionSpace_(std::move(executionSpace)) {
    envId_ = runtime().attachEnv();
  }

  napi_env env() const noexcept { return env_; }
  std::uint64_t id() const noexcept { return envId_; }
  const std::string& module() const noexcept { return module_; }
  const std::string& executionSpace() const noexcept { return executionSpace_; }
  Registry& registry() noexcept { return registry_; }
  bool finalized() const noexcept { return finalized_; }
  /// True once this env is finalizing: no new object or work may start.
  bool exiting() const noexcept { return exiting_.load(std::memory_order_relaxed) || runtime().exiting(); }
  /// True inside the cleanup hook: no handle work, no calls into JS.
  bool inCleanup() const noexcept { return inCleanup_; }

  /// The ReleasedError class of the TypeScript half (set at load), so
  /// native errors are `instanceof ReleasedError`.
  void setReleasedErrorClass(Napi::Function cls) { napi_create_reference(env_, cls, 1, &releasedErrorClass_); }

  /// Keeps a constructor so native code can create instances of a class.
  void setConstructor(const std::string& name, Napi::Function cls) {
    napi_ref ref = nullptr;
    napi_create_reference(env_, cls, 1, &ref);
    constructors_[name] = ref;
  }
  Napi::Function constructor(const std::string& name) const {
    auto it = constructors_.find(name);
    if (it == constructors_.end()) throw Napi::Error::New(env_, "peclet: unknown class " + name);
    napi_value value = nullptr;
    napi_get_reference_value(env_, it->second, &value);
    return Napi::Function(env_, value);
  }

  /// A `ReleasedError` (a TypeError) for `what`, released by `by`.
  Napi::Error releasedError(const std::string& className, std::uint64_t id, const std::string& by) const {
    std::string message = className + "#" + std::to_string(id) + " of module " + module_ + " was released by " + by +
                          (by == "finalize()" ? "; it can no longer be used" : "; create a new one to continue");
    return makeReleasedError(message, className, by);
  }
  /// The error for creating objects or starting work after finalize.
  Napi::Error finalizedError(const std::string& what) const {
    std::string message =
        "cannot create " + what + ": module " + module_ + " was finalized by finalize() and no new work may start";
    return makeReleasedError(message, what, "finalize()");
  }

  void add(Releasable* r) {
    r->id_ = runtime().nextObjectId();
    registry_.add(r);
  }

  /// Releases one object. With a JS env, views of its memory are detached
  /// first; inside a cleanup hook (env == nullptr) only native state drops.
  std::size_t release(Releasable* r, const char* by, napi_env jsEnv) noexcept {
    if (r->released_) return 0;
    r->released_ = true;
    r->releasedBy_ = by;
    if (jsEnv) r->detachViews(jsEnv);
    r->dropNative();
    registry_.remove(r);
    traceRelease(module_, r->className(), r->id_);
    return 1;
  }

  /// Registers a zero-copy export; prunes collected records as it goes.
  std::shared_ptr<ExportRecord> addExport() {
    if (exports_.size() >= pruneAt_) pruneExports();
    exports_.push_back(std::make_shared<ExportRecord>());
    return exports_.back();
  }

  /// Forgets the records of collected arrays (and their weak references).
  void pruneExports() noexcept {
    exports_.erase(std::remove_if(exports_.begin(), exports_.end(),
                                  [this](const std::shared_ptr<ExportRecord>& e) {
                                    if (!e->collected) return false;
                                    if (e->buffer) napi_delete_reference(env_, e->buffer);
                                    return true;
                                  }),
                   exports_.end());
    pruneAt_ = std::max<std::size_t>(64, exports_.size() * 2);
  }

  /// An export was handed out as a copy (external buffers refused): from now on the JS half
  /// keeps no view of this env, since a copy does not follow the native memory.
  void noteCopiedExport() noexcept { copiedExports_ = true; }
  bool copiedExports() const noexcept { return copiedExports_; }

  /// Records of exported arrays: all kept, and those whose array is still alive.
  std::pair<std::size_t, std::size_t> exportCounts() const noexcept {
    std::size_t alive = 0;
    for (const auto& e : exports_) alive += e->collected ? 0 : 1;
    return {exports_.size(), alive};
  }

  /// Detaches one export's ArrayBuffer (JS context only) and drops its
  /// co-ownership of the native memory.
  static void detach(napi_env env, ExportRecord& e) noexcept {
    if (env && e.buffer && !e.collected) {
      napi_value value = nullptr;
      if (napi_get_reference_value(env, e.buffer, &value) == napi_ok && value != nullptr) {
        napi_detach_arraybuffer(env, value);
      }
    }
    e.owner.reset();
  }

  /// Tracked async work of this env (see async.hpp).
  struct Work {
    std::atomic<bool> cancel{false};
    std::atomic<bool> done{false};
    // kQueued until the executor starts it (kRunning), or until finalize
    // claims it first (kSkipped): then Run() never happens, so finalize need
    // not wait for it behind another env's work on the module's executor.
    static constexpr int kQueued = 0, kRunning = 1, kSkipped = 2;
    std::atomic<int> phase{kQueued};
    bool settled() const noexcept { return done.load() || phase.load() == kSkipped; }
    // Drops what the work holds of native state; set while the work object
    // lives, called by finalize once the work is done or abandoned.
    std::function<void()> dropState;
  };
  void addWork(const std::shared_ptr<Work>& w) {
    works_.erase(std::remove_if(works_.begin(), works_.end(),
                                [](const std::shared_ptr<Work>& x) { return x->done.load() && !x->dropState; }),
                 works_.end());
    works_.push_back(w);
  }

  /// A process-wide teardown (every module of this thread, as handleSignals()
  /// runs it) starts and will finalize this env next: until that finalize
  /// completes, libc exit() called on another thread waits for it, bounded
  /// (see exit_gate.hpp). Env thread only; a no-op once finalized or marked.
  void markTeardownPending() {
    if (finalized_ || teardownPending_) return;
    teardownThread_ = exitGate().pending();
    teardownPending_ = true;
  }
  bool teardownPending() const noexcept { return teardownPending_; }

  /// handleSignals() listens for `signals` on this env's thread: once one of
  /// them arrives, libc exit() on another thread waits (bounded) for this
  /// env's finalize, which that listener runs (exit_gate.hpp). An empty list
  /// disarms and takes the addon's watch out of the handlers, finalized or
  /// not (the listeners are about to be removed). Env thread only.
  void armSignals(const std::vector<int>& signals) {
    if (signals.empty()) {
      exitGate().unwatch();
      if (armed_) exitGate().disarmed(armedThread_);
      armed_ = false;
      return;
    }
    if (finalized_) return;
    if (armed_) exitGate().disarmed(armedThread_);
    armedThread_ = exitGate().armed(signals);
    armed_ = true;
  }

  /// The finalize sequence for this env: latch, cancel and wait (bounded)
  /// for work, release every object newest first, detach every remaining
  /// view, then detach from the runtime (the last env finalizes it).
  /// Idempotent: returns the number released by this call.
  std::size_t finalize(FinalizeReason reason, napi_env jsEnv, std::size_t alsoReleased = 0) noexcept {
    if (finalized_) return 0;
    finalized_ = true;
    exiting_ = true;
    for (auto& w : works_) {
      w->cancel = true;
      int queued = Work::kQueued;
      w->phase.compare_exchange_strong(queued, Work::kSkipped);
    }
    // One bounded wait in all, whatever the kernels do (see detachEnv).
    const auto deadline = std::chrono::steady_clock::now() + finalizeTimeout();
    runtime().waitUntil(
        [this] {
          for (auto& w : works_)
            if (!w->settled()) return false;
          return true;
        },
        finalizeTimeout());
    // Work that finished, or will never run, but whose completion has not
    // run (the event loop stopped, or it waits behind other work) would keep
    // native state alive past finalize: drop it now.
    for (auto& w : works_) {
      if (w->settled() && w->dropState) w->dropState();
    }
    std::size_t released = alsoReleased;
    const char* by = "finalize()";
    while (Releasable* r = registry_.newest()) released += release(r, by, jsEnv);
    for (auto& e : exports_) detach(jsEnv, *e);
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    runtime().detachEnv(std::max(left, std::chrono::milliseconds(0)));
    if (jsEnv) syncExternalMemory();
    traceFinalize(module_, reasonName(reason), released, ledger().forEnv(envId_).liveBytes);
    // Last: an exit() waiting at the gate may end the process once this returns.
    if (teardownPending_ || armed_) {
      exitGate().done(teardownPending_ ? teardownThread_ : armedThread_);
      teardownPending_ = armed_ = false;
    }
    return released;
  }

  /// Marks the start of env teardown: no handle work from here on, and the
  /// completion channel is closed to the executor thread.
  void enterCleanup() noexcept {
    inCleanup_ = true;
    std::lock_guard<std::mutex> lock(completionMutex_);
    completionsClosed_ = true;
  }

  /// The channel that brings finished async work back to this env's JS
  /// thread. Created on first use; the env cleanup hook is then registered
  /// again so that it runs *before* the channel's own cleanup (hooks run
  /// last-in, first-out) and can still wait for work that uses it.
  napi_threadsafe_function completions(napi_env env, napi_threadsafe_function_call_js callJs) {
    if (completions_ != nullptr) return completions_;
    napi_value name = nullptr;
    napi_create_string_utf8(env, "peclet.completions", NAPI_AUTO_LENGTH, &name);
    napi_status status = napi_create_threadsafe_function(env, nullptr, nullptr, name, 0, 1, nullptr, nullptr, nullptr,
                                                         callJs, &completions_);
    if (status != napi_ok) throw Napi::Error::New(Napi::Env(env), "peclet: cannot create the completion channel");
    napi_unref_threadsafe_function(env, completions_);
    if (cleanupHook_ != nullptr) {
      napi_remove_env_cleanup_hook(env, cleanupHook_, cleanupArg_);
      napi_add_env_cleanup_hook(env, cleanupHook_, cleanupArg_);
    }
    return completions_;
  }

  /// Posts finished work to the JS thread; false once the env is torn down
  /// (the caller then keeps the work: nothing may run it any more).
  bool complete(void* work) noexcept {
    std::lock_guard<std::mutex> lock(completionMutex_);
    if (completionsClosed_ || completions_ == nullptr) return false;
    return napi_call_threadsafe_function(completions_, work, napi_tsfn_nonblocking) == napi_ok;
  }

  /// Keeps the event loop alive while work is pending (JS thread only).
  void workPending(napi_env env, int delta) {
    pending_ += delta;
    if (completions_ == nullptr) return;
    if (delta > 0 && pending_ == 1) napi_ref_threadsafe_function(env, completions_);
    if (delta < 0 && pending_ == 0) napi_unref_threadsafe_function(env, completions_);
  }

  /// Tells V8 how much native memory this env's objects hold (the ledger's
  /// live bytes for this env), so that a script dropping objects without
  /// release() gets them collected as their native memory grows, not only as
  /// their small JS wrappers do. JS thread only; cheap when nothing changed.
  ///
  /// Node runs the finalizers of collected objects only when the event loop
  /// turns, so a synchronous loop that drops objects would hold all their
  /// native memory until it ends, however often V8 collects. So once the
  /// native memory has grown by kSweepBytes since the last look, the objects
  /// whose wrappers V8 has already collected drop their native state right
  /// here (no trace line: collection is not a release); their finalizers
  /// later find nothing left to free.
  void syncExternalMemory() noexcept {
    if (inCleanup_) return;
    auto live = static_cast<std::int64_t>(ledger().forEnv(envId_).liveBytes);
    report(live);
    if (live - sweptAtBytes_ < kSweepBytes) {
      if (live < sweptAtBytes_) sweptAtBytes_ = live;
      return;
    }
    registry_.forEach([this](Releasable* r) {
      if (r->released_ || !r->wrapperCollected(env_)) return;
      r->dropNative();
      registry_.remove(r);
    });
    live = static_cast<std::int64_t>(ledger().forEnv(envId_).liveBytes);
    sweptAtBytes_ = live;
    report(live);
  }

  /// Remembers the cleanup hook so completions() can re-register it.
  void setCleanupHook(void (*hook)(void*), void* arg) noexcept {
    cleanupHook_ = hook;
    cleanupArg_ = arg;
  }

 private:
  Napi::Error makeReleasedError(const std::string& message, const std::string& className, const std::string& by) const {
    Napi::Env env(env_);
    if (releasedErrorClass_ != nullptr) {
      napi_value cls = nullptr;
      if (napi_get_reference_value(env_, releasedErrorClass_, &cls) == napi_ok && cls != nullptr) {
        Napi::Object details = Napi::Object::New(env);
        details.Set("module", module_);
        details.Set("className", className);
        details.Set("releasedBy", by);
        Napi::Value err = Napi::Function(env_, cls).New({Napi::String::New(env, message), details});
        return Napi::Error(env_, err);
      }
    }
    return Napi::TypeError::New(env, message);
  }

  napi_env env_;
  std::string module_;
  std::string executionSpace_;
  std::uint64_t envId_ = 0;
  Registry registry_;
  std::vector<std::shared_ptr<ExportRecord>> exports_;
  std::vector<std::shared_ptr<Work>> works_;
  std::size_t pruneAt_ = 64;
  bool copiedExports_ = false;
  std::map<std::string, napi_ref> constructors_;
  napi_ref releasedErrorClass_ = nullptr;
  bool finalized_ = false;
  bool teardownPending_ = false;  // marked, finalize not yet complete (env thread only)
  std::thread::id teardownThread_;
  bool armed_ = false;  // handleSignals() listens on this env's thread
  std::thread::id armedThread_;
  std::atomic<bool> exiting_{false};  // read by pool threads polling cancellation
  bool inCleanup_ = false;
  napi_threadsafe_function completions_ = nullptr;
  std::mutex completionMutex_;
  bool completionsClosed_ = false;
  int pending_ = 0;
  std::int64_t reportedBytes_ = 0;  // what V8 was last told (syncExternalMemory)
  std::int64_t sweptAtBytes_ = 0;   // live bytes after the last sweep of collected objects
  static constexpr std::int64_t kSweepBytes = std::int64_t(64) << 20;
  void report(std::int64_t live) noexcept {
    const std::int64_t delta = live - reportedBytes_;
    if (delta == 0) return;
    std::int64_t total = 0;
    if (napi_adjust_external_memory(env_, delta, &total) == napi_ok) reportedBytes_ = live;
  }
  void (*cleanupHook_)(void*) = nullptr;
  void* cleanupArg_ = nullptr;
};

/// The state of this module in `env` (set by install()).
inline std::shared_ptr<EnvState> envState(Napi::Env env) {
  auto* holder = env.GetInstanceData<std::shared_ptr<EnvState>>();
  if (holder == nullptr) throw Napi::Error::New(env, "peclet: module used before peclet::install()");
  return *holder;
}

}  // namespace peclet
