// Host thread pool of a module: sized by the CPU budget, started on first
// use, joined by finalize. Never left to a static destructor: a joinable
// std::thread there calls std::terminate on every path that reaches exit().
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace peclet {

/// Body of a parallel loop: processes [begin, end) on worker `worker`
/// (0 = the calling thread; workers are distinct for per-thread scratch).
using ParallelBody = std::function<void(std::size_t begin, std::size_t end, unsigned worker)>;

/// A fixed set of threads running one parallel loop at a time. The calling
/// thread takes part, so a pool of size 1 starts no thread at all.
class ThreadPool {
 public:
  ThreadPool() = default;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool() { stop(); }  // backstop only: finalize stops it first

  /// Sets the number of threads a loop may use (the calling thread included).
  /// Takes effect at the next start.
  void setSize(unsigned size) {
    std::lock_guard<std::mutex> lock(mutex_);
    size_ = std::max(1u, size);
  }
  unsigned size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return size_;
  }
  bool started() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return !threads_.empty();
  }

  /// Runs body over [0, count) in chunks of `grain`, on up to `threads`
  /// threads (0 = the pool size). Chunks are not started once `cancel`
  /// returns true; returns false in that case. Loops from several callers
  /// are serialized. Exceptions from the body are rethrown to the caller.
  bool parallelFor(std::size_t count, std::size_t grain, const ParallelBody& body, unsigned threads,
                   const std::function<bool()>& cancel) {
    if (count == 0) return !cancel();
    grain = std::max<std::size_t>(1, grain);
    std::lock_guard<std::mutex> run(runMutex_);
    unsigned use = threads == 0 ? size() : std::min(threads, size());
    const std::size_t chunks = (count + grain - 1) / grain;
    use = static_cast<unsigned>(std::min<std::size_t>(use, chunks));
    if (use <= 1) return runChunks(count, grain, body, 0, cancel, nullptr);
    ensureStarted(use - 1);
    Job job;
    job.count = count;
    job.grain = grain;
    job.body = &body;
    job.cancel = &cancel;
    job.helpers = use - 1;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      epoch_++;
    }
    wake_.notify_all();
    bool ok = true;
    std::exception_ptr callerError;
    try {
      ok = runChunks(count, grain, body, 0, cancel, &job);
    } catch (...) {
      // The helpers must finish before the job (on this stack) and whatever
      // the body touches go away: take no more chunks, wait, then rethrow.
      callerError = std::current_exception();
      job.next.store(count, std::memory_order_relaxed);
    }
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // A helper that saw stop() never joins; the caller ran its chunks.
      done_.wait(lock, [&] { return job.finished == job.joined && (job.joined == job.helpers || stopping_); });
      job_ = nullptr;
    }
    if (callerError) std::rethrow_exception(callerError);
    if (job.error) std::rethrow_exception(job.error);
    return ok && !job.cancelled;
  }

  /// Lets go of every thread without joining (their loop did not stop in time);
  /// each exits by itself once its loop ends and it sees the stop flag. A
  /// later loop starts fresh threads.
  void abandon() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& t : threads_)
      if (t.joinable()) t.detach();
    threads_.clear();
  }

  /// Stops and joins every thread. Idempotent; the pool can start again later.
  void stop() noexcept {
    std::lock_guard<std::mutex> serial(stopMutex_);
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      threads.swap(threads_);
    }
    wake_.notify_all();
    done_.notify_all();
    for (auto& t : threads) {
      if (t.joinable()) t.join();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = false;
  }

 private:
  struct Job {
    std::size_t count = 0;
    std::size_t grain = 1;
    const ParallelBody* body = nullptr;
    const std::function<bool()>* cancel = nullptr;
    std::atomic<std::size_t> next{0};
    unsigned helpers = 0;
    unsigned joined = 0;       // guarded by mutex_
    unsigned finished = 0;     // guarded by mutex_
    bool cancelled = false;    // guarded by mutex_
    std::exception_ptr error;  // guarded by mutex_
  };

  // The chunk counter is shared through the job so every thread takes the
  // next unclaimed chunk; the caller uses a local counter when alone.
  static bool runChunks(std::size_t count, std::size_t grain, const ParallelBody& body, unsigned worker,
                        const std::function<bool()>& cancel, Job* job) {
    std::atomic<std::size_t> local{0};
    std::atomic<std::size_t>& next = job ? job->next : local;
    for (;;) {
      if (cancel()) return false;
      std::size_t begin = next.fetch_add(grain, std::memory_order_relaxed);
      if (begin >= count) return true;
      body(begin, std::min(count, begin + grain), worker);
    }
  }

  void ensureStarted(unsigned helpers) {
    std::lock_guard<std::mutex> lock(mutex_);
    while (threads_.size() < helpers) {
      unsigned index = static_cast<unsigned>(threads_.size()) + 1;
      threads_.emplace_back([this, index] { workerLoop(index); });
    }
  }

  void workerLoop(unsigned index) {
    std::uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || (job_ != nullptr && epoch_ != seen); });
      if (stopping_) return;
      seen = epoch_;
      Job* job = job_;
      if (job->joined >= job->helpers) continue;  // more threads than this loop asked for
      job->joined++;
      lock.unlock();
      bool ok = true;
      std::exception_ptr error;
      try {
        ok = runChunks(job->count, job->grain, *job->body, index, *job->cancel, job);
      } catch (...) {
        error = std::current_exception();
        job->next.store(job->count, std::memory_order_relaxed);  // the others stop at their next chunk
      }
      lock.lock();
      if (!ok) job->cancelled = true;
      if (error && !job->error) job->error = error;
      job->finished++;
      done_.notify_all();
    }
  }

  mutable std::mutex mutex_;
  std::mutex runMutex_;
  std::mutex stopMutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::vector<std::thread> threads_;
  Job* job_ = nullptr;
  std::uint64_t epoch_ = 0;
  unsigned size_ = 1;
  bool stopping_ = false;
};

}  // namespace peclet
