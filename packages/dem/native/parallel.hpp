#pragma once
/// \file
/// The parallel-for callback through which the caller lends threads.
///
/// The kernel never starts threads of its own. The host (a thread pool in the
/// Node binding, a `std::thread` pool in the C++ tests) supplies a
/// `ParallelFor`; the kernel splits its work into a fixed number of chunks
/// (`workers`) and calls `parallelFor(workers, body)`. Each chunk index is
/// processed exactly once; the kernel keys all per-chunk state by chunk index,
/// never by the `worker` argument, so results do not depend on how the host
/// schedules chunks onto threads.

#include <cstddef>
#include <functional>

namespace peclet::dem {

/// Body of a parallel loop: processes indices [begin, end) on thread `worker`.
using ParallelBody = std::function<void(std::size_t begin, std::size_t end, unsigned worker)>;

/// Runs `body` over [0, count), possibly split across threads, and returns
/// only when every index has been processed. It must not throw unless `body`
/// throws; an exception thrown by `body` should be rethrown to the caller.
using ParallelFor = std::function<void(std::size_t count, const ParallelBody& body)>;

/// Runs `body(0, count, 0)` on the calling thread.
inline void serialParallelFor(std::size_t count, const ParallelBody& body) {
  if (count > 0) body(0, count, 0);
}

}  // namespace peclet::dem
