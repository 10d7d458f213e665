// Module runtime: what one addon owns process-wide — its thread pool, its
// allocation ledger, its exiting latch and the count of native work in
// flight. Plain C++ (no Node-API): kernels and C++ unit tests can use it.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "ledger.hpp"
#include "thread_pool.hpp"

#if defined(__linux__)
#include <sched.h>
#endif

namespace peclet {

/// Threads this process may use when the TypeScript half has not said
/// (it passes the full CPU budget, cgroup quota included, at load):
/// PECLET_NUM_THREADS, then OMP_NUM_THREADS, then the affinity mask.
inline unsigned defaultThreadCount() noexcept {
  for (const char* name : {"PECLET_NUM_THREADS", "OMP_NUM_THREADS"}) {
    if (const char* v = std::getenv(name)) {
      long n = std::strtol(v, nullptr, 10);
      if (n > 0) return static_cast<unsigned>(std::min<long>(n, 1024));
    }
  }
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

/// One thread that runs a module's async work, one item at a time (each
/// item parallelizes on the pool). Started on first use, joined at finalize.
/// Async work runs here rather than on libuv's pool because Node waits for
/// every libuv request of a worker being terminated *before* it runs the
/// env's cleanup hooks — work there could never be told to stop.
class Executor {
 public:
  Executor() = default;
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  ~Executor() { stop(); }

  void post(std::function<void()> task) {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(task));
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    wake_.notify_one();
  }

  /// Lets go of the thread without joining it: the work it runs did not stop
  /// in time (finalize's wait is bounded). The thread keeps serving the queue
  /// until it sees a later stop(); what its work touches stays owned by that
  /// work, so nothing is freed under it.
  void abandon() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (thread_.joinable()) thread_.detach();
  }

  /// Runs what is queued (cancelled work returns at once), then joins.
  void stop() noexcept {
    std::lock_guard<std::mutex> serial(stopMutex_);
    std::thread thread;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      thread.swap(thread_);
    }
    wake_.notify_all();
    if (thread.joinable()) thread.join();
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = false;
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      std::function<void()> task = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::mutex stopMutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  std::thread thread_;
  bool stopping_ = false;
};

/// The runtime of one addon. Envs (the main thread, each worker) attach at
/// load and detach at their finalize; the last one to go finalizes the
/// runtime: latch exiting, wait for work, join the pool, close the ledger's
/// generation. A later env (a new worker) reopens it.
class ModuleRuntime {
 public:
  ModuleRuntime() { pool_.setSize(defaultThreadCount()); }
  ModuleRuntime(const ModuleRuntime&) = delete;
  ModuleRuntime& operator=(const ModuleRuntime&) = delete;

  // Never destroyed (see runtime()): a thread left running by a bounded
  // finalize, or a runtime whose finalize never ran, must not meet a static
  // destructor joining or freeing what it uses while exit() runs.
  ~ModuleRuntime() = default;

