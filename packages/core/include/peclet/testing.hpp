#pragma once
/// \file
/// A minimal unit-test registry for the plain C++ kernels of the solver
/// packages (no Node-API): `TEST(name) { CHECK(...); }`, `PECLET_TEST_MAIN()`
/// in one file to run them all, and a ParallelFor over the kernel's own
/// thread pool so that tests drive kernels exactly as the bindings do.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "thread_pool.hpp"

namespace peclet::testing {

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

[[noreturn]] inline void fail(const char* file, int line, const std::string& what) {
  throw Failure{std::string(file) + ":" + std::to_string(line) + ": " + what};
}

/// Runs every registered test, one line each; returns the process status.
inline int runAll() {
  int passed = 0, failed = 0;
  for (const TestCase& test : registry()) {
    const auto start = std::chrono::steady_clock::now();
    std::printf("[ RUN  ] %s\n", test.name);
    std::fflush(stdout);
    try {
      test.body();
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("[ PASS ] %s (%.2f s)\n", test.name, seconds);
      ++passed;
    } catch (const Failure& failure) {
      std::printf("[ FAIL ] %s: %s\n", test.name, failure.message.c_str());
      ++failed;
    } catch (const std::exception& error) {
      std::printf("[ FAIL ] %s: exception: %s\n", test.name, error.what());
      ++failed;
    }
    std::fflush(stdout);
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

/// A ParallelFor (count, body) over a peclet::ThreadPool of `threads`.
class TestPool {
 public:
  explicit TestPool(unsigned threads) { pool_.setSize(threads); }
  unsigned size() const { return pool_.size(); }
  std::function<void(std::size_t, const ParallelBody&)> function() {
    return [this](std::size_t count, const ParallelBody& body) {
      pool_.parallelFor(count, 1, body, 0, [] { return false; });
    };
  }

 private:
  ThreadPool pool_;
};

}  // namespace peclet::testing

#define PECLET_TEST_CONCAT_(a, b) a##b
#define PECLET_TEST_CONCAT(a, b) PECLET_TEST_CONCAT_(a, b)
#define TEST(name)                                                                              \
  static void name();                                                                           \
  static ::peclet::testing::Registrar PECLET_TEST_CONCAT(peclet_registrar_, name)(#name, name); \
  static void name()

#define CHECK(condition)                                                                    \
  do {                                                                                      \
    if (!(condition)) ::peclet::testing::fail(__FILE__, __LINE__, "CHECK(" #condition ")"); \
  } while (0)

#define CHECK_NEAR(actual, expected, tolerance)                                                          \
  do {                                                                                                   \
    const double a_ = (actual), e_ = (expected), t_ = (tolerance);                                       \
    if (!(std::fabs(a_ - e_) <= t_)) {                                                                   \
      char buffer_[256];                                                                                 \
      std::snprintf(buffer_, sizeof buffer_, "%s = %.17g, expected %.17g +- %.3g", #actual, a_, e_, t_); \
      ::peclet::testing::fail(__FILE__, __LINE__, buffer_);                                              \
    }                                                                                                    \
  } while (0)

/// Records a measured figure in the test log.
#define REPORT(...)           \
  do {                        \
    std::printf("    ");      \
    std::printf(__VA_ARGS__); \
    std::printf("\n");        \
  } while (0)

/// Defines main() running every registered test.
#define PECLET_TEST_MAIN() \
  int main() { return ::peclet::testing::runAll(); }
