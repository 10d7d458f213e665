// Runs every registered test; exit status 1 when any fails.
#include <chrono>
#include <cstdio>
#include <exception>

#include "test_framework.hpp"

int main() {
  using namespace peclet::dem::testing;
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
