#pragma once
// A minimal test registry: TEST(name) { CHECK(...); }, run by test_main.cpp.

#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "../native/voro.hpp"

struct TestCase {
  const char* name;
  void (*fn)();
};
std::vector<TestCase>& testRegistry();
extern int gCheckFailures;

struct TestRegistrar {
  TestRegistrar(const char* name, void (*fn)()) { testRegistry().push_back({name, fn}); }
};

#define TEST(name)                                     \
  static void name();                                  \
  static TestRegistrar registrar_##name(#name, &name); \
  static void name()

#define CHECK(cond)                                                           \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::printf("    CHECK failed %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      ++gCheckFailures;                                                       \
    }                                                                         \
  } while (0)

// Uniform random points in a box (deterministic for a seed).
inline std::vector<double> randomPoints(std::size_t n, const peclet::voro::Box& box, unsigned long long seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> xyz(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) xyz[3 * i + a] = box.min[a] + u(rng) * (box.max[a] - box.min[a]);
  return xyz;
}

inline peclet::voro::Box makeBox(double lo, double hi, bool px, bool py, bool pz) {
  peclet::voro::Box b;
  for (int a = 0; a < 3; ++a) {
    b.min[a] = lo;
    b.max[a] = hi;
  }
  b.periodic[0] = px;
  b.periodic[1] = py;
  b.periodic[2] = pz;
  return b;
}
