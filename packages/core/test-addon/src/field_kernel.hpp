// Plain C++ numerics of the test addon (no Node-API): a field of doubles.
#pragma once

#include <cmath>
#include <cstddef>

namespace peclet_test {

/// Fills values[i] = start + i * step.
inline void fillRamp(double* values, std::size_t begin, std::size_t end, double start, double step) {
  for (std::size_t i = begin; i < end; i++) values[i] = start + static_cast<double>(i) * step;
}

/// A deliberately costly per-element function, so async work takes long
/// enough to be interrupted: iterates x -> sqrt(x + 1) `rounds` times.
inline double relax(double x, unsigned rounds) {
  for (unsigned r = 0; r < rounds; r++) x = std::sqrt(x + 1.0);
  return x;
}

}  // namespace peclet_test
