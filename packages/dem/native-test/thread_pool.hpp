#pragma once
// A small std::thread pool that provides the kernel's ParallelFor for tests
// and benchmarks (the Node binding supplies its own pool).

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "parallel.hpp"

namespace peclet::dem::testing {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads) : threads_(threads < 1 ? 1 : threads) {
    for (unsigned t = 1; t < threads_; ++t) workers_.emplace_back([this, t] { run(t); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return threads_; }

  /// Splits [0, count) into one contiguous block per thread; block 0 runs on
  /// the calling thread. Rethrows the first exception a block threw.
  void parallelFor(std::size_t count, const ParallelBody& body) {
    if (threads_ == 1 || count <= 1) {
      body(0, count, 0);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      body_ = &body;
      count_ = count;
      pending_ = threads_ - 1;
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    runBlock(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    body_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

  /// A ParallelFor bound to this pool.
  ParallelFor function() {
    return [this](std::size_t count, const ParallelBody& body) { parallelFor(count, body); };
  }

 private:
  void runBlock(unsigned t) {
    const std::size_t begin = count_ * t / threads_, end = count_ * (t + 1) / threads_;
    if (begin == end) return;
    try {
      (*body_)(begin, end, t);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }
  void run(unsigned t) {
    unsigned long seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
      }
      runBlock(t);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (--pending_ == 0) done_.notify_one();
      }
    }
  }

  unsigned threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const ParallelBody* body_ = nullptr;
  std::size_t count_ = 0;
  unsigned pending_ = 0;
  unsigned long generation_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace peclet::dem::testing
