// Lends the module's thread pool to the dem kernel, and raises the kernel's
// cancellation flag when the caller must stop (cancel, release, finalize, exit).
#pragma once

#include <atomic>
#include <functional>
#include <peclet/runtime.hpp>

#include "../parallel.hpp"

namespace peclet_dem {

/// A kernel ParallelFor over the module pool, on up to `threads` threads
/// (0: the whole pool). `shouldStop` is polled between chunks; once it says
/// stop, `flag` is raised and the kernel returns at the next whole step. The
/// pool never skips chunks: a step is always completed, so the state stays
/// consistent.
inline peclet::dem::ParallelFor poolParallelFor(const unsigned* threads, std::atomic<bool>* flag,
                                                const std::function<bool()>* shouldStop) {
  return [threads, flag, shouldStop](std::size_t count, const peclet::dem::ParallelBody& body) {
    peclet::runtime().pool().parallelFor(count, 1, body, *threads, [flag, shouldStop] {
      if (!flag->load(std::memory_order_relaxed) && *shouldStop && (*shouldStop)()) flag->store(true);
      return false;
    });
  };
}

}  // namespace peclet_dem
