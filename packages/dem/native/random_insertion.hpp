#pragma once
/// \file
/// Random sequential insertion of non-overlapping spheres, and the portable
/// random transforms used by `deposit`.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "errors.hpp"
#include "options.hpp"

namespace peclet::dem {

/// Uniform double in [0, 1) from the top 53 bits of one draw (the same on
/// every platform, unlike std::uniform_real_distribution).
inline double uniform01(std::mt19937_64& engine) { return double(engine() >> 11) * (1.0 / 9007199254740992.0); }

/// Standard normal deviate (Box–Muller, one value per call).
double standardNormal(std::mt19937_64& engine);

/// Draws `count` radii from `distribution` (see `RadiusDistributionKind`).
/// Reads `cancel` every 4096 radii; returns no radii once it is set.
std::vector<double> drawRadii(const RadiusDistribution& distribution, std::size_t count, std::mt19937_64& engine,
                              const std::atomic<bool>* cancel = nullptr);

/// Spheres already present that new spheres must not overlap.
struct Obstacles {
  const double* positions = nullptr;  // 3M
  const double* radii = nullptr;      // M
  std::size_t count = 0;
};

/// Places spheres of `radii` one after another at uniformly random points of
/// `region` (centres at least r inside the region on non-periodic axes;
/// anywhere across a periodic axis when the region spans the whole box
/// there), rejecting trials that overlap an obstacle or an earlier sphere.
/// Writes 3N centres to `positions`. Returns an error (argument "count",
/// index = first sphere that could not be placed) after `maxAttempts`
/// consecutive rejections for one sphere. Reads `cancel` every 1024 trials;
/// once it is set, stops and sets `*cancelled` (positions are then partial).
std::optional<ValidationError> randomSequentialInsertion(const std::vector<double>& radii, const Box& box,
                                                         const std::array<bool, 3>& periodic, const Box& region,
                                                         const Obstacles& obstacles, std::size_t maxAttempts,
                                                         std::mt19937_64& engine, std::vector<double>& positions,
                                                         const std::atomic<bool>* cancel = nullptr,
                                                         bool* cancelled = nullptr);

}  // namespace peclet::dem
