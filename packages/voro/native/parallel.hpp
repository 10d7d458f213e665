#pragma once
/// @file parallel.hpp
/// How the kernel borrows threads: it never starts its own, the caller lends a parallel-for.

#include <atomic>
#include <cstddef>
#include <functional>

namespace peclet::voro {

/// Work over the half-open range [begin, end). `worker` is a small integer in
/// [0, Execution::workers) identifying the calling thread's scratch slot; two calls that run
/// at the same time must never share a worker index.
using ParallelBody = std::function<void(std::size_t begin, std::size_t end, unsigned worker)>;

/// Runs `body` over [0, count), split into ranges in any way and on any threads the caller
/// likes, and returns once every range has finished. Exceptions thrown by `body`
/// (only std::bad_alloc) must be propagated to the caller of the parallel-for.
using ParallelFor = std::function<void(std::size_t count, const ParallelBody& body)>;

/// The threads and the cancellation flag lent to one computation.
///
/// Example (serial):
/// @code
///   peclet::voro::Execution serial;            // workers = 1, no parallelFor: runs inline
/// @endcode
struct Execution {
  /// Number of distinct worker indices `parallelFor` may pass (>= 1). Scratch is sized by it.
  unsigned workers = 1;
  /// Optional; when empty, all work runs on the calling thread as worker 0.
  ParallelFor parallelFor;
  /// Optional; polled inside each cell's neighbour search, every ~1000 units of work (bins
  /// visited, points tested, planes cut), so even one runaway cell stops within microseconds.
  /// When it reads true the computation stops and returns Status::kCancelled.
  const std::atomic<bool>* cancel = nullptr;
  /// Optional; polled with `cancel`, from any worker thread (so it must be thread-safe and
  /// cheap): true stops the computation as `cancel` does. For a latch owned elsewhere (an
  /// environment that is exiting, an async work that was cancelled).
  std::function<bool()> shouldStop;
};

}  // namespace peclet::voro
