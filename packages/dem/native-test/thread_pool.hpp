#pragma once
// The kernel's ParallelFor over @peclet/core's thread pool (plain C++, no
// Node-API), for tests and benchmarks: the same pool the Node binding lends.

#include <peclet/thread_pool.hpp>

#include "parallel.hpp"

namespace peclet::dem::testing {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads) { pool_.setSize(threads); }
  unsigned size() const { return pool_.size(); }

  /// A ParallelFor bound to this pool; chunks are claimed dynamically.
  ParallelFor function() {
    return [this](std::size_t count, const ParallelBody& body) {
      pool_.parallelFor(count, 1, body, 0, [] { return false; });
    };
  }

 private:
  peclet::ThreadPool pool_;
};

}  // namespace peclet::dem::testing
