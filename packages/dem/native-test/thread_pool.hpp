#pragma once
// The kernel's ParallelFor over @peclet/core's thread pool (plain C++, no
// Node-API), for tests and benchmarks: the same pool the Node binding lends.

#include <peclet/testing.hpp>

#include "parallel.hpp"

namespace peclet::dem::testing {
using ThreadPool = ::peclet::testing::TestPool;
}  // namespace peclet::dem::testing
