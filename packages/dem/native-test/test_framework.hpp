#pragma once
// Minimal test registry: TEST(name) { CHECK(...); } and a runner that prints
// one line per test and a final "N passed, M failed".

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace peclet::dem::testing {

struct TestCase {
  const char* name;
  std::function<void()> body;
};

inline std::vector<TestCase>& registry() {
  static std::vector<TestCase> tests;
  return tests;
}

struct Registrar {
  Registrar(const char* name, std::function<void()> body) { registry().push_back({name, std::move(body)}); }
};

struct Failure {
  std::string message;
};

inline void fail(const char* file, int line, const std::string& what) {
  throw Failure{std::string(file) + ":" + std::to_string(line) + ": " + what};
}

}  // namespace peclet::dem::testing

#define DEM_CONCAT_(a, b) a##b
#define DEM_CONCAT(a, b) DEM_CONCAT_(a, b)
#define TEST(name)                                                                    \
  static void name();                                                                 \
  static ::peclet::dem::testing::Registrar DEM_CONCAT(registrar_, name)(#name, name); \
  static void name()

#define CHECK(condition)                                                                         \
  do {                                                                                           \
    if (!(condition)) ::peclet::dem::testing::fail(__FILE__, __LINE__, "CHECK(" #condition ")"); \
  } while (0)

#define CHECK_NEAR(actual, expected, tolerance)                                                          \
  do {                                                                                                   \
    const double a_ = (actual), e_ = (expected), t_ = (tolerance);                                       \
    if (!(std::fabs(a_ - e_) <= t_)) {                                                                   \
      char buffer_[256];                                                                                 \
      std::snprintf(buffer_, sizeof buffer_, "%s = %.17g, expected %.17g +- %.3g", #actual, a_, e_, t_); \
      ::peclet::dem::testing::fail(__FILE__, __LINE__, buffer_);                                         \
    }                                                                                                    \
  } while (0)

// Prints a measured figure so that the test log records the numbers.
#define REPORT(...)           \
  do {                        \
    std::printf("    ");      \
    std::printf(__VA_ARGS__); \
    std::printf("\n");        \
  } while (0)