  void setName(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    name_ = name;
    ledger().setModuleName(name);
  }
  std::string name() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return name_;
  }

  ThreadPool& pool() noexcept { return pool_; }
  Executor& executor() noexcept { return executor_; }
  Ledger& allocations() noexcept { return ledger(); }

  /// True once the runtime is finalizing: no new work may start.
  bool exiting() const noexcept { return exiting_.load(std::memory_order_acquire); }
  bool finalized() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return finalized_;
  }

  /// An env starts using the module; reopens a finalized runtime.
  std::uint64_t attachEnv() {
    // Waits for a last env's detach in progress to finish, so that a new
    // env (a worker loading the addon) reopens a finalized runtime instead
    // of finding it half-finalized and refusing all work.
    std::lock_guard<std::mutex> serial(lifecycleMutex_);
    std::lock_guard<std::mutex> lock(mutex_);
    envs_++;
    if (finalized_) {
      finalized_ = false;
      exiting_.store(false, std::memory_order_release);
    }
    return ++nextEnvId_;
  }

  /// An env is done with the module. Returns true when it was the last one
  /// and the runtime is now finalized.
  bool detachEnv(std::chrono::milliseconds workTimeout) {
    std::lock_guard<std::mutex> serial(lifecycleMutex_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (envs_ > 0) envs_--;
      if (envs_ > 0 || finalized_) return false;
      exiting_.store(true, std::memory_order_release);
    }
    if (waitForWork(workTimeout)) {
      executor_.stop();
      pool_.stop();
    } else {
      // Work that ignores cancellation must not hang the exit: leave its
      // threads running (they own what they touch) and finish the finalize.
      traceLine("peclet:" + name() + " finalize: native work did not stop within " +
                std::to_string(workTimeout.count()) + " ms; its threads are left running");
      executor_.abandon();
      pool_.abandon();
    }
    allocations().finalizeGeneration();
    std::lock_guard<std::mutex> lock(mutex_);
    finalized_ = true;
    return true;
  }

  std::size_t envCount() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return envs_;
  }

  /// Bookkeeping of native work running off the JS thread.
  void workStarted() {
    std::lock_guard<std::mutex> lock(mutex_);
    inFlight_++;
  }
  void workFinished() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      inFlight_--;
    }
    workDone_.notify_all();
  }
  std::size_t workInFlight() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return inFlight_;
  }

  /// Waits until `done()` holds or `timeout` passes; `done` is re-checked
  /// each time a piece of work finishes. Returns whether it holds.
  template <typename Pred>
  bool waitUntil(Pred done, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return workDone_.wait_for(lock, timeout, [&] { return done(); });
  }

  /// Waits, bounded, for all in-flight work of every env.
  bool waitForWork(std::chrono::milliseconds timeout) {
    return waitUntil([this] { return inFlight_ == 0; }, timeout);
  }

  /// Monotonic ids for objects (`<Class>#<id>` in the trace).
  std::uint64_t nextObjectId() noexcept { return objectIds_.fetch_add(1, std::memory_order_relaxed) + 1; }

 private:
  mutable std::mutex mutex_;
  std::condition_variable workDone_;
  std::string name_ = "addon";
  ThreadPool pool_;
  Executor executor_;
  std::atomic<bool> exiting_{false};
  std::atomic<std::uint64_t> objectIds_{0};
  std::size_t envs_ = 0;
  std::size_t inFlight_ = 0;
  std::uint64_t nextEnvId_ = 0;
  bool finalized_ = false;
  std::mutex lifecycleMutex_;  // serializes attachEnv and the whole of detachEnv
};

/// The runtime of this addon (one per shared object: hidden visibility keeps
/// this static from being merged with another addon's).
inline ModuleRuntime& runtime() {
  // Allocated once and never destroyed: its threads are joined by finalize,
  // and at a process exit that skipped finalize (or left runaway work
  // behind) no static destructor may join or free what a thread still uses.
  static ModuleRuntime* instance = new ModuleRuntime();
  return *instance;
}

/// A parallel-for over this module's pool, lent to a plain-C++ kernel that
/// borrows its threads (the kernel's ParallelFor has this signature). It runs
/// `body` over [0, count) on up to `*threads` pool threads (0: the whole pool).
/// `*shouldStop` (may be empty) is polled between chunks; once it says stop,
/// `*flag` is raised for the kernel to see, and the kernel stops at its next
/// safe point. The pool itself never skips a chunk, so a kernel sees every
/// chunk of the step it started and its state stays consistent. The three
/// pointees must outlive every call of the returned function.
///
/// @code
///   options.parallelFor = peclet::lendPool(&threads, &cancel, &shouldStop);
/// @endcode
inline std::function<void(std::size_t, const ParallelBody&)> lendPool(const unsigned* threads, std::atomic<bool>* flag,
                                                                      const std::function<bool()>* shouldStop) {
  return [threads, flag, shouldStop](std::size_t count, const ParallelBody& body) {
    runtime().pool().parallelFor(count, 1, body, *threads, [flag, shouldStop] {
      if (!flag->load(std::memory_order_relaxed) && *shouldStop && (*shouldStop)()) flag->store(true);
      return false;
    });
  };
}

/// How long finalize waits for native work to notice cancellation before
/// it gives up waiting (the memory that work touches is then kept alive,
/// never freed under it). PECLET_FINALIZE_TIMEOUT_MS overrides.
inline std::chrono::milliseconds finalizeTimeout() noexcept {
  static const long ms = [] {
    const char* v = std::getenv("PECLET_FINALIZE_TIMEOUT_MS");
    long n = v ? std::strtol(v, nullptr, 10) : 0;
    return n > 0 ? n : 10000L;
  }();
  return std::chrono::milliseconds(ms);
}

}  // namespace peclet
