#pragma once
// A small std::thread pool providing the kernel's ParallelFor, for tests and benchmarks
// (the Node binding lends the @peclet/core runtime's pool instead).

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "../native/parallel.hpp"

class ThreadPool {
 public:
  explicit ThreadPool(unsigned workers) : workers_(workers ? workers : 1) {
    for (unsigned w = 1; w < workers_; ++w) threads_.emplace_back([this, w] { loop(w); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  unsigned workers() const { return workers_; }

  /// An Execution lending this pool.
  peclet::voro::Execution execution(const std::atomic<bool>* cancel = nullptr) {
    peclet::voro::Execution e;
    e.workers = workers_;
    e.parallelFor = [this](std::size_t n, const peclet::voro::ParallelBody& body) { run(n, body); };
    e.cancel = cancel;
    return e;
  }

  // Ranges of one item are claimed dynamically; the caller works as worker 0.
  void run(std::size_t n, const peclet::voro::ParallelBody& body) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      body_ = &body;
      count_ = n;
      next_.store(0);
      pending_ = workers_ - 1;
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    work(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    body_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void work(unsigned w) {
    try {
      for (std::size_t i; (i = next_.fetch_add(1)) < count_;) (*body_)(i, i + 1, w);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
      next_.store(count_);
    }
  }
  void loop(unsigned w) {
    unsigned long seen = 0;
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      work(w);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_.notify_all();
    }
  }

  unsigned workers_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const peclet::voro::ParallelBody* body_ = nullptr;
  std::size_t count_ = 0;
  std::atomic<std::size_t> next_{0};
  unsigned pending_ = 0;
  unsigned long generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};
