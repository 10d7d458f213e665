// Runs every registered test and prints "N passed, M failed" as the last line.
#include <chrono>

#include "test_framework.hpp"

std::vector<TestCase>& testRegistry() {
  static std::vector<TestCase> registry;
  return registry;
}
int gCheckFailures = 0;

int main(int argc, char** argv) {
  int passed = 0, failed = 0;
  for (const TestCase& t : testRegistry()) {
    if (argc > 1 && std::string(t.name).find(argv[1]) == std::string::npos) continue;
    const int before = gCheckFailures;
    const auto start = std::chrono::steady_clock::now();
    try {
      t.fn();
    } catch (const std::exception& e) {
      std::printf("    exception: %s\n", e.what());
      ++gCheckFailures;
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const bool ok = gCheckFailures == before;
    std::printf("%s %s (%.0f ms)\n", ok ? "ok  " : "FAIL", t.name, ms);
    (ok ? passed : failed)++;
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
