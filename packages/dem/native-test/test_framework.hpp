#pragma once
// The kernel tests use @peclet/core's test registry: TEST(name) { CHECK(...); },
// CHECK_NEAR, REPORT; test_main.cpp runs them all.

#include <peclet/testing.hpp>

namespace peclet::dem::testing {
using namespace ::peclet::testing;
}  // namespace peclet::dem::testing
