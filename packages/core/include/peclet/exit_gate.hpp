// The exit gate: lets a process-wide teardown already under way on one
// thread finish before libc exit(), called on another thread, ends the
// process. Plain C++ (no Node-API): the atexit handler never touches JS.
//
// Deno's Jupyter kernel answers `shutdown_request` with exit(0) on its main
// thread while the JS thread may be finalizing every module for the interrupt
// (handleSignals()) that jupyter_client sent just before. Such a sequence
// first marks each module's env "teardown pending" (EnvState::markTeardownPending);
// libc exit() then runs this addon's atexit handler, which waits, bounded,
// until every pending env of this addon finalized on another thread. On every
// other path nothing is pending when exit() runs and the handler returns at once.
//
// The interrupt can also reach the process before the JS thread runs its
// listener (a busy thread: coupling's slices, a loaded machine) while exit(0)
// lands first. So handleSignals() also arms each env (armSignals): the gate
// then notes, from a handler chained in front of the runtime's own, that one
// of those signals arrived; exit() on another thread after that waits,
// bounded, for every armed env to finalize, since its listener will.
#pragma once

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime.hpp"
#include "trace.hpp"

namespace peclet {

/// How long the atexit handler waits for pending teardowns before it lets
/// exit() go on (the teardown is then cut short, never hung).
inline constexpr std::chrono::milliseconds kExitGateTimeout{5000};

class ExitGate;
inline ExitGate& exitGate();

/// Envs of this addon whose teardown started on a JS thread and has not
/// finished, by the thread that runs it. One per addon (hidden visibility).
class ExitGate {
 public:
  /// A teardown starts on the calling thread (which will also finish it);
  /// registers the atexit handler on first use. Returns that thread for done().
  std::thread::id pending() {
    const auto self = std::this_thread::get_id();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      threads_.push_back(self);
    }
    // Registered at the first teardown rather than at load: exit() runs atexit
    // handlers and static destructors in reverse order of registration, so the
    // handler runs before the destructor of every static the module built before
    // its teardown started, which the teardown may still use.
    std::call_once(registered_, [] { std::atexit(atExit); });
    return self;
  }

  /// A teardown marked by pending() on `thread` finished (the env finalized):
  /// also ends what armed() noted for it.
  void done(std::thread::id thread) noexcept {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto* list : {&threads_, &armed_}) {
        auto it = std::find(list->begin(), list->end(), thread);
        if (it != list->end()) list->erase(it);
      }
    }
    finished_.notify_all();
  }

  /// An env on the calling thread has handleSignals() listeners for `signals`
  /// (signal numbers): chains the watch in front of each one's handler and,
  /// once one of them arrived, makes exit() on another thread wait for the
  /// env's finalize. Returns the thread for done() / disarmed().
  std::thread::id armed(const std::vector<int>& signals) {
    const auto self = std::this_thread::get_id();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      armed_.push_back(self);
      for (int signal : signals) watch(signal);
    }
    std::call_once(registered_, [] { std::atexit(atExit); });
    return self;
  }

  /// Takes every watch of this addon out of the signals' handlers again, each
  /// where it is still in front (the runtime's listeners are about to go, and
  /// the runtime then acts as if the watch had never been there: Bun, for one,
  /// does not end the process by the re-raised signal with it in front). The
  /// addons unwind newest first, so each finds its own in front.
  void unwatch() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = watched_.rbegin(); it != watched_.rend(); ++it) {
      struct sigaction current {};
      if (sigaction(*it, nullptr, &current) != 0) continue;
      if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == onSignal)
        sigaction(*it, &previous_[*it], nullptr);
    }
    watched_.clear();
  }

  /// The env's listeners were removed without a teardown.
  void disarmed(std::thread::id thread) noexcept {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = std::find(armed_.begin(), armed_.end(), thread);
      if (it != armed_.end()) armed_.erase(it);
    }
    finished_.notify_all();
  }

  /// Waits until no teardown is pending on another thread, or `timeout`;
  /// after one of the armed signals arrived, until no env armed on another
  /// thread is left unfinalized either. One on the calling thread cannot
  /// finish while it waits (exit() called from inside it), so it is not
  /// waited for. Returns whether none is left.
  bool wait(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return finished_.wait_for(
        lock, timeout, [this] { return elsewhere(threads_) == 0 && (!signalSeen_.load() || elsewhere(armed_) == 0); });
  }

 private:
  static std::size_t elsewhere(const std::vector<std::thread::id>& list) {
    const auto self = std::this_thread::get_id();
    return static_cast<std::size_t>(
        std::count_if(list.begin(), list.end(), [self](std::thread::id t) { return t != self; }));
  }

  // Puts onSignal in front of the handler the runtime installed for its JS
  // listeners (libuv's, Deno's, Bun's); a signal with no handler (default or
  // ignored) is left alone. unwatch() takes it out before those listeners go;
  // arming again wraps the handler installed then.
  void watch(int signal) {
    if (signal <= 0 || signal >= NSIG) return;
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) != 0) return;
    if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == onSignal) return;
    if ((current.sa_flags & SA_SIGINFO) == 0 && (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN))
      return;
    previous_[signal] = current;
    struct sigaction mine = current;
    mine.sa_flags = (current.sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
    mine.sa_sigaction = onSignal;
    if (sigaction(signal, &mine, nullptr) == 0) watched_.push_back(signal);
  }

  // Async-signal-safe: a lock-free store, then the handler it wraps.
  static void onSignal(int signal, siginfo_t* info, void* context) {
    ExitGate& gate = exitGate();
    gate.signalSeen_.store(true);
    const struct sigaction& next = gate.previous_[signal];
    if ((next.sa_flags & SA_SIGINFO) != 0) {
      if (next.sa_sigaction != nullptr) next.sa_sigaction(signal, info, context);
    } else if (next.sa_handler != SIG_DFL && next.sa_handler != SIG_IGN && next.sa_handler != nullptr) {
      next.sa_handler(signal);
    }
  }

  static void atExit() noexcept;

  std::mutex mutex_;
  std::condition_variable finished_;
  std::vector<std::thread::id> threads_;  // pending teardowns
  std::vector<std::thread::id> armed_;    // envs with handleSignals() listeners
  std::vector<int> watched_;              // signals whose handler onSignal wraps
  std::atomic<bool> signalSeen_{false};
  struct sigaction previous_[NSIG] = {};  // the handlers onSignal wraps
  std::once_flag registered_;
};

/// This addon's gate. Never destroyed: its atexit handler runs while exit()
/// destroys statics, and a JS thread still finalizing signals it. Created by
/// the first teardown or arming (on a JS thread), so a signal handler only
/// ever finds it constructed.
inline ExitGate& exitGate() {
  static ExitGate* instance = new ExitGate();
  return *instance;
}

inline void ExitGate::atExit() noexcept {
  try {
    if (!exitGate().wait(kExitGateTimeout))
      traceLine("peclet:" + runtime().name() + " exit: a teardown under way on another thread did not finish within " +
                std::to_string(kExitGateTimeout.count()) + " ms; exit() goes on");
  } catch (...) {
    // A lock that cannot be taken: let exit() go on.
  }
}

}  // namespace peclet
