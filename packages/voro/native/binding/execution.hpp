// Lends the module's thread pool to the voro kernel, and turns the kernel's
// cancellation flag on when the caller must stop (cancel, finalize, exit).
#pragma once

#include <atomic>
#include <functional>
#include <peclet/runtime.hpp>

#include "../parallel.hpp"

namespace peclet_voro {

/// An Execution over the module pool. `shouldStop` is polled between chunks;
/// once it says stop, the kernel's flag is raised and every remaining chunk
/// returns at once (the pool itself never skips chunks: the kernel must see
/// each one to know the results are incomplete).
inline peclet::voro::Execution poolExecution(unsigned threads, std::atomic<bool>& flag,
                                             std::function<bool()> shouldStop) {
  peclet::voro::Execution execution;
  execution.workers = peclet::runtime().pool().size();
  execution.cancel = &flag;
  execution.parallelFor = [threads, &flag, shouldStop](std::size_t count, const peclet::voro::ParallelBody& body) {
    peclet::runtime().pool().parallelFor(count, 1, body, threads, [&flag, &shouldStop] {
      if (!flag.load(std::memory_order_relaxed) && shouldStop()) flag.store(true);
      return false;
    });
  };
  return execution;
}

}  // namespace peclet_voro
