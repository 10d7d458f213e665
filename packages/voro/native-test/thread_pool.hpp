#pragma once
// The kernel's Execution over @peclet/core's thread pool (plain C++, no
// Node-API), for tests and benchmarks: the same pool the Node binding lends.

#include <atomic>
#include <peclet/thread_pool.hpp>

#include "../native/parallel.hpp"

class ThreadPool {
 public:
  explicit ThreadPool(unsigned workers) { pool_.setSize(workers); }
  unsigned workers() const { return pool_.size(); }

  /// An Execution lending this pool; chunks of one item are claimed dynamically.
  peclet::voro::Execution execution(const std::atomic<bool>* cancel = nullptr) {
    peclet::voro::Execution e;
    e.workers = pool_.size();
    e.parallelFor = [this](std::size_t n, const peclet::voro::ParallelBody& body) {
      pool_.parallelFor(n, 1, body, 0, [] { return false; });
    };
    e.cancel = cancel;
    return e;
  }

 private:
  peclet::ThreadPool pool_;
};
